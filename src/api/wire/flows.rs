//! Wire types of Maestro flows: a run's request (the YAML text, its variables and the
//! sub-flow files it names) and its result, step by step.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A run's result and its steps: the flows crate's, whose runner makes them.
pub use mobilectl_flows::wire::{
    FlowRunResult, FlowStep, FlowStepStatus, SuiteFlow, SuiteFlowStatus, SuiteResult,
};

/// Default and largest time a flow run may take.
pub const DEFAULT_RUN_MS: u64 = 300_000;
/// Largest `timeout_ms` a flow run takes; more is refused.
pub const MAX_RUN_MS: u64 = 1_800_000;

/// A Maestro flow to run on one device.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowRunRequest {
    pub udid: Option<String>,
    /// The flow's YAML text (at most 1 MiB): a header, `---`, the commands.
    pub yaml: String,
    /// The flow's name in reports and the base `runFlow` paths resolve against (default
    /// `flow.yaml`).
    pub file: Option<String>,
    /// Variables for `${NAME}` references; they override the flow's own `env`.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Sub-flow files by path relative to `file`'s folder (`shared/login.yaml`), for
    /// `runFlow: file`; a path outside that folder is refused.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// The run stops after this many milliseconds (default 300000, at most 1800000).
    pub timeout_ms: Option<u64>,
    /// Hosts the flow's scripts may send HTTP requests to (`host`, `host:port`, `*`).
    #[serde(default)]
    pub allow_http: Vec<String>,
    /// Photos and videos for `addMedia`, base64, by path relative to `file`'s folder.
    #[serde(default)]
    pub media: BTreeMap<String, String>,
}

/// Largest body of a flow run: its text, sub-flows and scripts, and the media it adds in
/// base64 (each file at most 32 MiB).
pub const FLOW_BODY_LIMIT: usize = 48 * 1024 * 1024;

/// Most files a posted suite holds (its flows, their sub-flows and its `config.yaml`).
pub const MAX_SUITE_FILES: usize = 2000;

/// A suite to run on one device: a folder's flows, selected and ordered by its `config.yaml`.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowTestRequest {
    pub udid: Option<String>,
    /// The folder's files by path relative to it: flows, sub-flows, and `config.yaml`
    /// (globs, tags, order); at most 2000.
    pub files: BTreeMap<String, String>,
    /// Run only flows with one of these tags (with the config's `includeTags`).
    #[serde(default)]
    pub include_tags: Vec<String>,
    /// Leave out flows with one of these tags (with the config's `excludeTags`).
    #[serde(default)]
    pub exclude_tags: Vec<String>,
    /// Variables for `${NAME}` references, for every flow.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Each flow stops after this many milliseconds (default 300000, at most 1800000).
    pub timeout_ms: Option<u64>,
    /// Hosts the flows' scripts may send HTTP requests to (`host`, `host:port`, `*`).
    #[serde(default)]
    pub allow_http: Vec<String>,
}

/// An event of a streamed flow run: each step as it ends (its SSE `id` is its index in the
/// result's `steps`; a `runFlow`, `repeat` or `retry` ends after the steps inside it), then
/// the whole result (SSE event `result`); or, when the run could not go on (its device went
/// away), the error envelope as the last event (`error`).
// Its variants are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowEvent {
    Step(FlowStep),
    Result(FlowRunResult),
    Error(super::error::ErrorBody),
}

/// A step of a streamed suite, as it ends: which flow of the suite it is from (its file in the
/// suite's folder, as the result's `flows` name it) and the step.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SuiteStep {
    /// The suite's flow the step is from (its `file`).
    pub flow: String,
    /// The step, as its flow's result tells it.
    pub step: FlowStep,
}

/// An event of a streamed suite: each step as it ends (`step`, its SSE `id` its index in its
/// flow's steps), each flow's outcome as it is known (`flow`, its `id` its index in the
/// result's `flows`; a flow an earlier failure stopped is `not_run`), then the whole result
/// (`result`); or, when the suite could not go on, the error envelope as the last event
/// (`error`).
// Its variants are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SuiteEvent {
    Step(SuiteStep),
    Flow(SuiteFlow),
    Result(SuiteResult),
    Error(super::error::ErrorBody),
}

/// Start recording (no fields: the recording is the caller's, by its session).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordStart {}

/// A recording started.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct RecordStarted {
    pub recording: bool,
    /// The session recorded, or none for a session-less caller.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// Stop recording.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordStop {
    /// The flow's `appId` header (default: none written).
    pub app_id: Option<String>,
}

/// What was recorded, as a Maestro flow.
#[derive(Debug, Serialize, ToSchema)]
pub struct Recorded {
    /// The flow file's text.
    pub yaml: String,
    /// How many commands it has.
    pub commands: usize,
}
