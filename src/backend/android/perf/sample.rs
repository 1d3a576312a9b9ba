//! One performance sample of an app in one adb round trip: the shell script that reads its pid
//! (`pidof`), the device's uptime, the process's and its threads' `stat` lines, `dumpsys
//! meminfo` and `dumpsys gfxinfo … framestats`, with a marker line before each section; and
//! the reader that splits that output back into sections and reads each.

use super::gfxinfo::{parse_gfxinfo, Gfxinfo};
use super::meminfo::parse_meminfo;
use super::procstat::{parse_stat_line, parse_task_stats, process_cpu, TaskStat};
use super::{leading_u64, not_running, number, unrecognised};
use crate::backend::validate;
use crate::error::{ErrorCode, Result};
use crate::perf::{CpuReading, MemoryReading, SampleAsk};

/// The sections of a sample, in the order the script prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// `pidof PKG`.
    Pid,
    /// `/proc/uptime`: the device's clock for the CPU window.
    Uptime,
    /// `/proc/PID/stat`.
    Stat,
    /// `/proc/PID/task/*/stat`.
    Tasks,
    /// `dumpsys meminfo PKG`.
    Meminfo,
    /// `dumpsys gfxinfo PKG framestats`.
    Gfxinfo,
}

impl Section {
    /// Every section, in the script's order.
    pub const ALL: [Section; 6] = [
        Section::Pid,
        Section::Uptime,
        Section::Stat,
        Section::Tasks,
        Section::Meminfo,
        Section::Gfxinfo,
    ];

    fn word(self) -> &'static str {
        match self {
            Section::Pid => "PID",
            Section::Uptime => "UPTIME",
            Section::Stat => "STAT",
            Section::Tasks => "TASKS",
            Section::Meminfo => "MEMINFO",
            Section::Gfxinfo => "GFXINFO",
        }
    }

    /// The line the script prints before the section.
    pub fn marker(self) -> String {
        marker_line(self.word())
    }
}

/// The line the script prints after its last section.
fn end_marker() -> String {
    marker_line("END")
}

fn marker_line(word: &str) -> String {
    format!("__MOBILECTL_PERF_{word}__")
}

/// The one `sh` command line of a sample of `package`, which must be a valid Android package
/// name (it is checked before it reaches the script).
pub fn sample_script(package: &str, parts: SampleAsk) -> Result<String> {
    let pkg = validate::android_package(package)?;
    let mut s = format!(
        "p=$(pidof {pkg} 2>/dev/null); p=${{p%% *}}; echo {pid}; echo \"$p\"; \
         echo {up}; cat /proc/uptime; \
         echo {stat}; [ -n \"$p\" ] && cat /proc/$p/stat 2>/dev/null; \
         echo; echo {tasks}; [ -n \"$p\" ] && cat /proc/$p/task/*/stat 2>/dev/null; ",
        pid = Section::Pid.marker(),
        up = Section::Uptime.marker(),
        stat = Section::Stat.marker(),
        tasks = Section::Tasks.marker(),
    );
    if parts.memory {
        s += &format!(
            "echo; echo {}; dumpsys meminfo {pkg}; ",
            Section::Meminfo.marker()
        );
    }
    if parts.frames {
        let reset = if parts.reset_frames { " reset" } else { "" };
        s += &format!(
            "echo; echo {}; dumpsys gfxinfo {pkg} framestats{reset}; ",
            Section::Gfxinfo.marker()
        );
    }
    s += &format!("echo; echo {}", end_marker());
    Ok(s)
}

/// The output of [`sample_script`], cut into its sections (`None`: not printed).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SampleText<'a> {
    /// The section texts, in the order of [`Section::ALL`].
    pub sections: [Option<&'a str>; 6],
    /// Whether the end marker was printed (else the output was cut short).
    pub complete: bool,
}

impl<'a> SampleText<'a> {
    /// The text of `section`, when the script printed it.
    pub fn section(&self, section: Section) -> Option<&'a str> {
        self.sections[section as usize]
    }
}

