//! Lines of `adb logcat` as real devices and captures print them: `threadtime` (the format
//! mobilectl asks for: `06-17 16:23:18.481  4314  4314 E AndroidRuntime: …`, also with a year
//! or a uid column), `time`, `brief`, and the long-level export of Unity's Android Logcat
//! package (`2023/02/26 02:19:14.436 29876 12416 Error CRASH …`); a UTF-8 BOM, CRLF endings and
//! invalid UTF-8 are tolerated; `--------- beginning of crash` separators and adb's own
//! `* daemon started *` lines are recognised. A line that is none of these continues the
//! previous entry's message (a message printed with raw newlines).

use crate::logs::clock::{DeviceClock, LocalTime};
use crate::logs::entry::{Level, LogEntry};

/// What one line of logcat output is.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A `threadtime` line: a new entry.
    Entry(LogEntry),
    /// `--------- beginning of BUFFER` (or `switch to`).
    Separator(String),
    /// Text that belongs to the previous entry.
    Continuation(String),
    /// Blank lines, adb's own words.
    Noise,
}

fn text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// `n` ASCII digits at `at` as a number.
fn num(b: &[u8], at: usize, n: usize) -> Option<u32> {
    let d = b.get(at..at + n)?;
    let mut v = 0u32;
    for &c in d {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u32::from(c - b'0');
    }
    Some(v)
}

/// `hh:mm:ss.mmm` at `at` (12 bytes); microsecond precision (`.mmmuuu`) is accepted and cut.
fn clock_at(b: &[u8], at: usize) -> Option<(u32, u32, u32, u32, usize)> {
    let h = num(b, at, 2)?;
    let mi = num(b, at + 3, 2)?;
    let s = num(b, at + 6, 2)?;
    if b.get(at + 2) != Some(&b':') || b.get(at + 5) != Some(&b':') || b.get(at + 8) != Some(&b'.')
    {
        return None;
    }
    let ms = num(b, at + 9, 3)?;
    let mut end = at + 12;
    while b.get(end).is_some_and(u8::is_ascii_digit) {
        end += 1;
    }
    Some((h, mi, s, ms, end))
}

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

/// A run of non-space bytes at `i`: (the run, where it ends).
fn word(b: &[u8], i: usize) -> Option<(&[u8], usize)> {
    let start = i;
    let mut end = i;
    while end < b.len() && b[end] != b' ' {
        end += 1;
    }
    (end > start).then(|| (&b[start..end], end))
}

fn int(w: &[u8]) -> Option<u32> {
    if w.is_empty() || w.len() > 10 {
        return None;
    }
    std::str::from_utf8(w).ok()?.parse().ok()
}

/// The tag and message after the level: `TAG    : MSG` (the tag may hold spaces and colons,
/// not `": "`).
fn tag_and_message(b: &[u8], i: usize) -> Option<(String, String)> {
    let rest = &b[i..];
    let (tag, msg) = match memchr::memmem::find(rest, b": ") {
        Some(p) => (&rest[..p], &rest[p + 2..]),
        None if rest.ends_with(b":") => (&rest[..rest.len() - 1], &rest[rest.len()..]),
        None => return None,
    };
    let tag = tag.trim_ascii_end();
    Some((text(tag), text(msg)))
}

fn entry(
    time_ms: Option<i64>,
    pid: Option<u32>,
    tid: Option<u32>,
    level: Level,
    tag: String,
    message: String,
) -> Line {
    Line::Entry(LogEntry {
        seq: 0,
        time_ms,
        pid,
        tid,
        level,
        tag,
        message,
        process: None,
    })
}

/// `[YYYY-]MM-DD hh:mm:ss.mmm` at the start: (Unix ms, where it ends).
fn date_time(b: &[u8], clock: &DeviceClock) -> Option<(i64, usize)> {
    let (year, at) = if b.get(4) == Some(&b'-') {
        (Some(num(b, 0, 4)? as i32), 5)
    } else {
        (None, 0)
    };
    let mo = num(b, at, 2)?;
    let d = num(b, at + 3, 2)?;
    if b.get(at + 2) != Some(&b'-') || b.get(at + 5) != Some(&b' ') || !(1..=12).contains(&mo) {
        return None;
    }
    let (h, mi, s, ms, end) = clock_at(b, at + 6)?;
    let t = clock.to_unix_ms(LocalTime {
        year,
        ..LocalTime::md(mo, d, h, mi, s, ms)
    });
    Some((t, end))
}

