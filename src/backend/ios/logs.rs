//! iOS Simulator logs and crash reports: `xcrun simctl spawn UDID log stream --style ndjson`
//! (live) and `log show --style ndjson --last Ns` (history), an app's lines selected with a
//! predicate; apps named by their executable from `simctl listapps`; crash reports (`.ips`,
//! `.crash`) from the host's `~/Library/Logs/DiagnosticReports` (those naming this simulator)
//! and from the simulator's own `data/Library/Logs/DiagnosticReports` (override the folders with
//! `MOBILECTL_DIAGNOSTIC_REPORTS`, `:`-separated, and the simulators' folder with
//! `MOBILECTL_SIMULATOR_DEVICES`). Simulators share the host's clock. Physical iPhones: 501.

use async_trait::async_trait;

use std::path::{Path, PathBuf};

use super::SimctlBackend;
use crate::backend::Logs;
use crate::backend::{command_failed, exec_error, unsupported_logs};
use crate::device::{Device, DeviceKind};
use crate::error::Result;
use crate::exec::Tool;
use crate::logs::ios::report;
use crate::logs::CrashDetection;
use crate::logs::{Crash, DeviceClock, LogFormat, LogRead, LogStream, LogText, ProcessName};

/// Largest crash report read.
const MAX_REPORT: u64 = 8 * 1024 * 1024;
/// Reports read per scan at most (newest first).
const MAX_REPORTS: usize = 200;

fn simulator_only(device: &Device) -> Result<()> {
    if device.kind == DeviceKind::Device {
        return Err(unsupported_logs(device));
    }
    Ok(())
}

/// `log` predicate selecting an app's lines: its subsystem or its process.
pub fn app_predicate(bundle_id: &str, executable: Option<&str>) -> String {
    // Both come from validated identifiers / listapps; quotes are escaped anyway.
    let q = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    match executable {
        Some(exe) => format!(
            "subsystem == \"{}\" OR process == \"{}\"",
            q(bundle_id),
            q(exe)
        ),
        None => format!("subsystem == \"{}\"", q(bundle_id)),
    }
}

/// `CFBundleExecutable` → `CFBundleIdentifier` of `simctl listapps` output.
pub fn executables(listapps: &[u8]) -> Vec<ProcessName> {
    let Ok(value) = plist::Value::from_reader_ascii(listapps)
        .or_else(|_| plist::Value::from_reader(std::io::Cursor::new(listapps)))
    else {
        return Vec::new();
    };
    let Some(root) = value.as_dictionary() else {
        return Vec::new();
    };
    root.iter()
        .filter_map(|(key, v)| {
            let d = v.as_dictionary()?;
            let exe = d.get("CFBundleExecutable")?.as_string()?.to_string();
            let id = d
                .get("CFBundleIdentifier")
                .and_then(plist::Value::as_string)
                .unwrap_or(key)
                .to_string();
            Some(ProcessName {
                pid: None,
                executable: Some(exe),
                name: id,
            })
        })
        .collect()
}

/// The folders crash reports of `udid` are looked for in: (folder, whether everything in it
/// is this simulator's).
fn report_dirs(udid: &str) -> Vec<(PathBuf, bool)> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let host: Vec<PathBuf> = match std::env::var_os("MOBILECTL_DIAGNOSTIC_REPORTS") {
        Some(v) => std::env::split_paths(&v).collect(),
        None => vec![home.join("Library/Logs/DiagnosticReports")],
    };
    let devices = std::env::var_os("MOBILECTL_SIMULATOR_DEVICES")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join("Library/Developer/CoreSimulator/Devices"));
    let mut dirs: Vec<(PathBuf, bool)> = host.into_iter().map(|d| (d, false)).collect();
    dirs.push((
        devices
            .join(udid)
            .join("data/Library/Logs/DiagnosticReports"),
        true,
    ));
    dirs
}

/// Reads the crash reports of `udid` modified at or after `since_ms` (blocking).
pub fn scan_reports(udid: &str, since_ms: Option<i64>) -> Vec<Crash> {
    let mut files: Vec<(std::time::SystemTime, PathBuf, bool)> = Vec::new();
    for (dir, own) in report_dirs(udid) {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in rd.flatten() {
            let path = entry.path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !matches!(ext, "ips" | "crash") {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() || meta.len() > MAX_REPORT {
                continue;
            }
            let modified = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
            let ms = modified
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0);
            if since_ms.is_some_and(|s| ms < s) {
                continue;
            }
            files.push((modified, path, own));
        }
    }
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    files.truncate(MAX_REPORTS);
    files
        .into_iter()
        .filter_map(|(_, path, own)| read_report(&path, udid, own))
        .collect()
}