/// Cuts the output of [`sample_script`] at its marker lines. Output without the pid marker
/// is not a sample's.
pub fn split_sample(out: &str) -> Result<SampleText<'_>> {
    let mut text = SampleText::default();
    let mut open: Option<(usize, usize)> = None; // (section, start offset)
    let mut offset = 0;
    for line in out.split_inclusive('\n') {
        let name = line.trim();
        let found = Section::ALL.iter().position(|s| s.marker() == name);
        if found.is_some() || name == end_marker() {
            if let Some((i, start)) = open.take() {
                text.sections[i] = Some(&out[start..offset]);
            }
            match found {
                Some(i) => open = Some((i, offset + line.len())),
                None => text.complete = true,
            }
        }
        offset += line.len();
    }
    if let Some((i, start)) = open {
        text.sections[i] = Some(&out[start..]);
    }
    if text.sections[0].is_none() {
        return Err(unrecognised("the performance sample", out));
    }
    Ok(text)
}

/// One sample of an app, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The app's process.
    pub pid: u32,
    /// The device's uptime when sampled, s (`/proc/uptime`): the clock of CPU windows.
    pub uptime_s: Option<f64>,
    /// The process's `stat` (ticks of all its threads, living and gone).
    pub process: Option<TaskStat>,
    /// Its threads' `stat` lines.
    pub tasks: Vec<TaskStat>,
    /// Its thread count.
    pub threads: Option<u32>,
    /// Its memory, when read and recognised.
    pub memory: Option<MemoryReading>,
    /// Its frames, when read and recognised.
    pub gfxinfo: Option<Gfxinfo>,
    /// Whether the output was complete.
    pub complete: bool,
}

/// Reads the output of [`sample_script`] for `package`. An app without a process (no pid,
/// or dumpsys found none) is `NOT_FOUND`; a section not printed or not recognised is `None`.
pub fn read_sample(out: &str, package: &str) -> Result<Sample> {
    let text = split_sample(out)?;
    let meminfo = match text
        .section(Section::Meminfo)
        .map(|t| parse_meminfo(t, package))
    {
        Some(Err(e)) if e.code == ErrorCode::NotFound => return Err(e),
        other => other.and_then(Result::ok),
    };
    let gfxinfo = match text
        .section(Section::Gfxinfo)
        .map(|t| parse_gfxinfo(t, package))
    {
        Some(Err(e)) if e.code == ErrorCode::NotFound => return Err(e),
        other => other.and_then(Result::ok),
    };
    // Without `pidof` (Android before 6) the pid is dumpsys's.
    let pid = text
        .section(Section::Pid)
        .and_then(leading_u64)
        .or_else(|| meminfo.as_ref()?.pid.map(u64::from))
        .and_then(|p| u32::try_from(p).ok())
        .ok_or_else(|| not_running(package))?;
    let process = text
        .section(Section::Stat)
        .and_then(|t| t.lines().find_map(parse_stat_line));
    let tasks = text
        .section(Section::Tasks)
        .map(parse_task_stats)
        .unwrap_or_default();
    let threads = match tasks.len() {
        0 => process.as_ref().map(|p| p.threads),
        n => u32::try_from(n).ok(),
    };
    Ok(Sample {
        pid,
        uptime_s: text
            .section(Section::Uptime)
            .and_then(|t| t.split_whitespace().next())
            .and_then(number),
        process,
        tasks,
        threads,
        memory: meminfo.map(|m| m.memory),
        gfxinfo,
        complete: text.complete,
    })
}

/// The app's CPU between two samples, in percent of one core over the device's own clock.
/// `None` when either lacks its ticks or uptime, or the process changed between them.
pub fn cpu_between(before: &Sample, after: &Sample, clk_tck: u32) -> Option<CpuReading> {
    let seconds = after.uptime_s? - before.uptime_s?;
    if seconds.is_nan() || seconds <= 0.0 {
        return None;
    }
    let elapsed = std::time::Duration::try_from_secs_f64(seconds).ok()?;
    process_cpu(
        before.process.as_ref()?,
        after.process.as_ref()?,
        elapsed,
        clk_tck,
    )
}

#[cfg(test)]
#[path = "sample_tests.rs"]
mod tests;
