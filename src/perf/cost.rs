//! What an action cost the app: its frames, janky frames, longest frame and CPU from just
//! before the action to just after it, from two samples (the first resets the frame counters).

use serde::Serialize;
use utoipa::ToSchema;

use super::{cpu_between, CpuReading, PerfSample};

/// What an action cost the app, as its receipt's `perf` says.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ActionCost {
    /// The app measured (the foreground app, or the session's).
    pub app: String,
    /// Frames drawn from the action's start to its end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<u64>,
    /// Of which janky.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub janky_frames: Option<u64>,
    /// Janky frames as a percentage of those drawn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub janky_percent: Option<f64>,
    /// The longest frame, ms (from per-frame timings where the platform prints them, else
    /// its 99th percentile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_frame_ms: Option<f64>,
    /// CPU over the action.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuReading>,
    /// Why the figures after the action could not be read (the app stopped…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ActionCost {
    /// The cost between `before` (taken with the frame counters reset) and `after`.
    pub fn between(app: &str, before: &PerfSample, after: &PerfSample) -> Self {
        let frames = after.frames.as_ref();
        ActionCost {
            app: app.to_string(),
            frames: frames.map(|f| f.frames),
            janky_frames: frames.and_then(|f| f.janky_frames),
            janky_percent: frames.and_then(|f| f.janky_percent),
            longest_frame_ms: frames.and_then(|f| f.longest_ms.or(f.p99_ms)),
            cpu: cpu_between(before, after),
            error: None,
        }
    }

    /// The cost of an app's start: as [`Self::between`] when the process that ran before it
    /// still runs (a warm or hot start); else the new process's frames, and its CPU time over
    /// `elapsed` since the start was asked (all of it was used within that time).
    pub fn of_start(
        app: &str,
        before: Option<&PerfSample>,
        after: &PerfSample,
        elapsed: std::time::Duration,
    ) -> Self {
        if let Some(b) = before.filter(|b| b.pid == after.pid) {
            return Self::between(app, b, after);
        }
        let seconds = elapsed.as_secs_f64();
        let cpu = after
            .cpu_time_s
            .filter(|_| seconds > 0.0)
            .map(|used| CpuReading {
                percent: super::round2(used / seconds * 100.0),
                window_ms: elapsed.as_millis() as u64,
            });
        ActionCost {
            cpu,
            ..Self::between(app, after, after)
        }
    }

    /// No figures: the sample after the action failed with `error`.
    pub fn unread(app: &str, error: String) -> Self {
        ActionCost {
            app: app.to_string(),
            frames: None,
            janky_frames: None,
            janky_percent: None,
            longest_frame_ms: None,
            cpu: None,
            error: Some(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::{FrameSource, FrameStats, MeasuredOn};

    fn sample(clock_s: f64, cpu_time_s: f64, frames: Option<FrameStats>) -> PerfSample {
        PerfSample {
            pid: 9,
            clock_s: Some(clock_s),
            cpu_time_s: Some(cpu_time_s),
            threads: None,
            memory: None,
            frames,
            measured_on: MeasuredOn::Device,
        }
    }

    #[test]
    fn an_actions_cost_is_the_frames_after_it_and_the_cpu_between() {
        let mut f = FrameStats::new(40, FrameSource::Summary);
        f.janky_frames = Some(5);
        f.janky_percent = Some(12.5);
        f.p99_ms = Some(48.0);
        f.longest_ms = Some(61.5);
        let c = ActionCost::between(
            "a.b",
            &sample(1.0, 0.5, None),
            &sample(1.4, 0.6, Some(f.clone())),
        );
        assert_eq!(
            (c.frames, c.janky_frames, c.janky_percent),
            (Some(40), Some(5), Some(12.5))
        );
        assert_eq!(c.longest_frame_ms, Some(61.5));
        assert_eq!(c.cpu.map(|c| (c.percent, c.window_ms)), Some((25.0, 400)));
        f.longest_ms = None;
        let c = ActionCost::between("a.b", &sample(1.0, 0.5, None), &sample(1.4, 0.6, Some(f)));
        assert_eq!(c.longest_frame_ms, Some(48.0));
    }

    #[test]
    fn a_cold_start_counts_the_new_process_from_its_start() {
        let f = FrameStats::new(12, FrameSource::Summary);
        let mut new = sample(50.0, 0.3, Some(f));
        new.pid = 10;
        let elapsed = std::time::Duration::from_millis(600);
        // No process before, or another one: the new process's CPU time over the start.
        for before in [None, Some(sample(40.0, 9.0, None))] {
            let c = ActionCost::of_start("a.b", before.as_ref(), &new, elapsed);
            assert_eq!(c.frames, Some(12));
            assert_eq!(c.cpu.map(|c| (c.percent, c.window_ms)), Some((50.0, 600)));
        }
        // The same process (a hot start): between the two samples.
        let c = ActionCost::of_start(
            "a.b",
            Some(&sample(49.0, 0.1, None)),
            &sample(50.0, 0.3, None),
            elapsed,
        );
        assert_eq!(c.cpu.map(|c| c.percent), Some(20.0));
    }
}
