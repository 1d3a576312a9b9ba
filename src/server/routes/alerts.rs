//! Alerts: accept, dismiss, or answer with a named button.

use axum::Json;

use crate::api::wire::act::ActionResult;
use crate::api::wire::verify::*;
use crate::device::AlertChoice;
use crate::error::Result;
use crate::server::AppState;

fn choice(default: AlertChoice, r: AlertRequest) -> (Option<String>, AlertChoice) {
    match r.button {
        Some(b) => (r.udid, AlertChoice::Button(b)),
        None => (r.udid, default),
    }
}

/// Accepts the alert on screen (Allow, OK, …) or taps `button`.
pub async fn accept(s: AppState, r: AlertRequest) -> Result<Json<ActionResult>> {
    let (udid, c) = choice(AlertChoice::Accept, r);
    Ok(Json(s.controller.answer_alert(udid.as_deref(), c).await?))
}

/// Dismisses the alert on screen (Don't allow, Cancel, …) or taps `button`.
pub async fn dismiss(s: AppState, r: AlertRequest) -> Result<Json<ActionResult>> {
    let (udid, c) = choice(AlertChoice::Dismiss, r);
    Ok(Json(s.controller.answer_alert(udid.as_deref(), c).await?))
}
