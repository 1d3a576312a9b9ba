//! `mobilectl flow check FILE|DIR`: Maestro flows parsed and validated offline (no server, no
//! device), exit 0 when every file can run, 2 otherwise. `flow run FILE|DIR`: each checked
//! here, then posted with its sub-flow files to `flow_run_stream` (each step's line as it
//! ends; with `--json`, to `flow_run`: one JSON result per flow); `--junit`, and exit 0 (all
//! passed), 1 (a step failed) or 2 (a flow is invalid).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::client::exit;

/// The `flow` subcommands.
#[derive(Debug, Subcommand)]
pub enum FlowCommand {
    /// Parse and validate Maestro flows (sub-flows included) without a device.
    Check(CheckArgs),
    /// Run Maestro flows on a device: exit 0 all passed, 1 a step failed, 2 a flow is invalid.
    Run(RunArgs),
    /// Run a suite: the flows of a folder its `config.yaml` selects (globs, tags, order), one
    /// JUnit report; exit 0 all passed, 1 a flow failed, 2 a flow is invalid.
    Test(super::flow_suite::TestArgs),
    /// Record this caller's acts and verifies as a flow: `flow record start`, then
    /// `flow record stop -o flow.yaml`.
    #[command(subcommand)]
    Record(RecordCommand),
    /// Convert a batch body (JSON file, `-` for stdin) into Maestro YAML, offline.
    Export {
        /// The batch body to convert (`-`: stdin).
        #[arg(value_name = "BATCH.json")]
        batch: PathBuf,
        /// Write the flow here instead of printing it.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// The flow's `appId` header.
        #[arg(long, value_name = "BUNDLE_ID")]
        app_id: Option<String>,
    },
}

/// The `flow record` subcommands.
#[derive(Debug, Subcommand)]
pub enum RecordCommand {
    /// Start recording (in the `--session`, if given).
    Start,
    /// Stop recording: print the flow, or write it to `-o FILE`.
    Stop {
        /// Write the flow here instead of printing it.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// The flow's `appId` header.
        #[arg(long, value_name = "BUNDLE_ID")]
        app_id: Option<String>,
    },
}

/// The flows and variables of `flow check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A flow file, or a folder of them.
    #[arg(value_name = "FILE|DIR")]
    pub path: PathBuf,
    /// A variable the flows use (`--env USER=bob`), repeatable.
    #[arg(long, short = 'e', value_name = "K=V", value_parser = env_pair)]
    pub env: Vec<(String, String)>,
}

/// Parses `K=V`.
pub fn env_pair(s: &str) -> Result<(String, String), String> {
    let (k, v) = s.split_once('=').ok_or("an env variable is K=V")?;
    if k.is_empty() {
        return Err("an env variable's name is not empty".into());
    }
    Ok((k.to_string(), v.to_string()))
}

/// The request `flow run` sends for one flow (its `yaml` and `files` are read from the disk
/// when it is sent, by [`run_flows`]), and `flow test --json` for its suite (its `files`
/// likewise); `flow check` sends none.
pub fn plan(
    cmd: FlowCommand,
    udid: &Option<String>,
    json: bool,
) -> Result<super::plan::Request, crate::client::ClientError> {
    use super::plan::Request;
    match cmd {
        FlowCommand::Run(a) => {
            let env: std::collections::BTreeMap<_, _> = a.env.into_iter().collect();
            let body = serde_json::json!({
                "file": a.path.display().to_string(), "env": env, "timeout_ms": a.timeout_ms,
                "udid": udid, "allow_http": a.allow_http,
            });
            Ok(Request::new(run_op(json), body))
        }
        FlowCommand::Record(RecordCommand::Start) => {
            Ok(Request::new("flow_record_start", serde_json::json!({})))
        }
        FlowCommand::Record(RecordCommand::Stop { app_id, .. }) => Ok(Request::new(
            "flow_record_stop",
            serde_json::json!({ "app_id": app_id }),
        )),
        // With `--json` the suite is one request (its `files` are read from the folder when it
        // is sent, by `flow_suite::run`); as text, each flow is a `flow_run_stream` of its own.
        FlowCommand::Test(a) => {
            let env: std::collections::BTreeMap<_, _> = a.env.into_iter().collect();
            let body = serde_json::json!({
                "env": env, "include_tags": a.include_tags, "exclude_tags": a.exclude_tags,
                "timeout_ms": a.timeout_ms, "udid": udid, "allow_http": a.allow_http,
            });
            let op = match json {
                true => "flow_test",
                false => "flow_run_stream",
            };
            Ok(Request::new(op, body))
        }
        FlowCommand::Check(_) | FlowCommand::Export { .. } => {
            Err(crate::client::ClientError::local(
                exit::USAGE,
                "VALIDATION",
                "`flow check` and `flow export` run offline, without the server",
                None,
            ))
        }
    }
}

