//! What the server advises, in CLI terms: the steps of an error's `next`
//! ([`crate::error::Next`]) and the calls an answer names ([`crate::render::call`]), each
//! worded by [`step_words`] from the command line's own definitions:
//!
//! - a call of an operation is the command that makes it (`mobilectl snapshot`, `mobilectl
//!   alert accept --button OK`, `mobilectl crashes c0123`); the schema is `mobilectl openapi`;
//! - a request field is the flag that sets it (`contains: true` → `--contains`, `udid` →
//!   `-d UDID`), or its target word (`role` → `role:ROLE`);
//! - a request example is its words (`{"ref": "e12"}` → `@e12`, `{"avd": "Pixel_7"}` →
//!   `--avd Pixel_7`), or its whole command line when it names its operation (`mobilectl
//!   location 48.8584 2.2945`).
//!
//! What has no CLI form is said as the server says it (JSON); a hint without `next` is
//! printed as written.

use clap::{Arg, Command};
use serde_json::{Map, Value};

use super::target;
use crate::error::{next::json_words, Next, Step};

/// The hint to print: `next` in CLI terms when the server sent it, else the hint as written.
pub fn to_cli(hint: Option<&str>, next: Option<&Next>) -> Option<String> {
    match next {
        Some(n) => Some(n.render(step_words)),
        None => hint.map(str::to_string),
    }
}

/// A step as the command, flag or words that do it, in backticks.
pub fn step_words(step: &Step) -> String {
    let cli = super::command();
    let said = match step {
        Step::Call { op, args } => command(&cli, op, args, true).or_else(|| Some(call(op, args))),
        Step::Field { op, name, value } => {
            let at = op.as_deref().map(|op| command_of(&cli, op));
            flag(&cli, at, name, value.as_ref())
        }
        Step::Example { op: Some(op), args } => command(&cli, op, args, false),
        Step::Example { op: None, args } => words(&cli, args),
        Step::Schema => Some("mobilectl openapi".to_string()),
    };
    match said {
        Some(s) => format!("`{s}`"),
        None => json_words(step).unwrap_or_default(),
    }
}

/// The command line that calls `op` with `args`: the usage's words, its `NAME`s from the
/// arguments so named (its `TARGET` or `SELECTOR` from the target's fields), the other
/// arguments as the command's flags; a required `NAME` not given stays `NAME` when
/// `placeholders`. `mobilectl call OP k=v…` for an operation without a command of its own;
/// `None` when an argument has no CLI form.
fn command(
    cli: &Command,
    op: &str,
    args: &Map<String, Value>,
    placeholders: bool,
) -> Option<String> {
    let mut args = args.clone();
    let usage = crate::api::find(op).map(|o| o.cli.usage).unwrap_or("");
    if usage.is_empty() {
        return Some(call(op, &args));
    }
    let at = command_of(cli, op);
    let mut line = vec!["mobilectl".to_string()];
    for u in usage.split_whitespace() {
        let optional = u.starts_with('[');
        let name = u.trim_start_matches('[').trim_end_matches(']');
        if !is_name(name) {
            line.push(u.to_string());
            continue;
        }
        if let Some(v) = args.remove(&name.to_ascii_lowercase()) {
            line.push(word(&text_of(&v)));
            continue;
        }
        let aims = ["ref", "x", "selector"]
            .iter()
            .any(|k| args.contains_key(*k));
        if matches!(name, "TARGET" | "SELECTOR") && aims {
            line.push(take_target(&mut args)?);
        } else if !optional && placeholders {
            line.push(name.to_string());
        }
    }
    for (k, v) in &args {
        line.push(flag(cli, Some(at), k, Some(v))?);
    }
    Some(line.join(" "))
}

/// `mobilectl call OP k=v…`: any operation with any arguments, as the `call` command takes
/// them.
fn call(op: &str, args: &Map<String, Value>) -> String {
    let mut line = vec![format!("mobilectl call {op}")];
    line.extend(
        args.iter()
            .map(|(k, v)| format!("{k}={}", word(&text_of(v)))),
    );
    line.join(" ")
}

