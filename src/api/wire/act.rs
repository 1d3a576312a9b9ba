//! Wire types of the act operations: tap, tap-element, long-press, swipe, scroll, scroll-to,
//! press, hide-keyboard ([`TypeOptions`] is type's body), and what they answer ([`ActionResult`],
//! where [`Target`] says what an action aims at).

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use utoipa::ToSchema;

use crate::device::{Key, Point};
use crate::error::ErrorCode;
use crate::ui::diff::Changes;
use crate::ui::select::Selector;
use crate::ui::Role;

/// Whether an action reads the screen afterwards, and how long it lets the screen settle
/// first: the same two fields on every act request.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct ObserveOptions {
    /// Read the screen afterwards: `fingerprint_after` and the `changes` (one round trip with
    /// the action on Android).
    #[serde(default)]
    pub observe: bool,
    /// With `observe`: milliseconds to let the screen settle before the read (default: 0 on
    /// Android, whose dump waits for the UI to be idle; 300 elsewhere; at most 5000).
    pub settle_ms: Option<u64>,
    /// Measure what the action cost the foreground app (frames, janky frames, longest frame,
    /// CPU) from just before it to just after it and its read: answered in `perf`.
    #[serde(default)]
    pub measure: bool,
}

/// Tap an element or a point.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
pub struct TapRequest {
    pub udid: Option<String>,
    #[serde(flatten)]
    pub target: Target,
    #[serde(flatten)]
    pub after: ObserveOptions,
}

/// Tap the element with this accessibility label, identifier and/or type.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
// Unknown fields are refused by the strict body check (`crate::api::strict`), which serde's
// `deny_unknown_fields` cannot do beside a flattened field.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TapElementRequest {
    pub udid: Option<String>,
    /// Accessibility label, text or content-desc.
    pub label: Option<String>,
    /// resource-id (Android) or accessibilityIdentifier (iOS).
    pub identifier: Option<String>,
    /// Role of the element (`button`, `textbox`, `cell`…).
    pub element_type: Option<Role>,
    /// Match the label as a substring.
    #[serde(default)]
    pub contains: bool,
    /// Pick the n-th match (0-based) instead of failing on ambiguity.
    pub index: Option<usize>,
    #[serde(flatten)]
    pub after: ObserveOptions,
}

/// Long-press an element or a point.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
pub struct LongPressRequest {
    pub udid: Option<String>,
    #[serde(flatten)]
    pub target: Target,
    /// How long to hold, in milliseconds (default 1000).
    pub duration_ms: Option<u64>,
    #[serde(flatten)]
    pub after: ObserveOptions,
}

/// Swipe from a point to a point, or across a target in a direction.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
pub struct SwipeRequest {
    pub udid: Option<String>,
    pub from: Option<Point>,
    pub to: Option<Point>,
    /// With a target: which way the content should move into view.
    pub direction: Option<Direction>,
    #[serde(flatten)]
    pub target: Target,
    /// Default 300 ms.
    pub duration_ms: Option<u64>,
    #[serde(flatten)]
    pub after: ObserveOptions,
}

/// Scroll a container once.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
pub struct ScrollRequest {
    pub udid: Option<String>,
    /// The container; default: the biggest scrollable element on screen.
    #[serde(flatten)]
    pub target: Target,
    /// `down` shows what is below (default).
    pub direction: Option<Direction>,
    #[serde(flatten)]
    pub after: ObserveOptions,
}

/// Scroll until an element is in view.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollToRequest {
    pub udid: Option<String>,
    pub selector: Selector,
    /// Default `down`.
    pub direction: Option<Direction>,
    /// Default 10.
    pub max_scrolls: Option<u32>,
}

/// Press a key: a named key, or a raw Android key code.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
// Unknown fields are refused by the strict body check (`crate::api::strict`), which serde's
// `deny_unknown_fields` cannot do beside a flattened field.
#[derive(Debug, Deserialize, ToSchema)]
pub struct PressRequest {
    pub udid: Option<String>,
    pub key: Option<Key>,
    /// Raw Android `KEYCODE_*` number.
    pub keycode: Option<u32>,
    #[serde(flatten)]
    pub after: ObserveOptions,
}

