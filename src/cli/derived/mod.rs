//! The subcommands made from the operation table at run time: every operation whose command
//! (the words of its [`crate::api::CliForm`] usage, `app install PATH`) is not one of the
//! hand-written commands gets a clap command from its entry — the usage's `NAME`s (`[NAME]`
//! optional) as positionals of the fields so named, its other input fields as flags
//! (`--kebab-case`; booleans as switches, arrays repeated, enums checked; `--limit` also
//! `-n`), its summary and the fields' descriptions as help, `-o FILE` when it answers bytes —
//! and its request is read back from the matches. Operations with the same words are one
//! command whose form picks the operation: a switch of the usage (`logs --follow`, also `-f`)
//! or a positional only one of them takes (`crashes ID`). Hand-written commands
//! ([`super::commands`]) are the ones with a grammar of their own (targets, selectors,
//! special bodies, files).

mod form;
mod group;

use clap::{ArgMatches, Command};

use super::call::Fields;
use super::plan::Request;
use crate::api::Operation;
pub(crate) use form::id as field_id;
pub use form::Form;
use group::Group;

/// The derived forms of `ops` whose command `handwritten` does not have already.
pub fn forms(handwritten: &Command, ops: &[Operation]) -> Vec<Form> {
    ops.iter()
        .filter_map(Form::of)
        .filter(|f| !has_path(handwritten, &f.words))
        .collect()
}

/// `cmd` with the derived commands of the table added (groups made as needed), and the
/// commands of the table listed in its order.
pub fn augment(cmd: Command) -> Command {
    let ops = crate::api::operations();
    let forms = forms(&cmd, ops);
    let mut cmd = cmd;
    for g in Group::all(&forms) {
        cmd = insert(cmd, g.words(), g.command());
    }
    in_table_order(cmd, ops, 0).mut_subcommands(described_group)
}

/// A group made for derived commands (`clipboard`, `record`) described by its commands'
/// summaries, each up to its first aside: `Read the clipboard; set the clipboard's text`.
/// A command with an `about` of its own keeps it.
fn described_group(group: Command) -> Command {
    if group.get_about().is_some() || !group.has_subcommands() {
        return group;
    }
    let parts: Vec<String> = group
        .get_subcommands()
        .filter_map(|c| c.get_about().map(|a| a.to_string()))
        .enumerate()
        .map(|(i, about)| {
            let head = about
                .split(" (")
                .next()
                .and_then(|a| a.split("; ").next())
                .unwrap_or_default();
            let mut chars = head.chars();
            match (i, chars.next(), chars.clone().next()) {
                (1.., Some(first), Some(second)) if second.is_lowercase() => {
                    first.to_lowercase().chain(chars).collect()
                }
                _ => head.to_string(),
            }
        })
        .collect();
    group.about(parts.join("; "))
}

/// Orders the subcommands of `cmd` (at word `depth` of the usages) as the table lists their
/// operations, after the commands that are not the table's and before `call`.
fn in_table_order(cmd: Command, ops: &[Operation], depth: usize) -> Command {
    const FIRST: usize = 100;
    cmd.mut_subcommands(|c| {
        let name = c.get_name().to_string();
        let at = ops
            .iter()
            .position(|o| o.cli.usage.split_whitespace().nth(depth) == Some(name.as_str()));
        let c = match (at, name.as_str()) {
            (Some(i), _) => c.display_order(FIRST + i),
            (None, "call") => c.display_order(FIRST + ops.len()),
            _ => c,
        };
        match depth {
            0 => in_table_order(c, ops, 1),
            _ => c,
        }
    })
}

/// The request of the derived command `m` (the whole line's matches) names, if it is one.
pub fn request(m: &ArgMatches, udid: &Option<String>) -> Option<Result<Request, clap::Error>> {
    let mut words = Vec::new();
    let mut leaf = m;
    while let Some((name, sub)) = leaf.subcommand() {
        words.push(name.to_string());
        leaf = sub;
    }
    let ops = crate::api::operations();
    let handwritten = <super::Cli as clap::CommandFactory>::command();
    let forms = forms(&handwritten, ops);
    let groups = Group::all(&forms);
    let group = groups.iter().find(|g| g.words().iter().eq(words.iter()))?;
    Some(group.request(leaf, udid))
}

