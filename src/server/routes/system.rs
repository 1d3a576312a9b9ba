//! System settings of a device: simulated location and app permissions.

use axum::Json;

use crate::api::wire::system::*;
use crate::error::{Error, Op, Result, Step};
use crate::server::AppState;
use serde_json::json;

/// Sets the simulated GPS location (iOS Simulators; Android emulators), or clears it.
pub async fn location(s: AppState, r: LocationRequest) -> Result<Json<SettingDone>> {
    let at = match (r.clear, r.latitude, r.longitude) {
        (true, None, None) => None,
        (false, Some(lat), Some(lon)) => Some((lat, lon)),
        _ => {
            return Err(
                Error::validation("give `latitude` and `longitude`, or `clear: true`").with_next(
                    "e.g. {0}",
                    [Step::example_of(
                        Op::SetLocation,
                        json!({"latitude": 48.8584, "longitude": 2.2945}),
                    )],
                ),
            )
        }
    };
    let device = s.controller.location(r.udid.as_deref(), at).await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note: None,
    }))
}

/// Grants, revokes or resets an app permission.
pub async fn permission(s: AppState, r: PermissionRequest) -> Result<Json<SettingDone>> {
    let (device, note) = s
        .controller
        .permission(r.udid.as_deref(), &r.bundle_id, &r.permission, r.action)
        .await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note,
    }))
}
