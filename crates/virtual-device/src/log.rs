//! The device's log, as logd keeps it: a bounded buffer of lines, each in one of the `main`,
//! `system` and `crash` buffers, numbered in the order they were written; a watch channel
//! tells followers (`logcat` without `-d`) that new lines arrived. A message with newlines is
//! one entry, printed as one line per part with the same header (as logcat does).

use std::collections::VecDeque;

use chrono::{DateTime, Datelike, Utc};
use tokio::sync::watch;

/// The log buffers this device has (logcat `-b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Buffer {
    Main,
    System,
    Crash,
}

impl Buffer {
    pub const ALL: [Buffer; 3] = [Buffer::Main, Buffer::System, Buffer::Crash];

    pub fn name(self) -> &'static str {
        match self {
            Buffer::Main => "main",
            Buffer::System => "system",
            Buffer::Crash => "crash",
        }
    }

    pub fn from_name(s: &str) -> Option<Buffer> {
        Buffer::ALL.into_iter().find(|b| b.name() == s)
    }
}

/// One log entry.
#[derive(Debug, Clone)]
pub struct LogLine {
    /// Write order, from 1.
    pub seq: u64,
    pub t_ms: u64,
    pub pid: u32,
    pub tid: u32,
    pub level: char,
    pub tag: String,
    pub msg: String,
    pub buffer: Buffer,
}

/// Lines kept before the oldest are dropped (logd's ring, in lines).
pub const CAPACITY: usize = 20_000;

/// The log ring and its followers' signal.
pub struct DeviceLog {
    lines: VecDeque<LogLine>,
    next_seq: u64,
    /// Buffers that exist (an old device has no `crash` buffer).
    pub available: Vec<Buffer>,
    written: watch::Sender<u64>,
}

impl Default for DeviceLog {
    fn default() -> Self {
        DeviceLog {
            lines: VecDeque::new(),
            next_seq: 1,
            available: Buffer::ALL.to_vec(),
            written: watch::channel(0).0,
        }
    }
}

impl DeviceLog {
    /// Appends a line (to a buffer the device lacks: dropped, as logd would never see it).
    pub fn push(&mut self, buffer: Buffer, pid: u32, tid: u32, level: char, tag: &str, msg: &str) {
        if !self.available.contains(&buffer) {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.lines.push_back(LogLine {
            seq,
            t_ms: super::state::now_ms(),
            pid,
            tid,
            level,
            tag: tag.into(),
            msg: msg.into(),
            buffer,
        });
        while self.lines.len() > CAPACITY {
            self.lines.pop_front();
        }
        self.written.send_replace(seq);
    }

    pub fn clear(&mut self) {
        self.lines.clear();
    }

    /// Lines written after `seq`, oldest first.
    pub fn after(&self, seq: u64) -> impl Iterator<Item = &LogLine> {
        let start = self.lines.partition_point(|l| l.seq <= seq);
        self.lines.range(start..)
    }

    pub fn lines(&self) -> impl DoubleEndedIterator<Item = &LogLine> {
        self.lines.iter()
    }

    /// The sequence number of the newest line (0 when none was written).
    pub fn last_seq(&self) -> u64 {
        self.next_seq - 1
    }

    /// A receiver that wakes when lines are written.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.written.subscribe()
    }
}

/// `MM-DD hh:mm:ss.mmm` of a Unix time in milliseconds (the device's clock is UTC).
pub fn format_time(t_ms: u64) -> String {
    utc(t_ms).format("%m-%d %H:%M:%S%.3f").to_string()
}

/// The year (UTC) of a Unix time in milliseconds.
pub fn year_of(t_ms: u64) -> i64 {
    i64::from(utc(t_ms).year())
}

fn utc(t_ms: u64) -> DateTime<Utc> {
    i64::try_from(t_ms)
        .ok()
        .and_then(DateTime::from_timestamp_millis)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_format_and_its_inverse() {
        assert_eq!(format_time(0), "01-01 00:00:00.000");
        assert_eq!(format_time(1_700_000_000_123), "11-14 22:13:20.123");
        assert_eq!(year_of(1_700_000_000_123), 2023);
    }

    #[test]
    fn ring_is_bounded_and_numbered() {
        let mut log = DeviceLog::default();
        for i in 0..CAPACITY + 5 {
            log.push(Buffer::Main, 1, 1, 'I', "T", &i.to_string());
        }
        assert_eq!(log.lines().count(), CAPACITY);
        assert_eq!(log.lines().next().unwrap().seq, 6);
        assert_eq!(log.after(log.last_seq() - 2).count(), 2);
        log.available = vec![Buffer::Main];
        log.push(Buffer::Crash, 1, 1, 'E', "AndroidRuntime", "x");
        assert_eq!(log.last_seq(), CAPACITY as u64 + 5);
    }
}