/// Runs a flow command; returns the exit code.
pub fn run(cmd: FlowCommand, g: &super::GlobalArgs) -> i32 {
    match cmd {
        FlowCommand::Check(a) => check(&a, g.json),
        FlowCommand::Run(a) => run_flows(&a, g),
        FlowCommand::Test(a) => super::flow_suite::run(&a, g),
        FlowCommand::Record(r) => record(r, g),
        FlowCommand::Export {
            batch,
            output,
            app_id,
        } => export(&batch, output.as_deref(), app_id.as_deref()),
    }
}

/// `flow export`: a batch body to Maestro YAML.
fn export(batch: &std::path::Path, output: Option<&std::path::Path>, app_id: Option<&str>) -> i32 {
    let text = match batch.to_str() {
        Some("-") => std::io::read_to_string(std::io::stdin()).map_err(|e| e.to_string()),
        _ => crate::flows::load::read(batch),
    };
    let value: serde_json::Value =
        match text.and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string())) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("mobilectl: {}: {e}", batch.display());
                return exit::USAGE;
            }
        };
    let yaml = match crate::flows::record::export_batch(&value, app_id) {
        Ok(y) => y,
        Err(e) => {
            eprintln!("mobilectl: {}: {e}", batch.display());
            return exit::USAGE;
        }
    };
    match output {
        None => print!("{yaml}"),
        Some(p) => {
            if let Err(e) = std::fs::write(p, yaml) {
                eprintln!("mobilectl: cannot write {}: {e}", p.display());
                return exit::FAILED;
            }
        }
    }
    exit::OK
}

/// `flow record start|stop`: sent as planned; `stop -o FILE` writes the flow there.
fn record(r: RecordCommand, g: &super::GlobalArgs) -> i32 {
    let output = match &r {
        RecordCommand::Stop { output, .. } => output.clone(),
        RecordCommand::Start => None,
    };
    let req = plan(FlowCommand::Record(r), &g.udid, g.json);
    let Some(path) = output else {
        return super::run_request(g.clone(), req);
    };
    let Ok(req) = req else {
        return exit::USAGE;
    };
    let rt = match super::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let answer = rt.block_on(async {
        let c = crate::client::Client::connect(&g.connect_options(g.session.clone())).await?;
        super::plan::execute(&c, req, true).await
    });
    match answer {
        Ok(super::plan::Answer::Json { reply, .. }) => {
            let yaml = reply.value["yaml"].as_str().unwrap_or_default();
            if let Err(e) = std::fs::write(&path, yaml) {
                eprintln!("mobilectl: cannot write {}: {e}", path.display());
                return exit::FAILED;
            }
            println!(
                "recorded {} commands to {}",
                reply.value["commands"],
                path.display()
            );
            exit::OK
        }
        Ok(_) => exit::FAILED,
        Err(e) => super::output::error(&e, g.json),
    }
}

fn check(a: &CheckArgs, json: bool) -> i32 {
    let env = crate::flows::vars::with_host(&a.env, std::env::vars());
    let report = match crate::flows::check::check(&a.path, &env) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mobilectl: {e}");
            return exit::USAGE;
        }
    };
    match json {
        true => println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        ),
        false => print!("{}", report.text()),
    }
    match report.ok() {
        true => exit::OK,
        false => exit::USAGE,
    }
}

