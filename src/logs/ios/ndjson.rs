//! `log stream|show --style ndjson` lines: one JSON object per event (`timestamp`
//! `2026-10-05 21:38:05.031838+0300`, `messageType` Default/Info/Debug/Error/Fault,
//! `processID`, `threadID`, `subsystem`, `category`, `processImagePath`, `eventMessage`).
//! Other lines (`Filtering the log data using …`, the closing summary) are not entries.

use serde::Deserialize;

use crate::logs::entry::{Level, LogEntry};

/// What one line is.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// An event with a message.
    Entry(LogEntry),
    /// Not an event with a message (a header, a summary, an activity without text).
    Other,
    /// A JSON object that does not read as an event.
    Unreadable,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event {
    timestamp: Option<String>,
    message_type: Option<String>,
    event_type: Option<String>,
    #[serde(rename = "processID")]
    process_id: Option<u32>,
    #[serde(rename = "threadID")]
    thread_id: Option<u64>,
    subsystem: Option<String>,
    category: Option<String>,
    process_image_path: Option<String>,
    event_message: Option<String>,
}

/// `2026-10-05 21:38:05.031838+0300` → Unix ms.
pub fn timestamp(s: &str) -> Option<i64> {
    chrono::DateTime::parse_from_str(s.trim(), "%Y-%m-%d %H:%M:%S%.f%z")
        .ok()
        .map(|t| t.timestamp_millis())
}

fn level(message_type: Option<&str>) -> Level {
    match message_type.unwrap_or("Default") {
        "Debug" => Level::Debug,
        "Error" => Level::Error,
        "Fault" => Level::Fatal,
        _ => Level::Info,
    }
}

/// Reads one line of `log … --style ndjson` output (a trailing `\r` tolerated).
pub fn parse_line(line: &[u8]) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let trimmed = line.trim_ascii();
    if !trimmed.starts_with(b"{") {
        return Line::Other;
    }
    let Ok(ev) = serde_json::from_slice::<Event>(trimmed) else {
        return Line::Unreadable;
    };
    let Some(message) = ev.event_message else {
        return Line::Other;
    };
    if ev.event_type.as_deref() == Some("timesyncEvent") {
        return Line::Other;
    }
    let process = ev
        .process_image_path
        .as_deref()
        .and_then(|p| p.rsplit('/').next())
        .filter(|p| !p.is_empty())
        .map(str::to_string);
    let tag = match (
        ev.subsystem.filter(|s| !s.is_empty()),
        ev.category.filter(|c| !c.is_empty()),
    ) {
        (Some(s), Some(c)) => format!("{s}:{c}"),
        (Some(s), None) => s,
        (None, _) => process.clone().unwrap_or_default(),
    };
    Line::Entry(LogEntry {
        seq: 0,
        time_ms: ev.timestamp.as_deref().and_then(timestamp),
        pid: ev.process_id,
        tid: ev.thread_id.map(|t| t as u32),
        level: level(ev.message_type.as_deref()),
        tag,
        message,
        process,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_and_other_lines() {
        let l = br#"{"timestamp":"2026-10-05 21:38:05.031838+0300","messageType":"Error","eventType":"logEvent","processID":40513,"threadID":1636449,"subsystem":"com.example.app","category":"net","processImagePath":"/x/Example.app/Example","eventMessage":"request failed"}"#;
        let Line::Entry(e) = parse_line(l) else {
            panic!()
        };
        assert_eq!(e.level, Level::Error);
        assert_eq!(
            (e.pid, e.tag.as_str()),
            (Some(40513), "com.example.app:net")
        );
        assert_eq!(e.process.as_deref(), Some("Example"));
        assert_eq!(e.time_ms, Some(1_791_225_485_031));
        assert_eq!(
            parse_line(b"Filtering the log data using \"process == 1\""),
            Line::Other
        );
        assert_eq!(parse_line(br#"{"count":3,"finished":1}"#), Line::Other);
        assert_eq!(parse_line(b"{not json"), Line::Unreadable);
    }
}
