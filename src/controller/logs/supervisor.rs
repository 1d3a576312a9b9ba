//! The task that fills a device's log: it reads the device's clock, its process names and its
//! log history once (then the log is "primed" and requests waiting for it go on), then follows
//! the live stream, restarting it from the last line read when it ends (adb restarted, the
//! device reconnected) with a growing pause, and stopping — and leaving the hub, so that a
//! later request starts afresh — after several starts in a row read nothing (the device is
//! gone) or on an error no retry can fix (the tool is missing, the platform cannot).
//!
//! A stream that stays quiet is not trusted blindly: every [`WATCH_EVERY`] of silence, if the
//! backend's device list changed meanwhile or was not looked at yet for this stream (adb's
//! device stream; a listing refreshed behind),
//! the supervisor looks whether its device is still listed and ready, and ends the stream when
//! it is not — a client still waiting for a device that went offline would otherwise keep the
//! source `live` with nothing to end it.
//!
//! Memory: the stream is read into one 64 KiB buffer; entries go to the bounded ring.
//! Process names are refreshed in the background (at most every 2 s) when an unknown pid
//! logs. Crash blocks still open when the stream goes quiet for 100 ms are completed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{DeviceLogs, Primed, SourceState};
use crate::backend::{lacking, DeviceBackend, Logs};
use crate::device::{Capability, Device};
use crate::error::{ErrorCode, Result};
use crate::logs::android::crash::Detector;
use crate::logs::{
    started_process, Crash, CrashDetection, DeviceClock, Ingest, LogEntry, LogRead, LogStream, Seen,
};

/// History read when the log is first read (where the platform reads history by time).
const HISTORY_S: u64 = 300;
/// Failed starts in a row before the device is taken as gone.
const MAX_FAILURES: u32 = 6;
/// Quiet time after which open crash blocks are completed.
const FLUSH_AFTER: Duration = Duration::from_millis(100);
/// Least time between two process listings.
const REFRESH_EVERY: Duration = Duration::from_secs(2);
/// Silence after which a stream's device is looked for (when its backend's list changed).
const WATCH_EVERY: Duration = Duration::from_secs(2);

type Hub = Arc<Mutex<HashMap<String, Arc<DeviceLogs>>>>;

struct Supervisor {
    logs: Arc<DeviceLogs>,
    backend: Arc<dyn DeviceBackend>,
    seen: Seen,
    detector: Detector,
    refreshing: Arc<AtomicBool>,
    last_refresh: Instant,
}

/// The backend's logs, or the `501` naming them (a supervisor starts only for a backend
/// that has them).
fn logs_of<'a>(backend: &'a dyn DeviceBackend, device: &Device) -> Result<&'a dyn Logs> {
    backend
        .logs()
        .ok_or_else(|| lacking(backend, device, Capability::Logs))
}

fn backoff(failures: u32) -> Duration {
    Duration::from_millis(200 * 2u64.pow(failures.saturating_sub(1).min(5)))
        .min(Duration::from_secs(5))
}

/// Errors no retry fixes.
fn hopeless(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::ToolMissing | ErrorCode::UnsupportedOnPlatform | ErrorCode::NoDevice
    )
}

