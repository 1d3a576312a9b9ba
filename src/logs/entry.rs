//! One log entry, whatever the platform: time, process, thread, level, tag, message; and the
//! levels, ordered from `V` to `F`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A log level, least to most severe. Written as Android's letters.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
pub enum Level {
    /// `V`: verbose.
    #[serde(rename = "V")]
    Verbose,
    /// `D`: debug.
    #[serde(rename = "D")]
    Debug,
    /// `I`: info (iOS `Default` and `Info`).
    #[serde(rename = "I")]
    Info,
    /// `W`: warning.
    #[serde(rename = "W")]
    Warn,
    /// `E`: error.
    #[serde(rename = "E")]
    Error,
    /// `F`: fatal (Android's assert, iOS `Fault`).
    #[serde(rename = "F")]
    Fatal,
}

impl Level {
    /// Android's priority letter (`A`ssert counts as fatal).
    pub fn from_letter(c: u8) -> Option<Level> {
        Some(match c.to_ascii_uppercase() {
            b'V' => Level::Verbose,
            b'D' => Level::Debug,
            b'I' => Level::Info,
            b'W' => Level::Warn,
            b'E' => Level::Error,
            b'F' | b'A' => Level::Fatal,
            _ => return None,
        })
    }

    /// A letter or a word: `W`, `warn`, `warning`, `error`, `fatal`, `assert`…
    pub fn parse(s: &str) -> Option<Level> {
        let s = s.trim();
        if s.len() == 1 {
            return Level::from_letter(s.as_bytes()[0]);
        }
        Some(match s.to_ascii_lowercase().as_str() {
            "verbose" => Level::Verbose,
            "debug" => Level::Debug,
            "info" | "default" | "notice" => Level::Info,
            "warn" | "warning" => Level::Warn,
            "error" => Level::Error,
            "fatal" | "assert" | "fault" => Level::Fatal,
            _ => return None,
        })
    }

    /// The level's letter, as written on the wire (`V` to `F`).
    pub fn letter(self) -> char {
        match self {
            Level::Verbose => 'V',
            Level::Debug => 'D',
            Level::Info => 'I',
            Level::Warn => 'W',
            Level::Error => 'E',
            Level::Fatal => 'F',
        }
    }
}

/// One entry of a device's log, as parsed (the ring numbers it).
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    /// Position in the device's ring (0 until it is stored).
    pub seq: u64,
    /// Unix time in milliseconds, when the format carries a time.
    pub time_ms: Option<i64>,
    /// The process id, when the source gives it.
    pub pid: Option<u32>,
    /// The thread id, when the source gives it.
    pub tid: Option<u32>,
    /// The entry's level.
    pub level: Level,
    /// Android's tag; on iOS `subsystem:category`, the subsystem, or else the process name.
    pub tag: String,
    /// The message text, one line of it (each line of a multi-line message is an entry).
    pub message: String,
    /// The process's executable name, when the source says it (iOS).
    pub process: Option<String>,
}

/// Fixed cost counted per entry besides its text (the struct, the ring's slot).
pub const ENTRY_OVERHEAD: usize = 96;

impl LogEntry {
    /// The memory this entry is counted for in the ring's byte budget.
    pub fn cost(&self) -> usize {
        ENTRY_OVERHEAD
            + self.tag.len()
            + self.message.len()
            + self.process.as_ref().map_or(0, String::len)
    }

    /// A hash of what the entry says (not of where it is stored), to recognise the same line
    /// read twice.
    pub fn fingerprint(&self) -> u64 {
        let mut h = blake3::Hasher::new();
        h.update(&self.time_ms.unwrap_or(0).to_le_bytes());
        h.update(&self.pid.unwrap_or(0).to_le_bytes());
        h.update(&self.tid.unwrap_or(0).to_le_bytes());
        h.update(&[self.level.letter() as u8]);
        h.update(self.tag.as_bytes());
        h.update(&[0]);
        h.update(self.message.as_bytes());
        let b = h.finalize();
        u64::from_le_bytes(b.as_bytes()[..8].try_into().unwrap_or([0; 8]))
    }
}

/// RFC 3339 with milliseconds and the UTC offset, of a Unix time in milliseconds.
pub fn rfc3339(ms: i64, offset_s: i32) -> String {
    use chrono::{FixedOffset, TimeZone};
    let utc = FixedOffset::east_opt(0);
    let Some(tz) = FixedOffset::east_opt(offset_s).or(utc) else {
        return String::new();
    };
    match tz.timestamp_millis_opt(ms).single() {
        Some(t) => t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        None => String::new(),
    }
}

/// Days since 1970-01-01 of a civil date.
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
    fn levels_order_and_parse() {
        assert!(Level::Warn > Level::Info && Level::Fatal > Level::Error);
        assert_eq!(Level::parse("w"), Some(Level::Warn));
        assert_eq!(Level::parse("warning"), Some(Level::Warn));
        assert_eq!(Level::parse("Fault"), Some(Level::Fatal));
        assert_eq!(Level::parse("A"), Some(Level::Fatal));
        assert_eq!(Level::parse("loud"), None);
        assert_eq!(serde_json::to_value(Level::Error).unwrap(), "E");
    }

    #[test]
    fn times() {
        assert_eq!(rfc3339(1_700_000_000_123, 0), "2023-11-14T22:13:20.123Z");
        assert_eq!(
            rfc3339(1_700_000_000_123, 3 * 3600),
            "2023-11-15T01:13:20.123+03:00"
        );
        assert_eq!(days_from_civil(2023, 11, 14), 1_700_000_000 / 86_400);
    }
}
