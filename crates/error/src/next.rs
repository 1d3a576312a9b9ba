//! What to do next, as a value: advice whose `{0}`, `{1}`… stand for its [`Step`]s (call an
//! operation with these arguments; set a request field; send a request like this example;
//! read the API's schema), so that each front end words the steps its own way — the HTTP
//! `hint` names routes (`GET /api/v1/device/ui`) and writes fields and examples as JSON
//! (`` `contains: true` ``, `{"ref": "e12"}`), the CLI its commands, flags and target words
//! (`--contains`, `@e12`), MCP its tools and their arguments — and none parses a sentence
//! back. An operation is named by an [`Op`](crate::Op).

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::Op;

/// One thing to do next. (Described in the API schema by [`Next::steps`]'s description: an
/// inline `oneOf` of objects trips OpenAPI client generators.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Step {
    /// Call operation `op` (its name in the table of operations), with `args` (the arguments
    /// that matter; the others as the caller chooses).
    Call {
        /// The operation's name.
        op: String,
        /// Its arguments (path, query or body fields by name).
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        args: Map<String, Value>,
    },
    /// Set the request field `name` (of operation `op` when the advice knows which; else of
    /// the request that failed), to `value` when it matters: `` `contains: true` ``,
    /// `` `udid` ``.
    Field {
        /// The operation whose field it is, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op: Option<String>,
        /// The field's name as the API spells it.
        name: String,
        /// The value to give it, when the advice names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<Value>,
    },
    /// A request like this one: `args` are an example of the arguments (of operation `op`,
    /// when the advice knows which; else of the request that failed).
    Example {
        /// The operation the example calls, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op: Option<String>,
        /// The example's arguments (path, query or body fields by name).
        args: Map<String, Value>,
    },
    /// Read the API's schema (each operation's arguments).
    Schema,
}

impl Step {
    /// Call `op` without arguments.
    pub fn call(op: Op) -> Step {
        Step::call_with(op, Value::Null)
    }

    /// Call `op` with `args` (a JSON object; anything else is no arguments).
    pub fn call_with(op: Op, args: Value) -> Step {
        let args = object(args);
        Step::Call {
            op: op.name().to_string(),
            args,
        }
    }

    /// The request field `name`, no value said: `` `udid` ``.
    pub fn field(name: &str) -> Step {
        Step::Field {
            op: None,
            name: name.to_string(),
            value: None,
        }
    }

    /// The request field `name` set to `value`: `` `contains: true` ``.
    pub fn field_is(name: &str, value: impl Into<Value>) -> Step {
        Step::Field {
            op: None,
            name: name.to_string(),
            value: Some(value.into()),
        }
    }

    /// The field `name` of operation `op`, no value said.
    pub fn field_of(op: Op, name: &str) -> Step {
        Step::Field {
            op: Some(op.name().to_string()),
            name: name.to_string(),
            value: None,
        }
    }

    /// An example of the failed request's arguments (a JSON object; anything else is none).
    pub fn example(args: Value) -> Step {
        Step::Example {
            op: None,
            args: object(args),
        }
    }

    /// An example of a request of `op`, with arguments `args` (a JSON object).
    pub fn example_of(op: Op, args: Value) -> Step {
        Step::Example {
            op: Some(op.name().to_string()),
            args: object(args),
        }
    }
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// What to do next: the advice `say`, in which `{0}`, `{1}`… stand for `steps`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Next {
    /// The advice, with `{0}`, `{1}`… where each step goes.
    pub say: String,
    /// The steps, each worded by the front end that shows it: `{"kind": "call", "op": NAME,
    /// "args": {…}}` (call an operation), `{"kind": "field", "name": NAME, "value": …}` (set
    /// a request field; `op` when not the failed request's), `{"kind": "example", "args":
    /// {…}}` (a request like this; `op` when said) or `{"kind": "schema"}` (read the schema).
    #[schema(value_type = Vec<Object>)]
    pub steps: Vec<Step>,
}

impl Next {
    /// Advice `say` whose `{0}`, `{1}`… stand for `steps`.
    pub fn new(say: impl Into<String>, steps: impl IntoIterator<Item = Step>) -> Next {
        Next {
            say: say.into(),
            steps: steps.into_iter().collect(),
        }
    }

    /// Plain advice, naming no operation.
    pub fn plain(say: impl Into<String>) -> Next {
        Next::new(say, [])
    }

