//! App performance: a reading now, and windows that sample an app over time. Each input is
//! checked whole before the device is asked.

use axum::Json;

use crate::api::wire::perf::{PerfNow, PerfQuery, PerfStart, PerfStop, PerfWindow};
use crate::controller::cpu_window;
use crate::error::Result;
use crate::server::AppState;

/// An app's CPU over a window, and its memory, threads and frames at the window's end.
pub async fn now(s: AppState, q: PerfQuery) -> Result<Json<PerfNow>> {
    let window = cpu_window(q.window_ms)?;
    let app = super::app_or_session(q.app.as_deref(), "app")?;
    Ok(Json(
        s.controller
            .perf_now(q.udid.as_deref(), &app, window)
            .await?,
    ))
}

/// Starts sampling an app into a window.
pub async fn start(s: AppState, mut r: PerfStart) -> Result<Json<PerfWindow>> {
    r.app = Some(super::app_or_session(r.app.as_deref(), "app")?);
    Ok(Json(s.controller.perf_start(&r).await?))
}

/// Stops the device's window: its summary and files.
pub async fn stop(s: AppState, r: PerfStop) -> Result<Json<PerfWindow>> {
    Ok(Json(s.controller.perf_stop(r.udid.as_deref()).await?))
}
