//! `dumpsys gfxinfo PKG [framestats]`: the frame summary Android prints since its last reset
//! (Android 6+: frames, janky frames, percentiles, slow-frame counts), the per-frame
//! `---PROFILEDATA---` CSV of `framestats`, the `Profile data in ms` rows of Android 4.x-5 and
//! the bare frame count of Android 4.3, read as far as each version goes.

use super::{leading_u64, no_process, not_running, number, unrecognised};
use crate::error::Result;
use crate::perf::{frame_stats_of, FrameSource, FrameStats};

/// The frame budget at 60 Hz, ms: a frame over it counts as janky when frames are computed
/// here (the platform's summary judges its own).
pub const BUDGET_60HZ_MS: f64 = 1000.0 / 60.0;

/// What a `dumpsys gfxinfo` printed about one app.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gfxinfo {
    /// The process (`** Graphics info for pid N [name] **`).
    pub pid: Option<u32>,
    /// Its name, as printed.
    pub process: Option<String>,
    /// The platform's summary, when printed (Android 6+).
    pub summary: Option<FrameStats>,
    /// Per-frame timings of `framestats`, rows with non-zero flags left out.
    pub frames: Vec<FrameTiming>,
    /// `framestats` rows left out for their flags (Android's own tools skip them too).
    pub flagged_frames: usize,
    /// Per-frame durations of `Profile data in ms` rows (sum of their stages), ms.
    pub profile_ms: Vec<f64>,
    /// `N frames rendered` of the view hierarchy (Android 4.3), summed over windows.
    pub frames_rendered: Option<u64>,
    /// `Total DisplayList` / `Total RenderNode … (used)`, kB.
    pub display_lists_kb: Option<f64>,
}

/// One frame of `framestats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameTiming {
    /// When the frame should have started (`IntendedVsync`), ns.
    pub intended_vsync_ns: u64,
    /// When it was handed to the display (`FrameCompleted`), ns.
    pub frame_completed_ns: u64,
}

impl FrameTiming {
    /// The frame's duration, ms.
    pub fn duration_ms(&self) -> f64 {
        (self.frame_completed_ns - self.intended_vsync_ns) as f64 / 1e6
    }
}

impl Gfxinfo {
    /// The best frame stats the output holds: the platform's summary, else stats computed
    /// from `framestats`, else from profile rows, else a bare frame count. Frames computed
    /// here count as janky over `budget_ms`.
    pub fn frame_stats(&self, budget_ms: f64) -> Option<FrameStats> {
        if let Some(s) = &self.summary {
            return Some(s.clone());
        }
        let durations: Vec<f64> = self.frames.iter().map(FrameTiming::duration_ms).collect();
        frame_stats_of(&durations, budget_ms, FrameSource::Framestats)
            .or_else(|| frame_stats_of(&self.profile_ms, budget_ms, FrameSource::ProfileData))
            .or_else(|| {
                let n = self.frames_rendered?;
                Some(FrameStats::new(n, FrameSource::FrameCount).noting_missing())
            })
    }
}

/// Reads `dumpsys gfxinfo` of `package`. A `No process found` answer is the app not running;
/// output with neither a graphics header nor framestats is not recognised.
pub fn parse_gfxinfo(text: &str, package: &str) -> Result<Gfxinfo> {
    if no_process(text).is_some() {
        return Err(not_running(package));
    }
    let header = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("** Graphics info for pid "));
    let (frames, flagged_frames) = parse_framestats(text);
    if header.is_none() && frames.is_empty() && flagged_frames == 0 {
        return Err(unrecognised("dumpsys gfxinfo", text));
    }
    let (pid, process) = match header {
        Some(h) => {
            let process = h
                .split_once('[')
                .and_then(|(_, r)| r.split_once(']'))
                .map(|(name, _)| name.to_string());
            (leading_u64(h).and_then(|p| u32::try_from(p).ok()), process)
        }
        None => (None, None),
    };
    Ok(Gfxinfo {
        pid,
        process,
        summary: parse_summary(text),
        frames,
        flagged_frames,
        profile_ms: parse_profile_rows(text),
        frames_rendered: frames_rendered(text),
        display_lists_kb: display_lists_kb(text),
    })
}

/// The value after the first line starting with `key` (exactly: `Janky frames:` is not
/// `Janky frames (legacy):`).
fn value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| l.trim().strip_prefix(key))
}

fn count(text: &str, key: &str) -> Option<u64> {
    value(text, key).and_then(leading_u64)
}

