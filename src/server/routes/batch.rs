//! `batch`: several act and verify steps on one device, under one hold of its command lock.
//! Every step is checked before the first runs (a known act or verify operation, a body its
//! route would take, no `udid` of its own); then each runs through the API's own router,
//! in-process, so it answers exactly what its route answers. The batch stops at the first step
//! that failed unless told to go on, and with `observe` ends with one read of the screen and
//! what changed over the whole batch. `timeout_ms` bounds the steps: a step still running at
//! the deadline (a wait, say) is cut there and answers `504 TIMEOUT` (as does a step the
//! deadline comes before, which does not run), and the batch says it timed out and stopped at
//! that step. The time counts from when the device is held and the steps can start.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{header, Request};
use axum::{Json, Router};
use serde_json::{Map, Value};
use tower::ServiceExt;

use crate::api::wire::batch::*;
use crate::api::wire::error::{ErrorBody, ErrorEnvelope};
use crate::api::{HttpMethod, Input, Operation};
use crate::error::{Error, ErrorCode, Result};
use crate::server::AppState;

/// The tags of the operations a batch may run.
const STEP_TAGS: &[&str] = &["act", "verify"];

/// Largest answer of one step that is read (a step answers JSON, a few KB).
const MAX_STEP_ANSWER: usize = 4 * 1024 * 1024;

/// A step, checked.
struct Planned {
    op: &'static str,
    path: &'static str,
    body: Map<String, Value>,
}

/// Runs the steps in order on one device; see the module's doc.
pub async fn batch(s: AppState, r: BatchRequest) -> Result<Json<BatchResult>> {
    let planned = plan(&r)?;
    let limit = Duration::from_millis(r.timeout_ms.unwrap_or(DEFAULT_BATCH_MS));
    let api = crate::server::api(s.clone());
    let controller = s.controller.clone();
    let result = s
        .controller
        .holding_device(r.udid.as_deref(), |device, before| async move {
            // The steps' time: from when they can start (the device held), not from the
            // request (waiting for the device is not a step's).
            let deadline = Instant::now() + limit;
            let mut steps = Vec::with_capacity(planned.len());
            let (mut stopped_at, mut timed_out) = (None, false);
            for (i, step) in planned.into_iter().enumerate() {
                let op = step.op;
                let started = Instant::now();
                if started >= deadline {
                    steps.push(cut_step(op, started, limit, Cut::BeforeStart));
                    (stopped_at, timed_out) = (Some(i), true);
                    break;
                }
                let cut_at = tokio::time::Instant::from_std(deadline);
                let done = match tokio::time::timeout_at(cut_at, run_step(&api, &device.udid, step))
                    .await
                {
                    Ok(done) => done,
                    Err(_) => {
                        steps.push(cut_step(op, started, limit, Cut::Running));
                        (stopped_at, timed_out) = (Some(i), true);
                        break;
                    }
                };
                let ok = done.ok;
                steps.push(done);
                if !ok && !r.continue_on_failure {
                    stopped_at = Some(i);
                    break;
                }
            }
            let receipt = match r.observe {
                true => Some(controller.receipt(&device, before).await?),
                false => None,
            };
            Ok(BatchResult {
                success: stopped_at.is_none() && steps.iter().all(|s| s.ok),
                steps,
                stopped_at,
                timed_out,
                udid: device.udid,
                receipt,
            })
        })
        .await?;
    Ok(Json(result))
}

/// Whether `op` can be a step: a state-changing act or verify operation with a body.
fn is_step(op: &Operation) -> bool {
    STEP_TAGS.contains(&op.tag)
        && op.method == HttpMethod::Post
        && matches!(op.input, Input::Body(_))
        && op.name != "batch"
}

