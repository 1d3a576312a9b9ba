//! Wire types of the inspect operations: the snapshot (JSON or text), summary, find, and the
//! screenshot queries.

// The fields and variants of these wire types are described by the API schema, where
// descriptions are kept short on purpose (token budget).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::device::Device;
use crate::ui::select::ScoredMatch;
use crate::ui::summary::ScreenSummary;
use crate::ui::{Alert, CoordinateSpace, Offscreen, Rect, Size};

/// Output format of `GET /ui`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum UiFormat {
    #[default]
    Json,
    /// The compact tree as `text/plain`, one line per element, refs as `[ref=e12]`.
    Text,
}

/// Query of `GET /ui`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct UiQuery {
    pub udid: Option<String>,
    #[param(inline)]
    pub format: Option<UiFormat>,
    /// Only the elements an agent can act on.
    #[serde(default)]
    pub interactive_only: bool,
}

pub use crate::ui::ElementView;

/// One read of the screen.
#[derive(Debug, Serialize, ToSchema)]
pub struct SnapshotView {
    /// Pass it with a ref to detect a stale read (`409 STALE_REFERENCE`).
    pub snapshot_id: String,
    pub taken_at: String,
    pub device: Device,
    /// Foreground package / bundle id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Focused activity or window (Android).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
    /// The tool that read the screen (`uiautomator`, `uiautomator2-server` (the resident
    /// helper), `axe`, `idb`, `wda`).
    pub source: String,
    /// What to know about how this read went (the resident helper failed and `uiautomator
    /// dump` read instead).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `pixels` (Android) or `points` (iOS): the unit of every bounds and tap.
    pub coordinate_space: CoordinateSpace,
    pub screen: Size,
    pub fingerprint: String,
    /// The compact text: one line per element.
    pub tree_text: String,
    /// The listed elements, in reading order.
    pub elements: Vec<ElementView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alert: Option<Alert>,
    pub keyboard_visible: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyboard: Option<Rect>,
    /// Ref of the focused element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focused: Option<String>,
    /// Interactive elements scrolled out of view, by direction.
    pub offscreen: Offscreen,
    /// How long the device took to dump its UI.
    pub dump_ms: u64,
}

/// Query of the summary.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DeviceQuery {
    pub udid: Option<String>,
}

/// A screen summary with its snapshot id.
#[derive(Debug, Serialize, ToSchema)]
pub struct SummaryView {
    pub snapshot_id: String,
    #[serde(flatten)]
    pub summary: ScreenSummary,
}

/// Query of `find`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct FindQuery {
    pub udid: Option<String>,
    /// Free text: matched against labels, texts and ids (exact > contains > fuzzy).
    #[param(min_length = 1)]
    pub query: String,
    /// Most matches to return (default 10).
    pub limit: Option<usize>,
}

/// Matches of a search, best first.
#[derive(Debug, Serialize, ToSchema)]
pub struct FindResult {
    pub snapshot_id: String,
    /// Whether an element holds the query (an `exact` or `contains` match). False: nothing
    /// on screen does, and `matches` are only fuzzy look-alikes.
    pub found: bool,
    pub matches: Vec<ScoredMatch>,
}

/// Image encoding.
#[derive(Debug, Clone, Copy, Default, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    #[default]
    Png,
    Jpeg,
}

/// How to capture and encode.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ScreenshotQuery {
    pub udid: Option<String>,
    /// `png` (default) or `jpeg`.
    #[param(inline)]
    pub format: Option<ImageFormat>,
    /// JPEG quality 1–100 (default 80).
    #[param(minimum = 1, maximum = 100)]
    pub quality: Option<u8>,
    /// 0.1–1.0; wins over `max_size`.
    #[param(minimum = 0.1, maximum = 1.0)]
    pub scale: Option<f32>,
    /// Longest edge in pixels; never upscales.
    #[param(minimum = 16, maximum = 16384)]
    pub max_size: Option<u32>,
}

/// How to capture, annotate and encode.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct AnnotatedQuery {
    pub udid: Option<String>,
    #[param(inline)]
    pub format: Option<ImageFormat>,
    #[param(minimum = 1, maximum = 100)]
    pub quality: Option<u8>,
    #[param(minimum = 0.1, maximum = 1.0)]
    pub scale: Option<f32>,
    #[param(minimum = 16, maximum = 16384)]
    pub max_size: Option<u32>,
    /// Box only the elements an agent can act on.
    #[serde(default)]
    pub interactive_only: bool,
    /// Overlay a grid of lettered columns and numbered rows; tap a cell with `{"grid": "C5"}`.
    #[serde(default)]
    pub grid: bool,
}