/// The flows and options of `flow run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// A flow file, or a folder of them (each runs in turn).
    #[arg(value_name = "FILE|DIR")]
    pub path: PathBuf,
    /// A variable the flows use (`--env USER=bob`), repeatable.
    #[arg(long, short = 'e', value_name = "K=V", value_parser = env_pair)]
    pub env: Vec<(String, String)>,
    /// Write a JUnit XML report here (one testcase per flow).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Stop each flow after this long.
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// A host the flows' scripts may send HTTP requests to (`api.example.com`,
    /// `localhost:8080`, `*` for any), repeatable; none is allowed otherwise.
    #[arg(long, value_name = "HOST")]
    pub allow_http: Vec<String>,
}

/// The operation `flow run` calls: the stream for text (each step as it ends), the whole
/// result for `--json`.
fn run_op(json: bool) -> &'static str {
    match json {
        true => "flow_run",
        false => "flow_run_stream",
    }
}

/// Runs one flow: streamed, each step's line printed as it ends, then the verdict; or with
/// `--json`, its whole result printed as JSON; or, with a `label` (a shard of a suite), whole,
/// told in one line when it ends. The result, or none if the answer could not be read.
async fn run_one(
    c: &crate::client::Client,
    body: serde_json::Value,
    json: bool,
    label: Option<&str>,
) -> Result<Option<crate::api::wire::flows::FlowRunResult>, crate::client::ClientError> {
    use crate::api::wire::flows::{FlowEvent, FlowRunResult};
    let req = super::plan::Request::new(run_op(json || label.is_some()), body);
    if json || label.is_some() {
        let super::plan::Answer::Json { reply, .. } = super::plan::execute(c, req, true).await?
        else {
            return Ok(None);
        };
        match label {
            Some(label) => println!(
                "[{label}] {}",
                crate::render::maestro::run(&reply.value)
                    .lines()
                    .rev()
                    .find(|l| l.starts_with("flow "))
                    .unwrap_or_default()
            ),
            None => println!("{}", reply.value),
        }
        return Ok(serde_json::from_value::<FlowRunResult>(reply.value)
            .map_err(|e| eprintln!("mobilectl: an answer I cannot read: {e}"))
            .ok());
    }
    let h = req.http()?;
    let mut result = None;
    let mut failure = None;
    c.stream(&h.path, &[], h.body.as_ref(), |data| {
        match serde_json::from_str::<FlowEvent>(data) {
            // The run could not go on: its error ends the stream, printed as any error is.
            Ok(FlowEvent::Error(_)) => {
                failure = Some(crate::client::server_error(
                    reqwest::StatusCode::OK,
                    data.as_bytes(),
                ));
                return;
            }
            Ok(FlowEvent::Result(r)) => result = Some(r),
            _ => {}
        }
        let _ = super::output::event(req.op, data, false);
    })
    .await?;
    if let Some(e) = failure {
        return Err(e);
    }
    if result.is_none() {
        eprintln!("mobilectl: the run's stream ended without its result");
    }
    Ok(result)
}

/// Runs each flow through the server; 0 all passed, 1 a step failed, 2 a flow is invalid.
pub fn run_flows(a: &RunArgs, g: &super::GlobalArgs) -> i32 {
    let files = match crate::flows::load::flow_files(&a.path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("mobilectl: {e}");
            return exit::USAGE;
        }
    };
    let root = match a.path.is_dir() {
        true => a.path.clone(),
        false => crate::flows::load::workspace_of(&a.path),
    };
    let options = RunOptions {
        env: crate::flows::vars::with_host(&a.env, std::env::vars()),
        timeout_ms: a.timeout_ms,
        junit: a.junit.clone(),
        stop_at_failure: false,
        label: None,
        allow_http: a.allow_http.clone(),
    };
    run_files(&files, &root, &options, g).code
}

/// How [`run_files`] runs flows.
pub struct RunOptions {
    /// The variables every flow is given (`--env`, and the shell's `MAESTRO_` ones).
    pub env: Vec<(String, String)>,
    /// Each flow stops after this long.
    pub timeout_ms: Option<u64>,
    /// Where the JUnit report goes.
    pub junit: Option<PathBuf>,
    /// After a flow that failed or is invalid, run no more.
    pub stop_at_failure: bool,
    /// A shard's name: each flow runs whole and is told in one line under it.
    pub label: Option<String>,
    /// The hosts the flows' scripts may reach (`--allow-http`).
    pub allow_http: Vec<String>,
}

