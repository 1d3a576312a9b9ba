//! A window's sampling loop: a sample every interval until stopped or at the window's limit,
//! each turned into what it measured over its own interval (a [`Tick`]), then the series saved.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::files::Reserved;
use super::window::EACH_SAMPLE;
use crate::api::wire::perf::{PerfWindow, PerfWindowState};
use crate::api::wire::recording::StoppedBy;
use crate::backend::DeviceBackend;
use crate::device::Device;
use crate::perf::series::{Series, Tick};
use crate::perf::{cpu_between, PerfSample};
use crate::runs::RunStore;

/// A window's sampling loop and what it needs.
pub(super) struct Sampler {
    pub backend: Arc<dyn DeviceBackend>,
    pub device: Device,
    pub info: PerfWindow,
    pub interval: Duration,
    pub limit: Duration,
    pub runs: RunStore,
    pub files: Reserved,
    /// The series, shared with whoever reads the window while it runs.
    pub series: Arc<std::sync::Mutex<Series>>,
}

impl Sampler {
    /// Samples every interval until stopped or at the limit, then saves the files.
    pub async fn run(
        self,
        first: PerfSample,
        mut stop: oneshot::Receiver<StoppedBy>,
    ) -> PerfWindow {
        let started = Instant::now();
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
                    let tick = tick(last.as_ref(), &now, started.elapsed());
                    lock(&self.series).push(&tick);
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
        let series = lock(&self.series).clone();
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

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
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
