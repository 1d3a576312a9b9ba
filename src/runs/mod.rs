//! Runs and their artifacts (seed 000 §3, adapted to a server): each session has a run, and
//! session-less callers share one run per server start. A run is a folder
//! `<cache>/runs/<YYYYMMDD-HHMMSS-rand>/` holding `trace.jsonl` (one line per operation),
//! `artifacts/` with `artifacts.json` (its index) beside it, and `result.json` once it ends
//! (its session ended or expired, or the server stopped). A run is failed when an act or
//! verify operation failed in it (an error other than a malformed request, or an answer whose
//! `success` is false); other failures (a bad request, a read) are counted but do not fail it.
//! Requests refused before their handler runs (not JSON, a body that does not parse, an
//! unknown session) have no trace line.
//!
//! - [`dirs`]: the cache directory and run ids;
//! - [`names`]: artifact names (checked, made unique) and content types;
//! - [`trace`]: the trace's lines; [`live`]: a run being written; [`index`]: its artifacts;
//! - [`gc`]: the deterministic garbage collector (a pure planner and an executor);
//! - [`store`]: [`RunStore`], which the controller owns and everything above goes through.

pub mod dirs;
pub mod gc;
pub mod index;
pub mod live;
pub mod names;
pub mod store;
pub mod trace;

pub use crate::api::wire::runs::{ArtifactEntry, ArtifactKind, GcPlan, GcPolicy, RunResult};
pub use store::{ArtifactRef, RunHold, RunStore};
pub use trace::{Outcome, TraceLine};
