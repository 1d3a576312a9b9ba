//! Simulator housekeeping: erase a simulator, and override its status bar for clean
//! screenshots. iOS Simulators only; Android devices answer `501`.

use axum::Json;

use crate::api::wire::devices::*;
use crate::api::wire::system::SettingDone;
use crate::device::StatusBarOverride;
use crate::error::{Error, Result};
use crate::server::bind::{self, Binding};
use crate::server::AppState;

/// This module's handlers, bound to their operations by name.
pub fn bindings() -> Vec<Binding> {
    vec![
        bind::body("erase", erase),
        bind::body("status_bar", status_bar),
    ]
}

/// Erases all content and settings of an iOS Simulator (`simctl erase`). A booted simulator
/// is shut down, erased and booted again. Android: 501.
pub async fn erase(s: AppState, r: EraseRequest) -> Result<Json<SettingDone>> {
    let device = s.controller.erase(r.udid.as_deref()).await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note: None,
    }))
}

/// Overrides the status bar of an iOS Simulator for clean screenshots (`simctl status_bar
/// override`), or restores it with `clear: true`. Android: 501.
pub async fn status_bar(s: AppState, r: StatusBarRequest) -> Result<Json<SettingDone>> {
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
        note: None,
    }))
}
