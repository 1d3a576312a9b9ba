//! The device's log and crashes ([`crate::device::Capability::Logs`], read by the
//! controller's log supervisor).

use async_trait::async_trait;

use crate::device::Device;
use crate::error::Result;
use crate::logs::{Crash, CrashDetection, DeviceClock, LogRead, LogStream, LogText, ProcessName};

/// Reading the device's log, its processes and its crash reports.
#[async_trait]
pub trait Logs: Send + Sync {
    /// Where this platform's crashes and ANRs are found.
    fn crash_detection(&self) -> CrashDetection;
    /// The device's clock, for reading its log's times.
    async fn log_clock(&self, device: &Device) -> Result<DeviceClock>;
    /// The device's processes (pid → name) or apps (executable → bundle id).
    async fn log_processes(&self, device: &Device) -> Result<Vec<ProcessName>>;
    /// A one-off read of the device's log (its history, or its newest lines).
    async fn log_read(&self, device: &Device, read: &LogRead) -> Result<LogText>;
    /// Starts the device's live log stream (from `after_ms` when given).
    async fn log_stream(&self, device: &Device, read: &LogRead) -> Result<LogStream>;
    /// Crash reports kept outside the log (iOS), made at or after `since_ms` (host time).
    async fn crash_reports(&self, _device: &Device, _since_ms: Option<i64>) -> Result<Vec<Crash>> {
        Ok(Vec::new())
    }
}
