//! What a flow run answers: its result and each step's outcome (wire types the product's API
//! answers with, re-exported there as its own).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A step's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowStepStatus {
    /// It passed.
    Passed,
    /// It failed and stopped the flow.
    Failed,
    /// It failed but was `optional` (or a retried attempt); the flow went on.
    Warned,
    /// A `runFlow` whose `when` did not hold.
    Skipped,
}

/// One step run (sub-flow steps follow their `runFlow` one level deeper).
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct FlowStep {
    /// The command and its main argument, or the step's `label`.
    pub title: String,
    pub command: String,
    pub file: String,
    pub line: usize,
    /// 0 for the flow's own steps, 1 inside a `runFlow`/`repeat`/`retry`…
    pub depth: usize,
    pub status: FlowStepStatus,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What its JavaScript wrote with `console.log`, a line each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub console: Vec<String>,
}

/// What a flow run did.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct FlowRunResult {
    /// Every step passed (or was optional or skipped).
    pub success: bool,
    /// The flow's `name`, else its file.
    pub name: String,
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_id: Option<String>,
    pub udid: String,
    pub duration_ms: u64,
    /// The index in `steps` of the step that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_step: Option<usize>,
    /// The folder (on the server's machine) with the failed step's screenshot
    /// (`failure.png`), compact tree (`tree.txt`), recent log (`log.json`) and steps, and
    /// the flow's `takeScreenshot` files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<String>,
    pub steps: Vec<FlowStep>,
}

/// How a suite's flow ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SuiteFlowStatus {
    /// Every step passed.
    Passed,
    /// A step failed.
    Failed,
    /// Refused before it ran (a command, JavaScript, a missing sub-flow…).
    Invalid,
    /// Not run: an earlier failure stopped the suite (`continueOnFailure: false`).
    NotRun,
}

/// One flow of a suite run.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SuiteFlow {
    /// Its path in the suite's folder.
    pub file: String,
    /// The header's `name`, else the file's.
    pub name: String,
    pub tags: Vec<String>,
    pub status: SuiteFlowStatus,
    /// The device it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Its run's files (on the server's machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<String>,
    /// Why it failed or was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a suite run did: each flow selected, in the order run, and the files its tags left out.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SuiteResult {
    /// Every flow selected passed.
    pub success: bool,
    pub passed: usize,
    pub failed: usize,
    pub invalid: usize,
    pub not_run: usize,
    pub flows: Vec<SuiteFlow>,
    /// Flow files the globs matched and the tags left out.
    pub left_out: Vec<String>,
}
