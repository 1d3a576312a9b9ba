//! What a reader asks of the log: a minimum level, a tag, an app, a substring, a regular
//! expression, a starting point (`since`: an RFC 3339 time, a duration back from now such as
//! `5m`, or a cursor) and a limit — each checked whole, with a hint, before anything is read.

use regex::Regex;

use super::entry::{Level, LogEntry};
use super::ring::Cursor;
use crate::error::{Error, Op, Result, Step};

/// Entries one answer carries by default.
pub const DEFAULT_LIMIT: usize = 100;
/// Most entries one answer carries; a larger `limit` is refused.
pub const MAX_LIMIT: usize = 1000;
/// Longest regular expression taken, and the memory its compiled form may use.
const MAX_REGEX_LEN: usize = 1000;
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Which entries a reader wants.
#[derive(Debug, Clone, Default)]
pub struct LogFilter {
    /// Entries at this level or a more severe one; None takes every level.
    pub min_level: Option<Level>,
    /// Entries with exactly this tag.
    pub tag: Option<String>,
    /// A package or bundle id: entries of its processes.
    pub app: Option<String>,
    /// Entries whose message contains this text (case-sensitive).
    pub contains: Option<String>,
    /// Entries whose message this expression matches (anywhere in it).
    pub regex: Option<Regex>,
}

impl LogFilter {
    /// Whether `e` is wanted; `app` is the app its process belongs to, when known.
    pub fn matches(&self, e: &LogEntry, app: Option<&str>) -> bool {
        self.min_level.is_none_or(|l| e.level >= l)
            && self.tag.as_deref().is_none_or(|t| e.tag == t)
            && self.app.as_deref().is_none_or(|a| app == Some(a))
            && self
                .contains
                .as_deref()
                .is_none_or(|c| e.message.contains(c))
            && self.regex.as_ref().is_none_or(|r| r.is_match(&e.message))
    }
}

/// Where reading starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    /// Entries at or after this Unix time (ms).
    Time(i64),
    /// Entries after this cursor.
    Cursor(Cursor),
}

/// A `level` parameter read (a letter or a word, see [`Level::parse`]), or a validation error.
pub fn level(s: &str) -> Result<Level> {
    Level::parse(s).ok_or_else(|| {
        Error::validation(format!("`level` {s:?} is not a log level"))
            .with_hint("use V, D, I, W, E or F (or verbose, debug, info, warn, error, fatal)")
    })
}

/// A `regex` parameter compiled, within a length and a memory bound, or a validation error.
pub fn regex(s: &str) -> Result<Regex> {
    if s.len() > MAX_REGEX_LEN {
        return Err(Error::validation(format!(
            "`regex` is {} characters long; at most {MAX_REGEX_LEN} are taken",
            s.len()
        ))
        .with_next(
            "shorten the expression, or use {0} for a plain substring",
            [Step::field_of(Op::TailLogs, "contains")],
        ));
    }
    regex::RegexBuilder::new(s)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| {
            let first = e
                .to_string()
                .lines()
                .last()
                .unwrap_or_default()
                .trim()
                .to_string();
            Error::validation(format!(
                "`regex` is not a valid regular expression: {first}"
            ))
            .with_next(
                "Rust regex syntax (no look-around); `(?i)` for case-insensitive; or use {0}",
                [Step::field_of(Op::TailLogs, "contains")],
            )
        })
}

/// A duration such as `90s`, `5m`, `2h`, `1d`, `1h30m`, `250ms`: milliseconds.
pub fn duration_ms(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut total: i64 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 9 {
            return None;
        }
        let n: i64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        let unit = match &rest[..unit_len] {
            "ms" => 1,
            "s" => 1000,
            "m" | "min" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(unit)?)?;
        rest = &rest[unit_len..];
    }
    Some(total)
}

/// Reads `since`: a cursor of `epoch` (this ring; any ring when `None`, to check the form
/// before a ring exists), an RFC 3339 time, or a duration back from `now_ms`. A time in the
/// future is refused.
pub fn since(s: &str, now_ms: i64, epoch: Option<u32>) -> Result<Since> {
    let s = s.trim();
    if let Some(c) = Cursor::parse(s) {
        if epoch.is_some_and(|e| e != c.epoch) {
            return Err(Error::validation(format!(
                "cursor `{s}` belongs to another log stream (another device, or before a server restart)"
            ))
            .with_next(
                "read again without {0} (or with a time) to get a fresh cursor",
                [Step::field_of(Op::TailLogs, "since")],
            ));
        }
        return Ok(Since::Cursor(c));
    }
    if let Some(back) = duration_ms(s) {
        return Ok(Since::Time(now_ms - back));
    }
    match chrono::DateTime::parse_from_rfc3339(s) {
        Ok(t) => {
            let ms = t.timestamp_millis();
            if ms > now_ms + 1000 {
                return Err(
                    Error::validation(format!("`since` {s} is in the future")).with_hint(
                        "give a past time, a duration back from now such as `5m`, or a cursor",
                    ),
                );
            }
            Ok(Since::Time(ms))
        }
        Err(_) => Err(Error::validation(format!(
            "`since` {s:?} is neither an RFC 3339 time, a duration nor a cursor"
        ))
        .with_hint(
            "e.g. since=2025-06-17T16:23:18Z, since=5m, or the `cursor` of a previous answer",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn since_forms() {
        let now = 1_750_000_000_000;
        let e7 = Some(7);
        assert_eq!(since("5m", now, e7).unwrap(), Since::Time(now - 300_000));
        assert_eq!(
            since("1h30m", now, e7).unwrap(),
            Since::Time(now - 5_400_000)
        );
        assert_eq!(
            since("2025-06-15T15:06:40Z", now, e7).unwrap(),
            Since::Time(1_749_999_999_000 + 1000)
        );
        let c = Cursor { epoch: 7, seq: 12 };
        assert_eq!(since(&c.to_text(), now, e7).unwrap(), Since::Cursor(c));
        for bad in ["2999-01-01T00:00:00Z", "yesterday", "5 parsecs", ""] {
            let e = since(bad, now, e7).unwrap_err();
            assert_eq!(e.code, ErrorCode::ValidationFailed, "{bad}");
            assert!(e.hint.is_some());
        }
        let other = Cursor { epoch: 8, seq: 1 }.to_text();
        assert!(since(&other, now, e7).is_err());
        assert!(since(&other, now, None).is_ok(), "the form alone");
    }

    #[test]
    fn regexes_and_levels() {
        assert!(regex("^FATAL.*main$").is_ok());
        let e = regex("(unclosed").unwrap_err();
        assert!(
            e.message.contains("not a valid regular expression"),
            "{}",
            e.message
        );
        assert!(regex(&"a".repeat(2000)).is_err());
        assert!(regex("(?:a{1000}){1000}").is_err(), "too big compiled");
        assert_eq!(level("warn").unwrap(), Level::Warn);
        assert!(level("loud").is_err());
    }

    #[test]
    fn matching() {
        let e = LogEntry {
            seq: 1,
            time_ms: None,
            pid: Some(1),
            tid: Some(1),
            level: Level::Warn,
            tag: "DemoApp".into(),
            message: "location permission denied".into(),
            process: None,
        };
        let f = LogFilter {
            min_level: Some(Level::Info),
            app: Some("com.x".into()),
            regex: Some(regex("denied$").unwrap()),
            ..LogFilter::default()
        };
        assert!(f.matches(&e, Some("com.x")));
        assert!(!f.matches(&e, None));
        let f = LogFilter {
            min_level: Some(Level::Error),
            ..LogFilter::default()
        };
        assert!(!f.matches(&e, None));
    }
}
