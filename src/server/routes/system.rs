//! System settings of a device: simulated location and app permissions.

use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::backend::types::PermissionAction;
use crate::backend::Device;
use crate::error::{Error, Result};
use crate::server::{ApiErrors, ApiJson, AppState};

/// Set or clear the simulated location.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LocationRequest {
    pub udid: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    /// Clear the simulated location instead of setting one.
    #[serde(default)]
    pub clear: bool,
}

/// Grant, revoke or reset an app permission.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PermissionRequest {
    pub udid: Option<String>,
    pub bundle_id: String,
    /// Android: `android.permission.CAMERA`…; iOS: `camera`, `photos`, `location`, `contacts`,
    /// `microphone`, `all`… (simctl privacy services).
    pub permission: String,
    pub action: PermissionAction,
}

/// A settings change was applied.
#[derive(Debug, Serialize, ToSchema)]
pub struct SettingDone {
    pub success: bool,
    pub device: Device,
}

/// Sets the simulated GPS location (iOS Simulators; Android emulators), or clears it.
#[utoipa::path(post, path = "/api/v1/device/location", tag = "system", request_body = LocationRequest,
    responses((status = 200, description = "Applied", body = SettingDone), ApiErrors))]
pub async fn location(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<LocationRequest>,
) -> Result<Json<SettingDone>> {
    let at = match (r.clear, r.latitude, r.longitude) {
        (true, None, None) => None,
        (false, Some(lat), Some(lon)) => Some((lat, lon)),
        _ => {
            return Err(
                Error::validation("give `latitude` and `longitude`, or `clear: true`")
                    .with_hint("e.g. {\"latitude\": 48.8584, \"longitude\": 2.2945}"),
            )
        }
    };
    let device = s.controller.location(r.udid.as_deref(), at).await?;
    Ok(Json(SettingDone {
        success: true,
        device,
    }))
}

/// Grants, revokes or resets an app permission.
#[utoipa::path(post, path = "/api/v1/device/permission", tag = "system", request_body = PermissionRequest,
    responses((status = 200, description = "Applied", body = SettingDone), ApiErrors))]
pub async fn permission(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<PermissionRequest>,
) -> Result<Json<SettingDone>> {
    let device = s
        .controller
        .permission(r.udid.as_deref(), &r.bundle_id, &r.permission, r.action)
        .await?;
    Ok(Json(SettingDone {
        success: true,
        device,
    }))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(location))
        .routes(routes!(permission))
}
