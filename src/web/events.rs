//! What an attached page did, from its DevTools events: console messages
//! (`Runtime.consoleAPICalled`) and uncaught JavaScript errors (`Runtime.exceptionThrown`),
//! as the device's log entries (tagged `web`, the message prefixed by the page) and, for an
//! error, a crash of kind `page_error` with its stack. Pure: the events in, log entries and
//! crashes out.

use serde_json::Value;

use super::cdp::Event;
use crate::logs::{Crash, CrashKind, CrashSource, Level, LogEntry};

/// The tag of web content's entries in the device's log.
pub const WEB_TAG: &str = "web";
/// Longest message kept.
const MESSAGE_MAX: usize = 4000;

/// One thing a page did.
#[derive(Debug, Clone, PartialEq)]
pub struct PageEvent {
    /// When (Unix ms, the device's clock: the page's own timestamp).
    pub time_ms: Option<i64>,
    /// The app whose WebView shows the page.
    pub package: String,
    /// The page's URL when the event came.
    pub url: String,
    /// What happened.
    pub what: PageHappening,
}

/// A console message or an uncaught error.
#[derive(Debug, Clone, PartialEq)]
pub enum PageHappening {
    /// `console.log` and its kin.
    Console {
        /// Its level (`console.error` → E, `warn` → W, `debug` → D, others → I).
        level: Level,
        /// Its arguments, joined by spaces.
        text: String,
    },
    /// An uncaught exception.
    Error {
        /// The error's class (`TypeError`), when it is an object.
        exception: Option<String>,
        /// Its message.
        message: String,
        /// Its stack, innermost first (`report (login.html:12:5)`).
        frames: Vec<String>,
    },
}

/// One argument of a console call, as the page would print it.
fn argument(a: &Value) -> String {
    match &a["value"] {
        Value::String(s) => s.clone(),
        Value::Null => a["description"]
            .as_str()
            .or(a["unserializableValue"].as_str())
            .or(a["type"].as_str().filter(|t| *t == "undefined"))
            .unwrap_or("")
            .to_string(),
        v => v.to_string(),
    }
}