/// `threadtime` (optionally with a uid column before the pid), then `time`.
fn after_date(b: &[u8], t: i64, i: usize) -> Option<Line> {
    let i = skip_spaces(b, i);
    // time: `L/TAG( PID): MSG`
    if b.get(i + 1) == Some(&b'/') {
        return brief_at(b, i, Some(t));
    }
    let (w1, e1) = word(b, i)?;
    let (w2, e2) = word(b, skip_spaces(b, e1))?;
    let (w3, e3) = word(b, skip_spaces(b, e2))?;
    // [uid] pid tid L
    let (pid, tid, lv, end) = if w3.len() == 1 && int(w2).is_some() {
        (int(w1)?, int(w2)?, w3[0], e3)
    } else {
        let (w4, e4) = word(b, skip_spaces(b, e3))?;
        if w4.len() != 1 {
            return None;
        }
        (int(w2)?, int(w3)?, w4[0], e4)
    };
    let level = Level::from_letter(lv)?;
    let (tag, msg) = tag_and_message(b, skip_spaces(b, end))?;
    Some(entry(Some(t), Some(pid), Some(tid), level, tag, msg))
}

/// `L/TAG( PID): MSG` (also `(PID:TID)`) at `i`.
fn brief_at(b: &[u8], i: usize, t: Option<i64>) -> Option<Line> {
    let level = Level::from_letter(*b.get(i)?)?;
    if b.get(i + 1) != Some(&b'/') {
        return None;
    }
    let rest = &b[i + 2..];
    let close = memchr::memmem::find(rest, b"): ")
        .map(|p| (p, p + 3))
        .or_else(|| rest.ends_with(b"):").then(|| (rest.len() - 2, rest.len())))?;
    let open = memchr::memrchr(b'(', &rest[..close.0])?;
    let tag = text(rest[..open].trim_ascii_end());
    let ids = std::str::from_utf8(&rest[open + 1..close.0]).ok()?.trim();
    let (pid, tid) = match ids.split_once(':') {
        Some((p, t)) => (p.trim().parse().ok()?, t.trim().parse().ok()),
        None => (ids.parse().ok()?, None),
    };
    let msg = text(&rest[close.1..]);
    Some(entry(t, Some(pid), tid, level, tag, msg))
}

/// Unity's export: `YYYY/MM/DD hh:mm:ss.mmm PID TID Level Tag MSG`.
fn unity_export(b: &[u8], clock: &DeviceClock) -> Option<Line> {
    if b.get(4) != Some(&b'/') || b.get(7) != Some(&b'/') || b.get(10) != Some(&b' ') {
        return None;
    }
    let (y, mo, d) = (num(b, 0, 4)? as i32, num(b, 5, 2)?, num(b, 8, 2)?);
    let (h, mi, s, ms, end) = clock_at(b, 11)?;
    let t = clock.to_unix_ms(LocalTime {
        year: Some(y),
        ..LocalTime::md(mo, d, h, mi, s, ms)
    });
    let (w1, e1) = word(b, skip_spaces(b, end))?;
    let (w2, e2) = word(b, skip_spaces(b, e1))?;
    let (w3, e3) = word(b, skip_spaces(b, e2))?;
    let level = Level::parse(std::str::from_utf8(w3).ok()?)?;
    let (tag, e4) = word(b, skip_spaces(b, e3))?;
    let msg = b.get(e4 + 1..).unwrap_or_default();
    Some(entry(
        Some(t),
        Some(int(w1)?),
        Some(int(w2)?),
        level,
        text(tag),
        text(msg),
    ))
}

