//! Performance windows: at most one per device, sampling an app every `interval_ms` into a
//! bounded series ([`Series`]) outside the device's command lock, and stopped exactly once —
//! by `perf_stop`, at `max_s`, when the session that started it ends, or when the server
//! shuts down — with its series, summary and plots saved among the run's artifacts.
//!
//! Each sample reads the frames since the previous one and resets the counters (Android's
//! `gfxinfo … reset`), so every point's frames and frame time are its own interval's.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::{oneshot, watch};

use super::super::reach::Reach;
use super::super::DeviceController;
use super::files::Reserved;
use super::sampler::Sampler;
use crate::api::wire::perf::PerfNow;
use crate::api::wire::perf::{PerfStart, PerfWindow, PerfWindowState};
use crate::api::wire::recording::StoppedBy;
use crate::backend::concern;
use crate::error::{Error, ErrorCode, Result};
use crate::perf::series::{Series, DEFAULT_CAP};
use crate::perf::SampleAsk;

/// The interval between samples when none is asked, and its bounds, ms.
pub const DEFAULT_INTERVAL_MS: u64 = 500;
const INTERVAL_MS: std::ops::RangeInclusive<u64> = 100..=60_000;
/// The longest window when none is asked, and the bound, s.
const DEFAULT_MAX_S: u32 = 600;
const MAX_MAX_S: u32 = 3_600;
/// Finished windows remembered (for a stop that comes after the window ended by itself).
const KEEP_FINISHED: usize = 100;

/// What a window samples each interval.
pub(super) const EACH_SAMPLE: SampleAsk = SampleAsk {
    memory: true,
    frames: true,
    reset_frames: true,
};

/// The performance windows of one server, and the last reading of each device.
#[derive(Default)]
pub struct PerfState {
    /// The last reading of each device, by udid (for the debug bundle).
    readings: Mutex<HashMap<String, PerfNow>>,
    /// The running one of each device, by udid.
    live: Mutex<HashMap<String, Arc<Live>>>,
    /// Finished ones, oldest first.
    done: Mutex<VecDeque<PerfWindow>>,
    /// Ids of the windows a stop has answered (each is answered once).
    answered: Mutex<std::collections::HashSet<String>>,
}

