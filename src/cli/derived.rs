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

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{json, Map, Value};

use super::call::Fields;
use super::plan::Request;
use crate::api::{Operation, Output};

/// Long flags the client command line already has (global options, `-o`, help).
const TAKEN: &[&str] = &[
    "url",
    "token",
    "json",
    "no-autostart",
    "udid",
    "session",
    "output",
    "help",
    "version",
];

/// Conventional short flags of fields, as other command-line tools have them.
const SHORTS: &[(&str, char)] = &[("limit", 'n')];

/// One derived command: its operation, its words, and how its arguments map to fields.
#[derive(Debug, Clone)]
pub struct Form {
    /// The operation's name.
    pub op: &'static str,
    /// The operation's summary (the command's help, or its switch's).
    summary: &'static str,
    /// The command's words (`["app", "install"]`).
    pub words: Vec<&'static str>,
    /// The switch that picks this operation among those with the same words (`follow`).
    switch: Option<&'static str>,
    /// Positionals: (field, required), in order.
    positionals: Vec<(String, bool)>,
    /// Flags: the fields, with their schemas.
    flags: Vec<String>,
    /// The input schema's properties.
    schemas: Map<String, Value>,
    /// `-o FILE` for an answer of bytes.
    output: bool,
}

impl Form {
    /// The form of `op`, when its usage is plain words and `NAME`/`[NAME]` of its fields.
    pub fn of(op: &Operation) -> Option<Form> {
        let fields = Fields::of(op);
        let schemas = fields.properties().clone();
        let mut words = Vec::new();
        let mut positionals = Vec::new();
        let mut switch = None;
        for w in op.cli.usage.split_whitespace() {
            let (name, required) = match w.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
                Some(inner) => (inner, false),
                None => (w, true),
            };
            let long = w
                .strip_prefix("--")
                .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            if let (Some(s), false, None) = (long, words.is_empty(), switch) {
                switch = Some(s);
            } else if name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                let field = name.to_ascii_lowercase();
                schemas.get(&field)?;
                positionals.push((field, required));
            } else if positionals.is_empty()
                && switch.is_none()
                && required
                && name.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                && !name.starts_with('-')
            {
                words.push(w);
            } else {
                return None;
            }
        }
        if words.is_empty() {
            return None;
        }
        let flags = schemas
            .keys()
            .filter(|f| !positionals.iter().any(|(p, _)| p == *f))
            .filter(|f| !TAKEN.contains(&kebab(f).as_str()))
            .cloned()
            .collect();
        let output = matches!(
            op.output,
            Output::Image | Output::File(_) | Output::JsonOrBytes(_)
        );
        Some(Form {
            op: op.name,
            summary: op.summary,
            words,
            switch,
            positionals,
            flags,
            schemas,
            output,
        })
    }

    /// Whether it takes the field `field`.
    fn takes(&self, field: &str) -> bool {
        self.flags.iter().any(|f| f == field) || self.positionals.iter().any(|(p, _)| p == field)
    }

    /// The request its matches `m` (the leaf's) make; `udid` is the global `-d`.
    fn request(&self, m: &ArgMatches, udid: &Option<String>) -> Request {
        let mut args = Map::new();
        for (field, _) in &self.positionals {
            if let Some(v) = m.get_one::<String>(&id(field)) {
                args.insert(field.clone(), value(&self.schemas[field], v));
            }
        }
        for field in &self.flags {
            let s = &self.schemas[field];
            let v = match s.get("type").and_then(Value::as_str) {
                Some("boolean") => m.get_flag(&id(field)).then_some(json!(true)),
                Some("array") => m
                    .get_many::<String>(&id(field))
                    .map(|vs| Value::Array(vs.map(|v| value(&s["items"], v)).collect())),
                _ => m.get_one::<String>(&id(field)).map(|v| value(s, v)),
            };
            if let Some(v) = v {
                args.insert(field.clone(), v);
            }
        }
        if let (Some(u), true) = (udid, self.schemas.contains_key("udid")) {
            args.entry("udid").or_insert_with(|| json!(u));
        }
        let mut r = Request::new(self.op, Value::Object(args));
        if self.output {
            r.output = m.get_one::<String>("output").cloned();
        }
        r
    }
}

/// The derived forms of `ops` whose command `handwritten` does not have already.
pub fn forms(handwritten: &Command, ops: &[Operation]) -> Vec<Form> {
    ops.iter()
        .filter_map(Form::of)
        .filter(|f| !has_path(handwritten, &f.words))
        .collect()
}

/// The forms of one command (same words), in table order; the first without a switch is its
/// plain form.
struct Group<'a>(Vec<&'a Form>);

