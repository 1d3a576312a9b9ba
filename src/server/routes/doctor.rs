//! `GET /api/v1/doctor`: which device tools are installed and what follows.

use axum::extract::State;
use axum::Json;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::backend::doctor::{diagnose, DoctorReport};
use crate::server::{ApiErrors, AppState};

/// Checks adb, emulator, xcrun simctl, AXe and idb: found, path, version, remediation.
#[utoipa::path(get, path = "/api/v1/doctor", tag = "service",
    responses((status = 200, description = "Tool checks and overall readiness", body = DoctorReport), ApiErrors))]
pub async fn doctor(State(state): State<AppState>) -> Json<DoctorReport> {
    Json(diagnose(state.controller.tools()).await)
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(doctor))
}
