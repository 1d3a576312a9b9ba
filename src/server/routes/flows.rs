//! `flow_run`: a Maestro flow posted as YAML text (with its sub-flow files and variables),
//! parsed and checked whole before the first device command (a refusal is `400 VALIDATION`
//! naming the file, line and command), then run on one device under one hold of its command
//! lock ([`crate::flows::run`]). The answer is every step's outcome.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Json;

use crate::api::wire::flows::*;
use crate::error::{Error, Result};
use crate::flows::{load, parse, run::Runner};
use crate::server::bind::{self, Binding};
use crate::server::AppState;

/// This module's handlers, bound to their operations by name.
pub fn bindings() -> Vec<Binding> {
    vec![bind::body("flow_run", flow_run)]
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
                artifacts_dir(),
                Duration::from_millis(timeout),
            );
            Ok(runner.run(&flow).await)
        })
        .await?;
    Ok(Json(result))
}

/// A fresh folder name for a run's artifacts, in the state directory.
fn artifacts_dir() -> std::path::PathBuf {
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S");
    crate::client::autostart::state_dir()
        .join("flow-runs")
        .join(format!("{stamp}-{}-{n}", std::process::id()))
}
