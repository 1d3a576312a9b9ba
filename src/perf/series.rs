//! A window's time series: one point per sample while they fit, then thinned — neighbouring
//! points merged in pairs, each then standing for twice as many samples — so a window of any
//! length keeps at most [`Series::cap`] points. Nothing is dropped silently: a point says how
//! many samples it holds, frames are summed, CPU averaged, memory keeps its peak, and the
//! summary's extremes, first and last values are taken over every sample, thinned or not.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::round2;

/// Points a series keeps before it thins itself.
pub const DEFAULT_CAP: usize = 2_000;

/// What one sample of a window measured over its interval.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tick {
    /// ms since the window started.
    pub t_ms: u64,
    /// CPU over the interval, % of one core.
    pub cpu_percent: Option<f64>,
    /// The app's whole memory (PSS, or footprint, or resident), KiB.
    pub memory_kib: Option<u64>,
    /// Its threads.
    pub threads: Option<u32>,
    /// Frames drawn in the interval.
    pub frames: Option<u64>,
    /// Of which janky.
    pub janky_frames: Option<u64>,
    /// The interval's 90th percentile frame time, ms.
    pub frame_p90_ms: Option<f64>,
}

/// One point of a series: a sample, or several merged by thinning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SeriesPoint {
    /// ms since the window started, at the point's last sample.
    pub t_ms: u64,
    /// Samples merged into this point.
    pub samples: u32,
    /// CPU, % of one core (the samples' mean).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_percent: Option<f64>,
    /// Memory, KiB (the samples' peak).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_kib: Option<u64>,
    /// Threads (the last sample's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// Frames drawn (the samples' sum).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<u64>,
    /// Janky frames (the samples' sum).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub janky_frames: Option<u64>,
    /// 90th percentile frame time, ms (the samples' worst).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_p90_ms: Option<f64>,
}

impl SeriesPoint {
    fn of(t: &Tick) -> Self {
        SeriesPoint {
            t_ms: t.t_ms,
            samples: 1,
            cpu_percent: t.cpu_percent,
            memory_kib: t.memory_kib,
            threads: t.threads,
            frames: t.frames,
            janky_frames: t.janky_frames,
            frame_p90_ms: t.frame_p90_ms,
        }
    }

    /// `self` (earlier) and `later` as one point.
    fn merged(&self, later: &SeriesPoint) -> SeriesPoint {
        let cpu = match (self.cpu_percent, later.cpu_percent) {
            (Some(a), Some(b)) => {
                let (wa, wb) = (f64::from(self.samples), f64::from(later.samples));
                Some(round2((a * wa + b * wb) / (wa + wb)))
            }
            (a, b) => a.or(b),
        };
        SeriesPoint {
            t_ms: later.t_ms,
            samples: self.samples + later.samples,
            cpu_percent: cpu,
            memory_kib: max_of(self.memory_kib, later.memory_kib),
            threads: later.threads.or(self.threads),
            frames: sum_of(self.frames, later.frames),
            janky_frames: sum_of(self.janky_frames, later.janky_frames),
            frame_p90_ms: max_of(self.frame_p90_ms, later.frame_p90_ms),
        }
    }
}

fn max_of<T: PartialOrd>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b > a { b } else { a }),
        (a, b) => a.or(b),
    }
}

fn sum_of(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    }
}

/// Extremes, first and last of one figure over every sample.
#[derive(Debug, Clone, Copy, Default)]
struct Running {
    n: u64,
    min: f64,
    max: f64,
    first: f64,
    last: f64,
}

impl Running {
    fn add(&mut self, v: Option<f64>) {
        let Some(v) = v.filter(|v| v.is_finite()) else {
            return;
        };
        if self.n == 0 {
            (self.min, self.max, self.first) = (v, v, v);
        }
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.last = v;
        self.n += 1;
    }
}

/// A figure over a window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FigureSummary {
    /// The lowest sample.
    pub min: f64,
    /// The median of the kept points (of every sample while the series is not thinned).
    pub median: f64,
    /// The highest sample.
    pub max: f64,
    /// The first sample.
    pub first: f64,
    /// The last sample.
    pub last: f64,
    /// Last minus first.
    pub delta: f64,
}

/// The frames of a window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FramesSummary {
    /// Frames drawn.
    pub frames: u64,
    /// Of which janky.
    pub janky_frames: u64,
    /// Janky frames as a percentage of all.
    pub janky_percent: f64,
    /// The worst interval's 90th percentile frame time, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_p90_ms: Option<f64>,
}

