//! The two tools that keep every operation in reach of the default tool list
//! (`super::offer`): `describe` lists the operations, or tells one's arguments (its full
//! schema), errors and notes; `call` runs any operation by name with its arguments, exactly as
//! its own tool would (same checks, same rendering of the answer).

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

use super::tools::{self, ToolDef};
use crate::api::{Mcp, Operation};

/// The name of the tool that runs any operation.
pub const CALL: &str = "call";
/// The name of the tool that describes operations.
pub const DESCRIBE: &str = "describe";

/// `call` and `describe` as `tools/list` shows them.
pub fn tools() -> Vec<Tool> {
    let call = Tool::new(
        CALL,
        "Run any operation by name with its arguments (`describe` lists them).",
        Arc::new(object(json!({
            "properties": {
                "operation": {"type": "string"},
                "arguments": {"type": "object"}
            },
            "required": ["operation"]
        }))),
    );
    let mut describe = Tool::new(
        DESCRIBE,
        "List every operation by group, or one operation's arguments, errors and notes.",
        Arc::new(object(json!({
            "properties": {
                "operation": {"type": "string"},
                "group": {"type": "string"}
            }
        }))),
    );
    describe.annotations = Some(ToolAnnotations::new().read_only(true));
    vec![call, describe]
}

fn object(mut v: Value) -> JsonObject {
    v["type"] = json!("object");
    v.as_object().cloned().unwrap_or_default()
}

/// What a `call` asks for: the operation's tool and the arguments for it.
pub fn call_target(
    args: Option<&JsonObject>,
) -> Result<(&'static ToolDef, Option<JsonObject>), CallToolResult> {
    let args = args.cloned().unwrap_or_default();
    if let Some(extra) = args.keys().find(|k| *k != "operation" && *k != "arguments") {
        return Err(refused(
            "VALIDATION_FAILED",
            &format!("unknown argument `{extra}` of call"),
            "call takes `operation` and `arguments`: {\"operation\": \"tap\", \"arguments\": {\"ref\": \"e3\"}}",
        ));
    }
    let Some(name) = args.get("operation").and_then(Value::as_str) else {
        return Err(refused(
            "VALIDATION_FAILED",
            "call needs `operation`, an operation's name",
            "`describe` lists the operations",
        ));
    };
    let inner = match args.get("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(o)) => Some(o.clone()),
        Some(_) => {
            return Err(refused(
                "VALIDATION_FAILED",
                "`arguments` must be an object",
                &format!("`describe` with operation `{name}` tells its arguments"),
            ))
        }
    };
    match tools::find(name) {
        Some(def) => Ok((def, inner)),
        None if crate::api::find(name).is_some() => Err(refused(
            "VALIDATION_FAILED",
            &format!("`{name}` is not an MCP tool"),
            &format!("`describe` with operation `{name}` says how to reach it"),
        )),
        None => Err(unknown(name)),
    }
}

/// The `describe` tool's answer.
pub fn describe(args: Option<&JsonObject>) -> CallToolResult {
    let arg = |k: &str| args.and_then(|a| a.get(k)).and_then(Value::as_str);
    let ops = crate::api::operations();
    if let Some(name) = arg("operation") {
        return match ops.iter().find(|o| o.name == name) {
            Some(op) => CallToolResult::success(vec![ContentBlock::text(one(op))]),
            None => unknown(name),
        };
    }
    let group = arg("group");
    if let Some(g) = group {
        if !ops.iter().any(|o| o.tag == g) {
            return refused(
                "VALIDATION_FAILED",
                &format!("no group `{g}`"),
                &format!("the groups are {}", groups().join(", ")),
            );
        }
    }
    let mut out = String::from(
        "Operations by group (run one with `call`; `describe` with `operation` for its arguments):\n",
    );
    for g in groups()
        .into_iter()
        .filter(|g| group.is_none_or(|w| w == *g))
    {
        out.push_str(&format!("## {g}\n"));
        for op in ops.iter().filter(|o| o.tag == g) {
            let how = if op.is_tool() { "" } else { " [HTTP only]" };
            out.push_str(&format!("{}: {}{how}\n", op.name, op.summary));
        }
    }
    CallToolResult::success(vec![ContentBlock::text(out)])
}

/// The groups, in the documentation's order.
fn groups() -> Vec<&'static str> {
    crate::api::openapi::TAGS
        .iter()
        .map(|(tag, _)| *tag)
        .collect()
}

