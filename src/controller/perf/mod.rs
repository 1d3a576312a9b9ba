//! An app's performance: a reading now (two samples a CPU window apart), taken outside the
//! device's command lock so that it never holds up an action.

use std::time::{Duration, Instant};

use crate::api::wire::perf::PerfNow;
use crate::backend::concern;
use crate::error::{Error, Result};
use crate::perf::{PerfReading, ReadingCost, SampleAsk};

mod files;
mod measure;
mod sampler;
mod window;

pub use window::PerfState;

use super::reach::Reach;
use super::DeviceController;

/// The CPU window of a reading when none is asked.
pub const DEFAULT_WINDOW: Duration = Duration::from_millis(500);
/// The shortest and longest CPU windows of a reading, ms.
pub const WINDOW_MS: std::ops::RangeInclusive<u64> = 100..=10_000;

/// A CPU window of `ms` (default 500), refused outside [`WINDOW_MS`].
pub fn cpu_window(ms: Option<u64>) -> Result<Duration> {
    match ms {
        None => Ok(DEFAULT_WINDOW),
        Some(ms) if WINDOW_MS.contains(&ms) => Ok(Duration::from_millis(ms)),
        Some(ms) => Err(Error::validation(format!(
            "`window_ms` is {ms}; a CPU window is {} to {} ms",
            WINDOW_MS.start(),
            WINDOW_MS.end()
        ))
        .with_hint("leave it out for 500 ms")),
    }
}

impl DeviceController {
    /// `app`'s CPU over `window`, and its memory, threads and frames at the window's end.
    pub async fn perf_now(
        &self,
        udid: Option<&str>,
        app: &str,
        window: Duration,
    ) -> Result<PerfNow> {
        let on = self.reach(udid, Reach::Read).await?;
        on.backend.check_app_id(app)?;
        let perf = on.cap(concern::Perf)?;
        let started = Instant::now();
        let first = perf.perf_sample(&on.device, app, SampleAsk::CPU).await?;
        tokio::time::sleep(window).await;
        let second = perf.perf_sample(&on.device, app, SampleAsk::FULL).await?;
        let cost = ReadingCost {
            samples: 2,
            took_ms: started.elapsed().as_millis() as u64,
        };
        let now = PerfNow {
            udid: on.device.udid.clone(),
            taken_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            reading: PerfReading::of(app, &first, second, cost),
        };
        self.keep_reading(&now);
        Ok(now)
    }
}
