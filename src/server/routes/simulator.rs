//! Simulator housekeeping: erase a simulator, and override its status bar for clean
//! screenshots. iOS Simulators only; Android devices answer `501`.

use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::system::SettingDone;
use crate::backend::types::{BatteryState, DataNetwork, StatusBarOverride};
use crate::error::{Error, Result};
use crate::server::{ApiErrors, ApiJson, AppState};

/// Which simulator to erase.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EraseRequest {
    /// Simulator udid or name; default: the target device.
    pub udid: Option<String>,
}

/// Status bar values to show, or `clear: true` to restore the real ones.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusBarRequest {
    pub udid: Option<String>,
    /// Restore the real status bar instead of overriding it.
    #[serde(default)]
    pub clear: bool,
    /// Clock text, e.g. `"9:41"`, or an ISO 8601 date.
    pub time: Option<String>,
    /// 0–100.
    pub battery_level: Option<u8>,
    pub battery_state: Option<BatteryState>,
    /// 0–3.
    pub wifi_bars: Option<u8>,
    /// 0–4.
    pub cellular_bars: Option<u8>,
    pub data_network: Option<DataNetwork>,
    /// Carrier name.
    pub operator_name: Option<String>,
}

/// Erases all content and settings of an iOS Simulator (`simctl erase`). A booted simulator
/// is shut down, erased and booted again. Android: 501.
#[utoipa::path(post, path = "/api/v1/device/erase", tag = "devices", request_body = EraseRequest,
    responses((status = 200, description = "Erased", body = SettingDone), ApiErrors))]
pub async fn erase(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<EraseRequest>,
) -> Result<Json<SettingDone>> {
    let device = s.controller.erase(r.udid.as_deref()).await?;
    Ok(Json(SettingDone {
        success: true,
        device,
    }))
}

/// Overrides the status bar of an iOS Simulator for clean screenshots (`simctl status_bar
/// override`), or restores it with `clear: true`. Android: 501.
#[utoipa::path(post, path = "/api/v1/device/status-bar", tag = "system", request_body = StatusBarRequest,
    responses((status = 200, description = "Applied", body = SettingDone), ApiErrors))]
pub async fn status_bar(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<StatusBarRequest>,
) -> Result<Json<SettingDone>> {
    let values = StatusBarOverride {
        time: r.time,
        battery_level: r.battery_level,
        battery_state: r.battery_state,
        wifi_bars: r.wifi_bars,
        cellular_bars: r.cellular_bars,
        data_network: r.data_network,
        operator_name: r.operator_name,
    };
    let values = match (r.clear, values == StatusBarOverride::default()) {
        (true, true) => None,
        (true, false) => {
            return Err(Error::validation(
                "give status bar values or `clear: true`, not both",
            ))
        }
        (false, _) => Some(values),
    };
    let device = s
        .controller
        .status_bar(r.udid.as_deref(), values.as_ref())
        .await?;
    Ok(Json(SettingDone {
        success: true,
        device,
    }))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(erase))
        .routes(routes!(status_bar))
}
