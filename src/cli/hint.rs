//! The server's error hints in CLI terms. Hints are written for HTTP callers ("read the screen
//! again with GET /api/v1/device/ui", "e.g. {\"ref\": \"e12\"}", "try `contains: true`");
//! printed by the CLI (not with `--json`) they name commands and flags instead:
//!
//! - a route (`GET /api/v1/device/ui`, optionally with its method) becomes the command of the
//!   operation the table has on that path (`mobilectl snapshot`: its form in the table,
//!   [`crate::api::CliForm`]); a bare `/dismiss` right after a route is read relative to it
//!   ([`crate::api::mentions`] finds them; MCP names them by their tools);
//! - a JSON object whose every field has a CLI form becomes those words (`{"ref": "e12"}` →
//!   `@e12`, `{"selector": {"text": "Sign in"}}` → `text:"Sign in"`);
//! - a backticked field (`` `contains: true` ``, `` `udid` ``) becomes its flag;
//! - a backticked call of an operation (`` `tail_logs since=a-9` ``, as the answers' text
//!   names what to call next: [`crate::render::call`]) becomes its command line
//!   (`mobilectl logs --since a-9`); [`calls`] does only this, for answers.
//!
//! Anything else is left as the server wrote it.

use serde_json::Value;

/// The hint with route, JSON, call and field mentions in CLI terms.
pub fn to_cli(hint: &str) -> String {
    let s = routes(hint);
    let s = json_objects(&s);
    backticked_fields(&calls(&s))
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

/// `op k=v …` (an operation of the table) as its command line: the usage's words, its
/// `NAME`s from the arguments so named, the other arguments as flags.
fn command_of_call(call: &str) -> Option<String> {
    let mut words = call.split_whitespace();
    let op = crate::api::find(words.next()?)?;
    let mut args: Vec<(&str, &str)> = words.map(|w| w.split_once('=')).collect::<Option<_>>()?;
    let mut line = vec!["mobilectl".to_string()];
    for u in op.cli.usage.split_whitespace() {
        let optional = u.starts_with('[');
        let name = u.trim_start_matches('[').trim_end_matches(']');
        if !name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
            line.push(u.to_string());
            continue;
        }
        match args
            .iter()
            .position(|(k, _)| *k == name.to_ascii_lowercase())
        {
            Some(at) => line.push(word(args.remove(at).1)),
            None if optional => {}
            None => return None,
        }
    }
    for (k, v) in args {
        line.push(format!("--{} {}", k.replace('_', "-"), word(v)));
    }
    Some(line.join(" "))
}

/// Routes that are not operations but have a command.
const OTHER_ROUTES: &[(&str, &str)] = &[("/openapi.json", "openapi")];

/// The command for `method path`, when the table (or [`OTHER_ROUTES`]) has that path.
fn command_for(method: Option<&str>, path: &str) -> Option<String> {
    if let Some((_, cmd)) = OTHER_ROUTES.iter().find(|(p, _)| *p == path) {
        return Some(format!("mobilectl {cmd}"));
    }
    let op = crate::api::mentions::operation_at(method, path)?;
    Some(op.cli.usage)
        .filter(|u| !u.is_empty())
        .map(|u| format!("mobilectl {u}"))
}

fn routes(hint: &str) -> String {
    crate::api::mentions::routes(hint, command_for)
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

    #[test]
    fn routes_become_commands() {
        assert_eq!(
            to_cli("read the screen again with GET /api/v1/device/ui and use its refs"),
            "read the screen again with `mobilectl snapshot` and use its refs"
        );
        assert_eq!(
            to_cli("reconnect it, or choose another with PUT /api/v1/device/active"),
            "reconnect it, or choose another with `mobilectl use UDID`"
        );
        assert_eq!(
            to_cli("list devices with GET /api/v1/device/list"),
            "list devices with `mobilectl devices`"
        );
        assert_eq!(
            to_cli("answer it first: POST /api/v1/device/alert/accept or /dismiss, or tap one"),
            "answer it first: `mobilectl alert accept` or `mobilectl alert dismiss`, or tap one"
        );
        assert_eq!(
            to_cli(
                "hide the keyboard (POST /api/v1/device/ui/hide-keyboard) or scroll; press keys \
                 with POST /api/v1/device/ui/press"
            ),
            "hide the keyboard (`mobilectl hide-keyboard`) or scroll; press keys with \
             `mobilectl press KEY`"
        );
        assert_eq!(
            to_cli("retry, or check it with GET /api/v1/doctor."),
            "retry, or check it with `mobilectl doctor`."
        );
        assert_eq!(
            to_cli("see the request schema in GET /openapi.json or /docs"),
            "see the request schema in `mobilectl openapi` or /docs"
        );
        // Not a route of this API, or prose: unchanged.
        assert_eq!(to_cli("see /tmp/x.log"), "see /tmp/x.log");
        assert_eq!(to_cli("and/or /dismiss"), "and/or /dismiss");
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
            to_cli(r#"name the button: POST /api/v1/device/alert/accept with {"button": "…"}"#),
            "name the button: `mobilectl alert accept` with `--button …`"
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
            to_cli("check GET /api/v1/device/ui; try `contains: true`, or scroll-to"),
            "check `mobilectl snapshot`; try `--contains`, or scroll-to"
        );
        assert_eq!(
            to_cli("pass `udid`, or choose one with PUT /api/v1/device/active"),
            "pass `-d UDID`, or choose one with `mobilectl use UDID`"
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
