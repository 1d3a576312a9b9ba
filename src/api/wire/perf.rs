//! App performance on the wire: the query of a reading now and its answer (the reading's
//! types are the platform-free ones of `crate::perf`).

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::perf::PerfReading;

/// Query of `GET /device/perf`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PerfQuery {
    /// The device (default: the active one).
    pub udid: Option<String>,
    /// The app: Android package or iOS bundle id. It must be running.
    pub app: String,
    /// The CPU window between the two samples, ms: 100 to 10000, default 500.
    pub window_ms: Option<u64>,
}

/// An app's performance now.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PerfNow {
    /// The device.
    pub udid: String,
    /// The reading.
    #[serde(flatten)]
    pub reading: PerfReading,
}
