//! A Maestro flow run as text: a line per step (status, duration, file:line, title, and why
//! it failed), then the verdict and where the failure's artifacts are.

use serde_json::Value;

use super::s;

/// `flow_run`.
pub fn run(v: &Value) -> String {
    let mut lines = vec![];
    for step in v["steps"].as_array().into_iter().flatten() {
        let mark = match s(&step["status"]) {
            "passed" => "ok  ",
            "failed" => "FAIL",
            "warned" => "warn",
            "skipped" => "skip",
            _ => "?   ",
        };
        let indent = "  ".repeat(step["depth"].as_u64().unwrap_or(0) as usize);
        let mut line = format!(
            "{mark} {:>6} ms  {indent}{}  ({}:{})",
            step["duration_ms"].as_u64().unwrap_or(0),
            s(&step["title"]),
            short_file(s(&step["file"])),
            step["line"].as_u64().unwrap_or(0)
        );
        if let Some(e) = step["error"].as_str() {
            line += &format!("\n     {indent}{e}");
        }
        lines.push(line);
    }
    let verdict = match v["success"] == true {
        true => "passed",
        false => "FAILED",
    };
    lines.push(format!(
        "flow {} {verdict} in {} ms ({} steps)",
        s(&v["name"]),
        v["duration_ms"].as_u64().unwrap_or(0),
        v["steps"].as_array().map_or(0, Vec::len)
    ));
    if let Some(a) = v["artifacts"].as_str() {
        lines.push(format!("artifacts: {a}"));
    }
    lines.join("\n")
}

/// `flow_record_start`.
pub fn record_started(v: &Value) -> String {
    match v["session"].as_str() {
        Some(sid) => format!("recording session {sid}"),
        None => "recording".to_string(),
    }
}

/// `flow_record_stop`: the flow itself.
pub fn recorded(v: &Value) -> String {
    format!("# {} commands\n{}", v["commands"], s(&v["yaml"]))
}

fn short_file(f: &str) -> &str {
    f.rsplit('/').next().unwrap_or(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_verdict_and_artifacts() {
        let v = json!({"success": false, "name": "login", "duration_ms": 120, "artifacts": "/tmp/a",
        "steps": [
            {"title": "launchApp", "file": "f/login.yaml", "line": 3, "depth": 0, "status": "passed", "duration_ms": 80},
            {"title": "assertVisible \"Nope\"", "file": "f/login.yaml", "line": 4, "depth": 0, "status": "failed", "duration_ms": 40, "error": "\"Nope\" is not visible"}
        ]});
        let t = run(&v);
        assert!(
            t.contains("ok       80 ms  launchApp  (login.yaml:3)"),
            "{t}"
        );
        assert!(t.contains("FAIL     40 ms  assertVisible \"Nope\"  (login.yaml:4)\n     \"Nope\" is not visible"), "{t}");
        assert!(
            t.ends_with("flow login FAILED in 120 ms (2 steps)\nartifacts: /tmp/a"),
            "{t}"
        );
    }
}
