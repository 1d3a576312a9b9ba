//! The table's side of hints as data ([`crate::error::Next`]): an operation's route for the
//! HTTP hint ([`route`], installed by the server with [`install`]); the test that every
//! operation a hint may name ([`crate::error::Op`]) is in the table.

use serde_json::{Map, Value};

/// `METHOD /path` of operation `op`, each `{name}` of its path filled from `args`, the other
/// arguments as the JSON to send (`with {"button": "…"}`); `None` for no such operation.
pub fn route(op: &str, args: &Map<String, Value>) -> Option<String> {
    let o = super::find(op)?;
    let mut path = o.path.to_string();
    let mut rest = Map::new();
    for (k, v) in args {
        let slot = format!("{{{k}}}");
        match (path.contains(&slot), v.as_str()) {
            (true, Some(s)) => path = path.replace(&slot, s),
            (true, None) => path = path.replace(&slot, &v.to_string()),
            (false, _) => {
                rest.insert(k.clone(), v.clone());
            }
        }
    }
    let mut said = format!("{} {path}", o.method.as_str());
    if !rest.is_empty() {
        said.push_str(&format!(" with {}", Value::Object(rest)));
    }
    Some(said)
}

/// Lets errors name routes in their HTTP hint (once per process; the server calls it).
pub fn install() {
    crate::error::next::name_routes(route);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Next, Op, Step};
    use serde_json::json;

    #[test]
    fn every_operation_a_hint_may_name_is_in_the_table() {
        for op in Op::ALL {
            assert!(super::super::find(op.name()).is_some(), "{op:?}");
        }
    }

    #[test]
    fn http_names_the_route() {
        install();
        let next = Next {
            say: "read {0}, answer with {1}, see {2}, list {3}".into(),
            steps: vec![
                Step::call(Op::Snapshot),
                Step::call_with(Op::AlertAccept, json!({"button": "OK"})),
                Step::Schema,
                Step::call_with(Op::GetRun, json!({"id": "r-1"})),
            ],
        };
        assert_eq!(
            next.http(),
            "read GET /api/v1/device/ui, answer with POST /api/v1/device/alert/accept with \
             {\"button\":\"OK\"}, see GET /openapi.json or /docs, list GET /api/v1/runs/r-1"
        );
    }
}