fn cut(mut s: String) -> String {
    if s.len() > MESSAGE_MAX {
        let mut end = MESSAGE_MAX;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
    s
}

/// The frames of a protocol `stackTrace`, innermost first.
fn frames(stack: &Value) -> Vec<String> {
    stack["callFrames"]
        .as_array()
        .into_iter()
        .flatten()
        .take(crate::logs::crash::TOP_FRAMES)
        .map(|f| {
            let name = f["functionName"].as_str().filter(|n| !n.is_empty());
            let url = f["url"]
                .as_str()
                .filter(|u| !u.is_empty())
                .unwrap_or("<anonymous>");
            let at = format!(
                "{url}:{}:{}",
                f["lineNumber"].as_u64().unwrap_or(0) + 1,
                f["columnNumber"].as_u64().unwrap_or(0) + 1
            );
            match name {
                Some(n) => format!("{n} ({at})"),
                None => at,
            }
        })
        .collect()
}

impl PageEvent {
    /// The page event of a protocol event of the page at `url` in `package`'s WebView; `None`
    /// for the events that are neither a console message nor an uncaught error.
    pub fn of(event: &Event, package: &str, url: &str) -> Option<PageEvent> {
        let p = &event.params;
        let what = match event.method.as_str() {
            "Runtime.consoleAPICalled" => PageHappening::Console {
                level: match p["type"].as_str().unwrap_or("log") {
                    "error" | "assert" => Level::Error,
                    "warning" => Level::Warn,
                    "debug" | "trace" => Level::Debug,
                    _ => Level::Info,
                },
                text: cut(p["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(argument)
                    .collect::<Vec<_>>()
                    .join(" ")),
            },
            "Runtime.exceptionThrown" => {
                let d = &p["exceptionDetails"];
                let e = &d["exception"];
                let description = e["description"].as_str().unwrap_or("");
                // "TypeError: message\n    at …": the first line, after the class.
                let first = description.lines().next().unwrap_or("");
                let exception = e["className"].as_str().map(str::to_string);
                let message = match &exception {
                    Some(c) => first.strip_prefix(&format!("{c}: ")).unwrap_or(first),
                    None => first,
                };
                let message = if message.is_empty() {
                    d["text"].as_str().unwrap_or("Uncaught").to_string()
                } else {
                    message.to_string()
                };
                PageHappening::Error {
                    exception,
                    message: cut(message),
                    frames: frames(&d["stackTrace"]),
                }
            }
            _ => return None,
        };
        Some(PageEvent {
            time_ms: p["timestamp"].as_f64().map(|t| t as i64),
            package: package.to_string(),
            url: url.to_string(),
            what,
        })
    }

    /// The event as an entry of the device's log: tag `web`, the message prefixed by the
    /// page's URL.
    pub fn log_entry(&self) -> LogEntry {
        let (level, text) = match &self.what {
            PageHappening::Console { level, text } => (*level, text.clone()),
            PageHappening::Error {
                exception, message, ..
            } => (
                Level::Error,
                format!(
                    "Uncaught {}{message}",
                    exception
                        .as_deref()
                        .map(|e| format!("{e}: "))
                        .unwrap_or_default()
                ),
            ),
        };
        LogEntry {
            seq: 0,
            time_ms: self.time_ms,
            pid: None,
            tid: None,
            level,
            tag: WEB_TAG.to_string(),
            message: format!("[{}] {text}", self.url),
            process: Some(self.package.clone()),
        }
    }

    /// An uncaught error as a crash of the page (`page_error`); `None` for a console message.
    pub fn crash(&self) -> Option<Crash> {
        let PageHappening::Error {
            exception,
            message,
            frames,
        } = &self.what
        else {
            return None;
        };
        let mut text = format!(
            "{}: {message}\n  page: {}",
            exception.as_deref().unwrap_or("Error"),
            self.url
        );
        for f in frames {
            text += &format!("\n    at {f}");
        }
        let mut c = Crash::new(CrashKind::PageError, CrashSource::Devtools, text);
        c.time_ms = self.time_ms;
        c.app = Some(self.package.clone());
        c.exception = exception.clone();
        c.message = Some(message.clone());
        c.frames = frames.clone();
        Some(c.with_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events Chromium 156 sent here for `console.log('signing in as', 'ana@example.com', 42)`,
    /// `console.warn('slow')`, `console.error(new Error('boom'))` and a click handler that
    /// read a property of `null`.
    fn recorded() -> Vec<Event> {
        let path = format!(
            "{}/tests/fixtures/cdp/page_events.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let v: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        v.into_iter()
            .map(|m| Event {
                method: m["method"].as_str().unwrap().to_string(),
                params: m["params"].clone(),
            })
            .collect()
    }

    #[test]
    fn console_messages_become_log_entries_tagged_with_the_page() {
        let events: Vec<PageEvent> = recorded()
            .iter()
            .filter_map(|e| PageEvent::of(e, "com.example", "https://help.example/login"))
            .collect();
        assert_eq!(events.len(), 4);
        let log = events[0].log_entry();
        assert_eq!(log.tag, "web");
        assert_eq!(log.level, Level::Info);
        assert_eq!(
            log.message,
            "[https://help.example/login] signing in as ana@example.com 42"
        );
        assert_eq!(log.process.as_deref(), Some("com.example"));
        assert!(log.time_ms.unwrap() > 1_700_000_000_000);
        assert_eq!(events[1].log_entry().level, Level::Warn);
        let error = events[2].log_entry();
        assert_eq!(error.level, Level::Error);
        assert!(error.message.contains("Error: boom"), "{}", error.message);
        assert!(events[0].crash().is_none() && events[2].crash().is_none());
    }

    #[test]
    fn an_uncaught_error_is_a_page_crash_with_its_stack() {
        let events: Vec<PageEvent> = recorded()
            .iter()
            .filter_map(|e| PageEvent::of(e, "com.example", "https://help.example/login"))
            .collect();
        let crash = events[3].crash().expect("the uncaught TypeError");
        assert_eq!(crash.kind, CrashKind::PageError);
        assert_eq!(crash.exception.as_deref(), Some("TypeError"));
        assert_eq!(
            crash.message.as_deref(),
            Some("Cannot read properties of null (reading 'f')")
        );
        assert!(
            crash.frames[0].starts_with("report ("),
            "{:?}",
            crash.frames
        );
        assert!(crash.is_of("com.example"));
        assert!(!crash.id.is_empty());
        assert_eq!(
            crash.id,
            events[3].crash().unwrap().id,
            "the same id each time"
        );
        let log = events[3].log_entry();
        assert!(
            log.message.contains("Uncaught TypeError: Cannot read"),
            "{}",
            log.message
        );
    }
}
