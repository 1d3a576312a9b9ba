//! Wire types of the act operations: tap, tap-element, long-press, swipe, scroll, scroll-to,
//! press, hide-keyboard (type's body is the controller's [`TypeOptions`]).

use serde::Deserialize;
use utoipa::ToSchema;

pub use crate::controller::{ActionResult, Direction, Target, TypeOptions};
use crate::device::{Key, Point};
use crate::ui::select::Selector;
use crate::ui::Role;

/// Tap an element or a point.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TapRequest {
    pub udid: Option<String>,
    #[serde(flatten)]
    pub target: Target,
    /// Read the screen afterwards: `fingerprint_after` and the `changes` (one round trip with
    /// the action on Android).
    #[serde(default)]
    pub observe: bool,
    /// With `observe`: milliseconds to let the screen settle before the read (default: 0 on
    /// Android, whose dump waits for the UI to be idle; 300 elsewhere; at most 5000).
    pub settle_ms: Option<u64>,
}

/// Tap the element with this accessibility label, identifier and/or type.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
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
    #[serde(default)]
    pub observe: bool,
    /// With `observe`: milliseconds to let the screen settle before the read.
    pub settle_ms: Option<u64>,
}

/// Long-press an element or a point.
#[derive(Debug, Deserialize, ToSchema)]
pub struct LongPressRequest {
    pub udid: Option<String>,
    #[serde(flatten)]
    pub target: Target,
    /// How long to hold, in milliseconds (default 1000).
    pub duration_ms: Option<u64>,
    #[serde(default)]
    pub observe: bool,
    /// With `observe`: milliseconds to let the screen settle before the read.
    pub settle_ms: Option<u64>,
}

/// Swipe from a point to a point, or across a target in a direction.
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
    #[serde(default)]
    pub observe: bool,
    /// With `observe`: milliseconds to let the screen settle before the read.
    pub settle_ms: Option<u64>,
}

/// Scroll a container once.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ScrollRequest {
    pub udid: Option<String>,
    /// The container; default: the biggest scrollable element on screen.
    #[serde(flatten)]
    pub target: Target,
    /// `down` shows what is below (default).
    pub direction: Option<Direction>,
    #[serde(default)]
    pub observe: bool,
    /// With `observe`: milliseconds to let the screen settle before the read.
    pub settle_ms: Option<u64>,
}

/// Scroll until an element is in view.
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
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PressRequest {
    pub udid: Option<String>,
    pub key: Option<Key>,
    /// Raw Android `KEYCODE_*` number.
    pub keycode: Option<u32>,
    #[serde(default)]
    pub observe: bool,
    /// With `observe`: milliseconds to let the screen settle before the read.
    pub settle_ms: Option<u64>,
}

/// Which device.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceBody {
    pub udid: Option<String>,
}
