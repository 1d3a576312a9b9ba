//! One operation's derived command: [`Form::of`] reads the words, positionals (`NAME`,
//! `[NAME]`) and selecting switch (`--follow`) of its usage against its input fields, and
//! [`Form::request`] reads its request back from the matches; the helpers here turn a field's
//! schema into a clap argument and a word back into JSON.

use clap::{Arg, ArgMatches};
use serde_json::{json, Map, Value};

use crate::api::{Operation, Output};
use crate::cli::call::Fields;
use crate::cli::plan::Request;

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

/// One derived command: its operation, its words, and how its arguments map to fields.
#[derive(Debug, Clone)]
pub struct Form {
    /// The operation's name.
    pub op: &'static str,
    /// The operation's summary (the command's help, or its switch's).
    pub(super) summary: &'static str,
    /// The command's words (`["app", "install"]`).
    pub words: Vec<&'static str>,
    /// The switch that picks this operation among those with the same words (`follow`).
    pub(super) switch: Option<&'static str>,
    /// Positionals: (field, required), in order.
    pub(super) positionals: Vec<(String, bool)>,
    /// Flags: the fields, with their schemas.
    pub(super) flags: Vec<String>,
    /// The input schema's properties.
    pub(super) schemas: Map<String, Value>,
    /// `-o FILE` for an answer of bytes.
    pub(super) output: bool,
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
    pub(super) fn takes(&self, field: &str) -> bool {
        self.flags.iter().any(|f| f == field) || self.positionals.iter().any(|(p, _)| p == field)
    }

    /// The request its matches `m` (the leaf's) make; `udid` is the global `-d`.
    pub(super) fn request(&self, m: &ArgMatches, udid: &Option<String>) -> Request {
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

/// The argument id of a field (apart from the global options' ids).
pub(crate) fn id(field: &str) -> String {
    format!("field:{field}")
}

/// The argument id of a switch that picks an operation.
pub(super) fn switch_id(switch: &str) -> String {
    format!("switch:{switch}")
}

pub(super) fn kebab(field: &str) -> String {
    field.replace('_', "-")
}

/// `arg` taking a value of schema `s`: enums checked against their values, numbers parsed.
pub(super) fn typed(arg: Arg, s: &Value) -> Arg {
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
pub(super) fn value(s: &Value, v: &str) -> Value {
    match s.get("type").and_then(Value::as_str) {
        Some("string") => json!(v),
        _ => serde_json::from_str(v).unwrap_or_else(|_| json!(v)),
    }
}

/// `arg` with the value name and help of field `field` (schema `s`).
pub(super) fn described(arg: Arg, field: &str, s: &Value) -> Arg {
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
    fn a_field_of_any_value_takes_json_or_text() {
        assert_eq!(
            value(&json!({}), r#"{"error":"down"}"#),
            json!({"error": "down"})
        );
        assert_eq!(value(&json!({}), "down"), json!("down"));
        assert_eq!(value(&json!({"type": "string"}), "42"), json!("42"));
    }
}
