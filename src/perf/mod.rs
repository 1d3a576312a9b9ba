//! An app's performance in platform-free terms: what one reading of memory, CPU, threads and
//! frames says, and what a launch measured, plus the arithmetic every platform shares (CPU
//! share from two tick counts, percentiles of frame times). No I/O: each backend reads its own
//! tools' output into these types (Android: `backend::android::perf`).
//!
//! A figure the platform did not print is `None` (old Androids lack a 50th percentile, an App
//! Summary, …): it is never filled in with a guess.

mod cost;
pub mod plot;
mod reading;
mod sample;
pub mod series;

pub use cost::ActionCost;
pub use reading::{PerfReading, ReadingCost};
pub use sample::{cpu_between, MeasuredOn, PerfSample, SampleAsk};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where a memory reading comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MemorySource {
    /// Android's "App Summary" (Android 6 and later): the figures Android Studio shows.
    AppSummary,
    /// The per-category table (older Androids, or a summary cut off): PSS of its rows.
    Table,
    /// The operating system's own figures for the process (resident set, footprint): an iOS
    /// Simulator's app, a process of the Mac, read there.
    Process,
}

/// One reading of an app's memory, in KiB.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MemoryReading {
    /// Total PSS (proportional set size) of the process.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pss_total_kib: Option<u64>,
    /// The Java (Dalvik/ART) heap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub java_heap_kib: Option<u64>,
    /// The native (malloc) heap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native_heap_kib: Option<u64>,
    /// Graphics buffers and GPU memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graphics_kib: Option<u64>,
    /// Mapped code (.so, .dex, .oat, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_kib: Option<u64>,
    /// Thread stacks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack_kib: Option<u64>,
    /// Resident set size: the process's pages in RAM.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resident_kib: Option<u64>,
    /// The physical footprint the system charges the app for (what iOS's memory limit counts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub footprint_kib: Option<u64>,
    /// Which part of the platform's report the figures come from.
    pub source: MemorySource,
}

impl MemoryReading {
    /// A reading from `source` with no figure yet.
    pub fn new(source: MemorySource) -> Self {
        MemoryReading {
            pss_total_kib: None,
            java_heap_kib: None,
            native_heap_kib: None,
            graphics_kib: None,
            code_kib: None,
            stack_kib: None,
            resident_kib: None,
            footprint_kib: None,
            source,
        }
    }

    /// The figure that stands for the app's whole memory: PSS on Android, the footprint or
    /// else the resident set elsewhere.
    pub fn total_kib(&self) -> Option<u64> {
        self.pss_total_kib
            .or(self.footprint_kib)
            .or(self.resident_kib)
    }
}

/// Where frame statistics come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FrameSource {
    /// The platform's own summary (Android: `Total frames rendered`, `Janky frames`, …).
    Summary,
    /// Computed here from per-frame timestamps (Android: `gfxinfo … framestats`).
    Framestats,
    /// Computed here from per-frame stage durations (Android 4.x-5: `Profile data in ms`).
    ProfileData,
    /// Only a frame count was printed (Android 4.3's `N frames rendered`).
    FrameCount,
}

/// Frames rendered since the platform's last reset and how smooth they were.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FrameStats {
    /// Frames rendered.
    pub frames: u64,
    /// Frames that missed their deadline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub janky_frames: Option<u64>,
    /// Janky frames as a percentage of all frames.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub janky_percent: Option<f64>,
    /// Median frame time, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_ms: Option<f64>,
    /// 90th percentile frame time, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p90_ms: Option<f64>,
    /// 95th percentile frame time, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p95_ms: Option<f64>,
    /// 99th percentile frame time, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p99_ms: Option<f64>,
    /// Frames whose vsync was missed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missed_vsync: Option<u64>,
    /// Frames with a late input event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high_input_latency: Option<u64>,
    /// Frames slow on the UI thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slow_ui_thread: Option<u64>,
    /// Frames slow uploading bitmaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slow_bitmap_uploads: Option<u64>,
    /// Frames slow issuing draw commands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slow_draw: Option<u64>,
    /// Frames that missed their deadline (Android 9+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_missed: Option<u64>,
    /// The longest frame, ms, where per-frame timings were printed (Android `framestats`: its
    /// last 120 frames or fewer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_ms: Option<f64>,
    /// Where the figures come from.
    pub source: FrameSource,
    /// The figures this platform version did not print (field names), so absent ones read as
    /// "not reported", never as zero.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

