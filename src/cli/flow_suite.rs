//! `mobilectl flow test DIR`: a suite, as Maestro's `maestro test DIR` runs one. The folder's
//! workspace `config.yaml` selects and orders its flows ([`crate::flows::suite`]), with the
//! tags given here; each is checked, then run through the server in turn
//! ([`super::flow::run_files`]); one JUnit report for the suite, and with `--report` a JSON
//! index of what each flow did and where its artifacts are. Exit 0 all passed, 1 a flow
//! failed, 2 a flow is invalid (or the suite is).

use std::path::PathBuf;

use clap::Args;

use crate::client::exit;
use crate::flows::suite;

/// The suite and options of `flow test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// The suite's folder (its `config.yaml`, if any, selects the flows).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// A variable the flows use (`--env USER=bob`), repeatable.
    #[arg(long, short = 'e', value_name = "K=V", value_parser = super::flow::env_pair)]
    pub env: Vec<(String, String)>,
    /// Run only flows with one of these tags (added to the config's `includeTags`).
    #[arg(long, value_name = "TAG,…", value_delimiter = ',')]
    pub include_tags: Vec<String>,
    /// Leave out flows with one of these tags (added to the config's `excludeTags`).
    #[arg(long, value_name = "TAG,…", value_delimiter = ',')]
    pub exclude_tags: Vec<String>,
    /// Write one JUnit XML report for the suite here (a testcase per flow).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the suite's JSON index here: each flow's outcome and artifacts folder.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Stop each flow after this long.
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Run on this many devices at once, each under a session lease of its own (the first
    /// free devices the server has).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u8).range(1..=MAX_SHARDS as i64))]
    pub shards: u8,
    /// With `--shards`: every flow on every device, instead of the flows split between them.
    #[arg(long, requires = "shards")]
    pub shard_all: bool,
    /// Lease each shard's device through this Selenium Grid 4 hub (a W3C session each, its
    /// flows sent under `HUB/session/{id}`) instead of from the server.
    #[arg(long, value_name = "HUB")]
    pub grid: Option<String>,
    /// With `--grid`: a capability every shard's session asks for (`platformName=android`),
    /// repeatable.
    #[arg(long = "capability", value_name = "KEY=VALUE", requires = "grid",
          value_parser = crate::client::grid::capability)]
    pub capabilities: Vec<(String, serde_json::Value)>,
    /// A host the flows' scripts may send HTTP requests to (`api.example.com`,
    /// `localhost:8080`, `*` for any), repeatable; none is allowed otherwise.
    #[arg(long, value_name = "HOST")]
    pub allow_http: Vec<String>,
}

/// Most devices one suite runs on at once.
pub const MAX_SHARDS: u8 = 16;

/// Runs `flow test`; returns the exit code.
pub fn run(a: &TestArgs, g: &super::GlobalArgs) -> i32 {
    if g.json && a.shards == 1 && a.grid.is_none() {
        return run_on_server(a, g);
    }
    let plan = match suite::config_of(&a.dir)
        .and_then(|c| suite::plan(&a.dir, &c, &a.include_tags, &a.exclude_tags))
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("mobilectl: {e}");
            return exit::USAGE;
        }
    };
    if a.shards > 1 || a.grid.is_some() {
        return super::flow_shards::run(a, g, &plan);
    }
    let files: Vec<PathBuf> = plan.flows.iter().map(|f| a.dir.join(&f.file)).collect();
    let options = super::flow::RunOptions {
        env: crate::flows::vars::with_host(&a.env, std::env::vars()),
        timeout_ms: a.timeout_ms,
        junit: a.junit.clone(),
        stop_at_failure: !plan.continue_on_failure,
        label: None,
        allow_http: a.allow_http.clone(),
    };
    let ran = super::flow::run_files(&files, &a.dir, &options, g);
    let report = suite::result(&plan, outcomes(&plan, &ran, &a.dir));
    match finish(a, &report, false) {
        exit::OK => ran.code,
        code => code,
    }
}