/// Whether a word of a usage is a `NAME` (a field's place), not a command's word.
fn is_name(w: &str) -> bool {
    w.chars().all(|c| c.is_ascii_uppercase() || c == '_')
}

/// The command of operation `op`: the command line walked down by its usage's words (as far
/// as they are commands).
fn command_of<'c>(cli: &'c Command, op: &str) -> &'c Command {
    let usage = crate::api::find(op).map(|o| o.cli.usage).unwrap_or("");
    let mut at = cli;
    for w in usage
        .split_whitespace()
        .take_while(|w| !is_name(w.trim_matches(['[', ']'])))
    {
        match at.find_subcommand(w) {
            Some(sub) => at = sub,
            None => break,
        }
    }
    at
}

/// An example's arguments as words: its target's word, then a flag for each other field.
fn words(cli: &Command, args: &Map<String, Value>) -> Option<String> {
    let mut args = args.clone();
    let mut line = Vec::new();
    if target::word_of(&args).is_some() {
        line.push(take_target(&mut args)?);
    }
    for (k, v) in &args {
        line.push(flag(cli, None, k, Some(v))?);
    }
    Some(line.join(" "))
}

/// The target word of `args`, taking the fields it says out of them.
fn take_target(args: &mut Map<String, Value>) -> Option<String> {
    let w = target::word_of(args)?;
    let said: &[&str] = if args.contains_key("ref") {
        &["ref"]
    } else if args.contains_key("x") {
        &["x", "y"]
    } else if args.contains_key("selector") {
        &["selector"]
    } else {
        &["text", "label", "id", "role", "contains"]
    };
    for k in said {
        args.remove(*k);
    }
    Some(w)
}

/// The flag that sets the request field `name` (to `value`, when given), as the command line
/// defines it: an option of the operation's command `at`, else a target's word
/// (`role:ROLE`), else a global option (`-d` for `udid`), else (no operation said) the first
/// command that has it. `None` when none has it, or a switch's value is not `true`.
fn flag(cli: &Command, at: Option<&Command>, name: &str, value: Option<&Value>) -> Option<String> {
    let arg = match at.and_then(|c| option(c, name)) {
        Some(a) => a,
        None => match target::field_word(name, value) {
            Some(w) => return Some(w),
            None => option(cli, name).or_else(|| match at {
                Some(_) => None,
                None => anywhere(cli, name),
            })?,
        },
    };
    let flag = match (arg.get_short(), arg.get_long()) {
        (Some(s), _) if arg.is_global_set() => format!("-{s}"),
        (_, Some(l)) => format!("--{l}"),
        (Some(s), None) => format!("-{s}"),
        (None, None) => return None,
    };
    match (arg.get_action().takes_values(), value) {
        (false, None | Some(Value::Bool(true))) => Some(flag),
        (false, Some(_)) => None,
        (true, Some(v)) => Some(format!("{flag} {}", word(&text_of(v)))),
        (true, None) => {
            let shown = arg
                .get_value_names()
                .and_then(|n| n.first())
                .map_or_else(|| name.to_ascii_uppercase(), |n| n.to_string());
            Some(format!("{flag} {shown}"))
        }
    }
}

/// The option (a flag, not a positional) of `cmd` that sets field `name`: a hand-written
/// one of that id, or a derived one ([`super::derived::field_id`]).
fn option<'c>(cmd: &'c Command, name: &str) -> Option<&'c Arg> {
    let derived = super::derived::field_id(name);
    cmd.get_arguments().find(|a| {
        (a.get_id() == name || a.get_id() == derived.as_str())
            && (a.get_long().is_some() || a.get_short().is_some())
    })
}

/// The first option setting field `name` among `cmd`'s commands, depth first.
fn anywhere<'c>(cmd: &'c Command, name: &str) -> Option<&'c Arg> {
    cmd.get_subcommands()
        .find_map(|c| option(c, name).or_else(|| anywhere(c, name)))
}

