//! `mobilectl flow test DIR`: a suite, as Maestro's `maestro test DIR` runs one. The folder's
//! workspace `config.yaml` selects and orders its flows ([`crate::flows::suite`]), with the
//! tags given here; each is checked, then run through the server in turn
//! ([`super::flow::run_files`]); one JUnit report for the suite, and with `--report` a JSON
//! index of what each flow did and where its artifacts are. Exit 0 all passed, 1 a flow
//! failed, 2 a flow is invalid (or the suite is).

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

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
}

/// The suite's JSON index (`--report`).
#[derive(Debug, Serialize)]
pub struct SuiteReport {
    /// Every flow selected passed.
    pub success: bool,
    /// Counts of the flows by outcome.
    pub passed: usize,
    /// Flows with a failed step.
    pub failed: usize,
    /// Flows refused before they ran.
    pub invalid: usize,
    /// Flows not run: a failure stopped the suite (`continueOnFailure: false`).
    pub not_run: usize,
    /// Each flow selected, in the order run.
    pub flows: Vec<SuiteFlow>,
    /// Flow files the globs matched and the tags left out.
    pub left_out: Vec<String>,
}

/// One flow of the index.
#[derive(Debug, Serialize)]
pub struct SuiteFlow {
    /// Its file.
    pub file: String,
    /// Its name (the header's, else the file's).
    pub name: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// `passed`, `failed`, `invalid` or `not_run`.
    pub status: &'static str,
    /// How long it ran.
    pub duration_ms: Option<u64>,
    /// The folder (on the server's machine) with its artifacts.
    pub artifacts: Option<String>,
    /// Why it failed or was refused.
    pub error: Option<String>,
}

/// Runs `flow test`; returns the exit code.
pub fn run(a: &TestArgs, g: &super::GlobalArgs) -> i32 {
    let plan = match suite::config_of(&a.dir)
        .and_then(|c| suite::plan(&a.dir, &c, &a.include_tags, &a.exclude_tags))
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("mobilectl: {e}");
            return exit::USAGE;
        }
    };
    let files: Vec<PathBuf> = plan.flows.iter().map(|f| f.file.clone()).collect();
    let options = super::flow::RunOptions {
        env: crate::flows::vars::with_host(&a.env, std::env::vars()),
        timeout_ms: a.timeout_ms,
        junit: a.junit.clone(),
        stop_at_failure: !plan.continue_on_failure,
    };
    let ran = super::flow::run_files(&files, &a.dir, &options, g);
    let report = index(&plan, &ran, &a.dir);
    if !g.json {
        println!(
            "suite {}: {} passed, {} failed, {} invalid, {} not run ({} left out by tags)",
            a.dir.display(),
            report.passed,
            report.failed,
            report.invalid,
            report.not_run,
            report.left_out.len()
        );
    }
    if let Some(path) = &a.report {
        let text = serde_json::to_string_pretty(&report).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("mobilectl: cannot write {}: {e}", path.display());
            return exit::FAILED;
        }
    }
    ran.code
}

/// The index of a suite's run: each planned flow matched to its result by file.
fn index(plan: &suite::Plan, ran: &super::flow::Ran, dir: &std::path::Path) -> SuiteReport {
    let rel = |p: &std::path::Path| {
        let root = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let real = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        real.strip_prefix(&root)
            .map(|r| r.display().to_string())
            .unwrap_or_else(|_| p.display().to_string())
    };
    let flows: Vec<SuiteFlow> = plan
        .flows
        .iter()
        .map(|f| {
            let file = rel(&f.file);
            let shown = f.file.display().to_string();
            let mut flow = SuiteFlow {
                file: file.clone(),
                name: f.name.clone(),
                tags: f.tags.clone(),
                status: "not_run",
                duration_ms: None,
                artifacts: None,
                error: None,
            };
            if let Some(r) = ran.runs.iter().find(|r| r.file == file) {
                flow.status = if r.success { "passed" } else { "failed" };
                flow.duration_ms = Some(r.duration_ms);
                flow.artifacts = r.artifacts.clone();
                flow.error = r
                    .failed_step
                    .and_then(|i| r.steps.get(i))
                    .and_then(|s| s.error.clone());
            } else if let Some((_, why)) =
                ran.invalid.iter().find(|(f, _)| *f == shown || *f == file)
            {
                flow.status = "invalid";
                flow.error = Some(why.clone());
            }
            flow
        })
        .collect();
    let count = |s: &str| flows.iter().filter(|f| f.status == s).count();
    SuiteReport {
        success: flows.iter().all(|f| f.status == "passed"),
        passed: count("passed"),
        failed: count("failed"),
        invalid: count("invalid"),
        not_run: count("not_run"),
        left_out: plan.left_out.iter().map(|f| rel(&f.file)).collect(),
        flows,
    }
}
