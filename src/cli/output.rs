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
        Answer::Streamed => exit::OK,
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
pub fn event(op: &str, data: &str, json: bool) {
    use std::io::Write;
    let line = match serde_json::from_str::<Value>(data) {
        Ok(v) if !json => crate::render::text_in(super::hint::step_words, op, &v),
        _ => data.to_string(),
    };
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) ends the output quietly; the stream ends with the process.
    if writeln!(out, "{}", line.trim_end())
        .and_then(|_| out.flush())
        .is_err()
    {
        std::process::exit(exit::OK);
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
    fn outcomes() {
        assert_eq!(outcome(&json!({"success": false})), 1);
        assert_eq!(outcome(&json!({"status": "timeout", "polls": 3})), 1);
        assert_eq!(outcome(&json!({"status": "success", "polls": 3})), 0);
        assert_eq!(outcome(&json!({"overall": "blocked"})), 1);
        assert_eq!(outcome(&json!({"devices": []})), 0);
    }
}