impl FrameStats {
    /// Stats of `frames` frames from `source`, every other figure unknown.
    pub fn new(frames: u64, source: FrameSource) -> Self {
        FrameStats {
            frames,
            janky_frames: None,
            janky_percent: None,
            p50_ms: None,
            p90_ms: None,
            p95_ms: None,
            p99_ms: None,
            missed_vsync: None,
            high_input_latency: None,
            slow_ui_thread: None,
            slow_bitmap_uploads: None,
            slow_draw: None,
            deadline_missed: None,
            longest_ms: None,
            source,
            missing: Vec::new(),
        }
    }

    /// The same stats with `missing` naming each figure left `None`.
    pub fn noting_missing(mut self) -> Self {
        let figures: [(&str, bool); 12] = [
            ("janky_frames", self.janky_frames.is_none()),
            ("janky_percent", self.janky_percent.is_none()),
            ("p50_ms", self.p50_ms.is_none()),
            ("p90_ms", self.p90_ms.is_none()),
            ("p95_ms", self.p95_ms.is_none()),
            ("p99_ms", self.p99_ms.is_none()),
            ("missed_vsync", self.missed_vsync.is_none()),
            ("high_input_latency", self.high_input_latency.is_none()),
            ("slow_ui_thread", self.slow_ui_thread.is_none()),
            ("slow_bitmap_uploads", self.slow_bitmap_uploads.is_none()),
            ("slow_draw", self.slow_draw.is_none()),
            ("deadline_missed", self.deadline_missed.is_none()),
        ];
        self.missing = figures
            .iter()
            .filter(|(_, absent)| *absent)
            .map(|(name, _)| name.to_string())
            .collect();
        self
    }
}

/// CPU used by an app over a window between two samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CpuReading {
    /// Percent of one core (a process busy on two cores reads 200).
    pub percent: f64,
    /// Length of the window, ms.
    pub window_ms: u64,
}

/// How an Android activity start found its app (`am start -W`'s `LaunchState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum LaunchState {
    /// The process was started.
    Cold,
    /// The process ran; the activity was created.
    Warm,
    /// The activity was brought to the front.
    Hot,
    /// The activity was relaunched (a configuration change).
    Relaunch,
}

/// Who measured a start: the platform (Android `am start -W`), mobilectl (an iOS Simulator:
/// from the launch call to the app's first screen in the UI tree), or nothing but the launch
/// command's own time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MeasuredBy {
    /// The platform's own figure (Android `am start -W`).
    #[default]
    Platform,
    /// mobilectl, from the launch call to the app's first screen seen in the UI tree (an iOS
    /// Simulator).
    Mobilectl,
    /// Nothing saw the first screen: the launch command's own time.
    LaunchCommand,
}

/// What the platform (Android `am start -W`), or mobilectl watching the UI tree (an iOS
/// Simulator), measured of an app start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StartupMeasure {
    /// `platform` (Android) or `mobilectl` (an iOS Simulator: the first screen seen in the UI
    /// tree).
    #[serde(default)]
    pub measured_by: MeasuredBy,
    /// The status word: the platform's (`ok`, `timeout`, …); mobilectl's `ok`, `timeout` (no
    /// first screen in time) or `failed` (the UI could not be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Cold, warm or hot, when the platform says (Android 10+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch_state: Option<LaunchState>,
    /// The activity that came up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
    /// Time to draw the first frame of the whole start, ms (Android `TotalTime`); mobilectl:
    /// from the launch call to the end of the UI read that first showed the app's screen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_time_ms: Option<u64>,
    /// Time the start command waited, ms (Android `WaitTime`; iOS: `simctl launch`'s own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait_time_ms: Option<u64>,
    /// mobilectl: the first screen came after this, ms: the start of the last UI read that
    /// showed the UI without it (0 when none did). `total_time_ms` minus this is the precision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub earliest_ms: Option<u64>,
    /// mobilectl: how many times it read the UI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reads: Option<u32>,
    /// Time of the last activity started, ms (Android `ThisTime`, up to Android 9).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub this_time_ms: Option<u64>,
    /// A warning the platform printed (e.g. the task was only brought to the front); mobilectl:
    /// what it saw instead of the first screen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Whether the platform said the start completed; mobilectl: whether it saw the first
    /// screen.
    pub complete: bool,
}