impl<'a> Group<'a> {
    /// The forms grouped by their words, in table order.
    fn all(forms: &'a [Form]) -> Vec<Group<'a>> {
        let mut groups: Vec<Group> = Vec::new();
        for f in forms {
            match groups.iter_mut().find(|g| g.words() == f.words.as_slice()) {
                Some(g) => g.0.push(f),
                None => groups.push(Group(vec![f])),
            }
        }
        groups
    }

    fn words(&self) -> &[&'static str] {
        &self.0[0].words
    }

    fn plain(&self) -> &'a Form {
        self.0
            .iter()
            .find(|f| f.switch.is_none())
            .unwrap_or(&self.0[0])
    }

    /// The fields of all its forms, once each, with their schemas.
    fn fields(&self) -> Vec<(&'a str, &'a Value)> {
        let mut out: Vec<(&str, &Value)> = Vec::new();
        for f in &self.0 {
            for p in f.positionals.iter().map(|(p, _)| p).chain(&f.flags) {
                if !out.iter().any(|(q, _)| q == p) {
                    out.push((p.as_str(), &f.schemas[p]));
                }
            }
        }
        out
    }

    /// Its clap command (the last word): the plain form's summary as `about`, the positionals
    /// of every form (required where every form requires them), every form's flags, and a
    /// switch per form that has one (its operation's summary as help).
    fn command(&self) -> Command {
        let leaf = self.words().last().copied().unwrap_or_default();
        let plain = self.plain();
        let mut c = Command::new(leaf).about(plain.summary.trim_end_matches('.'));
        let mut shorts: Vec<char> = vec!['h', 'V', 'd', 'o'];
        let positional = |field: &str| self.is_positional(field);
        let fields = self.fields();
        // `location 48.85 -2.35`: a number given as a positional may be negative.
        let numeric = |s: &Value| {
            matches!(
                s.get("type").and_then(Value::as_str),
                Some("number" | "integer")
            )
        };
        if fields.iter().any(|(f, s)| positional(f) && numeric(s)) {
            c = c.allow_negative_numbers(true);
        }
        for (field, s) in fields.iter().filter(|(f, _)| positional(f)) {
            let required = self.0.iter().all(|f| {
                f.positionals
                    .iter()
                    .any(|(p, required)| p == field && *required)
            });
            c = c.arg(described(typed(Arg::new(id(field)), s), field, s).required(required));
        }
        for (field, s) in fields.iter().filter(|(f, _)| !positional(f)) {
            let mut arg = Arg::new(id(field)).long(kebab(field));
            if let Some(&(_, short)) = SHORTS.iter().find(|(f, _)| f == field) {
                shorts.push(short);
                arg = arg.short(short);
            }
            let arg = match s.get("type").and_then(Value::as_str) {
                Some("boolean") => arg.action(ArgAction::SetTrue),
                Some("array") => typed(arg, &s["items"]).action(ArgAction::Append),
                _ => typed(arg, s),
            };
            c = c.arg(described(arg, field, s));
        }
        for f in &self.0 {
            let Some(switch) = f.switch else { continue };
            let mut arg = Arg::new(switch_id(switch))
                .long(switch)
                .action(ArgAction::SetTrue)
                .help(f.summary.trim_end_matches('.'));
            // `--follow` is also `-f`, unless that letter is taken.
            if let Some(short) = switch.chars().next().filter(|c| !shorts.contains(c)) {
                shorts.push(short);
                arg = arg.short(short);
            }
            c = c.arg(arg);
        }
        if self.0.iter().any(|f| f.output) {
            c = c.arg(
                Arg::new("output")
                    .short('o')
                    .long("output")
                    .value_name("FILE")
                    .help("Where the answer's bytes go (`-`: stdout)."),
            );
        }
        c
    }

    /// The request of the matches `m` (the leaf's): the form whose switch is given, else the
    /// one with the most positionals that are all given. An argument of another form only is
    /// an error naming what it goes with.
    fn request(&self, m: &ArgMatches, udid: &Option<String>) -> Result<Request, clap::Error> {
        let given = |field: &str| m.value_source(&id(field)) == Some(ValueSource::CommandLine);
        let switched = self
            .0
            .iter()
            .find(|f| f.switch.is_some_and(|s| m.get_flag(&switch_id(s))));
        let by_positionals = || {
            self.0
                .iter()
                .filter(|f| f.switch.is_none())
                .filter(|f| f.positionals.iter().all(|(p, req)| !req || given(p)))
                .max_by_key(|f| f.positionals.len())
        };
        let chosen = switched
            .or_else(by_positionals)
            .copied()
            .unwrap_or(self.plain());
        match self
            .fields()
            .into_iter()
            .find(|(f, _)| given(f) && !chosen.takes(f))
        {
            Some((field, _)) => Err(clap::Error::raw(
                ErrorKind::ArgumentConflict,
                format!("{}\n", self.misplaced(field, chosen, &given)),
            )),
            None => Ok(chosen.request(m, udid)),
        }
    }

