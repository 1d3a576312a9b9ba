//! Device backends: adb (Android) and simctl + AXe or idb (iOS Simulator).
//!
//! Backends know devices and tools, never HTTP. They run every command through [`crate::exec`]
//! and report failures as [`crate::error::Error`] with the tool's own words in `details`.

pub mod android;
pub mod doctor;
pub mod ios;
mod run;
mod traits;
pub mod types;
pub mod validate;

pub use traits::{
    unsupported, unsupported_logs, DeviceBackend, KeyPress, TypeJob, TypedWith, UiSource,
};

pub use run::{command_failed, exec_error, run_tool, tool_command, tool_missing};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Which family of phone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Android,
    Ios,
}

/// What kind of thing the device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Emulator,
    Simulator,
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
    Booting,
    ShuttingDown,
    Shutdown,
    Offline,
    /// Android: the host's key was not accepted on the phone yet.
    Unauthorized,
    Unknown,
}

impl DeviceState {
    /// Whether the device can take commands now.
    pub fn is_ready(self) -> bool {
        matches!(self, DeviceState::Online | DeviceState::Booted)
    }
}

/// A phone, emulator or simulator.
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
}

/// Why a platform is absent from a device listing (its tool is missing or failed).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlatformStatus {
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl PlatformStatus {
    pub fn available() -> Self {
        PlatformStatus {
            available: true,
            reason: None,
            hint: None,
        }
    }

    pub fn absent(err: &crate::error::Error) -> Self {
        PlatformStatus {
            available: false,
            reason: Some(err.message.clone()),
            hint: err.hint.clone(),
        }
    }
}
