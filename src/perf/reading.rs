//! A reading of an app now: what two samples a short window apart say together (CPU over the
//! window, and the second sample's memory, threads and frames), and what it cost to take.

use serde::Serialize;
use utoipa::ToSchema;

use super::{cpu_between, CpuReading, FrameStats, MeasuredOn, MemoryReading, PerfSample};

/// An app's CPU, memory, threads and frames now.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PerfReading {
    /// The app (package or bundle id).
    pub app: String,
    /// Its process.
    pub pid: u32,
    /// CPU over the window between the two samples (absent: the app restarted within it, or
    /// the platform gave no CPU time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuReading>,
    /// Its memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryReading>,
    /// Its threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// Frames since the platform's last reset (Android's `gfxinfo`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<FrameStats>,
    /// Where the figures were taken.
    pub measured_on: MeasuredOn,
    /// What the reading cost.
    pub cost: ReadingCost,
    /// The parts this platform gave no figure for (`cpu`, `memory`, `threads`, `frames`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<&'static str>,
}

/// What one reading cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct ReadingCost {
    /// Samples taken: each is one round trip to the device (or one read on the host).
    pub samples: u32,
    /// From the first sample's start to the answer, ms (the CPU window included).
    pub took_ms: u64,
}

impl PerfReading {
    /// The reading of `app` from a CPU-only `first` sample and a full `second` one.
    pub fn of(app: &str, first: &PerfSample, second: PerfSample, cost: ReadingCost) -> Self {
        let cpu = cpu_between(first, &second);
        let missing = [
            ("cpu", cpu.is_none()),
            ("memory", second.memory.is_none()),
            ("threads", second.threads.is_none()),
            ("frames", second.frames.is_none()),
        ]
        .into_iter()
        .filter_map(|(name, absent)| absent.then_some(name))
        .collect();
        PerfReading {
            app: app.to_string(),
            pid: second.pid,
            cpu,
            memory: second.memory,
            threads: second.threads,
            frames: second.frames,
            measured_on: second.measured_on,
            cost,
            missing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::{FrameSource, MemorySource};

    fn sample(pid: u32, clock_s: f64, cpu_time_s: f64) -> PerfSample {
        PerfSample {
            pid,
            clock_s: Some(clock_s),
            cpu_time_s: Some(cpu_time_s),
            threads: Some(12),
            memory: None,
            frames: None,
            measured_on: MeasuredOn::Device,
        }
    }

    #[test]
    fn a_reading_takes_cpu_from_both_samples_and_the_rest_from_the_second() {
        let cost = ReadingCost {
            samples: 2,
            took_ms: 640,
        };
        let mut second = sample(42, 10.5, 2.1);
        second.memory = Some(MemoryReading {
            pss_total_kib: Some(51_200),
            ..MemoryReading::new(MemorySource::AppSummary)
        });
        second.frames = Some(FrameStats::new(30, FrameSource::Summary));
        let r = PerfReading::of("com.example", &sample(42, 10.0, 2.0), second, cost);
        assert_eq!(r.cpu.as_ref().map(|c| c.percent), Some(20.0));
        assert_eq!(r.memory.and_then(|m| m.pss_total_kib), Some(51_200));
        assert_eq!((r.pid, r.threads, r.missing.len()), (42, Some(12), 0));

        let restarted = PerfReading::of(
            "com.example",
            &sample(41, 10.0, 2.0),
            sample(42, 10.5, 0.1),
            cost,
        );
        assert_eq!(restarted.cpu, None);
        assert_eq!(restarted.missing, ["cpu", "memory", "frames"]);
    }
}
