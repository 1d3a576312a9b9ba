//! `flow test DIR --shards N`: a suite on N devices at once. Each shard leases the first free
//! device under a session of its own — from the server (`create_session` with an empty
//! `match`), or with `--grid HUB` through a Selenium Grid hub (a W3C session per shard, its
//! `--capability`s asked for, the flows sent under `HUB/session/{id}`) — runs its flows in turn
//! (the suite's flows split between the shards in turn, or every flow on each with
//! `--shard-all`), and ends its session, giving the device back. One merged report says which
//! device ran each flow.

use std::path::PathBuf;

use serde_json::json;

use super::flow::{run_files, Ran, RunOptions};
use super::flow_suite::{finish, outcomes, TestArgs};
use crate::client::exit;
use crate::flows::suite::{self, Plan};

/// A shard's lease: its session, and the device.
struct Lease {
    session: Leased,
    udid: String,
}

/// Where a shard's session is.
enum Leased {
    /// On the server: its secret.
    Local(String),
    /// Through a Grid hub: its W3C id and the base URL of the API in it.
    Grid { id: String, base: String },
}

impl Lease {
    /// The client options that send a shard's requests into its session.
    fn global(&self, g: &super::GlobalArgs) -> super::GlobalArgs {
        let mut g = g.clone();
        g.udid = None;
        match &self.session {
            Leased::Local(secret) => g.session = Some(secret.clone()),
            Leased::Grid { base, .. } => {
                g.url = base.clone();
                g.session = None;
                g.no_autostart = true;
            }
        }
        g
    }
}

/// Runs the suite's `plan` on `--shards` devices; the exit code.
pub fn run(a: &TestArgs, g: &super::GlobalArgs, plan: &Plan) -> i32 {
    let n = usize::from(a.shards);
    let rt = match super::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let leases = match rt.block_on(lease(a, g, n)) {
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
                let g = lease.global(g);
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
    rt.block_on(release(a, g, &leases));
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
async fn lease(
    a: &TestArgs,
    g: &super::GlobalArgs,
    n: usize,
) -> Result<Vec<Lease>, crate::client::ClientError> {
    if let Some(hub) = &a.grid {
        return lease_on_grid(hub, &a.capabilities, g, n).await;
    }
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
                return Err(no_device(k, n, e));
            }
        };
        let field = |k: &str| reply[k].as_str().unwrap_or_default().to_string();
        leases.push(Lease {
            session: Leased::Local(field("secret")),
            udid: field("udid"),
        });
    }
    Ok(leases)
}

/// Leases `n` devices through the hub, a W3C session each with `caps`; none when not all can
/// be (those opened are closed).
async fn lease_on_grid(
    hub: &str,
    caps: &[(String, serde_json::Value)],
    g: &super::GlobalArgs,
    n: usize,
) -> Result<Vec<Lease>, crate::client::ClientError> {
    let caps: serde_json::Map<_, _> = caps.iter().cloned().collect();
    let mut leases: Vec<Lease> = vec![];
    for k in 0..n {
        let opened = async {
            let (id, base) = crate::client::grid::open(hub, &caps).await?;
            let opts = crate::client::ConnectOptions {
                url: base.clone(),
                token: g.token.clone(),
                autostart: false,
                session: None,
            };
            let info = async {
                let c = crate::client::Client::connect(&opts).await?;
                c.get("/api/v1/session", &[]).await
            }
            .await;
            match info {
                Ok(info) => Ok(Lease {
                    udid: info.value["udid"].as_str().unwrap_or_default().to_string(),
                    session: Leased::Grid { id, base },
                }),
                Err(e) => {
                    crate::client::grid::close(hub, &id).await;
                    Err(e)
                }
            }
        }
        .await;
        match opened {
            Ok(l) => leases.push(l),
            Err(e) => {
                close_on_grid(hub, &leases).await;
                return Err(no_device(k, n, e));
            }
        }
    }
    Ok(leases)
}

/// Why shard `k` of `n` could not lease a device.
fn no_device(k: usize, n: usize, e: crate::client::ClientError) -> crate::client::ClientError {
    crate::client::ClientError::local(
        e.exit,
        "NO_DEVICE",
        format!("shard {} of {n} found no free device: {}", k + 1, e.message),
        Some("free a device, or ask for fewer `--shards`".to_string()),
    )
}

/// Ends the shards' sessions, giving their devices back.
async fn release(a: &TestArgs, g: &super::GlobalArgs, leases: &[Lease]) {
    if let Some(hub) = &a.grid {
        return close_on_grid(hub, leases).await;
    }
    if let Ok(c) = crate::client::Client::connect(&g.connect_options(None)).await {
        end(&c, leases).await;
    }
}

async fn end(c: &crate::client::Client, leases: &[Lease]) {
    for l in leases {
        if let Leased::Local(secret) = &l.session {
            // The path may be the secret: only the session's holder ends it.
            let req = super::plan::Request::new("end_session", json!({"id": secret}));
            let _ = super::plan::execute(c, req, true).await;
        }
    }
}

/// Closes the shards' Grid sessions (each node then ends its mobilectl session).
async fn close_on_grid(hub: &str, leases: &[Lease]) {
    for l in leases {
        if let Leased::Grid { id, .. } = &l.session {
            crate::client::grid::close(hub, id).await;
        }
    }
}