/// Checks every step before anything runs.
fn plan(r: &BatchRequest) -> Result<Vec<Planned>> {
    if r.steps.is_empty() || r.steps.len() > MAX_STEPS {
        return Err(Error::validation(format!(
            "a batch has 1 to {MAX_STEPS} steps (got {})",
            r.steps.len()
        )));
    }
    if r.timeout_ms.is_some_and(|t| t == 0 || t > MAX_BATCH_MS) {
        return Err(Error::validation(format!(
            "`timeout_ms` is 1 to {MAX_BATCH_MS}"
        )));
    }
    let ops = crate::api::operations();
    let steps: Vec<&str> = ops.iter().filter(|o| is_step(o)).map(|o| o.name).collect();
    r.steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let op = ops
                .iter()
                .find(|o| o.name == step.op && is_step(o))
                .ok_or_else(|| {
                    Error::validation(format!("step {i}: `{}` is not a batch step", step.op))
                        .with_hint(format!("a step is one of: {}", steps.join(", ")))
                })?;
            if step.body.contains_key("udid") {
                return Err(Error::validation(format!(
                    "step {i} ({}): `udid` belongs to the batch, not to a step",
                    op.name
                )));
            }
            let bytes = serde_json::to_vec(&step.body).unwrap_or_default();
            if let Some(Err(e)) = op.check_body(&bytes) {
                return Err(Error {
                    message: format!("step {i} ({}): {}", op.name, e.message),
                    ..e
                });
            }
            Ok(Planned {
                op: op.name,
                path: op.path,
                body: step.body.clone(),
            })
        })
        .collect()
}

/// Where the batch's deadline found a step.
enum Cut {
    /// Before it started: it did not run.
    BeforeStart,
    /// While it ran: it was stopped.
    Running,
}

/// A step cut at the batch's deadline: its answer is the `TIMEOUT` error envelope, so that
/// `steps[stopped_at]` says why the batch stopped there.
fn cut_step(op: &str, started: Instant, limit: Duration, cut: Cut) -> StepResult {
    let when = match cut {
        Cut::BeforeStart => "before this step, which did not run",
        Cut::Running => "during this step, which was stopped",
    };
    let e = Error::new(
        ErrorCode::Timeout,
        format!(
            "the batch's timeout_ms ({} ms) ran out {when}",
            limit.as_millis()
        ),
    )
    .with_hint("give the batch a larger timeout_ms, or the step a shorter one of its own");
    let answer = ErrorEnvelope {
        error: ErrorBody::from(e),
    };
    StepResult {
        op: op.to_string(),
        ok: false,
        status: ErrorCode::Timeout.status(),
        timing_ms: started.elapsed().as_millis() as u64,
        answer: serde_json::to_value(answer).unwrap_or(Value::Null),
    }
}

/// Runs one step through the API router, on `udid`.
async fn run_step(api: &Router, udid: &str, step: Planned) -> StepResult {
    let mut body = step.body;
    body.insert("udid".into(), Value::String(udid.to_string()));
    let started = Instant::now();
    let request = Request::post(step.path)
        .header(header::HOST, "localhost")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(Value::Object(body).to_string()));
    let (status, answer) = match request {
        Ok(req) => {
            let Ok(resp) = api.clone().oneshot(req).await;
            let status = resp.status().as_u16();
            let bytes = axum::body::to_bytes(resp.into_body(), MAX_STEP_ANSWER)
                .await
                .unwrap_or_default();
            (
                status,
                serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            )
        }
        Err(e) => (500, Value::String(format!("the step's request: {e}"))),
    };
    let ok = (200..300).contains(&status)
        && answer.get("success") != Some(&Value::Bool(false))
        && answer.get("status") != Some(&Value::String("timeout".into()));
    StepResult {
        op: step.op.to_string(),
        ok,
        status,
        timing_ms: started.elapsed().as_millis() as u64,
        answer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Either way the step answers `504 TIMEOUT`, and says whether it ran.
    #[test]
    fn a_cut_step_says_whether_it_ran() {
        let limit = Duration::from_millis(300);
        for (cut, says) in [
            (Cut::BeforeStart, "before this step, which did not run"),
            (Cut::Running, "during this step, which was stopped"),
        ] {
            let step = cut_step("tap", Instant::now(), limit, cut);
            assert!(!step.ok);
            assert_eq!(step.status, 504);
            assert_eq!(step.answer["error"]["code"], "TIMEOUT", "{}", step.answer);
            let message = step.answer["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("(300 ms)") && message.contains(says),
                "{message}"
            );
        }
    }
}
