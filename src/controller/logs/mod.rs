//! Device logs at the controller: one [`DeviceLogs`] per device — its ring, its crashes, its
//! process names — filled by a supervised task (see [`supervisor`]) that reads the device's
//! history, then follows its live log stream, restarting it when adb or the device goes away
//! and stopping when the device is gone. The supervisor never takes the device's command lock.
//!
//! When it starts: on the first logs request for a device, or on the first action on an
//! Android device (whose crashes are found in its log: an action's crash check is then a
//! look-up in memory, see [`outcome`]). Reads (snapshots, screenshots) never start it, and no
//! request waits for it to start but the logs requests themselves and the first observing
//! action.

mod bundle;
mod outcome;
mod supervisor;

pub use bundle::Bundle;
pub(crate) use outcome::LogMark;
pub use outcome::{crash_brief, crash_code};

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::sync::watch;

use super::DeviceController;
use crate::backend::concern;
use crate::backend::DeviceBackend;
use crate::device::{Capability, Device};
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::logs::{
    filter, Crash, CrashDetection, CrashStore, DeviceClock, LogEntry, LogFilter, LogRing, Page,
    Processes, RingLimits, RingStats, Since,
};

/// Crashes kept per device.
const CRASHES_KEPT: usize = 256;
/// How long a logs request waits for the device's log to be read the first time.
const PRIME_WAIT: Duration = Duration::from_secs(60);

/// Where a device's log stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceState {
    /// Reading the log's history, before the stream is followed.
    Starting,
    /// The stream is followed.
    Live,
    /// The stream ended or failed; waiting for the device before starting it again.
    Restarting,
    /// Given up (the device is gone or its log unreadable); a later request starts anew.
    Stopped,
}

impl SourceState {
    /// The state as the API spells it (`starting`, `live`…).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceState::Starting => "starting",
            SourceState::Live => "live",
            SourceState::Restarting => "restarting",
            SourceState::Stopped => "stopped",
        }
    }
}

/// The supervisor's account of itself.
#[derive(Debug, Clone)]
pub struct SourceStatus {
    /// Where the stream is.
    pub state: SourceState,
    /// How many times the stream was started again.
    pub restarts: u32,
    /// Why the stream last failed or ended, in the tool's words (none: no failure, or it
    /// ended silently).
    pub last_error: Option<String>,
}

/// Whether the device's log was read once (history), and if not, why.
#[derive(Debug, Clone)]
enum Primed {
    Pending,
    Ready,
    Failed(Error),
}

