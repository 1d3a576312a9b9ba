//! `mobilectl batch`: steps from a file, stdin or `--step` arguments, as the body of the
//! `batch` operation. A source is JSON (the whole request body, or a list of `{op, body}`
//! steps) or one CLI command per line (`#` comments and blank lines skipped); each command is
//! planned like the command itself, so a line means what it means on the command line.

use std::io::Read;

use clap::Args;
use serde_json::{json, Map, Value};

use super::{Command, Parsed};
use crate::client::ClientError;

/// The steps and options of `batch`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// A file of steps, `-` for stdin: JSON, or one command per line.
    #[arg(value_name = "FILE")]
    pub source: Option<String>,
    /// A step as a command line (`--step "tap @e3"`); repeatable, run after the file's.
    #[arg(long = "step", value_name = "COMMAND")]
    pub steps: Vec<String>,
    /// Go on after a step that failed.
    #[arg(long)]
    pub continue_on_failure: bool,
    /// Read the screen after the last step and show what changed over the batch.
    #[arg(long)]
    pub observe: bool,
    /// No step starts after this many milliseconds (default 60000).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
}

/// The `batch` request body of the arguments.
pub fn body(args: BatchArgs) -> Result<Value, ClientError> {
    let mut request = Map::new();
    let mut steps = Vec::new();
    if let Some(source) = &args.source {
        let text = read(source)?;
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(m)) => {
                    request = m;
                    if let Some(Value::Array(s)) = request.remove("steps") {
                        steps = s;
                    }
                }
                Ok(Value::Array(s)) => steps = s,
                Ok(_) => unreachable!("a JSON text starting with {{ or [ is an object or array"),
                Err(e) => return Err(ClientError::usage(format!("{source}: not JSON: {e}"))),
            }
        } else {
            for (n, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                steps.push(
                    step(line)
                        .map_err(|m| ClientError::usage(format!("{source}:{}: {m}", n + 1)))?,
                );
            }
        }
    }
    for (n, line) in args.steps.iter().enumerate() {
        steps.push(step(line).map_err(|m| ClientError::usage(format!("--step {}: {m}", n + 1)))?);
    }
    if steps.is_empty() {
        return Err(ClientError::usage(
            "no steps: give a FILE (or - for stdin) or --step COMMAND",
        ));
    }
    request.insert("steps".into(), Value::Array(steps));
    if args.continue_on_failure {
        request.insert("continue_on_failure".into(), json!(true));
    }
    if args.observe {
        request.insert("observe".into(), json!(true));
    }
    if let Some(t) = args.timeout_ms {
        request.insert("timeout_ms".into(), json!(t));
    }
    Ok(Value::Object(request))
}

fn read(source: &str) -> Result<String, ClientError> {
    let mut text = String::new();
    let read = if source == "-" {
        std::io::stdin().read_to_string(&mut text).map(drop)
    } else {
        std::fs::read_to_string(source).map(|t| text = t)
    };
    read.map_err(|e| ClientError::usage(format!("cannot read {source}: {e}")))?;
    Ok(text)
}

/// One command line as a step: `{op, body}`.
fn step(line: &str) -> Result<Value, String> {
    let words = shlex::split(line).ok_or("unbalanced quotes")?;
    let parsed = super::parse_from(std::iter::once("mobilectl".to_string()).chain(words))
        .map_err(|e| e.to_string().lines().next().unwrap_or("").to_string())?;
    let cli = match parsed {
        Parsed::Cli(cli) => *cli,
        Parsed::Derived(_, r) => return Ok(json!({ "op": r.op, "body": r.args })),
    };
    let Command::Client(cmd) = cli.command else {
        return Err("not a command that calls the server".into());
    };
    if matches!(cmd, super::commands::ClientCommand::Batch(_)) {
        return Err("a batch cannot hold a batch".into());
    }
    let planned = super::plan::plan(cmd, &None, false).map_err(|e| e.message)?;
    Ok(json!({ "op": planned.op, "body": planned.args }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(source: Option<&str>, steps: &[&str]) -> BatchArgs {
        BatchArgs {
            source: source.map(str::to_string),
            steps: steps.iter().map(|s| s.to_string()).collect(),
            continue_on_failure: false,
            observe: true,
            timeout_ms: None,
        }
    }

    #[test]
    fn command_lines_become_steps_with_their_bodies() {
        let b = body(args(
            None,
            &["type alice @e1", "tap \"text:LOG IN\"", "press back"],
        ))
        .unwrap();
        assert_eq!(b["observe"], true);
        let steps = b["steps"].as_array().unwrap();
        assert_eq!(steps[0]["op"], "type_text");
        assert_eq!(steps[0]["body"]["text"], "alice");
        assert_eq!(steps[0]["body"]["ref"], "e1");
        assert_eq!(steps[1]["op"], "tap");
        assert_eq!(steps[1]["body"]["selector"]["text"], "LOG IN");
        assert_eq!(
            steps[2],
            json!({"op": "press", "body": {"key": "back", "observe": false}})
        );
    }

    #[test]
    fn files_hold_json_or_lines() {
        let dir = tempfile::tempdir().unwrap();
        let lines = dir.path().join("steps.txt");
        std::fs::write(&lines, "# log in\ntype alice @e1\n\ntap @e4\n").unwrap();
        let b = body(args(lines.to_str(), &["wait text:Allow"])).unwrap();
        let ops: Vec<&str> = b["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["op"].as_str().unwrap())
            .collect();
        assert_eq!(ops, ["type_text", "tap", "wait"]);

        let json = dir.path().join("steps.json");
        std::fs::write(
            &json,
            r#"{"steps": [{"op": "press", "body": {"key": "home"}}], "continue_on_failure": true}"#,
        )
        .unwrap();
        let b = body(args(json.to_str(), &[])).unwrap();
        assert_eq!(b["continue_on_failure"], true);
        assert_eq!(b["steps"][0]["op"], "press");
    }

    #[test]
    fn bad_lines_are_usage_errors_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("bad.txt");
        std::fs::write(&f, "tap @e1\nfrobnicate\n").unwrap();
        let e = body(args(f.to_str(), &[])).unwrap_err();
        assert_eq!(e.exit, 2);
        assert!(e.message.contains("bad.txt:2"), "{}", e.message);
        assert!(body(args(None, &["batch --step x"])).is_err());
        assert!(body(args(None, &["serve"])).is_err());
        assert!(body(args(None, &[])).is_err());
    }
}
