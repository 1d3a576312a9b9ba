//! Bytes of a log source to entries: cut into lines (a line split across reads waits for its
//! end), parsed by the source's format, continuation lines given their entry's header, and —
//! after a restart — what was already read skipped (the stream is resumed from the last time
//! seen, so lines at that time are recognised by their fingerprints).

use std::collections::HashSet;

use super::android::logcat::{self, Line};
use super::clock::DeviceClock;
use super::entry::LogEntry;
use super::ios::ndjson;

/// The format of a log source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// `adb logcat` text (threadtime, and the other formats captures hold).
    AndroidLogcat,
    /// `log stream|show --style ndjson`.
    IosNdjson,
}

/// Longest line kept whole; longer ones are cut (a runaway line must not grow memory).
const MAX_LINE: usize = 64 * 1024;
/// Fingerprints remembered for the newest time (lines logged in the same millisecond).
const MAX_SAME_TIME: usize = 4096;

/// The newest time read, and the fingerprints of the entries at that time.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// The newest entry time read (Unix ms); None before any entry with a time.
    pub time_ms: Option<i64>,
    at_time: HashSet<u64>,
}

impl Seen {
    /// Notes a stored entry.
    pub fn note(&mut self, e: &LogEntry) {
        let Some(t) = e.time_ms else { return };
        match self.time_ms {
            Some(last) if t < last => {}
            Some(last) if t == last => {
                if self.at_time.len() < MAX_SAME_TIME {
                    self.at_time.insert(e.fingerprint());
                }
            }
            _ => {
                self.time_ms = Some(t);
                self.at_time.clear();
                self.at_time.insert(e.fingerprint());
            }
        }
    }

    /// Whether `e` was read before (it is older, or the same line at the newest time).
    fn covers(&self, e: &LogEntry) -> bool {
        match (self.time_ms, e.time_ms) {
            (Some(last), Some(t)) => {
                t < last || (t == last && self.at_time.contains(&e.fingerprint()))
            }
            _ => false,
        }
    }
}

/// Statistics of an ingest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IngestStats {
    /// Lines read.
    pub lines: u64,
    /// Entries produced (continuations included, skipped ones not).
    pub entries: u64,
    /// Lines that were not log entries (separators, adb's words, blank lines).
    pub other: u64,
    /// Lines that could not be read (no entry to continue, unreadable JSON).
    pub unreadable: u64,
    /// Entries skipped as already read.
    pub skipped: u64,
}

/// Turns one source's bytes into entries.
pub struct Ingest {
    format: LogFormat,
    clock: DeviceClock,
    partial: Vec<u8>,
    last: Option<LogEntry>,
    resume: Option<Seen>,
    /// What has been read so far.
    pub stats: IngestStats,
}

impl Ingest {
    /// An ingest of `format` output from a device with this clock, nothing read yet.
    pub fn new(format: LogFormat, clock: DeviceClock) -> Self {
        Ingest {
            format,
            clock,
            partial: Vec::new(),
            last: None,
            resume: None,
            stats: IngestStats::default(),
        }
    }

    /// Skips entries already read (`seen`) until the first newer one.
    pub fn resume_after(mut self, seen: Seen) -> Self {
        self.resume = seen.time_ms.is_some().then_some(seen);
        self
    }

    /// The device clock this ingest reads times with.
    pub fn clock(&self) -> &DeviceClock {
        &self.clock
    }

