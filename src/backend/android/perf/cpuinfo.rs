//! Old tools' CPU figures for one app: a process's line of `dumpsys cpuinfo` and of toolbox
//! `top` (Android before 7). Both give a share of ALL cores over the tool's own window, not of
//! one core as [`crate::perf::CpuReading`] does: they are kept apart, for devices where
//! `/proc` readings are not to be had.

use super::number;

/// A process's line of `dumpsys cpuinfo`:
/// `6% 24263/com.android.chrome: 4.7% user + 1.2% kernel / faults: 1361 minor 17 major`.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuinfoLine {
    /// Percent of all cores' time over the window `dumpsys cpuinfo` reports.
    pub percent: f64,
    /// Process id.
    pub pid: u32,
    /// Process name.
    pub name: String,
    /// Of which in user mode.
    pub user_percent: Option<f64>,
    /// Of which in kernel mode.
    pub kernel_percent: Option<f64>,
}

/// The `dumpsys cpuinfo` line of the process named `name` exactly (`com.x` is not
/// `com.x:remote`), if listed.
pub fn cpuinfo_line(text: &str, name: &str) -> Option<CpuinfoLine> {
    text.lines()
        .filter_map(parse_cpuinfo_line)
        .find(|l| l.name == name)
}

/// Reads one process line of `dumpsys cpuinfo`; `None` for other lines (`Load:`, `TOTAL:`).
pub fn parse_cpuinfo_line(line: &str) -> Option<CpuinfoLine> {
    let (percent, rest) = line.trim().split_once("% ")?;
    let (process, detail) = rest.split_once(": ")?;
    let (pid, name) = process.split_once('/')?;
    let part = |what: &str| {
        detail
            .split(" + ")
            .find_map(|p| p.trim().split(" / ").next()?.strip_suffix(what))
            .and_then(|v| number(v.trim().trim_end_matches('%')))
    };
    Some(CpuinfoLine {
        percent: number(percent)?,
        pid: pid.parse().ok()?,
        name: name.to_string(),
        user_percent: part(" user"),
        kernel_percent: part(" kernel"),
    })
}

/// A process's line of toolbox `top`: `PID PR CPU% S #THR VSS RSS PCY UID Name`.
#[derive(Debug, Clone, PartialEq)]
pub struct TopLine {
    /// Process id.
    pub pid: u32,
    /// Percent of all cores' time over top's interval.
    pub percent: f64,
    /// Thread count.
    pub threads: u32,
    /// Resident set, KiB.
    pub rss_kib: u64,
    /// Process name.
    pub name: String,
}

/// Reads one process line of toolbox `top` (the columns of Android 4-6); `None` for others.
pub fn parse_top_line(line: &str) -> Option<TopLine> {
    let w: Vec<&str> = line.split_whitespace().collect();
    if w.len() < 9 {
        return None;
    }
    let kib = |s: &str| s.strip_suffix('K')?.parse::<u64>().ok();
    Some(TopLine {
        pid: w[0].parse().ok()?,
        percent: number(w[2].strip_suffix('%')?)?,
        threads: w[4].parse().ok()?,
        rss_kib: kib(w[6])?,
        name: w.last()?.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::android::perf::fixture;

    #[test]
    fn dumpsys_cpuinfo_of_android44() {
        let text = fixture("android_perf/dumpsys_cpuinfo_android4.4_droidmonitor.txt");
        let chrome = cpuinfo_line(&text, "com.android.chrome").unwrap();
        assert_eq!((chrome.percent, chrome.pid), (6.0, 24263));
        assert_eq!(
            (chrome.user_percent, chrome.kernel_percent),
            (Some(4.7), Some(1.2))
        );
        let lb = cpuinfo_line(&text, "com.linkbubble.playstore").unwrap();
        assert_eq!(
            (lb.percent, lb.user_percent, lb.kernel_percent),
            (9.2, Some(7.4), Some(1.8))
        );
        // A kernel thread without faults, a name with a slash, and the exact name only.
        let mmc = cpuinfo_line(&text, "mmcqd/0").unwrap();
        assert_eq!((mmc.pid, mmc.kernel_percent), (125, Some(6.1)));
        assert!(cpuinfo_line(&text, "com.google.android.googlequicksearchbox").is_none());
        assert!(cpuinfo_line(&text, "com.google.android.googlequicksearchbox:search").is_some());
        assert_eq!(text.lines().filter_map(parse_cpuinfo_line).count(), 26);
        assert_eq!(
            parse_cpuinfo_line("96% TOTAL: 49% user + 20% kernel + 26% iowait"),
            None
        );
        assert_eq!(parse_cpuinfo_line("Load: 20.88 / 17.57 / 10.31"), None);
    }

    #[test]
    fn toolbox_top_line() {
        let text = fixture("android_perf/top_line_chrome_droidmonitor.txt");
        let t = parse_top_line(&text).unwrap();
        assert_eq!(
            (t.pid, t.percent, t.threads, t.rss_kib),
            (17742, 4.7, 82, 212_464)
        );
        assert_eq!(t.name, "com.android.chrome");
        for bad in ["", "PID PR CPU% S #THR VSS RSS PCY UID Name", "1 2 3"] {
            assert_eq!(parse_top_line(bad), None, "{bad:?}");
        }
    }
}
