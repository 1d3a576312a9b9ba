//! Whether an action's target app crashed or stopped responding while the action ran or
//! within its `observe` window. An action takes a [`LogMark`] when it begins (which starts the
//! device's log supervisor, without waiting, where crashes are found in the log) and asks at
//! its end: without `observe`, what the log already holds (a look-up in memory, no device
//! command); with `observe`, after the window, the log is first caught up with the device
//! (its newest line read with one `logcat -d -t 1`, then awaited in the ring) or, where
//! crashes are reports (iOS), the new reports are read.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::{DeviceLogs, SourceState};
use crate::api::wire::act::ActionResult;
use crate::controller::DeviceController;
use crate::device::Device;
use crate::error::ErrorCode;
use crate::logs::{Crash, CrashDetection, CrashKind, Ingest, LogRead, LogText};

/// How far a crash may precede the mark, in host time, when only times can be compared
/// (clock skew read with one-second precision on some devices).
const SKEW_TOLERANCE_MS: i64 = 1_000;
/// How long an observing action waits for the log to be read the first time.
const FIRST_READ_WAIT: Duration = Duration::from_secs(10);
/// How long it waits for the log to catch up with the device.
const CATCH_UP: Duration = Duration::from_secs(3);

/// What the log knew when an action began.
#[derive(Clone)]
pub(crate) struct LogMark {
    logs: Option<Arc<DeviceLogs>>,
    /// The ring's newest entry then, when the log was being followed.
    seq: Option<u64>,
    host_ms: i64,
    /// The app the action is aimed at, when known.
    app: Option<String>,
}

/// A read of the log's newest line.
fn tail_read(clock: crate::logs::DeviceClock) -> LogRead {
    let mut read = LogRead::new(clock);
    read.tail = Some(1);
    read
}

impl LogMark {
    /// The read an observed action should bring back with its screen, for the crash check:
    /// the newest line of a log that is followed.
    pub(crate) fn tail_read(&self) -> Option<LogRead> {
        let logs = self.logs.as_ref()?;
        if !matches!(logs.status().state, SourceState::Live) {
            return None;
        }
        logs.clock().map(tail_read)
    }
}

/// The failure code of an action whose app had `c`.
pub fn crash_code(c: &Crash) -> ErrorCode {
    match c.kind {
        CrashKind::Anr => ErrorCode::AppNotResponding,
        _ => ErrorCode::AppCrashed,
    }
}

/// What an action's answer says of a crash: `id`, `kind`, `summary`.
pub fn crash_brief(c: &Crash) -> Value {
    json!({ "id": c.id, "kind": c.kind, "summary": c.summary() })
}

/// The earliest of `crashes` (by log position, then time): what went wrong first.
fn first(crashes: Vec<Crash>) -> Option<Crash> {
    crashes.into_iter().min_by_key(|c| {
        (
            c.first_seq.unwrap_or(u64::MAX),
            c.time_ms.unwrap_or(i64::MAX),
        )
    })
}

impl DeviceController {
    /// Notes where the device's log is as an action begins; starts its supervisor (without
    /// waiting for it) where the platform's crashes are found in its log.
    pub(crate) fn log_mark(&self, device: &Device, app: Option<String>) -> LogMark {
        let logs = match self.backend_arc(device) {
            Ok(b) if b.logs().map(|l| l.crash_detection()) == Some(CrashDetection::Log) => {
                self.logs.ensure(device, &b)
            }
            _ => self.logs.get(&device.udid),
        };
        let seq = logs
            .as_ref()
            .filter(|l| matches!(l.status().state, SourceState::Live))
            .map(|l| l.ring.stats().newest_seq);
        LogMark {
            logs,
            seq,
            host_ms: chrono::Utc::now().timestamp_millis(),
            app,
        }
    }

    /// The action's result, failed with `APP_CRASHED` / `APP_NOT_RESPONDING` and the crash
    /// when the target app crashed in its window.
    pub(crate) async fn with_crash_outcome(
        &self,
        device: &Device,
        mark: &LogMark,
        observe: bool,
        tail: Option<LogText>,
        mut result: ActionResult,
    ) -> ActionResult {
        if let Some(c) = self.crash_in_window(device, mark, observe, tail).await {
            let code = crash_code(&c);
            result.success = false;
            result.failure_code = Some(code);
            result.retryable = Some(code.retryable());
            let crash = crash_brief(&c);
            match &mut result.details {
                Some(Value::Object(m)) => {
                    m.insert("crash".into(), crash);
                }
                _ => result.details = Some(json!({ "crash": crash })),
            }
        }
        result
    }

    /// The first crash or ANR of the mark's app after the mark.
    pub(crate) async fn crash_in_window(
        &self,
        device: &Device,
        mark: &LogMark,
        observe: bool,
        tail: Option<LogText>,
    ) -> Option<Crash> {
        let source = self.backend(device).ok()?.logs()?;
        let since = mark.host_ms - SKEW_TOLERANCE_MS;
        let of_app = |c: &Crash| mark.app.as_deref().is_none_or(|a| c.is_of(a));
        if source.crash_detection() == CrashDetection::Reports {
            if !observe {
                let logs = mark.logs.clone().or_else(|| self.logs.get(&device.udid))?;
                return first(logs.crashes_where(|c| {
                    c.time_ms.is_some_and(|t| t >= since) && of_app(c) && c.kind.ends_the_app()
                }));
            }
            let mut found = source.crash_reports(device, Some(since)).await.ok()?;
            found.retain(|c| c.time_ms.is_none_or(|t| t >= since) && of_app(c));
            found.sort_by_key(|c| c.time_ms);
            if let Some(logs) = self.logs.get(&device.udid) {
                for c in &found {
                    logs.crashes.add(c.clone());
                }
            }
            return found.into_iter().next();
        }
        let logs = mark.logs.clone()?;
        if observe {
            self.catch_up(device, &logs, tail).await;
        }
        let clock = logs.clock();
        first(logs.crashes_where(|c| {
            let after = match (mark.seq, c.first_seq) {
                (Some(m), Some(f)) => f > m,
                _ => c
                    .time_ms
                    .map(|t| clock.map_or(t, |k| k.to_host_ms(t)))
                    .is_some_and(|h| h >= since),
            };
            after && of_app(c) && c.kind.ends_the_app()
        }))
    }

    /// Waits until the log holds the device's newest line and no crash block is open.
    /// `tail`: the device's newest line as the action's own read brought it (no round trip
    /// then); else it is read here.
    async fn catch_up(&self, device: &Device, logs: &DeviceLogs, tail: Option<LogText>) {
        if logs.ready(FIRST_READ_WAIT).await.is_err() {
            return;
        }
        let Some(clock) = logs.clock() else { return };
        let text = match tail {
            Some(t) => t,
            None => {
                let Some(source) = self.backend(device).ok().and_then(|b| b.logs()) else {
                    return;
                };
                let Ok(t) = source.log_read(device, &tail_read(clock)).await else {
                    return;
                };
                t
            }
        };
        let mut ingest = Ingest::new(text.format, clock);
        let mut newest = ingest.feed(&text.bytes);
        newest.extend(ingest.finish());
        let Some(line) = newest.pop() else { return };
        let deadline = tokio::time::Instant::now() + CATCH_UP;
        let mut added = logs.ring.subscribe();
        while !logs.ring.has_reached(&line) {
            if tokio::time::timeout_at(deadline, added.changed())
                .await
                .is_err()
            {
                return;
            }
        }
        let mut open = logs.detecting.subscribe();
        let _ = tokio::time::timeout_at(deadline, open.wait_for(|o| !o)).await;
    }
}
