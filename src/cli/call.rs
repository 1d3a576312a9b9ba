//! `mobilectl call OP [key=value…] [BODY]`: any operation of the table by its name, its
//! arguments as `key=value` pairs (or a whole JSON body, `-` for stdin), planned into the same
//! [`Request`] the other commands make. `call` alone (or `--list`) lists the operations.
//!
//! With the global `--json`, the body may follow it (`call tap --json '{"ref":"e1"}'`): JSON
//! in, JSON out.

use std::io::Read;

use clap::Args;
use serde_json::{json, Map, Value};

use super::plan::Request;
use crate::api::{Input, Operation};
use crate::client::ClientError;

/// The operation and arguments of `call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The operation's name (without one, or with `--list`: the list of them).
    #[arg(value_name = "OP")]
    pub op: Option<String>,
    /// Its arguments: `key=value` (the value as JSON when it reads as JSON, else a string;
    /// `a.b=1` sets a nested field), or the whole body as one JSON object (`-`: from stdin).
    #[arg(value_name = "ARG")]
    pub args: Vec<String>,
    /// The whole body as JSON (`-`: from stdin); `key=value` pairs go on top of it.
    #[arg(long, value_name = "JSON")]
    pub body: Option<String>,
    /// Where an image or file answer goes (`-`: stdout), or the folder of a debug bundle.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<String>,
    /// List the operations with their summaries.
    #[arg(long, conflicts_with_all = ["op", "args", "body"])]
    pub list: bool,
}

/// The request of `call`, its arguments checked against the operation's input.
pub fn plan(a: CallArgs, udid: &Option<String>) -> Result<Request, ClientError> {
    let name = a.op.unwrap_or_default();
    let op = crate::api::find(&name).ok_or_else(|| unknown(&name))?;
    let fields = Fields::of(op);
    let mut args = Map::new();
    let mut pairs = Vec::new();
    for arg in a.body.iter().chain(&a.args) {
        if arg == "-" || arg.trim_start().starts_with('{') {
            let text = if arg == "-" { stdin()? } else { arg.clone() };
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(m)) => args.extend(m),
                _ => return Err(ClientError::usage("the body is not a JSON object")),
            }
        } else {
            pairs.push(arg);
        }
    }
    for p in pairs {
        let (key, value) = p
            .split_once('=')
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| {
                ClientError::usage(format!(
                    "`{p}`: give key=value (`{}` takes {})",
                    op.name,
                    fields.names()
                ))
            })?;
        set(&mut args, key, fields.value(key, value));
    }
    if let (Some(u), true) = (udid, fields.has("udid")) {
        args.entry("udid").or_insert_with(|| json!(u));
    }
    if matches!(op.input, Input::None) && !path_only(op, &args) {
        return Err(ClientError::usage(format!(
            "`{}` takes no arguments",
            op.name
        )));
    }
    let mut r = Request::new(op.name, Value::Object(args));
    r.output = a.output;
    Ok(r)
}

/// The operations, one per line (`--json`: name, method, path, summary of each).
pub fn list(json_out: bool) -> i32 {
    let ops = crate::api::operations();
    if json_out {
        let v: Vec<Value> = ops
            .iter()
            .map(|o| {
                json!({"name": o.name, "method": o.method.as_str(), "path": o.path,
                "summary": o.summary})
            })
            .collect();
        println!("{}", Value::Array(v));
    } else {
        let width = ops.iter().map(|o| o.name.len()).max().unwrap_or(0);
        for o in ops {
            println!("{:width$}  {}", o.name, o.summary);
        }
    }
    crate::client::exit::OK
}

/// The usage error for an operation that is not in the table, naming the close ones.
fn unknown(name: &str) -> ClientError {
    let ops = crate::api::operations();
    let mut close: Vec<(usize, &str)> = ops
        .iter()
        .map(|o| (crate::api::strict::edit_distance(name, o.name), o.name))
        .filter(|(d, n)| *d <= 2 + name.len() / 4 || n.contains(name) || name.contains(n))
        .collect();
    close.sort();
    let names: Vec<&str> = close.iter().take(5).map(|(_, n)| *n).collect();
    let hint = (!names.is_empty()).then(|| format!("did you mean: {}", names.join(", ")));
    let mut e = ClientError::usage(format!(
        "no operation `{name}` (`mobilectl call --list` lists them)"
    ));
    e.hint = hint;
    e
}

fn stdin() -> Result<String, ClientError> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| ClientError::usage(format!("cannot read the body from stdin: {e}")))?;
    Ok(s)
}

/// Whether every argument names a path parameter of `op`.
fn path_only(op: &Operation, args: &Map<String, Value>) -> bool {
    args.keys().all(|k| op.path.contains(&format!("{{{k}}}")))
}