impl StartupMeasure {
    /// Who measured this start's time, when it has one: the platform's figure, or mobilectl's
    /// first screen (`None` when mobilectl did not see it).
    pub fn timed_by(&self) -> Option<MeasuredBy> {
        match self.measured_by {
            MeasuredBy::Mobilectl if !(self.complete && self.total_time_ms.is_some()) => None,
            by => Some(by),
        }
    }
}

/// CPU share, in percent of one core, of `ticks` clock ticks used over `seconds` with
/// `clk_tck` ticks a second (`sysconf(_SC_CLK_TCK)`, 100 on Android). `None` for a window
/// that is not positive.
pub fn cpu_percent(ticks: u64, seconds: f64, clk_tck: u32) -> Option<f64> {
    if seconds.is_nan() || seconds <= 0.0 || clk_tck == 0 {
        return None;
    }
    Some(ticks as f64 / (seconds * f64::from(clk_tck)) * 100.0)
}

/// The `p`th percentile (0-100) of `sorted` (ascending) by the nearest-rank method: the
/// smallest value with at least `p`% of values at or below it. `None` when empty.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p.clamp(0.0, 100.0) / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.max(1) - 1).copied()
}

/// Frame stats of per-frame durations in ms (any order), from `source`: count, percentiles,
/// and janky frames as those longer than `budget_ms` (16.67 at 60 Hz). `None` without frames.
pub fn frame_stats_of(
    durations_ms: &[f64],
    budget_ms: f64,
    source: FrameSource,
) -> Option<FrameStats> {
    let mut sorted: Vec<f64> = durations_ms
        .iter()
        .copied()
        .filter(|d| d.is_finite())
        .collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let janky = sorted.iter().filter(|&&d| d > budget_ms).count() as u64;
    let frames = sorted.len() as u64;
    let mut s = FrameStats::new(frames, source);
    s.janky_frames = Some(janky);
    s.janky_percent = Some(round2(janky as f64 * 100.0 / frames as f64));
    s.p50_ms = percentile(&sorted, 50.0).map(round2);
    s.p90_ms = percentile(&sorted, 90.0).map(round2);
    s.p95_ms = percentile(&sorted, 95.0).map(round2);
    s.p99_ms = percentile(&sorted, 99.0).map(round2);
    Some(s.noting_missing())
}

/// `x` rounded to two decimals.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_share_of_one_core() {
        // 150 ticks at 100 Hz over 1.5 s: one core fully busy.
        assert_eq!(cpu_percent(150, 1.5, 100), Some(100.0));
        assert_eq!(cpu_percent(25, 0.5, 100), Some(50.0));
        assert_eq!(cpu_percent(300, 1.0, 100), Some(300.0));
        assert_eq!(cpu_percent(10, 0.0, 100), None);
        assert_eq!(cpu_percent(10, f64::NAN, 100), None);
        assert_eq!(cpu_percent(10, 1.0, 0), None);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(5.0));
        assert_eq!(percentile(&v, 90.0), Some(9.0));
        assert_eq!(percentile(&v, 95.0), Some(10.0));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile(&[7.0], 99.0), Some(7.0));
    }

    #[test]
    fn frame_stats_count_frames_over_the_budget() {
        let s = frame_stats_of(&[10.0, 20.0, 5.0, 40.0], 16.67, FrameSource::Framestats).unwrap();
        assert_eq!(
            (s.frames, s.janky_frames, s.janky_percent),
            (4, Some(2), Some(50.0))
        );
        assert_eq!((s.p50_ms, s.p99_ms), (Some(10.0), Some(40.0)));
        assert!(s.missing.contains(&"slow_ui_thread".to_string()));
        assert!(!s.missing.contains(&"p50_ms".to_string()));
        assert!(frame_stats_of(&[], 16.67, FrameSource::Framestats).is_none());
        assert!(frame_stats_of(&[f64::NAN], 16.67, FrameSource::Framestats).is_none());
    }
}