/// Tells the suite's counts, and writes `--report` (and `--junit`, when `junit` is asked here:
/// a sharded suite's, merged); 0, or the exit code of a write that failed.
pub(super) fn finish(
    a: &TestArgs,
    report: &crate::api::wire::flows::SuiteResult,
    junit: bool,
) -> i32 {
    println!(
        "suite {}: {} passed, {} failed, {} invalid, {} not run ({} left out by tags)",
        a.dir.display(),
        report.passed,
        report.failed,
        report.invalid,
        report.not_run,
        report.left_out.len()
    );
    let mut writes = vec![];
    if let Some(path) = &a.report {
        writes.push((
            path,
            serde_json::to_string_pretty(report).unwrap_or_default(),
        ));
    }
    if let (Some(path), true) = (&a.junit, junit) {
        writes.push((path, crate::flows::report::suite_junit(report)));
    }
    for (path, text) in writes {
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("mobilectl: cannot write {}: {e}", path.display());
            return exit::FAILED;
        }
    }
    exit::OK
}

/// Each planned flow's outcome, found among what ran by its file.
pub(super) fn outcomes(
    plan: &suite::Plan,
    ran: &super::flow::Ran,
    dir: &std::path::Path,
) -> Vec<suite::Outcome> {
    plan.flows
        .iter()
        .map(|f| {
            let shown = dir.join(&f.file).display().to_string();
            if let Some(r) = ran.runs.iter().find(|r| r.file == f.file) {
                suite::Outcome::Ran(r.clone())
            } else if let Some((_, why)) = ran
                .invalid
                .iter()
                .find(|(p, _)| *p == shown || *p == f.file)
            {
                suite::Outcome::Invalid(why.clone())
            } else {
                suite::Outcome::NotRun
            }
        })
        .collect()
}

/// `flow test --json`: the folder posted whole to the server's `flow_test`, its result printed
/// as JSON (and written as `--report` and `--junit`).
fn run_on_server(a: &TestArgs, g: &super::GlobalArgs) -> i32 {
    let files = match suite::folder_files(&a.dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("mobilectl: {e}");
            return exit::USAGE;
        }
    };
    let env: std::collections::BTreeMap<_, _> =
        crate::flows::vars::with_host(&a.env, std::env::vars())
            .into_iter()
            .collect();
    let body = serde_json::json!({
        "files": files, "env": env, "include_tags": a.include_tags,
        "exclude_tags": a.exclude_tags, "timeout_ms": a.timeout_ms, "udid": g.udid,
        "allow_http": a.allow_http,
    });
    let rt = match super::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let answer = rt.block_on(async {
        let c = crate::client::Client::connect(&g.connect_options(g.session.clone())).await?;
        let req = super::plan::Request::new("flow_test", body);
        super::plan::execute(&c, req, true).await
    });
    let value = match answer {
        Ok(super::plan::Answer::Json { reply, .. }) => reply.value,
        Ok(_) => return exit::FAILED,
        Err(e) => return super::output::error(&e, true),
    };
    println!("{value}");
    let Ok(result) = serde_json::from_value::<crate::api::wire::flows::SuiteResult>(value) else {
        eprintln!("mobilectl: a suite result I cannot read");
        return exit::FAILED;
    };
    let writes = [
        (
            &a.report,
            serde_json::to_string_pretty(&result).unwrap_or_default(),
        ),
        (&a.junit, crate::flows::report::suite_junit(&result)),
    ];
    for (path, text) in writes {
        if let Some(path) = path {
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("mobilectl: cannot write {}: {e}", path.display());
                return exit::FAILED;
            }
        }
    }
    match (result.invalid, result.success) {
        (1.., _) => exit::USAGE,
        (0, false) => exit::FAILED,
        (0, true) => exit::OK,
    }
}
