//! Apps on a device, named by `bundle_id` on every platform (an Android package name is its
//! bundle id): what is installed, how to start one, what a launch did.

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
