//! Wire types of screen recordings: start, stop, the list, one recording.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Start recording the device's screen.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordingStart {
    pub udid: Option<String>,
    /// Longest recording, seconds (default 300, at most 1800); it stops by itself then.
    pub max_s: Option<u32>,
    /// Frame size `WIDTHxHEIGHT` in pixels, both even (Android; default the screen's).
    pub size: Option<String>,
    /// Frame size as a share of the screen's, 0.1..=1 (Android; instead of `size`).
    pub scale: Option<f64>,
    /// Encoder bit rate, bits per second (Android; default the device's, 20 Mbps on most).
    pub bit_rate: Option<u64>,
}

/// Stop the device's recording.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordingStop {
    pub udid: Option<String>,
}

/// A recording named in the path.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RecordingPath {
    /// The recording's id.
    pub id: String,
}

/// Where a recording is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecordingState {
    /// Still recording.
    Recording,
    /// Stopped; its file is ready.
    Finished,
    /// Ended by an error.
    Failed,
}

/// Why a recording stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StoppedBy {
    /// `recording_stop`.
    Request,
    /// It reached `max_s`.
    MaxS,
    /// The session that started it ended.
    SessionEnd,
    /// The server shut down.
    Shutdown,
}

/// One recording.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RecordingInfo {
    pub id: String,
    pub udid: String,
    pub state: RecordingState,
    /// RFC 3339.
    pub started_at: String,
    pub max_s: u32,
    /// The MP4 on the server's host (complete once `finished`).
    pub path: String,
    /// The run whose artifact it is, and its name there (`GET
    /// /api/v1/runs/{run}/artifacts/{artifact}` serves it too).
    pub run: String,
    pub artifact: String,
    /// The session that started it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<StoppedBy>,
    /// Seconds of video, read from the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Milliseconds from the stop to a finalised file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finalize_ms: Option<u64>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The recordings this server made, newest first.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct RecordingList {
    pub recordings: Vec<RecordingInfo>,
}

/// A recording deleted.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct RecordingDeleted {
    pub id: String,
    pub deleted: bool,
}