pub(super) async fn run(logs: Arc<DeviceLogs>, backend: Arc<dyn DeviceBackend>, hub: Hub) {
    let mut sup = Supervisor {
        logs: logs.clone(),
        backend,
        seen: Seen::default(),
        detector: Detector::default(),
        refreshing: Arc::new(AtomicBool::new(false)),
        last_refresh: Instant::now(),
    };
    let mut failures = 0;
    let mut clock = loop {
        match sup.prime().await {
            Ok(clock) => {
                logs.primed.send_replace(Primed::Ready);
                break clock;
            }
            Err(e) => {
                failures += 1;
                logs.set_status(|s| s.last_error = Some(e.message.clone()));
                if hopeless(e.code) || failures >= 3 {
                    tracing::info!(udid = %logs.device.udid, error = %e.message, "device log not readable");
                    logs.primed.send_replace(Primed::Failed(e));
                    stop(&logs, &hub);
                    return;
                }
                tokio::time::sleep(backoff(failures)).await;
            }
        }
    };
    failures = 0;
    let mut resume = true;
    loop {
        let mut read = LogRead::new(clock);
        read.after_ms = if resume { sup.seen.time_ms } else { None };
        let started = match logs_of(&*sup.backend, &logs.device) {
            Ok(source) => source.log_stream(&logs.device, &read).await,
            Err(e) => Err(e),
        };
        match started {
            Ok(stream) => {
                logs.set_status(|s| s.state = SourceState::Live);
                let (lines, words) = sup.follow(stream, clock).await;
                if lines > 0 {
                    failures = 0;
                } else {
                    failures += 1;
                    // A device that takes no start time (`-T`) fails at once: try without.
                    resume = !resume;
                }
                logs.set_status(|s| s.last_error = (!words.is_empty()).then_some(words));
            }
            Err(e) => {
                failures += 1;
                logs.set_status(|s| s.last_error = Some(e.message.clone()));
                if hopeless(e.code) {
                    failures = MAX_FAILURES;
                }
            }
        }
        // Before the next start: the device must answer (its clock, which may have changed
        // with a reboot or a new zone); each pause is longer than the last.
        loop {
            if failures >= MAX_FAILURES {
                tracing::info!(udid = %logs.device.udid, "device log stream gave up: the device seems gone");
                stop(&logs, &hub);
                return;
            }
            logs.set_status(|s| s.state = SourceState::Restarting);
            tokio::time::sleep(backoff(failures.max(1))).await;
            let clock_now = match logs_of(&*sup.backend, &logs.device) {
                Ok(source) => source.log_clock(&logs.device).await,
                Err(e) => Err(e),
            };
            match clock_now {
                Ok(c) => {
                    clock = c;
                    if let Ok(mut k) = logs.clock.write() {
                        *k = Some(c);
                    }
                    break;
                }
                Err(e) => {
                    failures += if hopeless(e.code) { MAX_FAILURES } else { 1 };
                    logs.set_status(|s| s.last_error = Some(e.message.clone()));
                }
            }
        }
        logs.set_status(|s| s.restarts += 1);
    }
}

/// The supervisor ends: the hub forgets this device's log (a later request starts a new
/// one); readers still holding it see it stopped.
fn stop(logs: &Arc<DeviceLogs>, hub: &Hub) {
    logs.set_status(|s| s.state = SourceState::Stopped);
    logs.ended.cancel();
    if let Ok(mut map) = hub.lock() {
        if map
            .get(&logs.device.udid)
            .is_some_and(|l| Arc::ptr_eq(l, logs))
        {
            map.remove(&logs.device.udid);
        }
    }
}

impl Supervisor {
    /// Clock, process names, history (and, where crashes are reports, recent reports).
    async fn prime(&mut self) -> Result<DeviceClock> {
        let logs = self.logs.clone();
        let device = &logs.device;
        let backend = self.backend.clone();
        let source = logs_of(&*backend, device)?;
        let clock = source.log_clock(device).await?;
        if let Ok(mut k) = self.logs.clock.write() {
            *k = Some(clock);
        }
        match source.log_processes(device).await {
            Ok(list) => {
                if let Ok(mut p) = self.logs.processes.write() {
                    p.update(list);
                }
                self.last_refresh = Instant::now();
            }
            Err(e) if hopeless(e.code) => return Err(e),
            Err(e) => tracing::debug!(error = %e.message, "process names not read"),
        }
        let mut read = LogRead::new(clock);
        read.window_s = Some(HISTORY_S);
        let text = source.log_read(device, &read).await?;
        let mut ingest = Ingest::new(text.format, clock);
        let mut entries = ingest.feed(&text.bytes);
        entries.extend(ingest.finish());
        self.store(entries);
        self.flush_crashes();
        if self.logs.detection == CrashDetection::Reports {
            let since = chrono::Utc::now().timestamp_millis() - HISTORY_S as i64 * 1000;
            if let Ok(reports) = source.crash_reports(device, Some(since)).await {
                self.add_crashes(reports);
            }
        }
        Ok(clock)
    }