/// Puts `leaf` under the groups `words[..len-1]` of `cmd`, making the missing ones.
fn insert(cmd: Command, words: &[&'static str], leaf: Command) -> Command {
    match words {
        [] | [_] => cmd.subcommand(leaf),
        [group, rest @ ..] => {
            let cmd = if cmd.find_subcommand(group).is_some() {
                cmd
            } else {
                cmd.subcommand(Command::new(*group).subcommand_required(true))
            };
            cmd.mut_subcommand(group, |g| insert(g, rest, leaf))
        }
    }
}

/// Whether `cmd` has the command `words`, or one of its first words as a command of its own
/// (`permission` takes `grant` as an argument).
fn has_path(cmd: &Command, words: &[&str]) -> bool {
    match words {
        [] => true,
        [w, rest @ ..] => cmd
            .find_subcommand(w)
            .is_some_and(|c| !c.has_subcommands() || has_path(c, rest)),
    }
}

/// A parser accepting the values the input field `field` of operation `op` takes (an enum of
/// the API): how a hand-written flag checks a word without a CLI copy of the wire enum.
pub fn values(op: &str, field: &str) -> clap::builder::PossibleValuesParser {
    let names: Vec<String> = crate::api::find(op)
        .map(|o| Fields::of(o).properties()[field]["enum"].clone())
        .and_then(|e| e.as_array().cloned())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    clap::builder::PossibleValuesParser::new(names)
}

/// A parser accepting the values of the wire enum `T` (its schema's `enum`), listed in the
/// help: how a hand-written flag takes a platform or a device kind without a CLI copy.
pub fn enum_of<T: utoipa::PartialSchema>() -> clap::builder::PossibleValuesParser {
    let schema = serde_json::to_value(T::schema()).unwrap_or_default();
    let names: Vec<String> = schema["enum"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    clap::builder::PossibleValuesParser::new(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn a_new_entry_is_a_command_without_cli_code() {
        let mut op = crate::api::entry(crate::error::Op::Find).clone();
        op.cli.usage = "look-up QUERY";
        let form = Form::of(&op).unwrap();
        let group = Group(vec![&form]);
        let cmd = insert(Command::new("mobilectl"), &form.words, group.command());
        let m = cmd
            .try_get_matches_from(["mobilectl", "look-up", "log in", "-n", "3"])
            .unwrap();
        let (_, leaf) = m.subcommand().unwrap();
        let r = group.request(leaf, &Some("emu".into())).unwrap();
        assert_eq!(r.op, "find");
        assert_eq!(
            Value::Object(r.args),
            json!({"query": "log in", "limit": 3, "udid": "emu"})
        );
        // In a group, made as needed.
        op.cli.usage = "ui look-up QUERY";
        let form = Form::of(&op).unwrap();
        let cmd = insert(
            Command::new("mobilectl"),
            &form.words,
            Group(vec![&form]).command(),
        );
        cmd.clone().debug_assert();
        assert!(has_path(&cmd, &["ui", "look-up"]));
    }

    #[test]
    fn every_command_and_group_says_what_it_does() {
        fn walk(cmd: &Command, path: &str, missing: &mut Vec<String>) {
            for c in cmd.get_subcommands() {
                let path = format!("{path} {}", c.get_name());
                if c.get_about()
                    .is_none_or(|a| a.to_string().trim().is_empty())
                {
                    missing.push(path.clone());
                }
                walk(c, &path, missing);
            }
        }
        let mut missing = Vec::new();
        walk(&crate::cli::command(), "mobilectl", &mut missing);
        assert!(missing.is_empty(), "no help line: {missing:?}");
        let clipboard = crate::cli::command();
        let clipboard = clipboard.find_subcommand("clipboard").unwrap();
        assert_eq!(
            clipboard.get_about().map(|a| a.to_string()).as_deref(),
            Some("Read the clipboard; set the clipboard's text")
        );
    }

    /// The operation and arguments the derived command line `args` makes, or its error.
    fn derived(args: &[&str]) -> Result<(&'static str, Value), String> {
        let line = std::iter::once("mobilectl").chain(args.iter().copied());
        let m = augment(<super::super::Cli as clap::CommandFactory>::command())
            .try_get_matches_from(line)
            .map_err(|e| e.to_string())?;
        let r = request(&m, &None).expect("a derived command");
        r.map(|r| (r.op, Value::Object(r.args)))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn operations_with_the_same_words_are_one_command() {
        // A switch of the usage picks its operation; `--follow` is also `-f`.
        assert_eq!(
            derived(&["logs", "--level", "W"]),
            Ok(("tail_logs", json!({"level": "W"})))
        );
        assert_eq!(
            derived(&["logs", "-f", "-n", "1", "--tag", "App"]),
            Ok(("stream_logs", json!({"limit": 1, "tag": "App"})))
        );
        assert_eq!(
            derived(&["proxy", "flows", "--follow", "--since", "0"]).map(|r| r.0),
            Ok("stream_flows")
        );
        // A positional only one of them takes picks that one.
        assert_eq!(
            derived(&["crashes", "--since", "1h"]),
            Ok(("list_crashes", json!({"since": "1h"})))
        );
        assert_eq!(
            derived(&["crashes", "c0123"]),
            Ok(("get_crash", json!({"id": "c0123"})))
        );
        // An argument of the other form only says what it goes with.
        let e = derived(&["crashes", "c0123", "--since", "1h"]).unwrap_err();
        assert!(e.contains("`--since` does not go with ID"), "{e}");
        let e = derived(&["logs", "--last-event-id", "9", "--since", "1m"]).map(|r| r.0);
        assert_eq!(e, Ok("tail_logs"), "both forms take them");
        // A flag of a form whose positional is missing says so.
        let (mut plain, mut with_query) = (
            crate::api::entry(crate::error::Op::Health).clone(),
            crate::api::entry(crate::error::Op::Find).clone(),
        );
        (plain.cli.usage, with_query.cli.usage) = ("look", "look QUERY");
        let forms = [Form::of(&plain).unwrap(), Form::of(&with_query).unwrap()];
        let group = Group(forms.iter().collect());
        let m = group
            .command()
            .try_get_matches_from(["look", "--limit", "3"])
            .unwrap();
        let e = group.request(&m, &None).unwrap_err().to_string();
        assert!(e.contains("`--limit` needs QUERY"), "{e}");
        let m = group
            .command()
            .try_get_matches_from(["look", "log in", "-n", "3"])
            .unwrap();
        assert_eq!(group.request(&m, &None).unwrap().op, "find");
    }

    #[test]
    fn usages_with_a_grammar_are_not_derived() {
        let handwritten = <super::super::Cli as clap::CommandFactory>::command();
        let forms = forms(&handwritten, crate::api::operations());
        for name in ["tap", "type_text", "screenshot_annotated", "flow_run"] {
            assert!(!forms.iter().any(|f| f.op == name), "{name}");
        }
    }

    #[test]
    fn the_enums_hand_written_flags_take_are_the_schemas() {
        for (op, field) in [
            ("swipe", "direction"),
            ("scroll", "direction"),
            ("scroll_to", "direction"),
            ("wait", "condition"),
            ("screenshot", "format"),
            ("snapshot", "format"),
            ("get_flow", "body"),
        ] {
            use clap::builder::TypedValueParser;
            let names: Vec<String> = values(op, field)
                .possible_values()
                .into_iter()
                .flatten()
                .map(|v| v.get_name().to_string())
                .collect();
            assert!(names.len() >= 2, "{op}.{field}: {names:?}");
        }
        use clap::builder::TypedValueParser;
        let names = |p: clap::builder::PossibleValuesParser| -> Vec<String> {
            let values = p.possible_values().into_iter().flatten();
            values.map(|v| v.get_name().to_string()).collect()
        };
        assert_eq!(
            names(enum_of::<crate::device::Platform>()),
            ["android", "ios"]
        );
        assert_eq!(
            names(enum_of::<crate::device::DeviceKind>()).len(),
            3,
            "emulator, simulator, device"
        );
    }

    #[test]
    fn the_augmented_command_line_is_consistent() {
        augment(<super::super::Cli as clap::CommandFactory>::command()).debug_assert();
    }
}
