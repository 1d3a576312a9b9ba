//! What to do next, as a value: advice whose `{0}`, `{1}`… stand for its [`Step`]s (call an
//! operation with these arguments; read the API's schema), so that each front end words the
//! steps its own way — the HTTP `hint` names routes (`GET /api/v1/device/ui`), the CLI its
//! commands, MCP its tools — and none parses a sentence back. An operation is named by an
//! [`Op`](crate::Op).

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
        let args = match args {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        Step::Call {
            op: op.name().to_string(),
            args,
        }
    }
}

/// What to do next: the advice `say`, in which `{0}`, `{1}`… stand for `steps`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Next {
    /// The advice, with `{0}`, `{1}`… where each step goes.
    pub say: String,
    /// The steps, each worded by the front end that shows it: `{"kind": "call", "op": NAME,
    /// "args": {…}}` (call an operation) or `{"kind": "schema"}` (read the API's schema).
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

/// A step in HTTP terms: an operation's route (its other arguments as the JSON to send), the
/// schema's route.
pub fn http_words(step: &Step) -> String {
    match step {
        Step::Call { op, args } => match ROUTES.get().and_then(|f| f(op, args)) {
            Some(route) => route,
            None => format!("`{op}`"),
        },
        Step::Schema => "GET /openapi.json or /docs".to_string(),
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
            Step::Schema => "<schema>".into(),
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
}
