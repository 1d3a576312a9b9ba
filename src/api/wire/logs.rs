//! Wire types of the log operations: reading the log (a page, or a stream of Server-Sent
//! Events), crashes and ANRs, and the debug bundle.

// The fields and variants of these wire types are described by the API schema, where
// descriptions are kept short on purpose (token budget).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::device::Device;
pub use crate::logs::{CrashKind, CrashSource, Level};

/// Filters of `GET /logs` and `GET /logs/stream`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LogsQuery {
    pub udid: Option<String>,
    /// Minimum level (V D I W E F).
    pub level: Option<String>,
    /// Exact tag.
    pub tag: Option<String>,
    /// Package or bundle id.
    pub app: Option<String>,
    /// Substring of the message.
    pub contains: Option<String>,
    /// Regex on the message.
    pub regex: Option<String>,
    /// RFC 3339 time, `5m`, or a cursor.
    pub since: Option<String>,
    /// Default 100, max 1000.
    pub limit: Option<u32>,
    /// Resume after this event id (or `Last-Event-ID`).
    pub last_event_id: Option<String>,
}

/// One log entry.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LogEntryView {
    /// RFC 3339 in the device's zone, when the log says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    pub level: Level,
    pub tag: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tid: Option<u32>,
    /// The app of the process (package or bundle id), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
}

/// How the device's log is being read.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LogSourceView {
    /// `starting`, `live`, `restarting` or `stopped`.
    pub state: String,
    /// Entries held, and their bytes.
    pub entries: usize,
    pub bytes: usize,
    /// Entries dropped from the ring to stay within its limits, since it started.
    pub dropped: u64,
    /// Times the device's log stream was restarted.
    pub restarts: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

/// A page of the log.
#[derive(Debug, Serialize, ToSchema)]
pub struct LogPage {
    pub udid: String,
    /// Oldest first.
    pub entries: Vec<LogEntryView>,
    /// Pass as `since` to read what follows.
    pub cursor: String,
    /// More matching entries follow the page (read on with `cursor`).
    pub more: bool,
    /// Entries after the given cursor that the ring dropped before this read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missed: Option<u64>,
    /// Set when `limit` was lowered to the cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub source: LogSourceView,
}

/// An event of `GET /logs/stream`: an entry (SSE event `entry`, id its cursor), or a notice
/// that entries were dropped before this reader got them (SSE event `dropped`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum LogEvent {
    Entry(LogEntryView),
    Dropped(DroppedNotice),
}

/// Entries this reader missed: it fell behind the ring.
#[derive(Debug, Serialize, ToSchema)]
pub struct DroppedNotice {
    pub dropped: u64,
    pub cursor: String,
}

/// Query of `GET /logs/crashes`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CrashesQuery {
    pub udid: Option<String>,
    /// RFC 3339 time or `1h`.
    pub since: Option<String>,
    /// Package or bundle id.
    pub app: Option<String>,
    /// Default 20, max 200.
    pub limit: Option<u32>,
}

/// Query of `GET /logs/crashes/{id}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CrashQuery {
    /// Crash id.
    pub id: String,
    pub udid: Option<String>,
}

/// A crash or ANR.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CrashView {
    pub id: String,
    pub kind: CrashKind,
    /// One paragraph: who, what, where.
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// Top frames, innermost first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
    pub source: CrashSource,
    /// The whole text (`GET /logs/crashes/{id}` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The crashes of a device.
#[derive(Debug, Serialize, ToSchema)]
pub struct CrashList {
    pub udid: String,
    /// Newest first.
    pub crashes: Vec<CrashView>,
}

/// One crash with its text.
#[derive(Debug, Serialize, ToSchema)]
pub struct CrashDetail {
    pub udid: String,
    pub crash: CrashView,
}

/// Query of `GET /debug/bundle`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct BundleQuery {
    pub udid: Option<String>,
    /// Crashes since (default `15m`).
    pub since: Option<String>,
    /// Error lines (default 50).
    pub lines: Option<u32>,
    /// Screenshot size (default 720; 0: none).
    pub max_size: Option<u32>,
}

/// The screenshot of a bundle.
#[derive(Debug, Serialize, ToSchema)]
pub struct BundleImage {
    pub content_type: String,
    pub width: u32,
    pub height: u32,
    /// The image, base64.
    pub base64: String,
}

/// What an agent asks for when something went wrong: the device, the foreground app, the
/// compact tree, a screenshot, the app's last warnings and errors, and recent crashes.
#[derive(Debug, Serialize, ToSchema)]
pub struct DebugBundle {
    pub device: Device,
    pub taken_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// The compact tree, one line per element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree_text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<BundleImage>,
    /// Warnings and errors of the foreground app (all apps' when it is unknown), oldest first.
    pub logs: Vec<LogEntryView>,
    /// Crashes and ANRs since `since`, newest first.
    pub crashes: Vec<CrashView>,
    /// The recording proxy's failed or mocked exchanges since `since` (the newest 20, oldest
    /// first): what the app's network did meanwhile.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub network: Vec<crate::proxy::flow::FlowLine>,
    /// The app's last performance reading and window, when there were any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perf: Option<crate::api::wire::perf::BundlePerf>,
    /// Parts that could not be read, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// The session that leased the device when the bundle was taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease: Option<crate::api::wire::sessions::Lease>,
    /// Where the bundle was also saved: `RUN/NAME`, an artifact of the caller's run
    /// (`GET /api/v1/runs/RUN/artifacts/NAME`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
}