/// A JSON value as a word's text: a string as it is, anything else as JSON.
fn text_of(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// A word for the shell: quoted when it holds spaces or quotes.
fn word(v: &str) -> String {
    if v.contains('"') && !v.contains('\'') {
        format!("'{v}'")
    } else if v.is_empty()
        || v.contains(|c: char| c.is_whitespace() || "\"'$`\\;&|<>()#{}".contains(c))
    {
        format!("{v:?}")
    } else {
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Next, Op, Step};
    use serde_json::json;

    fn said(say: &str, steps: Vec<Step>) -> String {
        let next = Next {
            say: say.into(),
            steps,
        };
        super::to_cli(Some("the HTTP words"), Some(&next)).unwrap()
    }

    #[test]
    fn steps_become_commands() {
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
        assert_eq!(
            super::to_cli(Some("see /tmp/x.log"), None).as_deref(),
            Some("see /tmp/x.log")
        );
        assert_eq!(super::to_cli(None, None), None);
    }

    #[test]
    fn fields_become_the_flags_the_command_line_defines() {
        assert_eq!(
            said(
                "try {0}, or scroll-to",
                vec![Step::field_is("contains", true)]
            ),
            "try `--contains`, or scroll-to"
        );
        assert_eq!(
            said("pass {0}, or choose one", vec![Step::field("udid")]),
            "pass `-d UDID`, or choose one"
        );
        assert_eq!(
            said(
                "add {0}, {1} or {2} to the selector",
                vec![Step::field("index"), Step::field("role"), Step::field("id")]
            ),
            "add `--index INDEX`, `role:ROLE` or `id:ID` to the selector"
        );
        // The CLI's spelling, not the field's.
        assert_eq!(
            said("{0}", vec![Step::field_is("case_insensitive", true)]),
            "`--ignore-case`"
        );
        assert_eq!(
            said("more {0}", vec![Step::field("max_scrolls")]),
            "more `--max-scrolls MAX_SCROLLS`"
        );
        // No CLI form: as the server says it.
        assert_eq!(
            said(
                "{0} and {1}",
                vec![Step::field_is("contains", false), Step::field("frobnicate")]
            ),
            "`contains: false` and `frobnicate`"
        );
    }

    #[test]
    fn examples_become_targets_flags_or_command_lines() {
        assert_eq!(
            said(
                "e.g. {0} or {1} or {2}",
                vec![
                    Step::example(json!({"ref": "e12"})),
                    Step::example(json!({"x": 120, "y": 540})),
                    Step::example(json!({"selector": {"text": "Sign in"}})),
                ]
            ),
            r#"e.g. `@e12` or `120,540` or `text:"Sign in"`"#
        );
        assert_eq!(
            said(
                "e.g. {0} or {1}",
                vec![
                    Step::example(json!({"udid": "iPhone 15"})),
                    Step::example(json!({"avd": "Pixel_7_API_34"})),
                ]
            ),
            r#"e.g. `-d "iPhone 15"` or `--avd Pixel_7_API_34`"#
        );
        // Naming its operation, the whole command line (positionals by the usage).
        assert_eq!(
            said(
                "e.g. {0}",
                vec![Step::example_of(Op::Boot, json!({"avd": "Pixel_7_API_34"}))]
            ),
            "e.g. `mobilectl boot --avd Pixel_7_API_34`"
        );
        // A field without a CLI form leaves the example as JSON.
        assert_eq!(
            said("send {0}", vec![Step::example(json!({"frobnicate": 1}))]),
            r#"send {"frobnicate": 1}"#
        );
    }

    #[test]
    fn an_answer_names_its_calls_as_commands() {
        let crashed = json!({"action_type": "tap", "success": false, "target": {"ref": "e3"},
            "failure_code": "APP_CRASHED", "details": {"crash": {"id": "c0123"}}});
        assert_eq!(
            crate::render::text_in(step_words, "tap", &crashed),
            "tap e3 FAILED APP_CRASHED (`mobilectl crashes c0123`)"
        );
        let page = json!({"udid": "x", "entries": [], "cursor": "a-9", "more": true});
        let t = crate::render::text_in(step_words, "tail_logs", &page);
        assert!(t.ends_with("-- more: `mobilectl logs --since a-9`"), "{t}");
        // The voice is the renderer's for that call only.
        assert_eq!(
            crate::render::text("tap", &crashed),
            "tap e3 FAILED APP_CRASHED (`get_crash id=c0123`)"
        );
    }
}
