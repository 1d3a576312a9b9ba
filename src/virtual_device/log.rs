//! The device's log, as logd keeps it: a bounded buffer of lines, each in one of the `main`,
//! `system` and `crash` buffers, numbered in the order they were written; a watch channel
//! tells followers (`logcat` without `-d`) that new lines arrived. A message with newlines is
//! one entry, printed as one line per part with the same header (as logcat does).

use std::collections::VecDeque;

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
    let (_, m, d, hh, mm, ss) = civil(t_ms / 1000);
    format!("{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02}.{:03}", t_ms % 1000)
}

/// (year, month, day, hour, minute, second) of a Unix time in seconds, UTC.
pub fn civil(secs: u64) -> (i64, u32, u32, u64, u64, u64) {
    let days = secs / 86_400;
    // Civil-from-days (Howard Hinnant), UTC.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, (secs / 3600) % 24, (secs / 60) % 60, secs % 60)
}

/// Days since 1970-01-01 of a civil date (the inverse of [`civil`]'s date part).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_format_and_its_inverse() {
        assert_eq!(format_time(0), "01-01 00:00:00.000");
        assert_eq!(format_time(1_700_000_000_123), "11-14 22:13:20.123");
        let (y, m, d, ..) = civil(1_700_000_000);
        assert_eq!((y, m, d), (2023, 11, 14));
        assert_eq!(days_from_civil(2023, 11, 14), 1_700_000_000 / 86_400);
        assert_eq!(
            days_from_civil(2024, 2, 29) + 1,
            days_from_civil(2024, 3, 1)
        );
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
