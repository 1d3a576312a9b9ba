//! Platform-free vocabulary of device operations: apps, points, keys, permissions. Backends take
//! and return these; the server exposes them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An installed app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AppInfo {
    /// Android package name or iOS bundle identifier.
    pub bundle_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `user` or `system`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// How to start an app.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct LaunchOptions {
    /// Arguments passed to the app (iOS launch arguments; Android: ignored).
    #[serde(default)]
    pub arguments: Vec<String>,
    /// Stop the app first if it is running.
    #[serde(default)]
    pub relaunch: bool,
    /// Android: the activity to start (default: the launcher activity).
    pub activity: Option<String>,
}

/// What a launch did.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Launched {
    pub bundle_id: String,
    /// The activity started (Android) when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
    /// Process id when the tool reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Launch time as reported by the platform (Android `am start -W` TotalTime), else the
    /// wall time of the launch command.
    pub launch_time_ms: u64,
}

/// A point in the platform's tap coordinates (Android pixels, iOS points).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// Hardware and navigation keys, named the same on every platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Key {
    Back,
    Home,
    Enter,
    Delete,
    Tab,
    Escape,
    Space,
    DpadUp,
    DpadDown,
    DpadLeft,
    DpadRight,
    DpadCenter,
    VolumeUp,
    VolumeDown,
    Power,
    Lock,
    RecentApps,
    Menu,
    Search,
    Siri,
    ApplePay,
}

/// Grant, revoke or reset a permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PermissionAction {
    Grant,
    Revoke,
    Reset,
}

/// Battery state shown in an overridden status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BatteryState {
    Charging,
    Charged,
    Discharging,
}

/// Data network shown in an overridden status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DataNetwork {
    Hide,
    Wifi,
    #[serde(rename = "3g")]
    ThreeG,
    #[serde(rename = "4g")]
    FourG,
    Lte,
    #[serde(rename = "lte-a")]
    LteA,
    #[serde(rename = "lte+")]
    LtePlus,
    #[serde(rename = "5g")]
    FiveG,
    #[serde(rename = "5g+")]
    FiveGPlus,
    #[serde(rename = "5g-uwb")]
    FiveGUwb,
    #[serde(rename = "5g-uc")]
    FiveGUc,
}

impl DataNetwork {
    /// The value `simctl status_bar … --dataNetwork` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            DataNetwork::Hide => "hide",
            DataNetwork::Wifi => "wifi",
            DataNetwork::ThreeG => "3g",
            DataNetwork::FourG => "4g",
            DataNetwork::Lte => "lte",
            DataNetwork::LteA => "lte-a",
            DataNetwork::LtePlus => "lte+",
            DataNetwork::FiveG => "5g",
            DataNetwork::FiveGPlus => "5g+",
            DataNetwork::FiveGUwb => "5g-uwb",
            DataNetwork::FiveGUc => "5g-uc",
        }
    }
}

/// Status bar values for clean screenshots. Unset fields keep their current value.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, ToSchema)]
pub struct StatusBarOverride {
    /// Clock text, e.g. `"9:41"`, or an ISO 8601 date.
    pub time: Option<String>,
    /// 0–100.
    pub battery_level: Option<u8>,
    pub battery_state: Option<BatteryState>,
    /// 0–3.
    pub wifi_bars: Option<u8>,
    /// 0–4.
    pub cellular_bars: Option<u8>,
    pub data_network: Option<DataNetwork>,
    /// Carrier name.
    pub operator_name: Option<String>,
}
