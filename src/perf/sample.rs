//! One sample of an app's process, in platform-free terms, and what two samples say together:
//! the CPU it used between them. A backend takes a sample in one round trip to the device (or,
//! for an app that is a process of the host, on the host); the controller takes two a short
//! window apart, so CPU is a share of that window and never a lifetime average.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{round2, CpuReading, FrameStats, MemoryReading};

/// What a sample reads beyond the process, its clock and its CPU time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SampleAsk {
    /// The app's memory.
    pub memory: bool,
    /// Its frames since the last reset.
    pub frames: bool,
    /// Reset the frame counters after reading them, to start a window (Android).
    pub reset_frames: bool,
}

impl SampleAsk {
    /// Only what a CPU window's first end needs.
    pub const CPU: SampleAsk = SampleAsk {
        memory: false,
        frames: false,
        reset_frames: false,
    };

    /// Everything a reading answers.
    pub const FULL: SampleAsk = SampleAsk {
        memory: true,
        frames: true,
        reset_frames: false,
    };
}

/// Where a reading's figures were taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MeasuredOn {
    /// On the device, by its own tools (Android: `/proc`, `dumpsys`).
    Device,
    /// On the host, where the app runs as a process (an iOS Simulator's app on the Mac).
    Host,
}

/// One sample of an app's process.
#[derive(Debug, Clone, PartialEq)]
pub struct PerfSample {
    /// The process.
    pub pid: u32,
    /// The clock CPU windows are measured on when sampled, s (the device's uptime, or the
    /// host's monotonic clock).
    pub clock_s: Option<f64>,
    /// CPU time the process has used since it started (user + system, all its threads), s.
    pub cpu_time_s: Option<f64>,
    /// Its threads.
    pub threads: Option<u32>,
    /// Its memory, when asked and read.
    pub memory: Option<MemoryReading>,
    /// Its frames since the last reset, when asked and read.
    pub frames: Option<FrameStats>,
    /// Where it was taken.
    pub measured_on: MeasuredOn,
}

/// The CPU the app used between two samples, in percent of one core over the sampled clock.
/// `None` when either lacks its clock or CPU time, the process changed between them (a
/// restart: a new pid, or CPU time that went back), or the window is not positive.
pub fn cpu_between(before: &PerfSample, after: &PerfSample) -> Option<CpuReading> {
    if before.pid != after.pid {
        return None;
    }
    let seconds = after.clock_s? - before.clock_s?;
    let used = after.cpu_time_s? - before.cpu_time_s?;
    if seconds.is_nan() || used.is_nan() || seconds <= 0.0 || used < 0.0 {
        return None;
    }
    Some(CpuReading {
        percent: round2(used / seconds * 100.0),
        window_ms: (seconds * 1000.0).round() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(pid: u32, clock_s: f64, cpu_time_s: f64) -> PerfSample {
        PerfSample {
            pid,
            clock_s: Some(clock_s),
            cpu_time_s: Some(cpu_time_s),
            threads: None,
            memory: None,
            frames: None,
            measured_on: MeasuredOn::Device,
        }
    }

    #[test]
    fn cpu_is_a_share_of_the_window_between_two_samples() {
        let c = cpu_between(&at(7, 100.0, 3.0), &at(7, 100.5, 3.25)).unwrap();
        assert_eq!((c.percent, c.window_ms), (50.0, 500));
        // Two cores busy for the whole window.
        let c = cpu_between(&at(7, 10.0, 1.0), &at(7, 11.0, 3.0)).unwrap();
        assert_eq!(c.percent, 200.0);
    }

    #[test]
    fn no_cpu_across_a_restart_or_an_empty_window() {
        assert_eq!(cpu_between(&at(7, 1.0, 1.0), &at(8, 2.0, 1.5)), None);
        assert_eq!(cpu_between(&at(7, 1.0, 5.0), &at(7, 2.0, 1.0)), None);
        assert_eq!(cpu_between(&at(7, 2.0, 1.0), &at(7, 2.0, 1.0)), None);
        let mut no_clock = at(7, 3.0, 1.0);
        no_clock.clock_s = None;
        assert_eq!(cpu_between(&at(7, 1.0, 1.0), &no_clock), None);
    }
}