fn millis(text: &str, key: &str) -> Option<f64> {
    value(text, key).and_then(|v| number(v.trim().trim_end_matches("ms")))
}

/// The summary (the first one: later copies repeat it per window).
fn parse_summary(text: &str) -> Option<FrameStats> {
    let frames = count(text, "Total frames rendered:")?;
    let mut s = FrameStats::new(frames, FrameSource::Summary);
    if let Some(j) = value(text, "Janky frames:") {
        s.janky_frames = leading_u64(j);
        s.janky_percent = j
            .split_once('(')
            .and_then(|(_, r)| r.split_once('%'))
            .and_then(|(p, _)| number(p));
    }
    // Without a frame Android prints 4950 ms (its last bucket) at every percentile: no figure.
    if frames > 0 {
        s.p50_ms = millis(text, "50th percentile:");
        s.p90_ms = millis(text, "90th percentile:");
        s.p95_ms = millis(text, "95th percentile:");
        s.p99_ms = millis(text, "99th percentile:");
    }
    s.missed_vsync = count(text, "Number Missed Vsync:");
    s.high_input_latency = count(text, "Number High input latency:");
    s.slow_ui_thread = count(text, "Number Slow UI thread:");
    s.slow_bitmap_uploads = count(text, "Number Slow bitmap uploads:");
    s.slow_draw = count(text, "Number Slow issue draw commands:");
    s.deadline_missed = count(text, "Number Frame deadline missed:");
    Some(s.noting_missing())
}

/// The frames of every `---PROFILEDATA---` block: the kept ones, and how many were left out
/// for their flags. Columns are found by the block's header (Android 12 added some).
pub fn parse_framestats(text: &str) -> (Vec<FrameTiming>, usize) {
    let (mut frames, mut flagged) = (Vec::new(), 0);
    let mut columns: Option<(usize, usize, usize)> = None;
    for line in text.lines().map(str::trim) {
        if line.starts_with("---PROFILEDATA---") {
            columns = None;
            continue;
        }
        if line.starts_with("Flags,") {
            let names: Vec<&str> = line.split(',').collect();
            let at = |n: &str| names.iter().position(|c| *c == n);
            columns = match (at("Flags"), at("IntendedVsync"), at("FrameCompleted")) {
                (Some(f), Some(i), Some(c)) => Some((f, i, c)),
                _ => None,
            };
            continue;
        }
        let Some((f, i, c)) = columns else { continue };
        let cells: Vec<&str> = line.split(',').collect();
        let field = |k: usize| cells.get(k).and_then(|v| v.trim().parse::<u64>().ok());
        let (Some(flags), Some(start), Some(end)) = (field(f), field(i), field(c)) else {
            continue;
        };
        if flags != 0 {
            flagged += 1;
        } else if start > 0 && end >= start {
            frames.push(FrameTiming {
                intended_vsync_ns: start,
                frame_completed_ns: end,
            });
        }
    }
    (frames, flagged)
}

/// The rows of every `Profile data in ms` block (tab- or space-separated stage durations,
/// under an optional `Draw Prepare Process Execute` header), each summed into a frame time.
fn parse_profile_rows(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("Profile data in ms") {
            inside = true;
        } else if t.starts_with("View hierarchy") {
            inside = false;
        } else if inside && t.starts_with(|c: char| c.is_ascii_digit()) {
            let cells: Option<Vec<f64>> = t.split_whitespace().map(number).collect();
            if let Some(cells) = cells.filter(|c| (3..=4).contains(&c.len())) {
                out.push(cells.iter().sum());
            }
        }
    }
    out
}

/// `41 views, 1.36 kB of display lists, 191 frames rendered` (Android 4.3), over windows.
fn frames_rendered(text: &str) -> Option<u64> {
    let counts: Vec<u64> = text
        .lines()
        .filter_map(|l| l.trim().strip_suffix(" frames rendered"))
        .filter_map(|l| l.rsplit(", ").next().and_then(|n| n.trim().parse().ok()))
        .collect();
    (!counts.is_empty()).then(|| counts.iter().sum())
}

/// `Total DisplayList:  51,03 kB` or `Total RenderNode     : 595,86 kB (used) / …`.
fn display_lists_kb(text: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        let l = l.trim();
        let rest = l
            .strip_prefix("Total DisplayList")
            .or_else(|| l.strip_prefix("Total RenderNode"))?;
        let v = rest.trim_start().strip_prefix(':')?.trim_start();
        number(v.split_whitespace().next()?)
    })
}

#[cfg(test)]
#[path = "gfxinfo_tests.rs"]
mod tests;
