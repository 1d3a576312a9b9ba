//! Alerts: accept, dismiss, or answer with a named button.

use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::controller::{ActionResult, AlertChoice};
use crate::error::Result;
use crate::server::{ApiErrors, ApiJson, AppState};

/// Answer the alert on screen.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AlertRequest {
    pub udid: Option<String>,
    /// Tap the button with this label instead of guessing the accepting/dismissing one.
    pub button: Option<String>,
}

fn choice(default: AlertChoice, r: AlertRequest) -> (Option<String>, AlertChoice) {
    match r.button {
        Some(b) => (r.udid, AlertChoice::Button(b)),
        None => (r.udid, default),
    }
}

/// Accepts the alert on screen (Allow, OK, …) or taps `button`.
#[utoipa::path(post, path = "/api/v1/device/alert/accept", tag = "verify", request_body = AlertRequest,
    responses((status = 200, description = "The button was tapped", body = ActionResult), ApiErrors))]
pub async fn accept(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<AlertRequest>,
) -> Result<Json<ActionResult>> {
    let (udid, c) = choice(AlertChoice::Accept, r);
    Ok(Json(s.controller.answer_alert(udid.as_deref(), c).await?))
}

/// Dismisses the alert on screen (Don't allow, Cancel, …) or taps `button`.
#[utoipa::path(post, path = "/api/v1/device/alert/dismiss", tag = "verify", request_body = AlertRequest,
    responses((status = 200, description = "The button was tapped", body = ActionResult), ApiErrors))]
pub async fn dismiss(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<AlertRequest>,
) -> Result<Json<ActionResult>> {
    let (udid, c) = choice(AlertChoice::Dismiss, r);
    Ok(Json(s.controller.answer_alert(udid.as_deref(), c).await?))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(accept))
        .routes(routes!(dismiss))
}
