//! Device features: the clipboard, the screen's orientation and Android intents.

use axum::Json;

use crate::api::wire::features::*;
use crate::api::wire::inspect::DeviceQuery;
use crate::api::wire::system::SettingDone;
use crate::device::IntentParts;
use crate::error::{Error, Result};
use crate::server::bind::{self, Binding};
use crate::server::AppState;

/// This module's handlers, bound to their operations by name.
pub fn bindings() -> Vec<Binding> {
    vec![
        bind::query("get_clipboard", get_clipboard),
        bind::body("set_clipboard", set_clipboard),
        bind::query("get_orientation", get_orientation),
        bind::body("set_orientation", set_orientation),
        bind::body("send_intent", send_intent),
    ]
}

/// The clipboard's text.
pub async fn get_clipboard(s: AppState, q: DeviceQuery) -> Result<Json<ClipboardView>> {
    let (device, text) = s.controller.clipboard_get(q.udid.as_deref()).await?;
    Ok(Json(ClipboardView { device, text }))
}

/// Puts text on the clipboard.
pub async fn set_clipboard(s: AppState, r: ClipboardSet) -> Result<Json<SettingDone>> {
    let device = s
        .controller
        .clipboard_set(r.udid.as_deref(), &r.text)
        .await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note: None,
    }))
}

/// The screen's orientation.
pub async fn get_orientation(s: AppState, q: DeviceQuery) -> Result<Json<OrientationView>> {
    let now = s.controller.orientation_get(q.udid.as_deref()).await?;
    Ok(Json(OrientationView {
        device: now.device,
        orientation: now.orientation,
        auto_rotate: now.auto_rotate,
    }))
}

/// Turns the screen, or gives the rotation back to the sensor.
pub async fn set_orientation(s: AppState, r: OrientationRequest) -> Result<Json<SettingDone>> {
    let to = match (r.orientation, r.restore) {
        (Some(o), false) => Some(o),
        (None, true) => None,
        _ => {
            return Err(
                Error::validation("give `orientation`, or `restore: true`").with_hint(
                    "orientation: portrait, landscape, portrait_reverse or landscape_reverse",
                ),
            )
        }
    };
    let device = s.controller.orientation_set(r.udid.as_deref(), to).await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note: to.is_none().then(|| "auto-rotate is on again".to_string()),
    }))
}

/// Starts an activity with an intent, or broadcasts it (Android).
pub async fn send_intent(s: AppState, r: IntentRequest) -> Result<Json<IntentDone>> {
    let parts = IntentParts {
        mode: r.mode,
        action: r.action.as_deref(),
        data: r.data.as_deref(),
        component: r.component.as_deref(),
        package: r.package.as_deref(),
        categories: &r.category,
        flags: r.flags,
        extras: &r.extras,
    };
    let (device, outcome) = s.controller.intent(r.udid.as_deref(), &parts).await?;
    Ok(Json(IntentDone {
        success: true,
        device,
        mode: r.mode,
        output: outcome.output,
        activity: outcome.activity,
    }))
}