    fn is_positional(&self, field: &str) -> bool {
        self.0
            .iter()
            .any(|f| f.positionals.iter().any(|(p, _)| p == field))
    }

    /// Why `field`, given, is not one of the `chosen` form's: what the form that takes it
    /// needs, or what the chosen one was picked by.
    fn misplaced(&self, field: &str, chosen: &Form, given: &dyn Fn(&str) -> bool) -> String {
        let arg = match self.is_positional(field) {
            true => field.to_ascii_uppercase(),
            false => format!("--{}", kebab(field)),
        };
        let names = |ps: Vec<&String>| {
            let names: Vec<String> = ps.iter().map(|p| p.to_ascii_uppercase()).collect();
            names.join(" ")
        };
        let other = self.0.iter().find(|f| f.takes(field));
        let missing: Vec<&String> = other
            .map(|f| {
                f.positionals
                    .iter()
                    .filter(|(p, req)| *req && !given(p))
                    .map(|(p, _)| p)
                    .collect()
            })
            .unwrap_or_default();
        match (other.and_then(|f| f.switch), chosen.switch) {
            (Some(s), _) => format!("`{arg}` needs `--{s}`"),
            _ if !missing.is_empty() => format!("`{arg}` needs {}", names(missing)),
            (None, Some(s)) => format!("`{arg}` does not go with `--{s}`"),
            (None, None) => format!(
                "`{arg}` does not go with {}",
                names(chosen.positionals.iter().map(|(p, _)| p).collect())
            ),
        }
    }
}

/// `cmd` with the derived commands of the table added (groups made as needed), and the
/// commands of the table listed in its order.
pub fn augment(cmd: Command) -> Command {
    let ops = crate::api::operations();
    let forms = forms(&cmd, &ops);
    let mut cmd = cmd;
    for g in Group::all(&forms) {
        cmd = insert(cmd, g.words(), g.command());
    }
    in_table_order(cmd, &ops, 0)
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
    let forms = forms(&handwritten, &ops);
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
        .map(|o| Fields::of(&o).properties()[field]["enum"].clone())
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

/// The argument id of a field (apart from the global options' ids).
fn id(field: &str) -> String {
    format!("field:{field}")
}

/// The argument id of a switch that picks an operation.
fn switch_id(switch: &str) -> String {
    format!("switch:{switch}")
}

fn kebab(field: &str) -> String {
    field.replace('_', "-")
}

/// `arg` taking a value of schema `s`: enums checked against their values, numbers parsed.
fn typed(arg: Arg, s: &Value) -> Arg {
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = values
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        return arg.value_parser(clap::builder::PossibleValuesParser::new(names));
    }
    // The word is kept as typed (and sent as JSON by [`value`]) once it parses as a `T`.
    fn parses<T: std::str::FromStr>(v: &str) -> Result<String, String>
    where
        T::Err: std::fmt::Display,
    {
        v.parse::<T>()
            .map(|_| v.to_string())
            .map_err(|e| e.to_string())
    }
    match s.get("type").and_then(Value::as_str) {
        Some("integer") => arg.value_parser(parses::<i64>),
        Some("number") => arg.value_parser(parses::<f64>),
        _ => arg,
    }
}

/// A flag's text as the JSON of schema `s`: numbers and objects parsed (and any JSON for a
/// field that takes any value, `body_json`), else a string.
fn value(s: &Value, v: &str) -> Value {
    match s.get("type").and_then(Value::as_str) {
        Some("string") => json!(v),
        _ => serde_json::from_str(v).unwrap_or_else(|_| json!(v)),
    }
}

/// `arg` with the value name and help of field `field` (schema `s`).
fn described(arg: Arg, field: &str, s: &Value) -> Arg {
    let arg = match arg.get_action().takes_values() {
        true => arg.value_name(field.to_ascii_uppercase()),
        false => arg,
    };
    match s.get("description").and_then(Value::as_str) {
        Some(d) => arg.help(d.to_string()),
        None => arg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_entry_is_a_command_without_cli_code() {
        let mut op = crate::api::find("find").unwrap();
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
            crate::api::find("health").unwrap(),
            crate::api::find("find").unwrap(),
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
        let forms = forms(&handwritten, &crate::api::operations());
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
    fn a_field_of_any_value_takes_json_or_text() {
        assert_eq!(
            value(&json!({}), r#"{"error":"down"}"#),
            json!({"error": "down"})
        );
        assert_eq!(value(&json!({}), "down"), json!("down"));
        assert_eq!(value(&json!({"type": "string"}), "42"), json!("42"));
    }

    #[test]
    fn the_augmented_command_line_is_consistent() {
        augment(<super::super::Cli as clap::CommandFactory>::command()).debug_assert();
    }
}
