//! Verify: wait for a condition, expect a binary outcome, wait for the screen to change.

use axum::Json;

use crate::controller::Polling;

use crate::error::Result;

use crate::api::wire::verify::*;
use crate::server::AppState;

/// Polls the screen until the selector meets the condition; a timeout is an answer
/// (`status: timeout` with what was observed), not an error.
pub async fn wait(s: AppState, r: WaitRequest) -> Result<Json<WaitResult>> {
    let polling = Polling::checked(r.timeout_ms, r.poll_interval_ms)?;
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
/// `screen_matches` compares screenshots (again until `timeout_ms` when given).
pub async fn expect(s: AppState, r: ExpectRequest) -> Result<Json<ExpectResult>> {
    let udid = r.udid.clone();
    let expectation = r.expectation()?;
    Ok(Json(
        s.controller.expect(udid.as_deref(), &expectation).await?,
    ))
}

/// Polls until the screen's fingerprint changes, then confirms the new screen with one more
/// read.
pub async fn wait_for_change(s: AppState, r: WaitForChangeRequest) -> Result<Json<ChangeResult>> {
    let polling = Polling::checked(r.timeout_ms, r.poll_interval_ms)?;
    Ok(Json(
        s.controller
            .wait_for_change(r.udid.as_deref(), r.fingerprint, polling)
            .await?,
    ))
}
