//! The vocabulary of devices, shared by every layer: what a device is ([`Device`], its
//! [`Platform`], [`DeviceKind`] and [`DeviceState`]), and the platform-free terms of the
//! operations on it — apps, points, keys, permissions, the status bar, the tools that drive it. Backends take and return
//! these, the controller reasons with them, the server exposes them. No I/O here.
//!
//! A backend's own business (how it reaches a device, its native dumps and tool words) stays in
//! its folder under `crate::backend`.

mod apps;
mod capability;
mod features;
mod input;
pub mod recording;
mod system;
mod tools;

pub use apps::{AppInfo, LaunchOptions, LaunchValue, Launched};
pub use capability::Capability;
pub use features::{
    check_extra, check_intent, check_multi_touch, check_name, check_notification, check_plain,
    finger_paths, BiometricAction, BiometricKind, ExtraType, IntentExtra, IntentMode,
    IntentOutcome, IntentParts, IntentSpec, MediaKind, MultiTouch, NotificationPost, Orientation,
    OrientationRead, ShownNotification, MAX_APNS_PAYLOAD, MAX_EXTRAS,
};
pub use input::{AlertChoice, Key, KeyPress, Point};
pub use recording::{RecordingOptions, ScreenRecorder};
pub use system::{BatteryState, DataNetwork, PermissionAction, StatusBarOverride};
pub use tools::Tool;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The extension of a path, lower-cased (empty when it has none): how an app package or a
/// gallery file is told apart.
pub fn extension(path: &std::path::Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Which family of phone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// Android phones and emulators, driven through adb.
    Android,
    /// iOS Simulators (simctl with AXe or idb) and iPhones (WebDriverAgent).
    Ios,
}

impl Platform {
    /// The name people use (`Android`, `iOS`).
    pub fn name(self) -> &'static str {
        match self {
            Platform::Android => "Android",
            Platform::Ios => "iOS",
        }
    }
}

/// What kind of thing the device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    /// An Android emulator (AVD).
    Emulator,
    /// An iOS Simulator.
    Simulator,
    /// A physical phone: an Android device or an iPhone.
    Device,
}

/// A device's connection or power state, normalised across platforms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeviceState {
    /// Android: connected and authorised (`device` in `adb devices`).
    Online,
    /// iOS Simulator: booted.
    Booted,
    /// iOS Simulator: starting up, not ready for commands yet.
    Booting,
    /// iOS Simulator: on its way down.
    ShuttingDown,
    /// iOS Simulator: not running.
    Shutdown,
    /// Listed but not reachable: adb's `offline` (or bootloader, recovery…), an iPhone gone.
    Offline,
    /// Android: the host's key was not accepted on the phone yet.
    Unauthorized,
    /// A state word the platform's tool gave that has no name here.
    Unknown,
}

impl DeviceState {
    /// Whether the device can take commands now.
    pub fn is_ready(self) -> bool {
        matches!(self, DeviceState::Online | DeviceState::Booted)
    }
}

/// A phone, emulator or simulator.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Device {
    /// Android serial or iOS UDID.
    pub udid: String,
    pub name: String,
    pub platform: Platform,
    pub kind: DeviceKind,
    pub state: DeviceState,
    /// e.g. `"14"` (Android) or `"iOS 17.5"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os_version: Option<String>,
    /// Android API level, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_level: Option<u32>,
    /// Hardware model, when known (e.g. `"Pixel 7"`, `"com.apple.CoreSimulator.SimDeviceType.iPhone-15"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Id of the backend that listed the device and drives it (`android`, `ios`): the key of
    /// its entry in a listing's `tools`. Set by the controller's registry; not part of the
    /// JSON (`platform` and `kind` say what a caller needs).
    #[serde(skip)]
    pub backend: &'static str,
    /// What its backend offers (`GET /api/v1/doctor` lists them per backend).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<Capability>,
}

#[cfg(test)]
impl Device {
    /// An online Android emulator `emulator-5554` ("Pixel") of backend `backend`, for tests.
    pub(crate) fn test_emulator(backend: &'static str) -> Device {
        Device {
            udid: "emulator-5554".into(),
            name: "Pixel".into(),
            platform: Platform::Android,
            kind: DeviceKind::Emulator,
            state: DeviceState::Online,
            os_version: None,
            api_level: None,
            model: None,
            backend,
            capabilities: Vec::new(),
        }
    }
}

/// Whether a backend could list its devices, and why not.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlatformStatus {
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl PlatformStatus {
    /// The backend listed its devices.
    pub fn available() -> Self {
        PlatformStatus {
            available: true,
            reason: None,
            hint: None,
        }
    }

    /// The backend could not list its devices: `err`'s message as the reason, its hint as
    /// the hint.
    pub fn absent(err: &crate::error::Error) -> Self {
        PlatformStatus {
            available: false,
            reason: Some(err.message.clone()),
            hint: err.hint.clone(),
        }
    }
}