/// One device's log.
pub struct DeviceLogs {
    /// The device whose log this is.
    pub device: Device,
    /// The recent entries, bounded.
    pub ring: LogRing,
    /// The crashes detected, the latest 256 kept.
    pub crashes: CrashStore,
    detection: CrashDetection,
    processes: RwLock<Processes>,
    clock: RwLock<Option<DeviceClock>>,
    status: Mutex<SourceStatus>,
    primed: watch::Sender<Primed>,
    /// Whether crash blocks are open (a crash may be about to be reported).
    detecting: watch::Sender<bool>,
    /// Cancelled when the supervisor stops: streams of this log end.
    pub ended: tokio_util::sync::CancellationToken,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl DeviceLogs {
    fn new(device: Device, limits: RingLimits, detection: CrashDetection) -> Self {
        DeviceLogs {
            device,
            ring: LogRing::new(limits),
            crashes: CrashStore::new(CRASHES_KEPT),
            detection,
            processes: RwLock::new(Processes::default()),
            clock: RwLock::new(None),
            status: Mutex::new(SourceStatus {
                state: SourceState::Starting,
                restarts: 0,
                last_error: None,
            }),
            primed: watch::channel(Primed::Pending).0,
            detecting: watch::channel(false).0,
            ended: tokio_util::sync::CancellationToken::new(),
            task: Mutex::new(None),
        }
    }

    /// The stream supervisor's account of itself now.
    pub fn status(&self) -> SourceStatus {
        self.status
            .lock()
            .map(|s| s.clone())
            .unwrap_or(SourceStatus {
                state: SourceState::Stopped,
                restarts: 0,
                last_error: None,
            })
    }

    fn set_status(&self, f: impl FnOnce(&mut SourceStatus)) {
        if let Ok(mut s) = self.status.lock() {
            f(&mut s);
        }
    }

    /// The ring's counts and bounds.
    pub fn stats(&self) -> RingStats {
        self.ring.stats()
    }

    /// The device's UTC offset (for showing times in its zone).
    pub fn utc_offset_s(&self) -> i32 {
        self.clock
            .read()
            .ok()
            .and_then(|c| c.map(|c| c.utc_offset_s))
            .unwrap_or(0)
    }

    /// The device's clock as last read (none: not read yet).
    pub fn clock(&self) -> Option<DeviceClock> {
        self.clock.read().ok().and_then(|c| *c)
    }

    /// The app an entry's process belongs to.
    pub fn app_of(&self, e: &LogEntry) -> Option<String> {
        self.processes
            .read()
            .ok()
            .and_then(|p| p.app_of(e).map(str::to_string))
    }

    /// Waits until the device's log was read once; its error if that failed.
    pub async fn ready(&self, limit: Duration) -> Result<()> {
        let mut rx = self.primed.subscribe();
        let waited = tokio::time::timeout(limit, async {
            rx.wait_for(|p| !matches!(p, Primed::Pending))
                .await
                .map(|p| p.clone())
        })
        .await;
        match waited {
            Ok(Ok(p)) => match p {
                Primed::Failed(e) => Err(e),
                _ => Ok(()),
            },
            Ok(Err(_)) => Err(Error::internal("the log supervisor went away")),
            Err(_) => Err(Error::new(
                ErrorCode::Timeout,
                format!(
                    "the log of `{}` was not read within {} s",
                    self.device.udid,
                    limit.as_secs()
                ),
            )
            .with_next(
                "the device may be slow or hung; retry, or check it with {0}",
                [Step::call(Op::Doctor)],
            )),
        }
    }

    /// Entries matching `f` from `since` (the newest when `None`), at most `limit`.
    pub fn read(&self, f: &LogFilter, since: Option<Since>, limit: usize) -> Page {
        let procs = self.processes.read().unwrap_or_else(|e| e.into_inner());
        let keep = |e: &LogEntry| f.matches(e, procs.app_of(e));
        match since {
            None => self.ring.tail(limit, keep),
            Some(Since::Cursor(c)) => self.ring.after(c.seq, limit, keep),
            Some(Since::Time(t)) => self
                .ring
                .after(0, limit, |e| e.time_ms.is_some_and(|m| m >= t) && keep(e)),
        }
    }

    /// Crashes matching `keep`, newest first (those without a time last, as found).
    pub fn crashes_where(&self, keep: impl Fn(&Crash) -> bool) -> Vec<Crash> {
        let mut v = self.crashes.matching(keep);
        v.reverse();
        v.sort_by_key(|c| std::cmp::Reverse(c.time_ms.unwrap_or(i64::MIN)));
        v
    }
}

/// Every device's log.
pub struct LogHub {
    limits: Mutex<RingLimits>,
    devices: Arc<Mutex<HashMap<String, Arc<DeviceLogs>>>>,
}

fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

impl Default for LogHub {
    /// Ring limits from `MOBILECTL_LOG_RING_ENTRIES` and `MOBILECTL_LOG_RING_BYTES` when set.
    fn default() -> Self {
        let d = RingLimits::default();
        LogHub {
            limits: Mutex::new(RingLimits {
                max_entries: env_number("MOBILECTL_LOG_RING_ENTRIES").unwrap_or(d.max_entries),
                max_bytes: env_number("MOBILECTL_LOG_RING_BYTES").unwrap_or(d.max_bytes),
            }),
            devices: Arc::new(Mutex::new(HashMap::new())),
        }
    }
}

impl LogHub {
    /// The limits of rings made from now on.
    pub fn set_limits(&self, limits: RingLimits) {
        if let Ok(mut l) = self.limits.lock() {
            *l = limits;
        }
    }

    /// The device's log when it is followed already (nothing started).
    pub(super) fn get(&self, udid: &str) -> Option<Arc<DeviceLogs>> {
        self.devices.lock().ok().and_then(|m| m.get(udid).cloned())
    }

