//! Performance windows: at most one per device, sampling an app every `interval_ms` into a
//! bounded series ([`Series`]) outside the device's command lock, and stopped exactly once —
//! by `perf_stop`, at `max_s`, when the session that started it ends, or when the server
//! shuts down — with its series, summary and plots saved among the run's artifacts.
//!
//! Each sample reads the frames since the previous one and resets the counters (Android's
//! `gfxinfo … reset`), so every point's frames and frame time are its own interval's.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, watch};

use super::super::reach::Reach;
use super::super::DeviceController;
use crate::api::wire::perf::{PerfFiles, PerfStart, PerfWindow, PerfWindowState};
use crate::api::wire::recording::StoppedBy;
use crate::api::wire::runs::ArtifactKind;
use crate::backend::{concern, DeviceBackend};
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::perf::series::{Series, Tick, DEFAULT_CAP};
use crate::perf::{cpu_between, PerfSample, SampleAsk};
use crate::runs::{ArtifactRef, RunHold, RunStore};

/// The interval between samples when none is asked, and its bounds, ms.
pub const DEFAULT_INTERVAL_MS: u64 = 500;
const INTERVAL_MS: std::ops::RangeInclusive<u64> = 100..=60_000;
/// The longest window when none is asked, and the bound, s.
const DEFAULT_MAX_S: u32 = 600;
const MAX_MAX_S: u32 = 3_600;
/// Finished windows remembered (for a stop that comes after the window ended by itself).
const KEEP_FINISHED: usize = 100;

/// What a window samples each interval.
const EACH_SAMPLE: SampleAsk = SampleAsk {
    memory: true,
    frames: true,
    reset_frames: true,
};

/// The windows of one server.
#[derive(Default)]
pub struct PerfWindows {
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

impl PerfWindows {
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
        let on = self.reach(req.udid.as_deref(), Reach::Read).await?;
        on.backend.check_app_id(app)?;
        let perf = on.cap(concern::Perf)?;
        let device = on.into_device();
        let windows = &self.perf_windows;
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
        let live = Arc::new(Live {
            info: info.clone(),
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
        };
        let weak: Weak<PerfWindows> = Arc::downgrade(windows);
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
        let windows = &self.perf_windows;
        if let Some(l) = windows.live_of(&device.udid) {
            let window = windows.finish(&l, StoppedBy::Request).await;
            windows.answer(&window);
            return Ok(window);
        }
        let last = lock(&windows.done)
            .iter()
            .rev()
            .find(|w| w.udid == device.udid)
            .cloned();
        if let Some(w) = last.filter(|w| windows.answer(w)) {
            return Ok(w);
        }
        Err(Error::new(
            ErrorCode::NoPerfWindow,
            format!("no performance window runs on `{}`", device.udid),
        ))
    }

    /// Stops every window (the server is shutting down); each saves its files.
    pub async fn stop_all_perf_windows(&self) -> usize {
        self.perf_windows
            .stop_where(StoppedBy::Shutdown, |_| true)
            .await
    }

