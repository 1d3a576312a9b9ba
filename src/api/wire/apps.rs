//! Wire types of the app operations: install, launch, terminate, reset, list, open-url.

// The fields and variants of these wire types are described by the API schema, where
// descriptions are kept short on purpose (token budget).
#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::device::Device;
pub use crate::device::{AppInfo, LaunchValue, Launched};

/// Install an app from a path on the server's machine.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InstallRequest {
    pub udid: Option<String>,
    /// Android: an `.apk` file; iOS Simulator: an `.app` folder.
    #[schema(value_type = String)]
    pub path: PathBuf,
}

/// Names an app.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AppRequest {
    pub udid: Option<String>,
    /// Android package name or iOS bundle identifier (in a session started with `app`: that
    /// one when left out).
    #[serde(default)]
    pub bundle_id: String,
}

/// Start an app.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LaunchRequest {
    pub udid: Option<String>,
    /// Android package name or iOS bundle identifier (in a session started with `app`: that
    /// one when left out).
    #[serde(default)]
    pub bundle_id: String,
    /// iOS launch arguments, passed as they are (Android apps take `extras`).
    #[serde(default)]
    pub arguments: Vec<String>,
    /// Named values for the app, typed as JSON types them, as Maestro's launch `arguments`:
    /// Android intent extras (`--es`, `--ez`, `--ei`/`--el`, `--ed`); iOS launch arguments
    /// after `arguments` (`-key value`, read with `UserDefaults`; a boolean as `key true`).
    #[serde(default)]
    pub extras: BTreeMap<String, LaunchValue>,
    /// Stop the app first if it runs.
    #[serde(default)]
    pub relaunch: bool,
    /// iOS Simulator: reset the whole keychain of the device first (`simctl keychain reset`).
    /// Android has no shared keychain: nothing is done there.
    #[serde(default)]
    pub clear_keychain: bool,
    /// Android: activity to start instead of the launcher activity.
    pub activity: Option<String>,
    /// `true`: stop the app first, so the start is cold (as `relaunch`); `false`: start it
    /// once first if it does not run, so the measured start finds it running (warm or hot).
    pub cold: Option<bool>,
    /// Also answer what the start cost the app in `perf`: its frames and CPU from the start
    /// to just after it (a cold start: the new process's).
    #[serde(default)]
    pub measure: bool,
    /// Start it this many times (1-20) and answer each start's time and their median in
    /// `starts` (with `relaunch`, each a cold start).
    #[schema(minimum = 1, maximum = 20)]
    pub repeat: Option<u32>,
}

/// The most starts one launch request measures.
pub const MAX_REPEAT: u32 = 20;

/// Who measured a start: the platform (Android `am start -W`), or mobilectl (the launch
/// command's wall time, where the platform says nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MeasuredBy {
    /// The platform's own figure.
    Platform,
    /// The launch command's wall time.
    Mobilectl,
}

/// The starts of a repeated launch.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Starts {
    /// Each start's time, ms, in order.
    pub times_ms: Vec<u64>,
    pub median_ms: u64,
    pub min_ms: u64,
    pub max_ms: u64,
    pub measured_by: MeasuredBy,
}

impl Starts {
    /// The summary of `runs` (at least one).
    pub fn of(runs: &[Launched]) -> Starts {
        let times_ms: Vec<u64> = runs.iter().map(|r| r.launch_time_ms).collect();
        let mut sorted = times_ms.clone();
        sorted.sort_unstable();
        // The lower median of an even count: a time one of the starts took.
        let median_ms = sorted
            .get(sorted.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0);
        let measured_by = match runs.iter().all(|r| r.startup.is_some()) {
            true => MeasuredBy::Platform,
            false => MeasuredBy::Mobilectl,
        };
        Starts {
            median_ms,
            min_ms: sorted.first().copied().unwrap_or(0),
            max_ms: sorted.last().copied().unwrap_or(0),
            times_ms,
            measured_by,
        }
    }
}

/// Open a URL (web or app scheme) on the device.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenUrlRequest {
    pub udid: Option<String>,
    /// `https://…` or an app scheme (`myapp://…`). `javascript:`, `file:`, `content:` and
    /// `data:` are refused unless the server runs with `--allow-any-url-scheme`.
    pub url: String,
}

/// What an app operation did.
#[derive(Debug, Serialize, ToSchema)]
pub struct AppDone {
    pub success: bool,
    pub device: Device,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle_id: Option<String>,
}

/// What a launch did.
#[derive(Debug, Serialize, ToSchema)]
pub struct LaunchDone {
    /// False when the app crashed or stopped responding as it started.
    pub success: bool,
    pub device: Device,
    #[serde(flatten)]
    pub launched: Launched,
    /// With `repeat`: every start's time and their median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starts: Option<Starts>,
    /// `APP_CRASHED` or `APP_NOT_RESPONDING`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_code: Option<crate::error::ErrorCode>,
    /// The crash (`id`, `kind`, `summary`; more at GET /api/v1/logs/crashes/{id}).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub crash: Option<serde_json::Value>,
    /// With `measure`: what the (last) start cost the app: frames, CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perf: Option<crate::perf::ActionCost>,
}

/// Query of the app list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct AppListQuery {
    pub udid: Option<String>,
}

/// Installed apps.
#[derive(Debug, Serialize, ToSchema)]
pub struct AppList {
    pub device: Device,
    pub apps: Vec<AppInfo>,
}
