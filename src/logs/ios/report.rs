//! iOS crash reports as the simulator's host keeps them in `DiagnosticReports`: the modern
//! `.ips` (one JSON header line — `app_name`, `bug_type` 309, `timestamp` — then a JSON body:
//! `procName`, `pid`, `bundleInfo`, `exception`, `asi`, `lastExceptionBacktrace`, `threads`,
//! `usedImages`) and the legacy `.crash` text (`Process:`, `Identifier:`, `Date/Time:`,
//! `Exception Type:`, `Application Specific Information:`, backtraces). A report names its
//! simulator by the UDID in a `CoreSimulator/Devices/<UDID>/` path or a `Device: … (UDID)`
//! line, when it does.

use serde_json::Value;

use crate::logs::crash::{Crash, CrashKind, CrashSource, TOP_FRAMES};

/// Why a file is not read as a crash.
#[derive(Debug, PartialEq, Eq)]
pub enum NotACrash {
    /// Not a crash report at all.
    Unreadable(String),
    /// A report of another kind (`bug_type` other than a crash: hangs, jetsam…).
    OtherKind(String),
}

/// The first UDID (8-4-4-4-12 hex) after `CoreSimulator/Devices/` or in `Device: … (UDID)`.
pub fn simulator_udid(text: &str) -> Option<String> {
    let is_udid = |s: &str| {
        let parts: Vec<&str> = s.split('-').collect();
        parts.len() == 5
            && parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
            && s.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
    };
    for (i, _) in text.match_indices("CoreSimulator/Devices/") {
        let cand = text[i + "CoreSimulator/Devices/".len()..].get(..36)?;
        if is_udid(cand) {
            return Some(cand.to_ascii_uppercase());
        }
    }
    for (i, _) in text.match_indices("Device: ") {
        let line = text[i..].lines().next().unwrap_or("");
        if let Some(open) = line.find('(') {
            if let Some(cand) = line.get(open + 1..open + 37) {
                if is_udid(cand) {
                    return Some(cand.to_ascii_uppercase());
                }
            }
        }
    }
    None
}

/// Whether a report comes from a simulated process (its parent is `launchd_sim`, or it
/// mentions CoreSimulator).
pub fn from_simulator(text: &str) -> bool {
    text.contains("launchd_sim") || text.contains("CoreSimulator")
}