    /// Stops the windows whose session is no longer live: told now, so that a stop asked
    /// after the session's end answers the window as the session's end left it.
    pub(in crate::controller) fn stop_perf_windows_of_ended_sessions(
        &self,
        live: &std::collections::HashSet<String>,
    ) {
        for window in lock(&self.perf_windows.live).values() {
            if window
                .info
                .session
                .as_ref()
                .is_some_and(|s| !live.contains(s))
            {
                PerfWindows::signal(window, StoppedBy::SessionEnd);
            }
        }
    }
}

/// A window's sampling loop and what it needs.
struct Sampler {
    backend: Arc<dyn DeviceBackend>,
    device: Device,
    info: PerfWindow,
    interval: Duration,
    limit: Duration,
    runs: RunStore,
    files: Reserved,
}

impl Sampler {
    /// Samples every interval until stopped or at the limit, then saves the files.
    async fn run(self, first: PerfSample, mut stop: oneshot::Receiver<StoppedBy>) -> PerfWindow {
        let started = Instant::now();
        let mut series = Series::new(DEFAULT_CAP);
        let mut info = self.info.clone();
        let mut last = Some(first);
        let mut ticker = tokio::time::interval_at((started + self.interval).into(), self.interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let deadline = tokio::time::sleep_until((started + self.limit).into());
        tokio::pin!(deadline);
        let by = loop {
            tokio::select! {
                by = &mut stop => break by.unwrap_or(StoppedBy::Shutdown),
                () = &mut deadline => break StoppedBy::MaxS,
                _ = ticker.tick() => {}
            }
            let Some(perf) = self.backend.perf() else {
                break StoppedBy::Shutdown;
            };
            match perf.perf_sample(&self.device, &info.app, EACH_SAMPLE).await {
                Ok(now) => {
                    series.push(&tick(last.as_ref(), &now, started.elapsed()));
                    last = Some(now);
                }
                Err(e) => {
                    info.failed_samples += 1;
                    info.last_error = Some(e.message);
                    // CPU is not measured across a gap.
                    last = None;
                }
            }
        };
        info.stopped_by = Some(by);
        info.summary = Some(series.summary());
        let (runs, files, snapshot) = (self.runs.clone(), self.files, info.clone());
        let saved =
            tokio::task::spawn_blocking(move || files.save(&runs, &snapshot, &series)).await;
        match saved {
            Ok(Ok(files)) => {
                info.state = PerfWindowState::Finished;
                info.files = Some(files);
            }
            Ok(Err(e)) => {
                info.state = PerfWindowState::Failed;
                info.error = Some(e.message);
            }
            Err(e) => {
                info.state = PerfWindowState::Failed;
                info.error = Some(format!("saving the window: {e}"));
            }
        }
        tracing::info!(id = %info.id, udid = %info.udid, by = ?by, samples = info.summary.as_ref().map(|s| s.samples), "perf window stopped");
        info
    }
}

/// What one sample measured over the interval since the previous one (`None`: a gap).
fn tick(previous: Option<&PerfSample>, now: &PerfSample, at: Duration) -> Tick {
    Tick {
        t_ms: at.as_millis() as u64,
        cpu_percent: previous
            .and_then(|p| cpu_between(p, now))
            .map(|c| c.percent),
        memory_kib: now.memory.as_ref().and_then(|m| m.total_kib()),
        threads: now.threads,
        frames: now.frames.as_ref().map(|f| f.frames),
        janky_frames: now.frames.as_ref().and_then(|f| f.janky_frames),
        frame_p90_ms: now.frames.as_ref().and_then(|f| f.p90_ms),
    }
}

/// The window's three files, reserved in its run when it starts (so the run is held while it
/// samples, and a window whose session ended still saves into that session's run).
struct Reserved {
    series: ArtifactRef,
    svg: ArtifactRef,
    png: ArtifactRef,
    _hold: RunHold,
}

impl Reserved {
    fn make(runs: &RunStore, session: Option<&str>, name: &str) -> Result<Reserved> {
        let reserve = |ext: &str| {
            runs.reserve_artifact(session, &format!("{name}.{ext}"), ArtifactKind::Perf)
        };
        let (series, hold) = reserve("json")?;
        let mut made = vec![series];
        for ext in ["svg", "png"] {
            match reserve(ext) {
                Ok((a, _)) => made.push(a),
                Err(e) => {
                    made.iter().for_each(|a| runs.discard_artifact(a));
                    return Err(e);
                }
            }
        }
        let [series, svg, png] = <[ArtifactRef; 3]>::try_from(made)
            .map_err(|_| Error::internal("three artifacts were reserved"))?;
        Ok(Reserved {
            series,
            svg,
            png,
            _hold: hold,
        })
    }

    fn run(&self) -> &str {
        &self.series.run
    }

    fn discard(self, runs: &RunStore) {
        for a in [&self.series, &self.svg, &self.png] {
            runs.discard_artifact(a);
        }
    }

    /// Writes the series and summary (JSON) and the plot (SVG, PNG), and commits them.
    fn save(self, runs: &RunStore, info: &PerfWindow, series: &Series) -> Result<PerfFiles> {
        let written = (|| {
            let json = serde_json::to_vec_pretty(&serde_json::json!({
                "window": info,
                "points": series.points(),
            }))
            .map_err(|e| Error::internal(format!("the series: {e}")))?;
            let title = format!("{} on {} · {}", info.app, info.udid, info.started_at);
            let svg = crate::perf::plot::svg(series.points(), &title)?;
            let png = crate::perf::plot::png(series.points(), &title)?;
            for (a, bytes) in [
                (&self.series, json.as_slice()),
                (&self.svg, svg.as_bytes()),
                (&self.png, png.as_slice()),
            ] {
                std::fs::write(&a.path, bytes)
                    .map_err(|e| Error::internal(format!("{}: {e}", a.path.display())))?;
                runs.commit_artifact(a)?;
            }
            Ok(())
        })();
        match written {
            Ok(()) => Ok(PerfFiles {
                series: self.series.name.clone(),
                svg: self.svg.name.clone(),
                png: self.png.name.clone(),
            }),
            Err(e) => {
                self.discard(runs);
                Err(e)
            }
        }
    }
}
