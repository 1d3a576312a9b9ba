//! Simulator housekeeping: erase a simulator, and override its status bar for clean
//! screenshots. iOS Simulators only; Android devices answer `501`.

use axum::Json;

use crate::api::wire::devices::*;
use crate::api::wire::system::SettingDone;
use crate::error::Result;
use crate::server::AppState;

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
    let (udid, values) = r.change()?;
    let device = s
        .controller
        .status_bar(udid.as_deref(), values.as_ref())
        .await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note: None,
    }))
}