/// Reads a report, `.ips` or `.crash` (told apart by its first character).
pub fn parse(text: &str) -> Result<Crash, NotACrash> {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim_start().starts_with('{') {
        ips(text)
    } else {
        legacy(text)
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// `2022-04-20 14:36:33.5767 +0100` (or without fraction) → Unix ms.
fn report_time(s: &str) -> Option<i64> {
    let s = s.trim();
    ["%Y-%m-%d %H:%M:%S%.f %z", "%Y-%m-%d %H:%M:%S %z"]
        .iter()
        .find_map(|f| chrono::DateTime::parse_from_str(s, f).ok())
        .map(|t| t.timestamp_millis())
}

/// The message of an uncaught exception, from "app specific information" text.
fn uncaught(text: &str) -> Option<(String, String)> {
    let i = text.find("Terminating app due to uncaught exception '")?;
    let rest = &text[i + "Terminating app due to uncaught exception '".len()..];
    let (class, rest) = rest.split_once('\'')?;
    let reason = rest
        .split_once("reason: '")
        .and_then(|(_, r)| r.rsplit_once('\''))
        .map(|(r, _)| r.to_string())
        .unwrap_or_default();
    Some((class.to_string(), reason))
}

fn ips(text: &str) -> Result<Crash, NotACrash> {
    let (head, body) = text.split_once('\n').unwrap_or((text, ""));
    let header: Value = serde_json::from_str(head.trim())
        .map_err(|e| NotACrash::Unreadable(format!("header: {e}")))?;
    let bug_type = str_of(&header, "bug_type").unwrap_or("");
    if !matches!(bug_type, "309" | "109") {
        return Err(NotACrash::OtherKind(format!("bug_type {bug_type}")));
    }
    let body: Value = serde_json::from_str(body.trim())
        .map_err(|e| NotACrash::Unreadable(format!("body: {e}")))?;
    let mut c = Crash::new(CrashKind::IosCrash, CrashSource::Ips, text.to_string());
    c.process = str_of(&body, "procName")
        .or_else(|| str_of(&header, "name"))
        .map(str::to_string);
    c.app = body
        .pointer("/bundleInfo/CFBundleIdentifier")
        .and_then(Value::as_str)
        .or_else(|| str_of(&header, "bundleID"))
        .map(str::to_string);
    c.pid = body.get("pid").and_then(Value::as_u64).map(|p| p as u32);
    c.time_ms = str_of(&body, "captureTime")
        .or_else(|| str_of(&header, "timestamp"))
        .and_then(report_time);
    let exc = body.get("exception");
    let exc_type = exc.and_then(|e| str_of(e, "type"));
    let signal = exc.and_then(|e| str_of(e, "signal"));
    let asi = body.get("asi").map(Value::to_string).unwrap_or_default();
    match uncaught(&asi.replace("\\'", "'")) {
        Some((class, reason)) => {
            c.exception = Some(class);
            c.message = Some(reason);
            c.cause = exc_type.map(|t| format!("{t} ({})", signal.unwrap_or("?")));
        }
        None => {
            c.exception = exc_type.map(|t| match signal {
                Some(s) => format!("{t} ({s})"),
                None => t.to_string(),
            });
            c.message = body
                .pointer("/termination/indicator")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
    }
    let images = body.get("usedImages").and_then(Value::as_array);
    let frame = |f: &Value| -> String {
        let image = f
            .get("imageIndex")
            .and_then(Value::as_u64)
            .and_then(|i| images.and_then(|im| im.get(i as usize)))
            .and_then(|im| str_of(im, "name"))
            .unwrap_or("?");
        match str_of(f, "symbol") {
            Some(sym) => format!("{sym} ({image})"),
            None => format!(
                "{image} + {}",
                f.get("imageOffset").and_then(Value::as_u64).unwrap_or(0)
            ),
        }
    };
    let faulting = body
        .get("faultingThread")
        .and_then(Value::as_u64)
        .unwrap_or(0) as usize;
    let frames = body
        .get("lastExceptionBacktrace")
        .and_then(Value::as_array)
        .or_else(|| {
            body.get("threads")
                .and_then(Value::as_array)
                .and_then(|t| t.get(faulting))
                .and_then(|t| t.get("frames"))
                .and_then(Value::as_array)
        });
    c.frames = frames
        .map(|fs| fs.iter().take(TOP_FRAMES).map(frame).collect())
        .unwrap_or_default();
    c.udid = simulator_udid(text);
    Ok(c.with_id())
}

/// `Key:   value` of a legacy report's header.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(':')))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// `0   CoreFoundation   0x01f88a14 __exceptionPreprocess + 180` → `__exceptionPreprocess + 180 (CoreFoundation)`.
fn legacy_frame(l: &str) -> Option<String> {
    let mut parts = l.split_whitespace();
    parts.next()?.parse::<u32>().ok()?;
    let image = parts.next()?;
    let addr = parts.next()?;
    if !addr.starts_with("0x") {
        return None;
    }
    let symbol: Vec<&str> = parts.collect();
    Some(if symbol.is_empty() {
        image.to_string()
    } else {
        format!("{} ({image})", symbol.join(" "))
    })
}

fn frames_after(text: &str, heading: impl Fn(&str) -> bool) -> Vec<String> {
    text.lines()
        .skip_while(|l| !heading(l))
        .skip(1)
        .map_while(legacy_frame)
        .take(TOP_FRAMES)
        .collect()
}

fn legacy(text: &str) -> Result<Crash, NotACrash> {
    let process =
        field(text, "Process").ok_or_else(|| NotACrash::Unreadable("no `Process:` line".into()))?;
    let exc_type = field(text, "Exception Type")
        .ok_or_else(|| NotACrash::Unreadable("no `Exception Type:` line".into()))?;
    let mut c = Crash::new(
        CrashKind::IosCrash,
        CrashSource::CrashReport,
        text.to_string(),
    );
    let (name, pid) = match process.rsplit_once('[') {
        Some((n, p)) => (n.trim(), p.trim_end_matches(']').parse().ok()),
        None => (process, None),
    };
    c.process = Some(name.to_string());
    c.pid = pid;
    c.app = field(text, "Identifier").map(str::to_string);
    c.time_ms = field(text, "Date/Time").and_then(report_time);
    match uncaught(text) {
        Some((class, reason)) => {
            c.exception = Some(class);
            c.message = Some(reason);
            c.cause = Some(exc_type.to_string());
        }
        None => {
            c.exception = Some(exc_type.to_string());
            c.message = field(text, "Exception Codes").map(str::to_string);
        }
    }
    let crashed = field(text, "Crashed Thread")
        .and_then(|t| t.split_whitespace().next())
        .unwrap_or("0")
        .to_string();
    c.frames = frames_after(text, |l| {
        l.starts_with("Application Specific Backtrace") || l.starts_with("Last Exception Backtrace")
    });
    if c.frames.is_empty() {
        c.frames = frames_after(text, |l| {
            l.starts_with(&format!("Thread {crashed} Crashed"))
        });
    }
    c.udid = simulator_udid(text);
    Ok(c.with_id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn udids_of_simulators() {
        assert_eq!(
            simulator_udid("Path: /Users/u/Library/Developer/CoreSimulator/Devices/2ff8dd07-20b7-4d04-97f0-092df61cd3c3/data/x").as_deref(),
            Some("2FF8DD07-20B7-4D04-97F0-092DF61CD3C3")
        );
        assert_eq!(
            simulator_udid("CoreSimulator 802.6 - Device: iPhone 13 (D95B17F2-6822-4CD1-B7AA-E73DB34FFD4E) - Runtime").as_deref(),
            Some("D95B17F2-6822-4CD1-B7AA-E73DB34FFD4E")
        );
        assert_eq!(
            simulator_udid("CoreSimulator 201.3 - Device: iPhone 5 - Runtime: iOS 9.2"),
            None
        );
    }

    #[test]
    fn not_crashes() {
        assert!(matches!(parse("hello"), Err(NotACrash::Unreadable(_))));
        assert!(matches!(
            parse("{\"bug_type\":\"288\"}\n{}"),
            Err(NotACrash::OtherKind(_))
        ));
    }
}
