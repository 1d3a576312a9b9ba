//! App performance: a reading now. The query is checked whole before the device is asked.

use axum::Json;

use crate::api::wire::perf::{PerfNow, PerfQuery};
use crate::controller::cpu_window;
use crate::error::Result;
use crate::server::AppState;

/// An app's CPU over a window, and its memory, threads and frames at the window's end.
pub async fn now(s: AppState, q: PerfQuery) -> Result<Json<PerfNow>> {
    let window = cpu_window(q.window_ms)?;
    let (device, reading) = s
        .controller
        .perf_now(q.udid.as_deref(), &q.app, window)
        .await?;
    Ok(Json(PerfNow {
        udid: device.udid,
        reading,
    }))
}
