//! Devices: listing, the active device, boot and shutdown.

use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::backend::{Device, DeviceState, Platform};
use crate::controller::{BootRequest, DeviceList, PowerResult, ShutdownRequest};
use crate::error::Result;
use crate::server::{ApiErrors, ApiJson, ApiQuery, AppState};

/// Filters of the device list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only this platform.
    pub platform: Option<Platform>,
    /// Only devices in this state.
    pub state: Option<DeviceState>,
}

/// Lists Android devices (adb) and iOS Simulators (simctl). A missing tool is not an error:
/// that platform is absent and `tools` says why.
#[utoipa::path(get, path = "/api/v1/device/list", tag = "devices", params(ListQuery),
    responses((status = 200, description = "Devices on every available platform", body = DeviceList), ApiErrors))]
pub async fn list(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Json<DeviceList> {
    let mut list = state.controller.list().await;
    list.devices.retain(|d| {
        q.platform.is_none_or(|p| d.platform == p) && q.state.is_none_or(|s| d.state == s)
    });
    Json(list)
}

/// The active device.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActiveDevice {
    /// The device requests go to when they name none; `null` when none is chosen.
    pub device: Option<Device>,
    /// The chosen udid (also when that device is not connected now).
    pub udid: Option<String>,
}

/// Which device to make active.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetActive {
    /// Udid (or unique name) of the device; `null` forgets the choice.
    pub udid: Option<String>,
}

/// The device that requests without `udid` go to.
#[utoipa::path(get, path = "/api/v1/device/active", tag = "devices",
    responses((status = 200, description = "The active device", body = ActiveDevice), ApiErrors))]
pub async fn get_active(State(state): State<AppState>) -> Json<ActiveDevice> {
    let udid = state.controller.active();
    let device = match &udid {
        Some(u) => state
            .controller
            .list()
            .await
            .devices
            .into_iter()
            .find(|d| &d.udid == u),
        None => None,
    };
    Json(ActiveDevice { device, udid })
}

/// Chooses the device that requests without `udid` go to.
#[utoipa::path(put, path = "/api/v1/device/active", tag = "devices", request_body = SetActive,
    responses((status = 200, description = "The new active device", body = ActiveDevice), ApiErrors))]
pub async fn put_active(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<SetActive>,
) -> Result<Json<ActiveDevice>> {
    match body.udid {
        Some(udid) => {
            let device = state.controller.set_active(&udid).await?;
            Ok(Json(ActiveDevice {
                udid: Some(device.udid.clone()),
                device: Some(device),
            }))
        }
        None => {
            state.controller.clear_active();
            Ok(Json(ActiveDevice {
                device: None,
                udid: None,
            }))
        }
    }
}

/// Boots an iOS Simulator (`udid`: udid or name) or an Android emulator (`avd`).
#[utoipa::path(post, path = "/api/v1/device/boot", tag = "devices", request_body = BootRequest,
    responses((status = 200, description = "Booted (or booting, with `wait: false`)", body = PowerResult), ApiErrors))]
pub async fn boot(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<BootRequest>,
) -> Result<Json<PowerResult>> {
    Ok(Json(state.controller.boot(&body).await?))
}

/// Shuts down a simulator or an emulator.
#[utoipa::path(post, path = "/api/v1/device/shutdown", tag = "devices", request_body = ShutdownRequest,
    responses((status = 200, description = "Shut down", body = PowerResult), ApiErrors))]
pub async fn shutdown(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<ShutdownRequest>,
) -> Result<Json<PowerResult>> {
    Ok(Json(state.controller.shutdown(&body).await?))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(get_active, put_active))
        .routes(routes!(boot))
        .routes(routes!(shutdown))
}
