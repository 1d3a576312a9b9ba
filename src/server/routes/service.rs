//! The service itself: liveness and versions (`/health`, no token needed), and the tool
//! check (`/api/v1/doctor`).

use axum::Json;

use crate::api::wire::service::*;
use crate::error::Result;
use crate::server::AppState;

/// Liveness and versions.
pub async fn health(_: AppState) -> Result<Json<Health>> {
    Ok(Json(Health {
        status: "ok".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        api_protocol_version: crate::API_PROTOCOL_VERSION,
    }))
}

/// Checks adb, emulator, xcrun simctl, AXe and idb: found, path, version, remediation; and
/// what follows for each registered backend.
pub async fn doctor(state: AppState) -> Result<Json<DoctorReport>> {
    Ok(Json(state.controller.doctor().await))
}