    /// The device's log, its supervisor started if it is not running. `None` when the
    /// device's backend reads no logs.
    fn ensure(&self, device: &Device, backend: &Arc<dyn DeviceBackend>) -> Option<Arc<DeviceLogs>> {
        let mut map = self.devices.lock().ok()?;
        if let Some(l) = map.get(&device.udid) {
            return Some(l.clone());
        }
        let detection = backend.logs()?.crash_detection();
        let limits = self.limits.lock().map(|l| *l).unwrap_or_default();
        let logs = Arc::new(DeviceLogs::new(device.clone(), limits, detection));
        let task = tokio::spawn(supervisor::run(
            logs.clone(),
            backend.clone(),
            self.devices.clone(),
        ));
        if let Ok(mut t) = logs.task.lock() {
            *t = Some(task);
        }
        map.insert(device.udid.clone(), logs.clone());
        Some(logs)
    }
}

impl Drop for LogHub {
    fn drop(&mut self) {
        if let Ok(map) = self.devices.lock() {
            for logs in map.values() {
                if let Ok(mut t) = logs.task.lock() {
                    if let Some(t) = t.take() {
                        t.abort();
                    }
                }
            }
        }
    }
}

/// What the device's web pages logged since the last look, into its log (entries tagged
/// `web`) and its crashes (uncaught errors, kind `page_error`).
pub(super) fn absorb_page_events(backend: &dyn DeviceBackend, device: &Device, logs: &DeviceLogs) {
    let Some(web) = backend.web() else {
        return;
    };
    let events = web.page_events(device);
    if events.is_empty() {
        return;
    }
    let crashes: Vec<Crash> = events.iter().filter_map(|e| e.crash()).collect();
    logs.ring
        .push(events.iter().map(|e| e.log_entry()).collect(), |_| {});
    for c in crashes {
        logs.crashes.add(c);
    }
}

impl DeviceController {
    /// The device's log, read at least once (the supervisor is started if needed).
    pub async fn device_logs(&self, device: &Device) -> Result<Arc<DeviceLogs>> {
        let backend = self.backend_arc(device)?;
        let Some(logs) = self.logs.ensure(device, &backend) else {
            return Err(crate::backend::lacking(&*backend, device, Capability::Logs));
        };
        logs.ready(PRIME_WAIT).await?;
        absorb_page_events(&*backend, device, &logs);
        Ok(logs)
    }

    /// The crashes of a device since `since` (ms), of `app` when given, newest first; iOS
    /// crash reports are looked for first.
    pub async fn device_crashes(
        &self,
        device: &Device,
        since_ms: Option<i64>,
        app: Option<&str>,
    ) -> Result<(Arc<DeviceLogs>, Vec<Crash>)> {
        let logs = self.device_logs(device).await?;
        if logs.detection == CrashDetection::Reports {
            for c in self
                .cap(device, concern::Logs)?
                .crash_reports(device, since_ms)
                .await?
            {
                logs.crashes.add(c);
            }
        }
        let list = logs.crashes_where(|c| {
            since_ms.is_none_or(|s| c.time_ms.is_some_and(|t| t >= s))
                && app.is_none_or(|a| c.is_of(a))
        });
        Ok((logs, list))
    }

