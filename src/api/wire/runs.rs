//! Wire types of runs and their artifacts (`crate::runs`): a run's `result.json`, the index of
//! its artifacts, the listings, and the garbage collector's plan.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// What an artifact is; its content type follows from it and its name's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactKind {
    /// A screen recording (video).
    Recording,
    /// A screenshot (image).
    Screenshot,
    /// A compact tree or a snapshot.
    Tree,
    /// A debug bundle (JSON).
    DebugBundle,
    /// A flow's report (JSON, JUnit XML) or a failed step's files.
    FlowReport,
    /// A visual diff (image or JSON).
    Diff,
    /// A log excerpt.
    Log,
    /// A performance window's series and plots.
    Perf,
    /// Anything else.
    Other,
}

/// One artifact in a run's index.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ArtifactEntry {
    /// Its name inside the run (`failure-tap-1.png`): what `get_artifact` takes.
    pub name: String,
    pub kind: ArtifactKind,
    /// Its size; 0 while a file written over time (a recording) is still being written.
    pub bytes: u64,
    /// RFC 3339.
    pub created_at: String,
    pub content_type: String,
    /// Still being written (a recording in progress): GC leaves its run alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_progress: bool,
}

/// A run's `result.json`: written when the run ends (its session ended or expired, or the
/// server stopped). A run is failed (`ok: false`) when an act or verify operation failed in it.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RunResult {
    /// `YYYYMMDD-HHMMSS-<rand>` (UTC).
    pub run_id: String,
    /// The session whose run it is; none: the server's run for session-less callers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_name: Option<String>,
    /// RFC 3339.
    pub started_at: String,
    /// RFC 3339; none while the run is live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// No act or verify operation failed.
    pub ok: bool,
    /// Operations traced in the run.
    pub operations: u64,
    /// Of them, the ones that failed (any operation, any error).
    pub failures: u64,
    /// Of them, the act or verify operations that failed (but not for a malformed request):
    /// what makes a run failed.
    pub act_failures: u64,
    /// The devices its operations went to.
    pub devices: Vec<String>,
}

/// One run as listed.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunSummary {
    pub id: String,
    /// Its session, when it is a session's run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_name: Option<String>,
    /// Whether it is ok; none when unknown (no `result.json`: counted as failed by GC).
    pub ok: Option<bool>,
    pub started_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// Bytes on disk.
    pub bytes: u64,
    /// How many artifacts it holds.
    pub artifact_count: usize,
    /// A live session's run, or the server's: still being written.
    pub live: bool,
}

/// The runs, newest first.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunList {
    /// The cache directory the runs are in (`<cache>/runs/<id>`).
    pub cache_dir: String,
    pub runs: Vec<RunSummary>,
    /// How many runs there are: more than `runs` when `limit` cut the list.
    pub total: usize,
}

/// Query of `GET /runs`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RunsQuery {
    /// Newest runs to list: default 20, max 1000.
    pub limit: Option<u32>,
}

/// One run: its result (as far as known) and its artifacts.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunDetail {
    #[serde(flatten)]
    pub summary: RunSummary,
    /// Its `result.json`, or for a live run the counts so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<RunResult>,
    pub artifacts: Vec<ArtifactEntry>,
}

/// `GET /runs/{id}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RunPath {
    /// The run's id (`20260101-120000-ab12cd`).
    pub id: String,
}

/// `GET /runs/{id}/artifacts/{name}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ArtifactPath {
    /// The run's id.
    pub id: String,
    /// The artifact's name, as its run's index lists it.
    pub name: String,
}

/// `POST /gc`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GcRequest {
    /// Plan only: say what would be deleted, delete nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// What GC does with a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GcAction {
    /// The run stays.
    Keep,
    /// The run and its artifacts are deleted.
    Delete,
}

/// Why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GcReason {
    /// A live session's run, the server's, or one holding a recording in progress.
    Live,
    /// Among the newest `keep_last`.
    Recent,
    /// Failed (or without `result.json`) and younger than `keep_failure_days`.
    RecentFailure,
    /// Neither recent nor a recent failure.
    Expired,
    /// Kept by the rules above, deleted (oldest first) to bring the total under `max_bytes`.
    OverBudget,
}

/// One run in GC's plan.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GcEntry {
    pub id: String,
    pub action: GcAction,
    pub reason: GcReason,
    pub bytes: u64,
}

/// The policy GC applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GcPolicy {
    /// `MOBILECTL_GC_KEEP_LAST` (default 20).
    pub keep_last: usize,
    /// `MOBILECTL_GC_KEEP_FAILURE_DAYS` (default 7).
    pub keep_failure_days: u64,
    /// `MOBILECTL_GC_MAX_BYTES` (default 2 GB).
    pub max_bytes: u64,
}

/// GC's plan, and whether it was carried out.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GcPlan {
    pub dry_run: bool,
    pub policy: GcPolicy,
    /// Every run, newest first.
    pub runs: Vec<GcEntry>,
    pub kept: usize,
    pub deleted: usize,
    /// Bytes of the deleted runs.
    pub freed_bytes: u64,
    /// Bytes of the kept runs.
    pub kept_bytes: u64,
    /// Runs that could not be deleted, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// A run deleted by `delete_run`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunDeleted {
    /// The run's id.
    pub id: String,
    /// Bytes its folder held.
    pub freed_bytes: u64,
}