fn read_report(path: &Path, udid: &str, own: bool) -> Option<Crash> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut crash = match report::parse(&text) {
        Ok(c) => c,
        Err(why) => {
            tracing::debug!(path = %path.display(), ?why, "not a crash report");
            return None;
        }
    };
    match (&crash.udid, own) {
        (_, true) => crash.udid = Some(udid.to_string()),
        (Some(u), false) if u.eq_ignore_ascii_case(udid) => {}
        // Another simulator's, or a Mac app's.
        (Some(_), false) => return None,
        (None, false) if !report::from_simulator(&crash.text) => return None,
        // A simulator's without saying which: kept, unattributed.
        (None, false) => {}
    }
    Some(crash)
}

impl SimctlBackend {
    async fn run_simctl<I, S>(
        &self,
        args: I,
        timeout: std::time::Duration,
    ) -> Result<crate::exec::Output>
    where
        I: IntoIterator<Item = S>,
        S: Into<std::ffi::OsString>,
    {
        self.run(self.simctl()?.args(args).timeout(timeout)).await
    }
}

/// The host's clock (simulators share it).
pub fn clock() -> DeviceClock {
    DeviceClock::host()
}

#[async_trait]
impl Logs for SimctlBackend {
    fn crash_detection(&self) -> CrashDetection {
        CrashDetection::Reports
    }

    async fn log_clock(&self, _device: &Device) -> Result<DeviceClock> {
        Ok(clock())
    }

    async fn log_processes(&self, device: &Device) -> Result<Vec<ProcessName>> {
        simulator_only(device)?;
        let out = self
            .run_simctl(["listapps", device.udid.as_str()], super::QUICK_TIMEOUT)
            .await?;
        if !out.success() {
            return Err(command_failed(Tool::Xcrun, "simctl listapps", &out));
        }
        Ok(executables(&out.stdout))
    }

    async fn log_read(&self, device: &Device, read: &LogRead) -> Result<LogText> {
        simulator_only(device)?;
        let mut args: Vec<String> = [
            "spawn",
            device.udid.as_str(),
            "log",
            "show",
            "--style",
            "ndjson",
        ]
        .map(String::from)
        .to_vec();
        match read.after_ms {
            Some(ms) => {
                args.push("--start".into());
                args.push(
                    chrono::DateTime::from_timestamp_millis(ms)
                        .map(|t| {
                            t.with_timezone(&chrono::Local)
                                .format("%Y-%m-%d %H:%M:%S")
                                .to_string()
                        })
                        .unwrap_or_default(),
                );
            }
            None => {
                args.push("--last".into());
                args.push(format!("{}s", read.window_s.unwrap_or(120)));
            }
        }
        if let Some(app) = &read.app {
            args.push("--predicate".into());
            args.push(app_predicate(app, None));
        }
        let out = self
            .run_simctl(args, std::time::Duration::from_secs(60))
            .await?;
        if !out.success() {
            return Err(command_failed(Tool::Xcrun, "simctl spawn log show", &out));
        }
        let mut bytes = out.stdout;
        if let Some(n) = read.tail {
            let lines: Vec<&[u8]> = bytes
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .collect();
            bytes = lines[lines.len().saturating_sub(n)..].join(&b'\n');
        }
        Ok(LogText {
            format: LogFormat::IosNdjson,
            bytes,
        })
    }

    async fn log_stream(&self, device: &Device, _read: &LogRead) -> Result<LogStream> {
        simulator_only(device)?;
        let cmd = self.simctl()?.args([
            "spawn",
            device.udid.as_str(),
            "log",
            "stream",
            "--style",
            "ndjson",
            "--level",
            "info",
        ]);
        let child = cmd
            .spawn_stream()
            .await
            .map_err(|e| exec_error(Tool::Xcrun, e))?;
        Ok(LogStream {
            format: LogFormat::IosNdjson,
            child,
        })
    }

    async fn crash_reports(&self, device: &Device, since_ms: Option<i64>) -> Result<Vec<Crash>> {
        simulator_only(device)?;
        let udid = device.udid.clone();
        tokio::task::spawn_blocking(move || scan_reports(&udid, since_ms))
            .await
            .map_err(|e| crate::error::Error::internal(format!("crash report scan: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_quote() {
        assert_eq!(
            app_predicate("com.example.app", Some("Example")),
            "subsystem == \"com.example.app\" OR process == \"Example\""
        );
        assert_eq!(app_predicate("a\"b", None), "subsystem == \"a\\\"b\"");
    }
}
