//! The server's error hints in CLI terms, printed by the CLI (not with `--json`):
//!
//! - the steps of an error's `next` ([`crate::error::Next`]: call an operation with these
//!   arguments, read the schema) are worded as the commands that do them (`mobilectl
//!   snapshot`, `mobilectl alert accept --button OK`, `mobilectl openapi`): [`next`];
//! - in the advice's words, a JSON object whose every field has a CLI form becomes those words
//!   (`{"ref": "e12"}` → `@e12`, `{"selector": {"text": "Sign in"}}` → `text:"Sign in"`),
//!   and a backticked field (`` `contains: true` ``, `` `udid` ``) becomes its flag;
//! - in an answer's text (not a hint), a backticked call of an operation (`` `tail_logs
//!   since=a-9` ``, as the answers name what to call next: [`crate::render::call`]) becomes
//!   its command line (`mobilectl logs --since a-9`); [`calls`] does only this.
//!
//! Anything else is left as the server wrote it.

use serde_json::{json, Map, Value};

use crate::error::{Next, Step};

/// The hint to print: `next` worded as commands when the server sent it, else the hint as
/// written; then fields and JSON in CLI terms.
pub fn to_cli(hint: Option<&str>, next: Option<&Next>) -> Option<String> {
    let said = match next {
        Some(n) => n.render(step_words),
        None => hint?.to_string(),
    };
    Some(fields(&said))
}

/// Fields and JSON objects of plain advice in CLI terms.
fn fields(text: &str) -> String {
    backticked_fields(&json_objects(text))
}

/// A step as the command that does it, in backticks.
pub fn step_words(step: &Step) -> String {
    match step {
        Step::Call { op, args } => format!("`{}`", command(op, args)),
        Step::Schema => "`mobilectl openapi`".to_string(),
    }
}

/// The command line that calls `op` with `args`: the usage's words, its `NAME`s from the
/// arguments so named (a required one not given stays `NAME`), the other arguments as flags;
/// `mobilectl call OP k=v…` for an operation without a command of its own.
fn command(op: &str, args: &Map<String, Value>) -> String {
    let mut args = args.clone();
    let usage = crate::api::find(op).map(|o| o.cli.usage).unwrap_or("");
    let mut line = vec!["mobilectl".to_string()];
    if usage.is_empty() {
        line.push(format!("call {op}"));
        line.extend(
            args.iter()
                .map(|(k, v)| format!("{k}={}", word(&text_of(v)))),
        );
        return line.join(" ");
    }
    for u in usage.split_whitespace() {
        let optional = u.starts_with('[');
        let name = u.trim_start_matches('[').trim_end_matches(']');
        if !name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
            line.push(u.to_string());
            continue;
        }
        match args.remove(&name.to_ascii_lowercase()) {
            Some(v) => line.push(word(&text_of(&v))),
            None if optional => {}
            None => line.push(name.to_string()),
        }
    }
    for (k, v) in args {
        match v {
            Value::Bool(true) => line.push(format!("--{}", k.replace('_', "-"))),
            v => line.push(format!("--{} {}", k.replace('_', "-"), word(&text_of(&v)))),
        }
    }
    line.join(" ")
}

/// A JSON value as a word's text: a string as it is, anything else as JSON.
fn text_of(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// The backticked calls of operations in `text` as the commands that make them.
pub fn calls(text: &str) -> String {
    each_backticked(text, command_of_call)
}

/// `text` with each backticked span replaced by what `f` makes of it (kept as it is when
/// `f` makes nothing).
fn each_backticked(text: &str, f: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        let inner = &rest[open + 1..open + 1 + len];
        out.push_str(&rest[..open]);
        out.push('`');
        out.push_str(f(inner).as_deref().unwrap_or(inner));
        out.push('`');
        rest = &rest[open + 2 + len..];
    }
    out.push_str(rest);
    out
}

