//! The debug bundle: what an agent asks for when "something went wrong", in one answer — the
//! device, the screen (snapshot and screenshot), the foreground app's last warnings and
//! errors, and the recent crashes. A part that cannot be read is named in `problems`; the
//! rest is still answered.

use std::sync::Arc;

use super::DeviceLogs;
use crate::controller::{DeviceController, Shot, Snapshot};
use crate::device::Device;
use crate::error::Result;
use crate::logs::{Crash, Level, LogEntry, LogFilter};

/// What the bundle gathered (the server renders it).
pub struct Bundle {
    /// The device it is about.
    pub device: Device,
    /// A fresh read of the screen (none: it failed, see `problems`).
    pub snapshot: Option<Arc<Snapshot>>,
    /// The screenshot (none: not asked for, or it failed).
    pub shot: Option<Shot>,
    /// The device's log (none: it cannot be read, see `problems`).
    pub logs: Option<Arc<DeviceLogs>>,
    /// The foreground app's latest warnings and errors, oldest first.
    pub entries: Vec<LogEntry>,
    /// The crashes since the time asked for.
    pub crashes: Vec<Crash>,
    /// The parts that could not be read, and why (`screen: …`, `logs: …`).
    pub problems: Vec<String>,
}

impl DeviceController {
    /// Gathers a bundle: `lines` warnings and errors of the foreground app, crashes since
    /// `since_ms`, a screenshot unless `screenshot` is false.
    pub async fn debug_bundle(
        &self,
        udid: Option<&str>,
        since_ms: i64,
        lines: usize,
        screenshot: bool,
    ) -> Result<Bundle> {
        let device = self.resolve_ready(udid).await?;
        let mut problems = Vec::new();
        let (snapshot, logs) = tokio::join!(self.snapshot(&device), self.device_logs(&device));
        let snapshot = snapshot
            .map_err(|e| problems.push(format!("screen: {} ({})", e.message, e.code.as_str())))
            .ok();
        let shot = if screenshot {
            self.screenshot(Some(&device.udid))
                .await
                .map_err(|e| {
                    problems.push(format!("screenshot: {} ({})", e.message, e.code.as_str()))
                })
                .ok()
        } else {
            None
        };
        let app = snapshot.as_ref().and_then(|s| s.app());
        let (logs, entries, crashes) = match logs {
            Ok(logs) => {
                let filter = LogFilter {
                    min_level: Some(Level::Warn),
                    app: app.clone(),
                    ..LogFilter::default()
                };
                let entries = logs.read(&filter, None, lines).entries;
                let crashes = match self.device_crashes(&device, Some(since_ms), None).await {
                    Ok((_, c)) => c,
                    Err(e) => {
                        problems.push(format!("crashes: {}", e.message));
                        Vec::new()
                    }
                };
                (Some(logs), entries, crashes)
            }
            Err(e) => {
                problems.push(format!("logs: {} ({})", e.message, e.code.as_str()));
                (None, Vec::new(), Vec::new())
            }
        };
        Ok(Bundle {
            device,
            snapshot,
            shot,
            logs,
            entries,
            crashes,
            problems,
        })
    }
}