    /// One crash by id.
    pub async fn device_crash(
        &self,
        device: &Device,
        id: &str,
    ) -> Result<(Arc<DeviceLogs>, Crash)> {
        let (logs, _) = self.device_crashes(device, None, None).await?;
        let crash = logs.crashes.get(id).ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!("no crash `{id}` on `{}`", device.udid),
            )
            .with_next(
                "list the device's crashes with {0}",
                [Step::call(Op::ListCrashes)],
            )
        })?;
        Ok((logs, crash))
    }

    /// Entries matching `f` from `since`, at most `limit`: from the ring, and — for an app's
    /// entries since a time the ring does not reach back to — from the device's history read
    /// with the app as a filter at the source (iOS `log show --predicate`).
    pub async fn read_logs(
        &self,
        device: &Device,
        logs: &DeviceLogs,
        f: &LogFilter,
        since: Option<Since>,
        limit: usize,
    ) -> Page {
        let mut page = logs.read(f, since, limit);
        let (Some(app), Some(Since::Time(t))) = (f.app.as_deref(), since) else {
            return page;
        };
        let oldest = logs.ring.oldest_time();
        if oldest.is_some_and(|o| o <= t) {
            return page;
        }
        let Some(clock) = logs.clock() else {
            return page;
        };
        let mut read = crate::logs::LogRead::new(clock);
        read.after_ms = Some(t);
        read.app = Some(app.to_string());
        let Ok(source) = self.cap(device, concern::Logs) else {
            return page;
        };
        let Ok(text) = source.log_read(device, &read).await else {
            return page;
        };
        let mut ingest = crate::logs::Ingest::new(text.format, clock);
        let mut older = ingest.feed(&text.bytes);
        older.extend(ingest.finish());
        // The source selected the app's lines; the other filters still apply. Only what
        // precedes the ring is added.
        let others = LogFilter {
            app: None,
            ..f.clone()
        };
        older.retain(|e| {
            e.time_ms
                .is_some_and(|m| m >= t && oldest.is_none_or(|o| m < o))
                && others.matches(e, None)
        });
        if older.is_empty() {
            return page;
        }
        older.truncate(limit);
        let room = limit - older.len();
        if page.entries.len() > room {
            // The cursor goes on from the last ring entry answered (history is not paged).
            let first = page.entries[0].seq;
            page.entries.truncate(room);
            page.more = true;
            page.next_seq = page.entries.last().map_or(first - 1, |e| e.seq);
        }
        older.append(&mut page.entries);
        page.entries = older;
        page
    }

    /// The log hub (tests set ring limits through it).
    pub fn logs(&self) -> &LogHub {
        &self.logs
    }
}

/// Reads the filters of a request, whole, before anything is read from a device.
pub fn log_filter(
    level: Option<&str>,
    tag: Option<&str>,
    app: Option<&str>,
    contains: Option<&str>,
    regex: Option<&str>,
) -> Result<LogFilter> {
    Ok(LogFilter {
        min_level: level.map(filter::level).transpose()?,
        tag: tag.filter(|t| !t.is_empty()).map(str::to_string),
        app: app.filter(|a| !a.is_empty()).map(str::to_string),
        contains: contains.filter(|c| !c.is_empty()).map(str::to_string),
        regex: regex
            .filter(|r| !r.is_empty())
            .map(filter::regex)
            .transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{DeviceKind, DeviceState, Platform};

    /// A backend that reads no logs (a physical iPhone's, for now).
    struct NoLogs;

    #[async_trait::async_trait]
    impl DeviceBackend for NoLogs {
        fn id(&self) -> &'static str {
            "nologs"
        }
        fn platform(&self) -> Platform {
            Platform::Ios
        }
        fn coordinate_space(&self) -> crate::ui::CoordinateSpace {
            crate::ui::CoordinateSpace::Points
        }
        async fn list_devices(&self) -> crate::error::Result<Vec<Device>> {
            Ok(Vec::new())
        }
    }

    #[tokio::test]
    async fn devices_whose_logs_cannot_be_read_answer_501_with_a_hint() {
        let iphone = Device {
            udid: "00008110-001A".into(),
            name: "iPhone".into(),
            platform: Platform::Ios,
            kind: DeviceKind::Device,
            state: DeviceState::Online,
            os_version: None,
            api_level: None,
            model: None,
            backend: "nologs",
            capabilities: Vec::new(),
        };
        let backend: Arc<dyn DeviceBackend> = Arc::new(NoLogs);
        let controller =
            DeviceController::with_backends(crate::exec::Toolbox::default(), vec![backend.clone()]);
        let e = controller.device_logs(&iphone).await.err().unwrap();
        assert_eq!(e.code, ErrorCode::UnsupportedOnPlatform);
        assert_eq!(e.code.status(), 501);
        assert!(e.message.contains("capability `logs`"), "{}", e.message);
        assert!(e.hint.unwrap().contains("physical iPhones"));
        assert!(
            LogHub::default().ensure(&iphone, &backend).is_none(),
            "no supervisor"
        );
    }
}