/// What a window measured, over every sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SeriesSummary {
    /// Samples taken.
    pub samples: u64,
    /// Points kept in the series.
    pub points: usize,
    /// Samples a point stands for (1: not thinned).
    pub samples_per_point: u32,
    /// ms from the window's start to its last sample.
    pub duration_ms: u64,
    /// CPU, % of one core.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_percent: Option<FigureSummary>,
    /// Memory, KiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_kib: Option<FigureSummary>,
    /// Threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<FigureSummary>,
    /// Frames.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<FramesSummary>,
}

/// A window's samples, kept within a bound.
#[derive(Debug, Clone)]
pub struct Series {
    points: Vec<SeriesPoint>,
    cap: usize,
    samples_per_point: u32,
    samples: u64,
    last_t_ms: u64,
    cpu: Running,
    memory: Running,
    threads: Running,
    frames: Option<(u64, u64)>,
    worst_p90_ms: Option<f64>,
}

impl Series {
    /// An empty series that keeps at most `cap` points (at least 2).
    pub fn new(cap: usize) -> Self {
        Series {
            points: Vec::new(),
            cap: cap.max(2),
            samples_per_point: 1,
            samples: 0,
            last_t_ms: 0,
            cpu: Running::default(),
            memory: Running::default(),
            threads: Running::default(),
            frames: None,
            worst_p90_ms: None,
        }
    }

    /// The most points it keeps.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// The kept points, oldest first.
    pub fn points(&self) -> &[SeriesPoint] {
        &self.points
    }

    /// Adds one sample's tick, thinning when the series is full.
    pub fn push(&mut self, tick: &Tick) {
        self.samples += 1;
        self.last_t_ms = tick.t_ms;
        self.cpu.add(tick.cpu_percent);
        self.memory.add(tick.memory_kib.map(|v| v as f64));
        self.threads.add(tick.threads.map(f64::from));
        if tick.frames.is_some() || tick.janky_frames.is_some() {
            let (f, j) = self.frames.unwrap_or_default();
            self.frames = Some((
                f + tick.frames.unwrap_or(0),
                j + tick.janky_frames.unwrap_or(0),
            ));
        }
        self.worst_p90_ms = max_of(self.worst_p90_ms, tick.frame_p90_ms);
        // The newest point fills up to the current stride before a new one starts.
        match self.points.last_mut() {
            Some(last) if last.samples < self.samples_per_point => {
                *last = last.merged(&SeriesPoint::of(tick));
            }
            _ => self.points.push(SeriesPoint::of(tick)),
        }
        if self.points.len() >= self.cap {
            self.thin();
        }
    }

    /// Merges neighbouring points in pairs: half the points, each standing for twice the
    /// samples.
    fn thin(&mut self) {
        self.points = self
            .points
            .chunks(2)
            .map(|pair| match pair {
                [a, b] => a.merged(b),
                [a] => a.clone(),
                _ => unreachable!("chunks of two"),
            })
            .collect();
        self.samples_per_point *= 2;
    }

    /// The summary over every sample so far.
    pub fn summary(&self) -> SeriesSummary {
        let median = |f: fn(&SeriesPoint) -> Option<f64>| {
            let mut v: Vec<f64> = self.points.iter().filter_map(f).collect();
            v.sort_by(f64::total_cmp);
            super::percentile(&v, 50.0)
        };
        let figure = |r: &Running, f: fn(&SeriesPoint) -> Option<f64>| {
            (r.n > 0).then(|| FigureSummary {
                min: round2(r.min),
                median: round2(median(f).unwrap_or(r.last)),
                max: round2(r.max),
                first: round2(r.first),
                last: round2(r.last),
                delta: round2(r.last - r.first),
            })
        };
        SeriesSummary {
            samples: self.samples,
            points: self.points.len(),
            samples_per_point: self.samples_per_point,
            duration_ms: self.last_t_ms,
            cpu_percent: figure(&self.cpu, |p| p.cpu_percent),
            memory_kib: figure(&self.memory, |p| p.memory_kib.map(|v| v as f64)),
            threads: figure(&self.threads, |p| p.threads.map(f64::from)),
            frames: self.frames.map(|(frames, janky)| FramesSummary {
                frames,
                janky_frames: janky,
                janky_percent: if frames == 0 {
                    0.0
                } else {
                    round2(janky as f64 * 100.0 / frames as f64)
                },
                worst_p90_ms: self.worst_p90_ms,
            }),
        }
    }
}

#[cfg(test)]
#[path = "series_tests.rs"]
mod tests;
