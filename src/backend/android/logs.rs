//! Android's log through adb: `adb logcat -v threadtime` over the `main`, `system` and
//! `crash` buffers (a buffer the device lacks — old devices have no `crash` — is dropped and
//! remembered), dumped (`-d`, `-t N`) or followed (from `-T 'MM-DD hh:mm:ss.mmm'` when
//! resuming); the device clock from `date`; process names from `ps -A -o PID,NAME` (plain
//! `ps` on devices older than Android 8).

use async_trait::async_trait;

use std::time::{Duration, Instant};

use super::shell::adb_failure;
use super::{AdbBackend, QUICK_TIMEOUT};
use crate::backend::exec_error;
use crate::backend::Logs;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::exec::Tool;
use crate::logs::android::ps;
use crate::logs::CrashDetection;
use crate::logs::{DeviceClock, LogFormat, LogRead, LogStream, LogText, ProcessName};

/// Buffers asked for, most useful first.
const BUFFERS: [&str; 3] = ["main", "system", "crash"];
/// Time limit of a dump of the whole log (three buffers of a few MiB on busy devices).
const DUMP_TIMEOUT: Duration = Duration::from_secs(60);

/// The buffer a logcat error says does not exist: `Unable to open log device
/// '/dev/log/crash'` (Android ≤ 4.4), `Unknown buffer 'crash'` (later).
pub fn missing_buffer(stderr: &str) -> Option<&'static str> {
    BUFFERS.into_iter().find(|b| {
        stderr.contains(&format!("/dev/log/{b}'"))
            || stderr.contains(&format!("Unknown buffer '{b}'"))
            || stderr.contains(&format!("buffer '{b}' not"))
    })
}

/// `MM-DD hh:mm:ss.mmm` of a device time, in the device's zone (what `-T` takes).
pub fn logcat_time(ms: i64, clock: &DeviceClock) -> String {
    let local = ms + i64::from(clock.utc_offset_s) * 1000;
    match chrono::DateTime::from_timestamp_millis(local) {
        Some(t) => t.format("%m-%d %H:%M:%S%.3f").to_string(),
        None => "01-01 00:00:00.000".into(),
    }
}