/// What [`run_files`] ran: each flow's result, the invalid ones with their first refusal, and
/// the exit code (a flow in neither list was not run: a failure stopped the run).
pub struct Ran {
    /// The results of the flows that ran, in order.
    pub runs: Vec<crate::api::wire::flows::FlowRunResult>,
    /// Each invalid flow, with why.
    pub invalid: Vec<(String, String)>,
    /// 0 all passed, 1 a step failed (or the server failed), 2 a flow is invalid.
    pub code: i32,
}

/// Checks each of `files` (sub-flows inside `root`), then runs those that can run through the
/// server, in order; writes the JUnit report when asked.
pub fn run_files(
    files: &[PathBuf],
    root: &std::path::Path,
    o: &RunOptions,
    g: &super::GlobalArgs,
) -> Ran {
    let mut ran = Ran {
        runs: vec![],
        invalid: vec![],
        code: exit::OK,
    };
    let mut bundles = vec![];
    for f in files {
        match crate::flows::load::bundle(f, root, &o.env) {
            Ok(b) => {
                for w in &b.warnings {
                    eprintln!("warning: {w}");
                }
                bundles.push(b)
            }
            Err(refusals) => {
                for r in &refusals {
                    eprintln!("invalid: {r}");
                }
                let first = refusals
                    .first()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                ran.invalid.push((f.display().to_string(), first));
            }
        }
    }
    if o.stop_at_failure && !ran.invalid.is_empty() {
        bundles.clear();
    }
    let rt = match super::runtime() {
        Ok(rt) => rt,
        Err(code) => {
            ran.code = code;
            return ran;
        }
    };
    if !bundles.is_empty() {
        let outcome = rt.block_on(async {
            let c = crate::client::Client::connect(&g.connect_options(g.session.clone())).await?;
            let env: std::collections::BTreeMap<_, _> = o.env.iter().cloned().collect();
            for b in bundles {
                use base64::Engine;
                let media: std::collections::BTreeMap<&String, String> = b
                    .media
                    .iter()
                    .map(|(k, v)| (k, base64::engine::general_purpose::STANDARD.encode(v)))
                    .collect();
                let mut body = serde_json::json!({
                    "yaml": b.text, "file": b.file, "files": b.files, "env": env,
                    "allow_http": o.allow_http, "media": media,
                });
                if let Some(t) = o.timeout_ms {
                    body["timeout_ms"] = t.into();
                }
                if let Some(u) = &g.udid {
                    body["udid"] = u.clone().into();
                }
                let passed = match run_one(&c, body, g.json, o.label.as_deref()).await {
                    Ok(Some(r)) => {
                        let passed = r.success;
                        ran.runs.push(r);
                        passed
                    }
                    Ok(None) => {
                        ran.code = exit::FAILED;
                        false
                    }
                    Err(e) => {
                        if e.exit == exit::USAGE {
                            ran.invalid.push((b.file.clone(), e.message.clone()));
                        }
                        super::output::error(&e, g.json);
                        if e.exit != exit::USAGE {
                            return Err(e);
                        }
                        false
                    }
                };
                if !passed && o.stop_at_failure {
                    break;
                }
            }
            Ok::<(), crate::client::ClientError>(())
        });
        if let Err(e) = outcome {
            ran.code = e.exit;
        }
    }
    if let Some(path) = &o.junit {
        let xml = crate::flows::report::junit(&ran.runs, &ran.invalid);
        if let Err(e) = std::fs::write(path, xml) {
            eprintln!("mobilectl: cannot write {}: {e}", path.display());
            ran.code = exit::FAILED;
            return ran;
        }
    }
    if ran.code == exit::OK {
        ran.code = match (ran.invalid.is_empty(), ran.runs.iter().all(|r| r.success)) {
            (false, _) => exit::USAGE,
            (true, false) => exit::FAILED,
            (true, true) => exit::OK,
        };
    }
    ran
}
