//! Wire types of the device features: the clipboard, the screen's orientation, Android
//! intents, files, media, notifications, biometrics, multi-touch and airplane mode.

// The fields and variants of these wire types are described by the API schema, where
// descriptions are kept short on purpose (token budget).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::device::Device;
pub use crate::device::{
    BiometricAction, BiometricKind, ExtraType, IntentExtra, IntentMode, Orientation,
    ShownNotification,
};

/// Put text on the device's clipboard.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipboardSet {
    pub udid: Option<String>,
    pub text: String,
}

/// What the device's clipboard holds.
#[derive(Debug, Serialize, ToSchema)]
pub struct ClipboardView {
    pub device: Device,
    /// The clipboard's text (empty when it holds none).
    pub text: String,
}

/// Turn the screen, or give the rotation back to the sensor.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OrientationRequest {
    pub udid: Option<String>,
    pub orientation: Option<Orientation>,
    /// Turn auto-rotate back on instead.
    #[serde(default)]
    pub restore: bool,
}

/// The screen's orientation.
#[derive(Debug, Serialize, ToSchema)]
pub struct OrientationView {
    pub device: Device,
    pub orientation: Orientation,
    /// Whether the screen follows the sensor (Android; absent where unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_rotate: Option<bool>,
}

/// Start an activity with an intent, or broadcast it (Android).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IntentRequest {
    pub udid: Option<String>,
    #[serde(default)]
    pub mode: IntentMode,
    pub action: Option<String>,
    pub data: Option<String>,
    /// PACKAGE/CLASS.
    pub component: Option<String>,
    pub package: Option<String>,
    #[serde(default)]
    pub category: Vec<String>,
    pub flags: Option<u32>,
    #[serde(default)]
    pub extras: Vec<IntentExtra>,
}

/// An intent was sent.
#[derive(Debug, Serialize, ToSchema)]
pub struct IntentDone {
    pub success: bool,
    pub device: Device,
    pub mode: IntentMode,
    /// What `am` said.
    pub output: String,
    /// The activity that was started (`start`, when `am` names it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
}

/// Copy a file under the server's files root to the device.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FilePush {
    pub udid: Option<String>,
    pub local_path: String,
    pub device_path: String,
    pub bundle_id: Option<String>,
}

/// Copy a device file to a path under the server's files root.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FilePull {
    pub udid: Option<String>,
    pub device_path: String,
    pub bundle_id: Option<String>,
    pub local_path: String,
    /// Replace an existing file.
    #[serde(default)]
    pub overwrite: bool,
}

/// A file was copied.
#[derive(Debug, Serialize, ToSchema)]
pub struct FileDone {
    pub success: bool,
    pub device: Device,
    /// The local file, resolved.
    pub local_path: String,
    pub device_path: String,
    pub bytes: u64,
}

/// Post a notification: `title` and `body` (Android; a Simulator builds the APNs payload of
/// them), or an APNs `payload` for the app `bundle_id` (Simulator).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NotificationRequest {
    pub udid: Option<String>,
    /// The app a Simulator push goes to.
    pub bundle_id: Option<String>,
    pub title: Option<String>,
    pub body: Option<String>,
    /// APNs JSON with an `aps` object, at most 4 KB.
    pub payload: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The notifications on screen.
#[derive(Debug, Serialize, ToSchema)]
pub struct NotificationList {
    pub device: Device,
    pub notifications: Vec<ShownNotification>,
}

/// Drive the simulated face or fingerprint sensor.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BiometricRequest {
    pub udid: Option<String>,
    pub action: BiometricAction,
    /// iOS Simulator: `face` (default) or `finger`.
    #[serde(default)]
    pub kind: BiometricKind,
    /// Android emulator: the finger id touched.
    #[schema(minimum = 0, maximum = 255)]
    pub finger: Option<u8>,
}

/// Which two-finger gesture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Gesture {
    Pinch,
    Rotate,
}

/// A pinch (`scale`: below 1 in, above 1 out) or a rotation (`degrees`, clockwise) around
/// a target.
#[derive(Debug, Deserialize, ToSchema)]
pub struct MultiTouchRequest {
    pub udid: Option<String>,
    pub gesture: Gesture,
    #[serde(flatten)]
    pub target: crate::api::wire::act::Target,
    pub scale: Option<f64>,
    pub degrees: Option<f64>,
}

/// Add a photo or video (under the files root) to the device's gallery.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MediaRequest {
    pub udid: Option<String>,
    pub local_path: String,
}

/// A photo or video was added.
#[derive(Debug, Serialize, ToSchema)]
pub struct MediaDone {
    pub success: bool,
    pub device: Device,
    /// Where it went (Android: the device path; iOS: `Photos`).
    pub location: String,
    pub bytes: u64,
}

/// Turn airplane mode on or off; without `enabled`, the other way from how it is.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AirplaneModeRequest {
    pub udid: Option<String>,
    /// On (true) or off; absent: toggle.
    pub enabled: Option<bool>,
}

/// Airplane mode, as the device reports it after the change.
#[derive(Debug, Serialize, ToSchema)]
pub struct AirplaneModeDone {
    pub success: bool,
    pub device: Device,
    /// Whether airplane mode is on now.
    pub enabled: bool,
    /// What the device may not have done (an old Android's radios not told).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