impl AdbBackend {
    fn buffers_of(&self, serial: &str) -> Vec<&'static str> {
        self.log_buffers
            .lock()
            .ok()
            .and_then(|m| m.get(serial).cloned())
            .unwrap_or_else(|| BUFFERS.to_vec())
    }

    fn forget_buffer(&self, serial: &str, buffer: &str) -> bool {
        let mut left = self.buffers_of(serial);
        let before = left.len();
        left.retain(|b| *b != buffer);
        let removed = left.len() < before && !left.is_empty();
        if removed {
            tracing::info!(
                serial,
                buffer,
                "the device has no such log buffer; reading without it"
            );
            if let Ok(mut m) = self.log_buffers.lock() {
                m.insert(serial.to_string(), left);
            }
        }
        removed
    }

    /// A one-off read (`logcat -d …`) as a device shell command, to run inside another script.
    pub(super) fn log_read_script(&self, serial: &str, read: &LogRead) -> String {
        self.logcat_args(serial, read, true)
            .iter()
            .map(|a| super::shell::quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn logcat_args(&self, serial: &str, read: &LogRead, dump: bool) -> Vec<String> {
        let mut args = vec!["logcat".to_string(), "-v".into(), "threadtime".into()];
        for b in self.buffers_of(serial) {
            args.push("-b".into());
            args.push(b.into());
        }
        if dump {
            args.push("-d".into());
        }
        match (read.tail, read.after_ms) {
            (Some(n), _) => {
                args.push("-t".into());
                args.push(n.to_string());
            }
            (None, Some(ms)) => {
                args.push(if dump { "-t" } else { "-T" }.into());
                args.push(logcat_time(ms, &read.clock));
            }
            (None, None) => {}
        }
        args
    }
}

#[async_trait]
impl Logs for AdbBackend {
    fn crash_detection(&self) -> CrashDetection {
        CrashDetection::Log
    }

    /// The device's clock: `date '+%Y %z %s.%N'`.
    async fn log_clock(&self, device: &Device) -> Result<DeviceClock> {
        let before = Instant::now();
        let host_before = chrono::Utc::now().timestamp_millis();
        let out = self
            .shell(&device.udid, "date '+%Y %z %s.%N'", QUICK_TIMEOUT)
            .await?;
        // The device read its clock about halfway through the round trip.
        let host_mid = host_before + before.elapsed().as_millis() as i64 / 2;
        let text = out.stdout_text();
        DeviceClock::from_date_output(&text, host_mid).ok_or_else(|| {
            Error::new(
                ErrorCode::CommandFailed,
                format!("`date` on the device printed {:?}", text.trim()),
            )
        })
    }

    /// pid → process name.
    async fn log_processes(&self, device: &Device) -> Result<Vec<ProcessName>> {
        let out = self
            .shell_any(
                &device.udid,
                "ps -A -o PID,NAME 2>/dev/null || ps",
                QUICK_TIMEOUT,
            )
            .await?;
        let mut procs = ps::parse(&out.stdout_text());
        if procs.is_empty() {
            // `ps -A` unknown (before Android 8) but exiting 0 with its complaint.
            let out = self.shell_any(&device.udid, "ps", QUICK_TIMEOUT).await?;
            procs = ps::parse(&out.stdout_text());
        }
        Ok(procs
            .into_iter()
            .map(|(pid, name)| ProcessName {
                pid: Some(pid),
                executable: None,
                name,
            })
            .collect())
    }

    /// `adb logcat -d …`: the buffers' content now (or their newest lines). logcat filters
    /// no app at the source: an app's history is what the ring got from the whole buffers.
    async fn log_read(&self, device: &Device, read: &LogRead) -> Result<LogText> {
        if read.app.is_some() {
            return Ok(LogText {
                format: LogFormat::AndroidLogcat,
                bytes: Vec::new(),
            });
        }
        loop {
            let args = self.logcat_args(&device.udid, read, true);
            let cmd = self.adb_for(&device.udid)?.args(args).timeout(DUMP_TIMEOUT);
            let out = self.run(cmd).await?;
            let head: String = out.stdout_text().chars().take(400).collect();
            let said = out.stderr_text() + &head;
            if let Some(b) = missing_buffer(&said) {
                if self.forget_buffer(&device.udid, b) {
                    continue;
                }
            }
            if !out.success() {
                return Err(adb_failure(&device.udid, "adb logcat", &out));
            }
            return Ok(LogText {
                format: LogFormat::AndroidLogcat,
                bytes: out.stdout,
            });
        }
    }

    /// `adb logcat …` following the log.
    async fn log_stream(&self, device: &Device, read: &LogRead) -> Result<LogStream> {
        let args = self.logcat_args(&device.udid, read, false);
        let cmd = self
            .adb_for(&device.udid)?
            .args(args)
            .timeout(QUICK_TIMEOUT);
        let child = cmd
            .spawn_stream()
            .await
            .map_err(|e| exec_error(Tool::Adb, e))?;
        Ok(LogStream {
            format: LogFormat::AndroidLogcat,
            child,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_buffers_from_logcat_words() {
        assert_eq!(
            missing_buffer("Unable to open log device '/dev/log/crash': No such file or directory"),
            Some("crash")
        );
        assert_eq!(
            missing_buffer("logcat: Unknown buffer 'crash' listed for -b."),
            Some("crash")
        );
        assert_eq!(missing_buffer("error: device offline"), None);
    }

    #[test]
    fn times_for_minus_t_in_the_device_zone() {
        let clock = DeviceClock {
            utc_offset_s: 7200,
            year: 2023,
            now_ms: 0,
            skew_ms: 0,
        };
        assert_eq!(logcat_time(1_700_000_000_123, &clock), "11-15 00:13:20.123");
    }
}
