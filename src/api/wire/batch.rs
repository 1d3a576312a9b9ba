//! Wire types of `batch`: several act and verify steps under one hold of the device.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::ui::diff::Changes;

/// Most steps in one batch.
pub const MAX_STEPS: usize = 100;
/// Default and largest time a batch may take (a step does not start after it).
pub const DEFAULT_BATCH_MS: u64 = 60_000;
/// Largest `timeout_ms` a batch takes; more is refused.
pub const MAX_BATCH_MS: u64 = 600_000;

/// Steps to run in order, on one device, with no other request's command in between.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    pub udid: Option<String>,
    /// 1 to 100 steps.
    pub steps: Vec<BatchStep>,
    /// Go on after a step that failed (default: stop there).
    #[serde(default)]
    pub continue_on_failure: bool,
    /// Read the screen after the last step: `receipt` with what changed over the batch.
    #[serde(default)]
    pub observe: bool,
    /// No step starts after this many milliseconds (default 60000, at most 600000).
    pub timeout_ms: Option<u64>,
}

/// One step: an act or verify operation and its body, as its own route takes it (without
/// `udid`: the batch's device applies).
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchStep {
    /// An act or verify operation (tap, type_text, wait…), run with `body` as arguments.
    pub op: String,
    #[serde(default)]
    #[schema(value_type = Object)]
    pub body: Map<String, Value>,
}

/// What a batch did.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchResult {
    /// Every step ran and succeeded.
    pub success: bool,
    pub steps: Vec<StepResult>,
    /// The step the batch stopped at (0-based), when it stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<usize>,
    /// The batch ran out of `timeout_ms` before its last step.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    pub udid: String,
    /// With `observe`: the screen after the last step and what changed over the batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
}

/// One step's outcome: the operation's own answer (or its error envelope).
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct StepResult {
    pub op: String,
    /// The step did what it says: a 2xx answer without `success: false` or a timed-out wait.
    pub ok: bool,
    /// The HTTP status its route would have answered.
    pub status: u16,
    pub timing_ms: u64,
    #[schema(value_type = Object)]
    pub answer: Value,
}

/// The screen after a run of operations, and what changed since the read before it.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Receipt {
    pub fingerprint_after: String,
    /// The snapshot read after the run; its refs are current.
    pub snapshot_id: String,
    /// Absent when nothing had been read before the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Changes>,
}