    /// `say` with each `{i}` replaced by what `word` makes of step `i`; a `{i}` without its
    /// step stays as written.
    pub fn render(&self, word: impl Fn(&Step) -> String) -> String {
        let mut out = String::new();
        let mut rest = self.say.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let digits = after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len());
            let step = (digits > 0 && after[digits..].starts_with('}'))
                .then(|| after[..digits].parse::<usize>().ok())
                .flatten()
                .and_then(|i| self.steps.get(i));
            match step {
                Some(s) => {
                    out.push_str(&word(s));
                    rest = &after[digits + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// The advice for HTTP callers: operations named by their routes.
    pub fn http(&self) -> String {
        self.render(http_words)
    }
}

/// How the product names an operation's route (`GET /api/v1/device/ui`; a `{name}` of its
/// path filled from the arguments), installed once by the server ([`name_routes`]).
type RouteNamer = fn(&str, &Map<String, Value>) -> Option<String>;

static ROUTES: OnceLock<RouteNamer> = OnceLock::new();

/// Lets the HTTP hint name routes: `f` gives an operation's route for its arguments. The
/// first call wins; without one, operations are named by their names.
pub fn name_routes(f: RouteNamer) {
    let _ = ROUTES.set(f);
}

/// A step in HTTP terms: an operation's route (its other arguments as the JSON to send), a
/// field and an example as JSON ([`json_words`]), the schema's route.
pub fn http_words(step: &Step) -> String {
    match step {
        Step::Call { op, args } => match ROUTES.get().and_then(|f| f(op, args)) {
            Some(route) => route,
            None => format!("`{op}`"),
        },
        Step::Schema => "GET /openapi.json or /docs".to_string(),
        other => json_words(other).unwrap_or_default(),
    }
}

/// A field or an example as a JSON request writes it (how HTTP and MCP, whose tools take the
/// same arguments, say them): `` `udid` ``, `` `contains: true` ``, `{"ref": "e12"}`.
pub fn json_words(step: &Step) -> Option<String> {
    match step {
        Step::Field {
            name, value: None, ..
        } => Some(format!("`{name}`")),
        Step::Field {
            name,
            value: Some(v),
            ..
        } => Some(format!("`{name}: {v}`")),
        Step::Example { args, .. } => Some(spaced(&Value::Object(args.clone()))),
        Step::Call { .. } | Step::Schema => None,
    }
}

/// JSON as a sentence writes it: a space after each `:` and `,` of an object.
fn spaced(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let fields: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), spaced(v)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(spaced).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_fill_their_places_and_other_braces_stay() {
        let next = Next {
            say: "read {0}, then {1}; e.g. {\"ref\": \"e1\"} or {9}".into(),
            steps: vec![Step::call(Op::Snapshot), Step::Schema],
        };
        let said = next.render(|s| match s {
            Step::Call { op, .. } => format!("<{op}>"),
            _ => "<schema>".into(),
        });
        assert_eq!(
            said,
            "read <snapshot>, then <schema>; e.g. {\"ref\": \"e1\"} or {9}"
        );
    }

    #[test]
    fn a_step_travels_as_json() {
        let step = Step::call_with(Op::AlertAccept, json!({"button": "Allow"}));
        let v = serde_json::to_value(&step).unwrap();
        assert_eq!(
            v,
            json!({"kind": "call", "op": "alert_accept", "args": {"button": "Allow"}})
        );
        assert_eq!(serde_json::from_value::<Step>(v).unwrap(), step);
        let bare = serde_json::to_value(Step::call(Op::Snapshot)).unwrap();
        assert_eq!(bare, json!({"kind": "call", "op": "snapshot"}));
        assert_eq!(
            serde_json::to_value(Step::Schema).unwrap(),
            json!({"kind": "schema"})
        );
    }

    #[test]
    fn fields_and_examples_are_said_as_json_requests_write_them() {
        let said = |s: Step| http_words(&s);
        assert_eq!(said(Step::field("udid")), "`udid`");
        assert_eq!(said(Step::field_is("contains", true)), "`contains: true`");
        assert_eq!(
            said(Step::example(
                json!({"selector": {"text": "Sign in"}, "x": [1, 2]})
            )),
            r#"{"selector": {"text": "Sign in"}, "x": [1, 2]}"#
        );
        let v = serde_json::to_value(Step::example_of(Op::Boot, json!({"avd": "P"}))).unwrap();
        assert_eq!(
            v,
            json!({"kind": "example", "op": "boot", "args": {"avd": "P"}})
        );
        assert_eq!(
            serde_json::to_value(Step::field("udid")).unwrap(),
            json!({"kind": "field", "name": "udid"})
        );
    }
}
