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

pub use crate::perf::MeasuredBy;

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
    /// `platform` (Android), `mobilectl` (an iOS Simulator: each start to its first screen),
    /// or `launch_command` (not every start was measured so: each time is the launch
    /// command's own).
    pub measured_by: MeasuredBy,
}

impl Starts {
    /// The summary of `runs` (at least one). Their times are compared only when one measurer
    /// timed them all (the platform, or mobilectl seeing each first screen); otherwise each
    /// time is its launch command's own (`launch_command`).
    pub fn of(runs: &[Launched]) -> Starts {
        let timed_by = |r: &Launched| r.startup.as_ref().and_then(|m| m.timed_by());
        let first = runs.first().and_then(timed_by);
        let alike = first.is_some() && runs.iter().all(|r| timed_by(r) == first);
        let (measured_by, times_ms): (MeasuredBy, Vec<u64>) = match first {
            Some(by) if alike => (by, runs.iter().map(|r| r.launch_time_ms).collect()),
            _ => (
                MeasuredBy::LaunchCommand,
                runs.iter()
                    .map(|r| {
                        r.startup
                            .as_ref()
                            .and_then(|m| m.wait_time_ms)
                            .unwrap_or(r.launch_time_ms)
                    })
                    .collect(),
            ),
        };
        let mut sorted = times_ms.clone();
        sorted.sort_unstable();
        // The lower median of an even count: a time one of the starts took.
        let median_ms = sorted
            .get(sorted.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::StartupMeasure;

    fn start(ms: u64, startup: Option<StartupMeasure>) -> Launched {
        Launched {
            bundle_id: "com.app".into(),
            activity: None,
            pid: None,
            launch_time_ms: ms,
            startup,
        }
    }

    fn measure(by: MeasuredBy, total: Option<u64>, wait: u64) -> StartupMeasure {
        StartupMeasure {
            measured_by: by,
            status: None,
            launch_state: None,
            activity: None,
            total_time_ms: total,
            wait_time_ms: Some(wait),
            this_time_ms: None,
            earliest_ms: None,
            reads: None,
            warning: None,
            complete: total.is_some(),
        }
    }

    #[test]
    fn starts_timed_alike_keep_their_measure_and_a_mix_falls_back_to_the_command() {
        let seen = |t, w| start(t, Some(measure(MeasuredBy::Mobilectl, Some(t), w)));
        let s = Starts::of(&[
            seen(812, 230),
            seen(790, 210),
            seen(840, 250),
            seen(700, 200),
        ]);
        assert_eq!(s.measured_by, MeasuredBy::Mobilectl);
        assert_eq!(s.times_ms, [812, 790, 840, 700]);
        // The lower median of an even count.
        assert_eq!((s.median_ms, s.min_ms, s.max_ms), (790, 700, 840));
        // One first screen not seen: every time is its launch command's own.
        let never = start(260, Some(measure(MeasuredBy::Mobilectl, None, 260)));
        let s = Starts::of(&[seen(812, 230), never, seen(790, 210)]);
        assert_eq!(s.measured_by, MeasuredBy::LaunchCommand);
        assert_eq!(s.times_ms, [230, 260, 210]);
        assert_eq!(s.median_ms, 230);
        // Android's own figures; and starts nobody measured.
        let android = |t| start(t, Some(measure(MeasuredBy::Platform, Some(t), t + 9)));
        let s = Starts::of(&[android(312), android(301)]);
        assert_eq!(
            (s.measured_by, s.times_ms),
            (MeasuredBy::Platform, vec![312, 301])
        );
        let s = Starts::of(&[start(90, None), start(95, None)]);
        assert_eq!(
            (s.measured_by, s.times_ms),
            (MeasuredBy::LaunchCommand, vec![90, 95])
        );
    }
}