/// Which device.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceBody {
    pub udid: Option<String>,
}

/// What every mutating UI action answers. Fields without a value are left out.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ActionResult {
    /// `tap`, `type`, `swipe`…
    pub action_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<ActionTarget>,
    /// The command was dispatched and every check the action makes itself held (type's
    /// read-back). Whether the intended screen followed is the job of `wait` and `expect`.
    pub success: bool,
    /// Fingerprint of the screen before, when a fresh snapshot was at hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint_before: Option<String>,
    /// Fingerprint after, when `observe: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint_after: Option<String>,
    /// The snapshot read after the action (with `observe: true`), whose refs are current.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_id: Option<String>,
    /// With `observe: true`: what changed on screen since the last read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Changes>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_code: Option<ErrorCode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// The device acted on (`GET /api/v1/device/list` describes it). How long the action
    /// took is in the `Server-Timing` header (`total;dur=…`).
    pub udid: String,
    /// With `measure`: what the action cost the app.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perf: Option<crate::perf::ActionCost>,
    /// Action-specific facts (typing method and read-back, scrolls done…).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<Value>,
}

/// Where an action went: the element's ref and the point acted on.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ActionTarget {
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    /// The element's label, when it was not targeted by ref (a selector, a point, a cell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The point, in the platform's tap coordinates (absent when the device answered
    /// without one: an alert WebDriverAgent accepted itself).
    #[serde(serialize_with = "whole", skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    #[serde(serialize_with = "whole", skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
}

/// A coordinate as a whole number when it is one (`540`, not `540.0`).
fn whole<S: Serializer>(v: &Option<f64>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match v {
        Some(v) => crate::ui::model::number(v, s),
        None => s.serialize_none(),
    }
}

/// Scroll and swipe directions: where the content moves into view from (`down` shows what is
/// below, so the finger moves up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Content comes into view from above (the finger moves down).
    Up,
    /// Content comes into view from below (the finger moves up).
    Down,
    /// Content comes into view from the left (the finger moves right).
    Left,
    /// Content comes into view from the right (the finger moves left).
    Right,
}

/// What an action aims at: exactly one of `ref`, `x`+`y`, or `selector`.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct Target {
    /// An element ref from the latest snapshot (`e12`; `@e12` is accepted).
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    /// A point in the platform's tap coordinates (Android pixels, iOS points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// Find the element on a fresh read of the screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<Selector>,
    /// A cell of the grid drawn by `GET /api/v1/device/screenshot/annotated?grid=true`
    /// (`"C5"`: column C, row 5): taps its centre. A vision fallback when no ref fits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<String>,
    /// The snapshot the ref was read from; a newer read answers `409 STALE_REFERENCE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_id: Option<String>,
}

impl Target {
    /// Whether it names nothing to aim at: no ref, point, selector or grid cell (a
    /// `snapshot_id` alone does not count).
    pub fn is_empty(&self) -> bool {
        self.r#ref.is_none()
            && self.x.is_none()
            && self.y.is_none()
            && self.selector.is_none()
            && self.grid.is_none()
    }
}

/// Options of `type`.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct TypeOptions {
    pub udid: Option<String>,
    /// The text to type, literally (at most 4096 characters).
    #[serde(default)]
    pub text: String,
    /// Tap this field first; default: the focused field.
    #[serde(flatten)]
    pub target: Target,
    /// Empty the field before typing.
    #[serde(default)]
    pub clear: bool,
    /// Press Enter afterwards.
    #[serde(default)]
    pub submit: bool,
    /// Read the field back and report whether it holds the text (default true; costs a read).
    #[serde(default = "yes")]
    pub verify: bool,
    /// Measure what typing cost the foreground app (frames, CPU): answered in `perf`.
    #[serde(default)]
    pub measure: bool,
}

fn yes() -> bool {
    true
}
