//! `flow test DIR --shards N`: a suite on N devices at once. Each shard leases the first free
//! device under a session of its own (`create_session` with an empty `match`), runs its flows
//! through the server in turn — the suite's flows split between the shards in turn, or every
//! flow on each with `--shard-all` — and ends its session, giving the device back. One merged
//! report says which device ran each flow.

use std::path::PathBuf;

use serde_json::json;

use super::flow::{run_files, Ran, RunOptions};
use super::flow_suite::{finish, outcomes, TestArgs};
use crate::client::exit;
use crate::flows::suite::{self, Plan};

/// A shard's lease: its session's secret, and the device.
struct Lease {
    secret: String,
    udid: String,
}

/// Runs the suite's `plan` on `--shards` devices; the exit code.
pub fn run(a: &TestArgs, g: &super::GlobalArgs, plan: &Plan) -> i32 {
    let n = usize::from(a.shards);
    let rt = match super::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let leases = match rt.block_on(lease(g, n)) {
        Ok(l) => l,
        Err(e) => return super::output::error(&e, g.json),
    };
    // Which planned flows each shard runs, by index in the plan.
    let shares: Vec<Vec<usize>> = (0..n)
        .map(|k| match a.shard_all {
            true => (0..plan.flows.len()).collect(),
            false => (k..plan.flows.len()).step_by(n).collect(),
        })
        .collect();
    let env = crate::flows::vars::with_host(&a.env, std::env::vars());
    let ran: Vec<Ran> = std::thread::scope(|scope| {
        let handles: Vec<_> = leases
            .iter()
            .zip(&shares)
            .map(|(lease, share)| {
                let files: Vec<PathBuf> = share
                    .iter()
                    .map(|&i| a.dir.join(&plan.flows[i].file))
                    .collect();
                let options = RunOptions {
                    env: env.clone(),
                    timeout_ms: a.timeout_ms,
                    junit: None,
                    stop_at_failure: !plan.continue_on_failure,
                    label: Some(lease.udid.clone()),
                    allow_http: a.allow_http.clone(),
                };
                let mut g = g.clone();
                g.session = Some(lease.secret.clone());
                g.udid = None;
                scope.spawn(move || run_files(&files, &a.dir, &options, &g))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| Ran {
                    runs: vec![],
                    invalid: vec![],
                    code: exit::FAILED,
                })
            })
            .collect()
    });
    rt.block_on(release(g, &leases));
    // One merged plan: each shard's flows in its order, each with its outcome and device.
    let mut merged = Plan {
        flows: vec![],
        left_out: plan.left_out.clone(),
        continue_on_failure: plan.continue_on_failure,
    };
    let mut all_outcomes = vec![];
    let mut devices = vec![];
    for ((share, shard), lease) in shares.iter().zip(&ran).zip(&leases) {
        let mine = Plan {
            flows: share.iter().map(|&i| plan.flows[i].clone()).collect(),
            left_out: vec![],
            continue_on_failure: plan.continue_on_failure,
        };
        all_outcomes.extend(outcomes(&mine, shard, &a.dir));
        devices.extend(std::iter::repeat_n(lease.udid.clone(), mine.flows.len()));
        merged.flows.extend(mine.flows);
    }
    let mut report = suite::result(&merged, all_outcomes);
    for (flow, udid) in report.flows.iter_mut().zip(devices) {
        flow.udid.get_or_insert(udid);
    }
    if g.json {
        println!("{}", serde_json::to_string(&report).unwrap_or_default());
    }
    match finish(a, &report, true) {
        exit::OK => ran.iter().map(|r| r.code).max().unwrap_or(exit::OK),
        code => code,
    }
}

/// Leases `n` devices, a session each; none when not all can be (those made are ended).
async fn lease(g: &super::GlobalArgs, n: usize) -> Result<Vec<Lease>, crate::client::ClientError> {
    let c = crate::client::Client::connect(&g.connect_options(None)).await?;
    let mut leases = vec![];
    for k in 0..n {
        let body = json!({"match": {}, "name": format!("shard-{}-{k}", std::process::id())});
        let answer =
            super::plan::execute(&c, super::plan::Request::new("create_session", body), true).await;
        let reply = match answer {
            Ok(super::plan::Answer::Json { reply, .. }) => reply.value,
            Ok(_) => serde_json::Value::Null,
            Err(e) => {
                end(&c, &leases).await;
                return Err(crate::client::ClientError::local(
                    e.exit,
                    "NO_DEVICE",
                    format!("shard {} of {n} found no free device: {}", k + 1, e.message),
                    Some("free a device, or ask for fewer `--shards`".to_string()),
                ));
            }
        };
        let field = |k: &str| reply[k].as_str().unwrap_or_default().to_string();
        leases.push(Lease {
            secret: field("secret"),
            udid: field("udid"),
        });
    }
    Ok(leases)
}

/// Ends the shards' sessions, giving their devices back.
async fn release(g: &super::GlobalArgs, leases: &[Lease]) {
    if let Ok(c) = crate::client::Client::connect(&g.connect_options(None)).await {
        end(&c, leases).await;
    }
}

async fn end(c: &crate::client::Client, leases: &[Lease]) {
    for l in leases {
        // The path may be the secret: only the session's holder ends it.
        let req = super::plan::Request::new("end_session", json!({"id": l.secret}));
        let _ = super::plan::execute(c, req, true).await;
    }
}