/// A running window.
struct Live {
    info: PerfWindow,
    /// Its series so far (shared with its loop).
    series: Arc<Mutex<Series>>,
    /// Stops the sampling loop (taken by the first stopper).
    stop: Mutex<Option<oneshot::Sender<StoppedBy>>>,
    /// The finished window, once its files are saved.
    outcome: watch::Receiver<Option<PerfWindow>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Checks a window's request: its interval and its longest run.
fn check(req: &PerfStart) -> Result<(Duration, u32)> {
    let interval = req.interval_ms.unwrap_or(DEFAULT_INTERVAL_MS);
    if !INTERVAL_MS.contains(&interval) {
        return Err(Error::validation(format!(
            "`interval_ms` is {interval}; samples are {} to {} ms apart",
            INTERVAL_MS.start(),
            INTERVAL_MS.end()
        ))
        .with_hint(format!("leave it out for {DEFAULT_INTERVAL_MS} ms")));
    }
    let max_s = req.max_s.unwrap_or(DEFAULT_MAX_S);
    if !(1..=MAX_MAX_S).contains(&max_s) {
        return Err(
            Error::validation(format!("`max_s` {max_s} is outside 1..={MAX_MAX_S}"))
                .with_hint(format!("default {DEFAULT_MAX_S}")),
        );
    }
    if let Some(name) = &req.name {
        crate::runs::names::check_name(name)?;
    }
    Ok((Duration::from_millis(interval), max_s))
}

fn new_id() -> String {
    let mut bytes = [0u8; 4];
    let _ = getrandom::getrandom(&mut bytes);
    format!(
        "perf-{}-{}",
        chrono::Utc::now().format("%Y%m%d-%H%M%S"),
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

impl PerfState {
    fn live_of(&self, udid: &str) -> Option<Arc<Live>> {
        lock(&self.live).get(udid).cloned()
    }

    /// Tells `live`'s loop to stop, once: the first stopper's reason is the window's.
    fn signal(live: &Live, by: StoppedBy) {
        if let Some(stop) = lock(&live.stop).take() {
            let _ = stop.send(by);
        }
    }

    /// Stops `live` (the first stopper's reason wins) and answers it finished, its files saved.
    async fn finish(&self, live: &Live, by: StoppedBy) -> PerfWindow {
        Self::signal(live, by);
        let mut outcome = live.outcome.clone();
        let done = match outcome.wait_for(Option::is_some).await {
            Ok(done) => done.clone(),
            // The loop is gone without an outcome: what is known.
            Err(_) => None,
        };
        done.unwrap_or_else(|| live.info.clone())
    }

    /// Files a finished window: out of the live ones, into the finished list.
    fn file(&self, udid: &str, window: PerfWindow) {
        lock(&self.live).remove(udid);
        let mut done = lock(&self.done);
        done.push_back(window);
        while done.len() > KEEP_FINISHED {
            if let Some(old) = done.pop_front() {
                lock(&self.answered).remove(&old.id);
            }
        }
    }

    /// Whether `window` is answered to a stop now for the first time.
    fn answer(&self, window: &PerfWindow) -> bool {
        lock(&self.answered).insert(window.id.clone())
    }

    /// Stops the windows `pick` chooses, in parallel; answers how many.
    async fn stop_where(&self, by: StoppedBy, pick: impl Fn(&PerfWindow) -> bool) -> usize {
        let chosen: Vec<Arc<Live>> = lock(&self.live)
            .values()
            .filter(|l| pick(&l.info))
            .cloned()
            .collect();
        futures::future::join_all(chosen.iter().map(|l| self.finish(l, by))).await;
        chosen.len()
    }
}

impl DeviceController {
    /// Starts sampling `req.app` on the device into a window; one window per device. The app
    /// must be running: its first sample is taken before this answers.
    pub async fn perf_start(&self, req: &PerfStart) -> Result<PerfWindow> {
        let (interval, max_s) = check(req)?;
        let app = req
            .app
            .as_deref()
            .ok_or_else(|| Error::validation("`app` is missing"))?;
        let on = self.reach(req.udid.as_deref(), Reach::Act).await?;
        on.backend.check_app_id(app)?;
        let perf = on.cap(concern::Perf)?;
        let device = on.into_device();
        let windows = &self.perf;
        if let Some(l) = windows.live_of(&device.udid) {
            return Err(Error::new(
                ErrorCode::PerfWindowActive,
                format!("`{}` already has a window ({})", device.udid, l.info.id),
            )
            .with_details(serde_json::json!({ "window": l.info })));
        }
        // The first sample: the app runs, and the frame counters start from here.
        let first = perf.perf_sample(&device, app, EACH_SAMPLE).await?;
        let backend = self.backend_arc(&device)?;
        let id = new_id();
        let session = super::super::current_session().map(|s| s.id.clone());
        let files = Reserved::make(
            self.runs(),
            session.as_deref(),
            req.name.as_deref().unwrap_or(&id),
        )?;
        let info = PerfWindow {
            id: id.clone(),
            udid: device.udid.clone(),
            app: app.to_string(),
            state: PerfWindowState::Sampling,
            interval_ms: interval.as_millis() as u64,
            max_s,
            started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            run: files.run().to_string(),
            session,
            stopped_by: None,
            summary: None,
            failed_samples: 0,
            last_error: None,
            files: None,
            error: None,
        };
        let (stop_tx, stop_rx) = oneshot::channel();
        let (done_tx, done_rx) = watch::channel(None);
        let series = Arc::new(Mutex::new(Series::new(DEFAULT_CAP)));
        let live = Arc::new(Live {
            info: info.clone(),
            series: series.clone(),
            stop: Mutex::new(Some(stop_tx)),
            outcome: done_rx,
        });
        {
            let mut all = lock(&windows.live);
            if all.contains_key(&device.udid) {
                files.discard(self.runs());
                return Err(Error::new(
                    ErrorCode::PerfWindowActive,
                    format!("`{}` already has a window", device.udid),
                ));
            }
            all.insert(device.udid.clone(), live);
        }
        let sampler = Sampler {
            backend,
            device,
            info: info.clone(),
            interval,
            limit: Duration::from_secs(u64::from(max_s)),
            runs: self.runs().clone(),
            files,
            series,
        };
        let weak: Weak<PerfState> = Arc::downgrade(windows);
        tokio::spawn(async move {
            let udid = sampler.device.udid.clone();
            let window = sampler.run(first, stop_rx).await;
            let _ = done_tx.send(Some(window.clone()));
            if let Some(w) = weak.upgrade() {
                w.file(&udid, window);
            }
        });
        Ok(info)
    }

    /// Stops the device's window and answers its summary and files. A window that stopped by
    /// itself since (at `max_s`, with its session) is answered once, as it ended.
    pub async fn perf_stop(&self, udid: Option<&str>) -> Result<PerfWindow> {
        let device = self.resolve_to_act(udid).await?;
        let windows = &self.perf;
        let window = match windows.live_of(&device.udid) {
            Some(l) => Some(windows.finish(&l, StoppedBy::Request).await),
            None => lock(&windows.done)
                .iter()
                .rev()
                .find(|w| w.udid == device.udid)
                .cloned(),
        };
        // Each window is answered to one stop (a second, even racing, finds none).
        if let Some(w) = window.filter(|w| windows.answer(w)) {
            return Ok(w);
        }
        Err(Error::new(
            ErrorCode::NoPerfWindow,
            format!("no performance window runs on `{}`", device.udid),
        ))
    }

    /// Stops every window (the server is shutting down); each saves its files.
    pub async fn stop_all_perf_windows(&self) -> usize {
        self.perf.stop_where(StoppedBy::Shutdown, |_| true).await
    }

    /// The device's performance as a debug bundle tells it: the last reading, and the window
    /// that runs (its summary so far) or else the last that ran.
    pub fn perf_of(&self, udid: &str) -> (Option<PerfNow>, Option<PerfWindow>) {
        let state = &self.perf;
        let reading = lock(&state.readings).get(udid).cloned();
        let window = match state.live_of(udid) {
            Some(l) => {
                let mut info = l.info.clone();
                info.summary = Some(lock(&l.series).summary());
                Some(info)
            }
            None => lock(&state.done)
                .iter()
                .rev()
                .find(|w| w.udid == udid)
                .cloned(),
        };
        (reading, window)
    }

    /// Keeps `reading` as the device's last.
    pub(super) fn keep_reading(&self, reading: &PerfNow) {
        lock(&self.perf.readings).insert(reading.udid.clone(), reading.clone());
    }

    /// Stops the windows whose session is no longer live: told now, so that a stop asked
    /// after the session's end answers the window as the session's end left it.
    pub(in crate::controller) fn stop_perf_windows_of_ended_sessions(
        &self,
        live: &std::collections::HashSet<String>,
    ) {
        for window in lock(&self.perf.live).values() {
            if window
                .info
                .session
                .as_ref()
                .is_some_and(|s| !live.contains(s))
            {
                PerfState::signal(window, StoppedBy::SessionEnd);
            }
        }
    }
}