    /// The entries the complete lines of `bytes` hold (with what was left before).
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<LogEntry> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while let Some(nl) = memchr::memchr(b'\n', rest) {
            let (line, after) = rest.split_at(nl);
            rest = &after[1..];
            if self.partial.is_empty() {
                self.line(&line[..line.len().min(MAX_LINE)], &mut out);
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(
                    &line[..line.len().min(MAX_LINE.saturating_sub(whole.len()))],
                );
                self.line(&whole, &mut out);
            }
        }
        let room = MAX_LINE.saturating_sub(self.partial.len());
        self.partial
            .extend_from_slice(&rest[..rest.len().min(room)]);
        out
    }

    /// The source ended: its last line, even without a newline.
    pub fn finish(&mut self) -> Vec<LogEntry> {
        let mut out = Vec::new();
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.line(&line, &mut out);
        }
        out
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<LogEntry>) {
        self.stats.lines += 1;
        let entry = match self.format {
            LogFormat::AndroidLogcat => match logcat::parse_line(line, &self.clock) {
                Line::Entry(e) => Some(e),
                Line::Continuation(text) => match &self.last {
                    Some(prev) => Some(LogEntry {
                        message: text,
                        ..prev.clone()
                    }),
                    None => {
                        self.stats.unreadable += 1;
                        None
                    }
                },
                Line::Separator(_) | Line::Noise => {
                    self.stats.other += 1;
                    None
                }
            },
            LogFormat::IosNdjson => match ndjson::parse_line(line) {
                ndjson::Line::Entry(e) => Some(e),
                ndjson::Line::Other => {
                    self.stats.other += 1;
                    None
                }
                ndjson::Line::Unreadable => {
                    self.stats.unreadable += 1;
                    None
                }
            },
        };
        let Some(e) = entry else { return };
        if let Some(seen) = &self.resume {
            if seen.covers(&e) {
                self.stats.skipped += 1;
                self.last = Some(e);
                return;
            }
            if e.time_ms.is_some() {
                self.resume = None;
            }
        }
        self.stats.entries += 1;
        if self.format == LogFormat::AndroidLogcat {
            self.last = Some(LogEntry {
                message: String::new(),
                ..e.clone()
            });
        }
        out.push(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ingest() -> Ingest {
        Ingest::new(
            LogFormat::AndroidLogcat,
            DeviceClock::utc(1_750_000_000_000),
        )
    }

    #[test]
    fn lines_split_across_reads_and_continuations() {
        let mut i = ingest();
        let a = i.feed(b"06-17 16:23:18.481  1  2 E Tag: first\n06-17 16:23:1");
        assert_eq!(a.len(), 1);
        let b = i.feed(b"8.482  1  2 E Tag: second\n\tat x.y(Z.java:1)\n");
        assert_eq!(b.len(), 2);
        assert_eq!(
            (b[1].tag.as_str(), b[1].message.as_str()),
            ("Tag", "\tat x.y(Z.java:1)")
        );
        assert_eq!(b[1].time_ms, b[0].time_ms);
        assert!(i.finish().is_empty());
        let c = i.feed(b"06-17 16:23:18.483  1  2 E Tag: no newline");
        assert!(c.is_empty());
        assert_eq!(i.finish().len(), 1);
        assert_eq!(i.stats.entries, 4);
    }

    #[test]
    fn a_resumed_stream_skips_what_was_read() {
        let text = b"06-17 16:23:18.481  1  2 I T: a\n06-17 16:23:18.482  1  2 I T: b\n06-17 16:23:18.482  1  2 I T: c\n";
        let mut first = ingest();
        let all = first.feed(text);
        let mut seen = Seen::default();
        for e in &all[..2] {
            seen.note(e);
        }
        let mut again = ingest().resume_after(seen);
        let new = again.feed(text);
        assert_eq!(new.len(), 1);
        assert_eq!(new[0].message, "c");
        assert_eq!(again.stats.skipped, 2);
    }

    #[test]
    fn a_runaway_line_is_cut() {
        let mut i = ingest();
        let mut long = b"06-17 16:23:18.481  1  2 I T: ".to_vec();
        long.extend(std::iter::repeat_n(b'x', 200_000));
        for chunk in long.chunks(4096) {
            assert!(i.feed(chunk).is_empty());
        }
        let out = i.feed(b"\n");
        assert_eq!(out.len(), 1);
        assert!(out[0].message.len() < MAX_LINE);
    }
}