/// Parses one line (without its `\n`).
pub fn parse_line(line: &[u8], clock: &DeviceClock) -> Line {
    let mut b = line;
    if let Some(rest) = b.strip_prefix(b"\xEF\xBB\xBF") {
        b = rest;
    }
    if let Some(rest) = b.strip_suffix(b"\r") {
        b = rest;
    }
    if b.is_empty() {
        return Line::Noise;
    }
    if let Some(rest) = b.strip_prefix(b"--------- ") {
        let name = rest
            .strip_prefix(b"beginning of ")
            .or_else(|| rest.strip_prefix(b"switch to "))
            .unwrap_or(rest);
        return Line::Separator(text(name.trim_ascii()));
    }
    if b.starts_with(b"* daemon ") || b.starts_with(b"- waiting for ") {
        return Line::Noise;
    }
    let parsed = match b[0] {
        b'0'..=b'9' => date_time(b, clock)
            .and_then(|(t, end)| after_date(b, t, end))
            .or_else(|| unity_export(b, clock)),
        _ => brief_at(b, 0, None),
    };
    parsed.unwrap_or_else(|| Line::Continuation(text(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> DeviceClock {
        DeviceClock::utc(1_750_300_000_000) // 2025-06-19
    }

    fn e(line: &str) -> LogEntry {
        match parse_line(line.as_bytes(), &clock()) {
            Line::Entry(e) => e,
            other => panic!("{line:?}: {other:?}"),
        }
    }

    #[test]
    fn threadtime_and_its_variants() {
        let x = e("06-17 16:23:18.481  4314  4314 E AndroidRuntime: FATAL EXCEPTION: main");
        assert_eq!(
            (x.pid, x.tid, x.level),
            (Some(4314), Some(4314), Level::Error)
        );
        assert_eq!(
            (x.tag.as_str(), x.message.as_str()),
            ("AndroidRuntime", "FATAL EXCEPTION: main")
        );
        assert_eq!(
            x.time_ms,
            Some(clock().to_unix_ms(LocalTime::md(6, 17, 16, 23, 18, 481)))
        );
        let p = e(
            "06-17 16:23:14.209  4298  4298 E Parcel  : Reading a NULL string not supported here.",
        );
        assert_eq!(
            (p.tag.as_str(), p.message.as_str()),
            ("Parcel", "Reading a NULL string not supported here.")
        );
        let empty = e("07-12 19:00:40.798  1437 26441 E ActivityManager: ");
        assert_eq!(empty.message, "");
        let odd =
            e("06-17 16:23:18.504  1043  1043 D VRI[NexusLauncherActivity]: visibilityChanged");
        assert_eq!(odd.tag, "VRI[NexusLauncherActivity]");
        let year = e("2025-06-17 16:23:18.481  4314  4314 W Tag: m");
        assert_eq!(year.time_ms, x.time_ms);
        let uid = e("06-17 16:23:18.481 u0_a207  4314  4315 I Tag: m");
        assert_eq!((uid.pid, uid.tid), (Some(4314), Some(4315)));
        let micro = e("06-17 16:23:18.481123  4314  4314 I Tag: m");
        assert_eq!(micro.time_ms, x.time_ms);
    }

    #[test]
    fn time_brief_and_export() {
        let b = e("I/Vold    (  103): Vold 2.1 (the revenge) firing up\r");
        assert_eq!(
            (b.tag.as_str(), b.pid, b.time_ms),
            ("Vold", Some(103), None)
        );
        assert_eq!(b.message, "Vold 2.1 (the revenge) firing up");
        let t = e("06-17 16:23:18.481 W/ActivityManager(  546): Slow operation");
        assert_eq!((t.level, t.pid), (Level::Warn, Some(546)));
        let u = e("2023/02/26 02:19:14.435 29876 12416 Error CRASH pid: 29876, tid: 12416");
        assert_eq!(
            (u.level, u.tag.as_str(), u.tid),
            (Level::Error, "CRASH", Some(12416))
        );
        assert_eq!(u.message, "pid: 29876, tid: 12416");
    }

    #[test]
    fn separators_noise_and_continuations() {
        let c = clock();
        assert_eq!(
            parse_line(b"\xEF\xBB\xBF--------- beginning of main", &c),
            Line::Separator("main".into())
        );
        assert_eq!(
            parse_line(b"--------- beginning of /dev/log/system\r", &c),
            Line::Separator("/dev/log/system".into())
        );
        assert_eq!(
            parse_line(b"* daemon started successfully", &c),
            Line::Noise
        );
        assert_eq!(parse_line(b"\r", &c), Line::Noise);
        assert_eq!(
            parse_line(b"\tat com.example.Foo.bar(Foo.java:1)", &c),
            Line::Continuation("\tat com.example.Foo.bar(Foo.java:1)".into())
        );
        let Line::Entry(bad) = parse_line(b"06-17 16:23:18.481  1  1 I T: caf\xC3\x28 ok", &c)
        else {
            panic!()
        };
        assert_eq!(bad.message, "caf\u{FFFD}( ok");
    }
}
