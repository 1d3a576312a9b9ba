//! What a backend hands the log supervisor: the text of a one-off read (history, the newest
//! line) or a live stream, each with the format it is in, and where the platform's crashes
//! are found.

use super::clock::DeviceClock;
use super::ingest::LogFormat;
use crate::exec::StreamChild;

/// What to read.
#[derive(Debug, Clone)]
pub struct LogRead {
    /// The device's clock (to write times the device's tools take).
    pub clock: DeviceClock,
    /// Only what was logged at or after this device time (Unix ms).
    pub after_ms: Option<i64>,
    /// Only the newest N lines.
    pub tail: Option<usize>,
    /// How far back a history read goes (where the platform reads history by time).
    pub window_s: Option<u64>,
    /// Only this app's lines (where the platform filters at the source).
    pub app: Option<String>,
}

impl LogRead {
    /// A read of everything the platform keeps, on a device with this clock.
    pub fn new(clock: DeviceClock) -> Self {
        LogRead {
            clock,
            after_ms: None,
            tail: None,
            window_s: None,
            app: None,
        }
    }
}

/// The text of a one-off read.
#[derive(Debug)]
pub struct LogText {
    /// The format the text is in.
    pub format: LogFormat,
    /// The tool's output, as it came.
    pub bytes: Vec<u8>,
}

/// A live stream.
pub struct LogStream {
    /// The format the stream is in.
    pub format: LogFormat,
    /// The running tool whose output is the stream.
    pub child: StreamChild,
}

/// Where a platform's crashes and ANRs are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashDetection {
    /// In its log (Android: `FATAL EXCEPTION`, tombstones, `ANR in`).
    Log,
    /// In crash report files (iOS Simulator: `.ips`, `.crash`).
    Reports,
    /// Not at all.
    None,
}
