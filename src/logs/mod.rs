//! Device logs, platform-free and without I/O: parsers of what devices print (Android logcat,
//! iOS ndjson, tombstones and crash reports), the bounded ring a device's log lives in with
//! its cursors, the filters readers use, crash and ANR detection, and the process names that
//! turn a pid into an app. The controller (`crate::controller`) feeds them from the device's
//! live log stream.

pub mod android;
pub mod clock;
pub mod crash;
pub mod entry;
pub mod filter;
pub mod ingest;
pub mod ios;
pub mod processes;
pub mod ring;
pub mod source;

pub use clock::DeviceClock;
pub use crash::{Crash, CrashKind, CrashSource, CrashStore};
pub use entry::{rfc3339, Level, LogEntry};
pub use filter::{LogFilter, Since};
pub use ingest::{Ingest, IngestStats, LogFormat, Seen};
pub use processes::{started_process, ProcessName, Processes};
pub use ring::{Cursor, LogRing, Page, RingLimits, RingStats};
pub use source::{CrashDetection, LogRead, LogStream, LogText};
