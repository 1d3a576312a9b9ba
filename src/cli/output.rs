//! What the client prints: with `--json` the server's JSON unchanged (errors too, on stdout);
//! otherwise readable text — the compact tree for `snapshot`, one line per action — with
//! errors, their hint, on stderr. Also decides the exit code of a successful HTTP answer.

use serde_json::Value;

use super::plan::Answer;
use crate::client::{exit, ClientError};

/// Prints a successful answer; returns the exit code.
pub fn answer(a: &Answer, json: bool) -> i32 {
    match a {
        Answer::Text(r) => {
            print!("{}", r.raw);
            if !r.raw.ends_with('\n') {
                println!();
            }
            exit::OK
        }
        Answer::Streamed(code) => *code,
        Answer::Saved(v) => {
            if json {
                println!("{v}");
            } else if v["path"] != "-" {
                println!(
                    "saved {} ({} bytes, {})",
                    v["path"].as_str().unwrap_or("?"),
                    v["bytes"],
                    v["content_type"].as_str().unwrap_or("?")
                );
            }
            exit::OK
        }
        Answer::Json { op, reply: r } => {
            super::repl::remember_refs(op, || {
                crate::render::text_in(super::hint::step_words, op, &r.value)
            });
            if json {
                println!("{}", r.raw.trim_end());
            } else {
                let mut v = r.value.clone();
                // An action's line ends with the server's time for it.
                if let (Some(t), true) = (r.timing_ms, v.get("action_type").is_some()) {
                    v["timing_ms"] = serde_json::json!(t.round() as u64);
                }
                let text = crate::render::text_in(super::hint::step_words, op, &v);
                println!("{}", text.trim_end());
            }
            outcome(&r.value)
        }
    }
}

/// Prints one event of operation `op`'s stream as it arrives: its JSON unchanged with
/// `--json`, else its line (a log entry, a flow).
///
/// A `progress` event is a line rewritten in place on a terminal (stderr), and printed only
/// when its phase changes otherwise. Answers the exit code a `result` or `error` event gives
/// the stream.
pub fn event(op: &str, data: &str, json: bool) -> Option<i32> {
    use std::io::{IsTerminal, Write};
    let parsed = serde_json::from_str::<Value>(data).ok();
    let verdict = parsed.as_ref().and_then(event_verdict);
    let line = match &parsed {
        Some(v) if !json => crate::render::text_in(super::hint::step_words, op, v),
        _ => data.to_string(),
    };
    if let Some(p) = parsed
        .as_ref()
        .and_then(|v| v.get("progress"))
        .filter(|_| !json)
    {
        let phase = p["phase"]["name"].as_str().unwrap_or_default().to_string();
        let mut shown = PROGRESS.lock().unwrap_or_else(|e| e.into_inner());
        if std::io::stderr().is_terminal() {
            eprint!("\r\x1b[K{}", line.trim_end());
            *shown = Progress::OnTerminal;
            return verdict;
        }
        if *shown == Progress::Phase(phase.clone()) {
            return verdict;
        }
        *shown = Progress::Phase(phase);
    } else if std::io::stderr().is_terminal() {
        end_progress();
    }
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) ends the output quietly; the stream ends with the process.
    if writeln!(out, "{}", line.trim_end())
        .and_then(|_| out.flush())
        .is_err()
    {
        std::process::exit(exit::OK);
    }
    verdict
}

/// The exit code an event gives its stream: a verdict is an event of one key (`{"result": …}`,
/// `{"error": {"code": …}}`), as the streams of runs and builds tell theirs; a record with such
/// a field (a proxy flow's `error`) is not.
fn event_verdict(v: &Value) -> Option<i32> {
    let o = v.as_object().filter(|o| o.len() == 1)?;
    match (o.get("result"), o.get("error")) {
        (Some(r), _) => Some(outcome(r)),
        (_, Some(e)) => e["code"].as_str().map(crate::client::exit_for_code),
        _ => None,
    }
}

/// What the last progress line left.
#[derive(PartialEq)]
enum Progress {
    /// None shown, or one cleared.
    None,
    /// A line on the terminal, to be rewritten in place or cleared.
    OnTerminal,
    /// A line printed for this phase (not on a terminal): the next is printed when it changes.
    Phase(String),
}

static PROGRESS: std::sync::Mutex<Progress> = std::sync::Mutex::new(Progress::None);

/// Clears a progress line left on the terminal, so what follows starts on a clean line.
pub fn end_progress() {
    let mut shown = PROGRESS.lock().unwrap_or_else(|e| e.into_inner());
    if *shown == Progress::OnTerminal {
        eprint!("\r\x1b[K");
        *shown = Progress::None;
    }
}

/// Prints a failure; returns its exit code.
pub fn error(e: &ClientError, json: bool) -> i32 {
    if json {
        println!("{}", e.json());
    } else {
        eprintln!("mobilectl: {}: {}", e.code, e.message);
        for line in crate::render::errors::candidates(&e.details()) {
            eprintln!("  {line}");
        }
        if let Some(h) = super::hint::to_cli(e.hint.as_deref(), e.next().as_ref()) {
            eprintln!("hint: {h}");
        }
    }
    e.exit
}

/// 1 when a 2xx answer reports that the thing did not happen, else 0.
pub fn outcome(v: &Value) -> i32 {
    let failed =
        v["success"] == Value::Bool(false) || v["status"] == "timeout" || v["overall"] == "blocked";
    if failed {
        exit::FAILED
    } else {
        exit::OK
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_streams_verdict_is_its_one_key_result_or_error_event() {
        let v = |j: Value| event_verdict(&j);
        assert_eq!(v(json!({"result": {"success": false}})), Some(1));
        assert_eq!(v(json!({"result": {"success": true}})), Some(0));
        assert_eq!(
            v(json!({"error": {"code": "DEVICE_OFFLINE"}})),
            Some(crate::client::exit_for_code("DEVICE_OFFLINE"))
        );
        // A proxy flow that failed is a record with an `error` field, not a verdict.
        assert_eq!(v(json!({"id": 1, "error": "refused"})), None);
        assert_eq!(v(json!({"progress": {"steps": 1}})), None);
    }

    #[test]
    fn outcomes() {
        assert_eq!(outcome(&json!({"success": false})), 1);
        assert_eq!(outcome(&json!({"status": "timeout", "polls": 3})), 1);
        assert_eq!(outcome(&json!({"status": "success", "polls": 3})), 0);
        assert_eq!(outcome(&json!({"overall": "blocked"})), 1);
        assert_eq!(outcome(&json!({"devices": []})), 0);
    }
}
