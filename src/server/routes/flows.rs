//! `flow_run`: a Maestro flow posted as YAML text (with its sub-flow files and variables),
//! parsed and checked whole before the first device command (a refusal is `400 VALIDATION`
//! naming the file, line and command), then run on one device under one hold of its command
//! lock ([`crate::flows::run`]). The answer is every step's outcome. `flow_record_start` and
//! `flow_record_stop` record the caller's act and verify operations ([`crate::flows::record`]).

use std::time::Duration;

use axum::Json;

use crate::api::wire::flows::*;
use crate::api::wire::runs::ArtifactKind;
use crate::error::{Error, ErrorCode, Result};
use crate::flows::run::{Artifacts, Runner};
use crate::flows::{load, parse};
use crate::server::bind::{self, Binding};
use crate::server::AppState;

/// This module's handlers, bound to their operations by name.
pub fn bindings() -> Vec<Binding> {
    vec![
        bind::body("flow_run", flow_run),
        bind::body("flow_record_start", record_start),
        bind::body("flow_record_stop", record_stop),
    ]
}

/// Runs a flow; see the module's doc.
pub async fn flow_run(s: AppState, r: FlowRunRequest) -> Result<Json<FlowRunResult>> {
    let timeout = r.timeout_ms.unwrap_or(DEFAULT_RUN_MS);
    if timeout == 0 || timeout > MAX_RUN_MS {
        return Err(Error::validation(format!(
            "`timeout_ms` is 1 to {MAX_RUN_MS}"
        )));
    }
    let env: Vec<(String, String)> = r.env.into_iter().collect();
    let file = r.file.unwrap_or_else(|| "flow.yaml".to_string());
    let parsed = load::parse_posted(&file, &r.yaml, &r.files, &env);
    if let Some(first) = parsed.refusals.first() {
        let more = match parsed.refusals.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        return Err(
            Error::validation(format!("the flow cannot run: {first}{more}")).with_hint(format!(
                "`mobilectl flow check FILE` lists every refusal; supported commands: {}",
                parse::SUPPORTED.join(", ")
            )),
        );
    }
    let api = crate::server::api(s.clone());
    let session = crate::controller::current_session().map(|c| c.id.clone());
    let artifacts = Artifacts::Run {
        session: session.clone(),
    };
    let controller = s.controller.clone();
    let flow = parsed.flow;
    let result = s
        .controller
        .holding_device(r.udid.as_deref(), |device, _| async move {
            let runner = Runner::new(
                api,
                controller,
                device,
                env,
                artifacts,
                Duration::from_millis(timeout),
            );
            Ok(runner.run(&flow).await)
        })
        .await?;
    save_reports(&s, session.as_deref(), &result);
    Ok(Json(result))
}

/// The flow's reports (its result as JSON, and as JUnit XML) into the caller's run.
fn save_reports(s: &AppState, session: Option<&str>, result: &FlowRunResult) {
    let runs = s.controller.runs();
    let stem = format!("flow-{}", result.file.trim_end_matches(".yaml"));
    if let Ok(json) = serde_json::to_vec_pretty(result) {
        let _ = runs.save_artifact(
            session,
            &format!("{stem}.json"),
            ArtifactKind::FlowReport,
            &json,
        );
    }
    let xml = crate::flows::report::junit(std::slice::from_ref(result), &[]);
    let _ = runs.save_artifact(
        session,
        &format!("{stem}.junit.xml"),
        ArtifactKind::FlowReport,
        xml.as_bytes(),
    );
}

/// The caller's key: its session id, or empty.
fn caller() -> String {
    crate::controller::current_session()
        .map(|c| c.id.clone())
        .unwrap_or_default()
}

/// Starts recording this caller's successful act and verify operations.
pub async fn record_start(s: AppState, _r: RecordStart) -> Result<Json<RecordStarted>> {
    let key = caller();
    s.controller.recordings.start(&key);
    Ok(Json(RecordStarted {
        recording: true,
        session: (!key.is_empty()).then_some(key),
    }))
}

/// Stops this caller's recording: the flow of what it did.
pub async fn record_stop(s: AppState, r: RecordStop) -> Result<Json<Recorded>> {
    let commands = s.controller.recordings.stop(&caller()).ok_or_else(|| {
        Error::new(
            ErrorCode::NotFound,
            "no recording was started by this caller",
        )
        .with_hint("POST /api/v1/flows/record/start first (in the same session)")
    })?;
    Ok(Json(Recorded {
        yaml: crate::flows::record::yaml(r.app_id.as_deref(), &commands),
        commands: commands.len(),
    }))
}