    /// Reads a live stream to its end: (lines read, the tool's last words).
    async fn follow(&mut self, stream: LogStream, clock: DeviceClock) -> (u64, String) {
        let LogStream { format, mut child } = stream;
        let mut ingest = Ingest::new(format, clock).resume_after(self.seen.clone());
        let mut buf = vec![0u8; 64 * 1024];
        // None: the first silence looks once, in case the device left before the stream began.
        let mut listed = None;
        let mut gone = false;
        loop {
            let quiet = match self.detector.is_open() {
                true => FLUSH_AFTER,
                false => WATCH_EVERY,
            };
            let got = match tokio::time::timeout(quiet, child.read(&mut buf)).await {
                Ok(r) => r,
                Err(_) if self.detector.is_open() => {
                    self.flush_crashes();
                    continue;
                }
                Err(_) => {
                    if self.device_gone(&mut listed).await {
                        gone = true;
                        break;
                    }
                    continue;
                }
            };
            match got {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let entries = ingest.feed(&buf[..n]);
                    self.store(entries);
                }
            }
        }
        let last = ingest.finish();
        self.store(last);
        self.flush_crashes();
        let grace = if gone {
            Duration::ZERO
        } else {
            Duration::from_secs(2)
        };
        let end = child.finish(grace).await;
        let words = end.stderr.trim();
        let words = words.lines().last().unwrap_or("").to_string();
        (ingest.stats.lines, words)
    }

    /// Whether the device is no longer listed ready, asked only when the backend's device list
    /// changed since `listed` (which is moved on). A backend that cannot tell (no generation)
    /// and a listing that fails leave the stream to end by itself.
    async fn device_gone(&self, listed: &mut Option<u64>) -> bool {
        let now = self.backend.devices_generation();
        if now.is_none() || now == *listed {
            return false;
        }
        *listed = now;
        let Ok(devices) = self.backend.list_devices().await else {
            return false;
        };
        let udid = &self.logs.device.udid;
        let ready = devices
            .iter()
            .any(|d| &d.udid == udid && d.state.is_ready());
        if !ready {
            tracing::info!(udid = %udid, "device log stream ended: the device is no longer listed ready");
        }
        !ready
    }

    /// Puts entries in the ring, finding crashes on the way.
    fn store(&mut self, entries: Vec<LogEntry>) {
        if entries.is_empty() {
            return;
        }
        let started: Vec<_> = entries.iter().filter_map(started_process).collect();
        if !started.is_empty() {
            if let Ok(mut p) = self.logs.processes.write() {
                p.update(started);
            }
        }
        for e in &entries {
            self.seen.note(e);
        }
        let unknown = {
            let p = self
                .logs
                .processes
                .read()
                .unwrap_or_else(|e| e.into_inner());
            entries
                .iter()
                .any(|e| e.pid.is_some_and(|pid| !p.knows_pid(pid)) && e.process.is_none())
        };
        let detect = self.logs.detection == CrashDetection::Log;
        let mut crashes = Vec::new();
        let detector = &mut self.detector;
        self.logs.ring.push(entries, |e| {
            if detect {
                detector.push(e, &mut crashes);
            }
        });
        self.add_crashes(crashes);
        self.logs.detecting.send_replace(self.detector.is_open());
        if unknown {
            self.refresh_processes();
        }
    }

    fn flush_crashes(&mut self) {
        let mut crashes = Vec::new();
        self.detector.flush(&mut crashes);
        self.add_crashes(crashes);
        self.logs.detecting.send_replace(false);
    }

    fn add_crashes(&self, crashes: Vec<Crash>) {
        for mut c in crashes {
            if c.app.is_none() && c.process.is_none() {
                if let Some(pid) = c.pid {
                    let p = self
                        .logs
                        .processes
                        .read()
                        .unwrap_or_else(|e| e.into_inner());
                    c.process = p.name_of(pid).map(str::to_string);
                }
            }
            tracing::info!(udid = %self.logs.device.udid, id = %c.id, summary = %c.summary(), "crash");
            self.logs.crashes.add(c);
        }
    }

    /// Lists the device's processes again, in the background, unless done lately.
    fn refresh_processes(&mut self) {
        if self.last_refresh.elapsed() < REFRESH_EVERY
            || self.refreshing.swap(true, Ordering::SeqCst)
        {
            return;
        }
        self.last_refresh = Instant::now();
        let (logs, backend, flag) = (
            self.logs.clone(),
            self.backend.clone(),
            self.refreshing.clone(),
        );
        tokio::spawn(async move {
            let Some(source) = backend.logs() else {
                flag.store(false, Ordering::SeqCst);
                return;
            };
            if let Ok(list) = source.log_processes(&logs.device).await {
                if let Ok(mut p) = logs.processes.write() {
                    p.update(list);
                }
            }
            flag.store(false, Ordering::SeqCst);
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;

    use super::*;
    use crate::device::{Device, Platform};
    use crate::error::Error;
    use crate::exec::Command;
    use crate::logs::{LogFormat, LogText, RingLimits};

    /// A device whose log stream is a child that never writes and never ends (what an adb
    /// client still waiting for its device looks like), listed while `present`.
    struct SilentStream {
        device: Device,
        present: AtomicBool,
        generation: AtomicU64,
    }

    impl SilentStream {
        /// The device leaves (or stays, `present`) and the backend's list moves on.
        fn relist(&self, present: bool) {
            self.present.store(present, Ordering::SeqCst);
            self.generation.fetch_add(1, Ordering::SeqCst);
        }

        fn check(&self) -> Result<()> {
            match self.present.load(Ordering::SeqCst) {
                true => Ok(()),
                false => Err(Error::new(ErrorCode::DeviceOffline, "device offline")),
            }
        }
    }

    #[async_trait::async_trait]
    impl DeviceBackend for SilentStream {
        fn id(&self) -> &'static str {
            "silent"
        }
        fn platform(&self) -> Platform {
            Platform::Android
        }
        fn coordinate_space(&self) -> crate::ui::CoordinateSpace {
            crate::ui::CoordinateSpace::Pixels
        }
        async fn list_devices(&self) -> Result<Vec<Device>> {
            let present = self.present.load(Ordering::SeqCst);
            Ok(present.then(|| self.device.clone()).into_iter().collect())
        }
        fn devices_generation(&self) -> Option<u64> {
            Some(self.generation.load(Ordering::SeqCst))
        }
        fn logs(&self) -> Option<&dyn Logs> {
            Some(self)
        }
    }

    #[async_trait::async_trait]
    impl Logs for SilentStream {
        fn crash_detection(&self) -> CrashDetection {
            CrashDetection::None
        }
        async fn log_clock(&self, _device: &Device) -> Result<DeviceClock> {
            self.check().map(|_| DeviceClock::host())
        }
        async fn log_processes(&self, _device: &Device) -> Result<Vec<crate::logs::ProcessName>> {
            Ok(Vec::new())
        }
        async fn log_read(&self, _device: &Device, _read: &LogRead) -> Result<LogText> {
            self.check()?;
            Ok(LogText {
                format: LogFormat::AndroidLogcat,
                bytes: Vec::new(),
            })
        }
        async fn log_stream(&self, _device: &Device, _read: &LogRead) -> Result<LogStream> {
            self.check()?;
            let child = Command::new("sleep")
                .arg("600")
                .timeout(Duration::from_secs(5))
                .spawn_stream()
                .await
                .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
            Ok(LogStream {
                format: LogFormat::AndroidLogcat,
                child,
            })
        }
    }

    fn device() -> Device {
        Device::test_emulator("silent")
    }

    /// A supervisor on a [`SilentStream`] device, its log read once (the stream begins).
    async fn supervised() -> (Arc<SilentStream>, Arc<DeviceLogs>, Hub) {
        let backend = Arc::new(SilentStream {
            device: device(),
            present: AtomicBool::new(true),
            generation: AtomicU64::new(1),
        });
        let logs = Arc::new(DeviceLogs::new(
            device(),
            RingLimits::default(),
            CrashDetection::Log,
        ));
        let hub: Hub = Default::default();
        hub.lock().unwrap().insert(device().udid, logs.clone());
        tokio::spawn(run(logs.clone(), backend.clone(), hub.clone()));
        let mut primed = logs.primed.subscribe();
        primed
            .wait_for(|p| matches!(p, Primed::Ready))
            .await
            .unwrap();
        (backend, logs, hub)
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_stream_whose_device_left_before_it_began_ends_too() {
        let (backend, logs, _hub) = supervised().await;
        // Gone with no later change of the list: the first silence looks once anyway.
        backend.present.store(false, Ordering::SeqCst);
        tokio::time::timeout(Duration::from_secs(120), logs.ended.cancelled())
            .await
            .expect("the supervisor stops once its device is gone");
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_stream_ends_when_its_device_leaves_the_list() {
        let (backend, logs, hub) = supervised().await;

        // Silence alone, or a list that changed but still has the device, ends nothing.
        tokio::time::sleep(WATCH_EVERY * 5).await;
        backend.relist(true);
        tokio::time::sleep(WATCH_EVERY * 5).await;
        let status = logs.status();
        assert_eq!(status.state, SourceState::Live, "{status:?}");
        assert_eq!(status.restarts, 0);

        // The device leaves: the stream is ended, the restarts find no device, the log stops.
        backend.relist(false);
        tokio::time::timeout(Duration::from_secs(120), logs.ended.cancelled())
            .await
            .expect("the supervisor stops once its device is gone");
        assert_eq!(logs.status().state, SourceState::Stopped);
        assert!(hub.lock().unwrap().is_empty(), "the hub forgot the device");
    }
}
