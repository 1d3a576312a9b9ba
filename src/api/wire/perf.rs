//! App performance on the wire: the query of a reading now and its answer, and the requests
//! and answer of a window (the figures' types are the platform-free ones of `crate::perf`).

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::recording::StoppedBy;
use crate::perf::series::SeriesSummary;
use crate::perf::PerfReading;

/// Query of `GET /device/perf`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PerfQuery {
    /// The device (default: the active one).
    pub udid: Option<String>,
    /// The app: Android package or iOS bundle id (default: the session's app). It must be
    /// running.
    pub app: Option<String>,
    /// The CPU window between the two samples, ms: 100 to 10000, default 500.
    pub window_ms: Option<u64>,
}

/// An app's performance now.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PerfNow {
    /// The device.
    pub udid: String,
    /// When it was taken (RFC 3339).
    pub taken_at: String,
    /// The reading.
    #[serde(flatten)]
    pub reading: PerfReading,
}

/// Start sampling an app into a window.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PerfStart {
    pub udid: Option<String>,
    /// The app: Android package or iOS bundle id (default: the session's app). It must be
    /// running.
    pub app: Option<String>,
    /// ms between samples: 100 to 60000, default 500.
    pub interval_ms: Option<u64>,
    /// Longest window, s (default 600, at most 3600); it stops by itself then.
    pub max_s: Option<u32>,
    /// Name of its files among the run's artifacts (default: the window's id).
    pub name: Option<String>,
}

/// Stop the device's window.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PerfStop {
    pub udid: Option<String>,
}

/// Where a window is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PerfWindowState {
    /// Still sampling.
    Sampling,
    /// Stopped; its series and plots are saved.
    Finished,
    /// Stopped, and its files could not be saved.
    Failed,
}

/// A window's files among its run's artifacts.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PerfFiles {
    /// The series and summary, JSON.
    pub series: String,
    /// The plot, SVG.
    pub svg: String,
    /// The plot, PNG.
    pub png: String,
}

/// A performance window: an app sampled every `interval_ms`.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PerfWindow {
    pub id: String,
    pub udid: String,
    pub app: String,
    pub state: PerfWindowState,
    pub interval_ms: u64,
    pub max_s: u32,
    /// RFC 3339.
    pub started_at: String,
    /// The run its files belong to.
    pub run: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<StoppedBy>,
    /// Over every sample (absent while sampling).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<SeriesSummary>,
    /// Samples that failed (the app not running at that moment, the device slow…).
    pub failed_samples: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Artifact names (`get_artifact`), once saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<PerfFiles>,
    /// Why its files were not saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// An app's performance as a debug bundle holds it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BundlePerf {
    /// The device's last reading (`perf`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<PerfNow>,
    /// The window that runs (its summary so far), or else the last that ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<PerfWindow>,
}
