//! The derived command of operations that share their words: one clap command with the
//! positionals and flags of them all, and a switch per operation that has one; its matches
//! pick the operation ([`Group::request`]), and an argument of another operation only is a
//! usage error saying what it needs or does not go with.

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::Value;

use super::form::{described, id, kebab, switch_id, typed, Form};
use crate::cli::plan::Request;

/// Conventional short flags of fields, as other command-line tools have them.
const SHORTS: &[(&str, char)] = &[("limit", 'n')];

/// The forms of one command (same words), in table order; the first without a switch is its
/// plain form.
pub(super) struct Group<'a>(pub(super) Vec<&'a Form>);

impl<'a> Group<'a> {
    /// The forms grouped by their words, in table order.
    pub(super) fn all(forms: &'a [Form]) -> Vec<Group<'a>> {
        let mut groups: Vec<Group> = Vec::new();
        for f in forms {
            match groups.iter_mut().find(|g| g.words() == f.words.as_slice()) {
                Some(g) => g.0.push(f),
                None => groups.push(Group(vec![f])),
            }
        }
        groups
    }

    pub(super) fn words(&self) -> &[&'static str] {
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
    pub(super) fn command(&self) -> Command {
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
    pub(super) fn request(
        &self,
        m: &ArgMatches,
        udid: &Option<String>,
    ) -> Result<Request, clap::Error> {
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