/// Sets `key` (`a.b` nested) in `args`.
fn set(args: &mut Map<String, Value>, key: &str, value: Value) {
    match key.split_once('.') {
        Some((head, rest)) => {
            let slot = args.entry(head).or_insert_with(|| json!({}));
            if !slot.is_object() {
                *slot = json!({});
            }
            if let Value::Object(m) = slot {
                set(m, rest, value);
            }
        }
        None => {
            args.insert(key.to_string(), value);
        }
    }
}

/// The fields an operation takes, from its input schema (the one its MCP tool has).
pub struct Fields {
    properties: Map<String, Value>,
}

impl Fields {
    /// The fields `op` takes, from its MCP tool's input schema.
    pub fn of(op: &Operation) -> Fields {
        let schema = crate::mcp::schema::input_schema(op, &Map::new());
        let properties = match schema.get("properties") {
            Some(Value::Object(p)) => p.clone(),
            _ => Map::new(),
        };
        Fields { properties }
    }

    /// The fields' compact schemas, by name.
    pub fn properties(&self) -> &Map<String, Value> {
        &self.properties
    }

    /// Whether it takes a field `name`.
    pub fn has(&self, name: &str) -> bool {
        self.properties.contains_key(name)
    }

    fn names(&self) -> String {
        match self
            .properties
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>()
        {
            v if v.is_empty() => "no arguments".into(),
            v => v.join(", "),
        }
    }

    /// `raw` as the value of `key`: a string field keeps it as written; otherwise JSON when it
    /// reads as JSON, else a string.
    fn value(&self, key: &str, raw: &str) -> Value {
        let top = key.split('.').next().unwrap_or(key);
        let string_only = self
            .properties
            .get(top)
            .is_some_and(|s| s.get("type") == Some(&json!("string")) && !key.contains('.'));
        if string_only {
            return json!(raw);
        }
        serde_json::from_str(raw).unwrap_or_else(|_| json!(raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(args: &[&str], udid: Option<&str>) -> Result<Request, ClientError> {
        let a = CallArgs {
            op: Some(args[0].to_string()),
            args: args[1..].iter().map(|s| s.to_string()).collect(),
            body: None,
            output: None,
            list: false,
        };
        plan(a, &udid.map(str::to_string))
    }

    #[test]
    fn pairs_become_fields_typed_by_the_schema() {
        let r = plan_of(
            &["tap", "ref=e3", "observe=true", r#"selector={"text":"OK"}"#],
            Some("emu"),
        )
        .unwrap();
        assert_eq!(
            Value::Object(r.args),
            json!({"ref": "e3", "observe": true, "selector": {"text": "OK"}, "udid": "emu"})
        );
        // A string field keeps digits as text.
        let r = plan_of(&["type_text", "text=1234"], None).unwrap();
        assert_eq!(r.args["text"], json!("1234"));
        let r = plan_of(&["tap", "selector.text=OK", "selector.index=1"], None).unwrap();
        assert_eq!(r.args["selector"], json!({"text": "OK", "index": 1}));
        let r = plan_of(&["expect", r#"{"kind":"screen"}"#, "fingerprint=ab"], None).unwrap();
        assert_eq!(
            Value::Object(r.args),
            json!({"kind": "screen", "fingerprint": "ab"})
        );
    }

    #[test]
    fn the_device_flag_only_where_the_operation_takes_one() {
        assert!(plan_of(&["health"], Some("emu")).unwrap().args.is_empty());
        let h = plan_of(&["get_crash", "id=c1"], Some("emu"))
            .unwrap()
            .http()
            .unwrap();
        assert_eq!(h.path, "/api/v1/logs/crashes/c1");
        assert_eq!(h.query, vec![("udid".to_string(), "emu".to_string())]);
        let h = plan_of(&["list_devices"], None).unwrap().http().unwrap();
        assert_eq!((h.path.as_str(), h.body), ("/api/v1/device/list", None));
    }

    #[test]
    fn usage_errors() {
        for bad in [
            &["tapp"][..],
            &["tap", "ref"],
            &["health", "x=1"],
            &["tap", "{nope"],
        ] {
            assert_eq!(plan_of(bad, None).unwrap_err().exit, 2, "{bad:?}");
        }
        let e = plan_of(&["tapp"], None).unwrap_err();
        assert!(e.hint.unwrap().contains("tap"));
        // A missing path parameter is one too, when the request is made.
        assert_eq!(
            plan_of(&["get_flow"], None)
                .unwrap()
                .http()
                .unwrap_err()
                .exit,
            2
        );
    }

    #[test]
    fn every_operation_can_be_called() {
        for op in crate::api::operations() {
            let path_args: Vec<String> = op
                .path
                .split('{')
                .skip(1)
                .filter_map(|s| s.split_once('}'))
                .map(|(name, _)| format!("{name}=1"))
                .collect();
            let mut argv = vec![op.name];
            argv.extend(path_args.iter().map(String::as_str));
            let r = plan_of(&argv, None).unwrap_or_else(|e| panic!("{}: {}", op.name, e.message));
            assert_eq!(r.op, op.name);
            r.http()
                .unwrap_or_else(|e| panic!("{}: {}", op.name, e.message));
        }
    }
}
