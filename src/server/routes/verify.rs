//! Verify: wait for a condition, expect a binary outcome, wait for the screen to change.

use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::controller::{
    expect_on, ChangeResult, Condition, ExpectResult, Expectation, Polling, WaitResult,
};
use crate::error::Result;
use crate::server::{ApiErrors, ApiJson, AppState};
use crate::ui::select::Selector;

/// Wait until an element meets a condition.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitRequest {
    pub udid: Option<String>,
    pub selector: Selector,
    pub condition: Condition,
    /// For `text_equals`.
    pub text: Option<String>,
    /// Default 5000, at most 120000.
    pub timeout_ms: Option<u64>,
    /// Default 300.
    pub poll_interval_ms: Option<u64>,
}

/// Assert something about the screen now.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ExpectRequest {
    pub udid: Option<String>,
    #[serde(flatten)]
    pub expectation: Expectation,
}

/// Wait until the screen differs from a fingerprint.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitForChangeRequest {
    pub udid: Option<String>,
    /// The fingerprint to move away from (default: the screen's now).
    pub fingerprint: Option<String>,
    /// Default 5000, at most 120000.
    pub timeout_ms: Option<u64>,
    /// Default 300.
    pub poll_interval_ms: Option<u64>,
}

/// Polls the screen until the selector meets the condition; a timeout is an answer
/// (`status: timeout` with what was observed), not an error.
#[utoipa::path(post, path = "/api/v1/device/ui/wait", tag = "verify", request_body = WaitRequest,
    responses((status = 200, description = "Success or timeout", body = WaitResult), ApiErrors))]
pub async fn wait(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<WaitRequest>,
) -> Result<Json<WaitResult>> {
    let polling = Polling::new(r.timeout_ms, r.poll_interval_ms);
    let result = s
        .controller
        .wait(
            r.udid.as_deref(),
            &r.selector,
            r.condition,
            r.text.as_deref(),
            polling,
        )
        .await?;
    Ok(Json(result))
}

/// Judges the screen once: `success` true or false, with a failure code and what was seen.
#[utoipa::path(post, path = "/api/v1/device/ui/expect", tag = "verify", request_body = ExpectRequest,
    responses((status = 200, description = "The verdict", body = ExpectResult), ApiErrors))]
pub async fn expect(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<ExpectRequest>,
) -> Result<Json<ExpectResult>> {
    let snapshot = s.controller.current(r.udid.as_deref()).await?;
    Ok(Json(expect_on(&snapshot, &r.expectation)))
}

/// Polls until the screen's fingerprint changes, then confirms the new screen with one more
/// read.
#[utoipa::path(post, path = "/api/v1/device/ui/wait-for-change", tag = "verify", request_body = WaitForChangeRequest,
    responses((status = 200, description = "Changed or timeout", body = ChangeResult), ApiErrors))]
pub async fn wait_for_change(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<WaitForChangeRequest>,
) -> Result<Json<ChangeResult>> {
    let polling = Polling::new(r.timeout_ms, r.poll_interval_ms);
    Ok(Json(
        s.controller
            .wait_for_change(r.udid.as_deref(), r.fingerprint, polling)
            .await?,
    ))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(wait))
        .routes(routes!(expect))
        .routes(routes!(wait_for_change))
}