/// One operation told in full: what it does, its arguments' schema, its errors, how to run it.
fn one(op: &Operation) -> String {
    let mut s = format!(
        "{} ({}; {} {})\n{}\n",
        op.name,
        op.tag,
        op.method.as_str(),
        op.path,
        op.summary
    );
    if !op.description.is_empty() {
        s.push_str(op.description);
        s.push('\n');
    }
    match tools::find(op.name) {
        Some(def) => {
            let schema = Value::Object((*def.tool.input_schema).clone());
            s.push_str(&format!("arguments: {schema}\n"));
            let mut codes: Vec<&str> = op.errors.iter().map(|c| c.as_str()).collect();
            codes.dedup();
            if !codes.is_empty() {
                s.push_str(&format!("errors: {}\n", codes.join(", ")));
            }
            s.push_str(&format!(
                "run: call {{\"operation\": \"{}\", \"arguments\": {{…}}}}",
                op.name
            ));
        }
        None => {
            let why = match op.mcp {
                Mcp::Stream => "it answers a stream",
                Mcp::Connection => "each MCP connection manages its own session",
                _ => "it moves a whole document",
            };
            // An operation without a command of its own is run by `call`.
            let command = match op.cli.usage {
                "" => format!("call {}", op.name),
                usage => usage.to_string(),
            };
            s.push_str(&format!(
                "not an MCP tool ({why}): use HTTP {} {} or `mobilectl {command}`",
                op.method.as_str(),
                op.path,
            ));
        }
    }
    s
}

/// The answer for a name no operation has, naming the ones that share a word with it.
fn unknown(name: &str) -> CallToolResult {
    let words: Vec<&str> = name
        .split(['_', '-', ' '])
        .filter(|w| w.len() > 2)
        .collect();
    let near: Vec<&'static str> = crate::api::operations()
        .iter()
        .filter(|o| o.name.split('_').any(|w| words.contains(&w)))
        .map(|o| o.name)
        .collect();
    let hint = if near.is_empty() {
        "`describe` lists the operations".to_string()
    } else {
        format!(
            "did you mean {}? `describe` lists them all",
            near.join(", ")
        )
    };
    refused("NOT_FOUND", &format!("no operation `{name}`"), &hint)
}

fn refused(code: &str, message: &str, hint: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "{code}: {message} hint: {hint}"
    ))])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(r: &CallToolResult) -> String {
        r.content[0].as_text().unwrap().text.clone()
    }

    fn args(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn no_operation_is_named_as_these_tools() {
        assert!(crate::api::operations()
            .iter()
            .all(|o| o.name != CALL && o.name != DESCRIBE));
    }

    #[test]
    fn describe_lists_every_operation_by_group() {
        let r = describe(None);
        assert_ne!(r.is_error, Some(true));
        let t = text(&r);
        for op in crate::api::operations() {
            assert!(
                t.contains(&format!("\n{}: {}", op.name, op.summary)),
                "{}",
                op.name
            );
        }
        assert!(
            t.contains("stream_logs: ") && t.contains("[HTTP only]"),
            "{t}"
        );
        let act = text(&describe(Some(&args(json!({"group": "act"})))));
        assert!(
            act.contains("\ntap: ") && !act.contains("\nsnapshot: "),
            "{act}"
        );
        let bad = describe(Some(&args(json!({"group": "nope"}))));
        assert_eq!(bad.is_error, Some(true));
        assert!(
            text(&bad).contains("the groups are service, devices"),
            "{}",
            text(&bad)
        );
    }

    #[test]
    fn describe_tells_one_operation_with_its_full_schema() {
        let t = text(&describe(Some(&args(json!({"operation": "expect"})))));
        let full = Value::Object((*tools::find("expect").unwrap().tool.input_schema).clone());
        assert!(t.contains(&full.to_string()), "{t}");
        assert!(
            t.starts_with("expect (verify; POST /api/v1/device/ui/expect)"),
            "{t}"
        );
        assert!(t.contains("run: call {\"operation\": \"expect\""), "{t}");
        let stream = text(&describe(Some(&args(json!({"operation": "stream_logs"})))));
        assert!(
            stream.contains("not an MCP tool (it answers a stream)"),
            "{stream}"
        );
        let missing = describe(Some(&args(json!({"operation": "screenshots_diff"}))));
        assert_eq!(missing.is_error, Some(true));
        assert!(
            text(&missing).contains("screenshot_diff"),
            "{}",
            text(&missing)
        );
    }

    #[test]
    fn call_finds_the_operation_and_checks_its_own_arguments() {
        let (def, inner) = call_target(Some(&args(
            json!({"operation": "multi_touch", "arguments": {"x": 1}}),
        )))
        .unwrap();
        assert_eq!(def.tool.name, "multi_touch");
        assert_eq!(inner, Some(args(json!({"x": 1}))));
        let (_, none) = call_target(Some(&args(json!({"operation": "health"})))).unwrap();
        assert_eq!(none, None);
        for (bad, says) in [
            (json!({}), "needs `operation`"),
            (
                json!({"operation": "tap", "args": {}}),
                "unknown argument `args`",
            ),
            (
                json!({"operation": "tap", "arguments": [1]}),
                "must be an object",
            ),
            (
                json!({"operation": "stream_logs"}),
                "`stream_logs` is not an MCP tool",
            ),
            (json!({"operation": "tapp"}), "no operation `tapp`"),
        ] {
            let e = call_target(Some(&args(bad))).unwrap_err();
            assert_eq!(e.is_error, Some(true));
            assert!(text(&e).contains(says), "{}", text(&e));
        }
    }
}