/// `op k=v …` (an operation of the table, every required `NAME` of its usage given) as its
/// command line.
fn command_of_call(call: &str) -> Option<String> {
    let mut words = call.split_whitespace();
    let op = crate::api::find(words.next()?)?;
    let args: Map<String, Value> = words
        .map(|w| w.split_once('=').map(|(k, v)| (k.to_string(), json!(v))))
        .collect::<Option<_>>()?;
    let required = op
        .cli
        .usage
        .split_whitespace()
        .filter(|u| u.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
    for name in required {
        args.get(&name.to_ascii_lowercase())?;
    }
    (!op.cli.usage.is_empty()).then(|| command(op.name, &args))
}

fn json_objects(hint: &str) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < hint.len() {
        let rest = &hint[i..];
        if rest.starts_with('{') {
            let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            if let Some(Ok(Value::Object(obj))) = stream.next() {
                let len = stream.byte_offset();
                if let Some(words) = object_words(&obj) {
                    out.push('`');
                    out.push_str(&words.join(" "));
                    out.push('`');
                    i += len;
                    continue;
                }
            }
        }
        let ch = rest.chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// A word for the shell: quoted when it holds spaces or quotes.
fn word(v: &str) -> String {
    if v.is_empty() || v.contains(|c: char| c.is_whitespace() || "\"'$`\\;&|<>()#".contains(c)) {
        format!("{v:?}")
    } else {
        v.to_string()
    }
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The CLI words of a request object, or `None` when some field has no CLI form.
fn object_words(obj: &serde_json::Map<String, Value>) -> Option<Vec<String>> {
    let mut words = Vec::new();
    if let (Some(x), Some(y)) = (obj.get("x"), obj.get("y")) {
        words.push(format!("{},{}", scalar(x)?, scalar(y)?));
    }
    if let (Some(lat), Some(lon)) = (obj.get("latitude"), obj.get("longitude")) {
        words.push(format!("{} {}", scalar(lat)?, scalar(lon)?));
    }
    for (k, v) in obj {
        match k.as_str() {
            "x" | "y" | "latitude" | "longitude" => {}
            "ref" => words.push(format!("@{}", scalar(v)?.trim_start_matches('@'))),
            "selector" => match v {
                Value::Object(sel) => words.extend(object_words(sel)?),
                _ => return None,
            },
            "text" | "label" | "id" | "role" => {
                let s = scalar(v)?;
                let quoted = if s.contains(char::is_whitespace) {
                    format!("{s:?}")
                } else {
                    s
                };
                words.push(format!("{k}:{quoted}"));
            }
            _ => words.push(field_flag(k, Some(v))?),
        }
    }
    Some(words)
}

/// The flag for a request field (with its value, when given).
fn field_flag(name: &str, value: Option<&Value>) -> Option<String> {
    let flag = match name {
        "contains" => "--contains",
        "case_insensitive" => "--ignore-case",
        "observe" => "--observe",
        "clear" => "--clear",
        "submit" => "--submit",
        "relaunch" => "--relaunch",
        "index" => "--index",
        "max_scrolls" => "--max-scrolls",
        "timeout_ms" => "--timeout-ms",
        "poll_interval_ms" => "--poll-interval-ms",
        "duration_ms" => "--duration-ms",
        "activity" => "--activity",
        "avd" => "--avd",
        "button" => "--button",
        "direction" => "--direction",
        "udid" => "-d",
        _ => return None,
    };
    let placeholder = match name {
        "udid" => Some("UDID"),
        "index" | "max_scrolls" => Some("N"),
        "timeout_ms" | "poll_interval_ms" | "duration_ms" => Some("MS"),
        "activity" => Some("ACTIVITY"),
        "avd" => Some("NAME"),
        "button" => Some("LABEL"),
        "direction" => Some("DIR"),
        _ => None,
    };
    Some(match (value, placeholder) {
        // A switch: `contains: true` is the flag; `false` has no CLI form.
        (Some(Value::Bool(true)), None) | (None, None) => flag.to_string(),
        (Some(Value::Bool(_)), _) => return None,
        (Some(v), Some(_)) => format!("{flag} {}", word(&scalar(v)?)),
        (None, Some(p)) => format!("{flag} {p}"),
        (Some(_), None) => return None,
    })
}

/// `` `name` `` or `` `name: value` `` naming a request field → its flag.
fn backticked_fields(hint: &str) -> String {
    each_backticked(hint, field_words)
}

/// The flag of `name` or `name: value`, or a selector field's word (`role` → `role:ROLE`).
fn field_words(inner: &str) -> Option<String> {
    match inner.split_once(':') {
        Some((k, v)) => {
            let v = v.trim();
            let value =
                serde_json::from_str::<Value>(v).unwrap_or_else(|_| Value::String(v.to_string()));
            field_flag(k.trim(), Some(&value))
        }
        None => field_flag(inner.trim(), None),
    }
    .or_else(|| {
        // Selector fields named alone: `role` → `role:ROLE`.
        ["text", "label", "id", "role"]
            .contains(&inner)
            .then(|| format!("{inner}:{}", inner.to_ascii_uppercase()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Next, Step};

    #[test]
    fn calls_become_command_lines() {
        // A positional of the usage, then the other arguments as flags.
        assert_eq!(
            calls("tap e3 FAILED APP_CRASHED (`get_crash id=c0123`)"),
            "tap e3 FAILED APP_CRASHED (`mobilectl crashes c0123`)"
        );
        assert_eq!(
            calls("-- more: `tail_logs since=a-9`"),
            "-- more: `mobilectl logs --since a-9`"
        );
        assert_eq!(
            calls("`list_runs limit=50`, `shutdown`"),
            "`mobilectl runs --limit 50`, `mobilectl shutdown`"
        );
        // Not an operation, or a required positional missing: left as written.
        assert_eq!(
            calls("`contains: true` and `get_crash`"),
            "`contains: true` and `get_crash`"
        );
        // The answers' own pointers are made this way.
        let pointer = crate::render::call("get_crash", &[("id", "c9")]);
        assert_eq!(calls(&pointer), "`mobilectl crashes c9`");
    }

    fn to_cli(hint: &str) -> String {
        super::to_cli(Some(hint), None).unwrap()
    }

    fn said(say: &str, steps: Vec<Step>) -> String {
        let next = Next {
            say: say.into(),
            steps,
        };
        super::to_cli(Some("the HTTP words"), Some(&next)).unwrap()
    }

    #[test]
    fn steps_become_commands() {
        use crate::error::Op;
        assert_eq!(
            said(
                "read the screen again with {0} and use its refs",
                vec![Step::call(Op::Snapshot)]
            ),
            "read the screen again with `mobilectl snapshot` and use its refs"
        );
        // A required `NAME` not given stays; given, it is the value.
        assert_eq!(
            said("choose one with {0}", vec![Step::call(Op::SetActiveDevice)]),
            "choose one with `mobilectl use UDID`"
        );
        assert_eq!(
            said(
                "{0}",
                vec![Step::call_with(
                    Op::SetActiveDevice,
                    json!({"udid": "iPhone 15"})
                )]
            ),
            "`mobilectl use \"iPhone 15\"`"
        );
        // Other arguments are flags.
        assert_eq!(
            said(
                "answer it: {0} or {1}",
                vec![
                    Step::call_with(Op::AlertAccept, json!({"button": "OK"})),
                    Step::call(Op::AlertDismiss)
                ]
            ),
            "answer it: `mobilectl alert accept --button OK` or `mobilectl alert dismiss`"
        );
        assert_eq!(
            said("see {0}", vec![Step::Schema]),
            "see `mobilectl openapi`"
        );
        // Without `next`, the hint as written.
        assert_eq!(to_cli("see /tmp/x.log"), "see /tmp/x.log");
        assert_eq!(super::to_cli(None, None), None);
    }

    #[test]
    fn json_becomes_targets_and_flags() {
        assert_eq!(
            to_cli(
                r#"e.g. {"ref": "e12"} or {"x": 120, "y": 540} or {"selector": {"text": "Sign in"}}"#
            ),
            r#"e.g. `@e12` or `120,540` or `text:"Sign in"`"#
        );
        assert_eq!(
            to_cli(r#"e.g. {"text": "Sign in"} or {"id": "login_button"}"#),
            r#"e.g. `text:"Sign in"` or `id:login_button`"#
        );
        assert_eq!(
            to_cli(r#"e.g. {"udid": "iPhone 15"} or {"avd": "Pixel_7_API_34"}"#),
            r#"e.g. `-d "iPhone 15"` or `--avd Pixel_7_API_34`"#
        );
        assert_eq!(
            to_cli(r#"e.g. {"latitude": 48.8584, "longitude": 2.2945}"#),
            "e.g. `48.8584 2.2945`"
        );
        // A field without a CLI form leaves the object as it is.
        let odd = r#"send {"frobnicate": 1} instead"#;
        assert_eq!(to_cli(odd), odd);
        assert_eq!(to_cli("braces { without json"), "braces { without json");
    }

    #[test]
    fn backticked_fields_become_flags() {
        assert_eq!(
            to_cli("try `contains: true`, or scroll-to"),
            "try `--contains`, or scroll-to"
        );
        assert_eq!(
            to_cli("pass `udid`, or choose one"),
            "pass `-d UDID`, or choose one"
        );
        assert_eq!(
            to_cli("act on one candidate's ref, or add `index`, `role` or `id` to the selector"),
            "act on one candidate's ref, or add `--index N`, `role:ROLE` or `id:ID` to the selector"
        );
        assert_eq!(
            to_cli("try a looser selector (`contains: true`), or more `max_scrolls`"),
            "try a looser selector (`--contains`), or more `--max-scrolls N`"
        );
        assert_eq!(
            to_cli("pass `clear: true` to empty a field"),
            "pass `--clear` to empty a field"
        );
        // Backticks around other things, and an unpaired one, stay.
        assert_eq!(
            to_cli("install it: `adb install ADBKeyboard.apk`"),
            "install it: `adb install ADBKeyboard.apk`"
        );
        assert_eq!(to_cli("a ` alone"), "a ` alone");
    }
}
