//! A Maestro flow run as text: a line per step (status, duration, file:line, title, and why
//! it failed), then the verdict and where the failure's artifacts are.

use serde_json::Value;

use super::s;

/// `flow_run`: a line per step, then the verdict.
pub fn run(v: &Value) -> String {
    let mut lines: Vec<String> = v["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .map(step)
        .collect();
    lines.push(verdict(v));
    lines.join("\n")
}

/// `flow_test`: a line per flow (status, duration, file, why), then the counts.
pub fn suite(v: &Value) -> String {
    let mut lines: Vec<String> = v["flows"]
        .as_array()
        .into_iter()
        .flatten()
        .map(suite_flow)
        .collect();
    lines.push(counts(v));
    lines.join("\n")
}

/// One flow of a suite: status, file, duration, and why it failed or was refused.
fn suite_flow(f: &Value) -> String {
    let mark = match s(&f["status"]) {
        "passed" => "ok     ",
        "failed" => "FAIL   ",
        "invalid" => "INVALID",
        _ => "not run",
    };
    let ms = f["duration_ms"]
        .as_u64()
        .map(|d| format!(" {d} ms"))
        .unwrap_or_default();
    let why = f["error"]
        .as_str()
        .map(|e| format!(": {e}"))
        .unwrap_or_default();
    format!("{mark} {}{ms}{why}", s(&f["file"]))
}

/// A suite's verdict and counts.
fn counts(v: &Value) -> String {
    format!(
        "suite {}: {} passed, {} failed, {} invalid, {} not run ({} left out by tags)",
        if v["success"] == true {
            "passed"
        } else {
            "FAILED"
        },
        v["passed"],
        v["failed"],
        v["invalid"],
        v["not_run"],
        v["left_out"].as_array().map_or(0, Vec::len)
    )
}

/// `flow_run_stream`: a step as it ends (`{"step": …}`), the verdict (`{"result": …}`), or
/// why the run could not go on (`{"error": …}`, the error envelope).
pub fn event(v: &Value) -> String {
    match (v.get("step"), v.get("result"), v.get("error")) {
        (Some(st), _, _) => step(st),
        (_, Some(r), _) => verdict(r),
        (_, _, Some(e)) => format!(
            "flow could not go on: {}: {}",
            s(&e["code"]),
            s(&e["message"])
        ),
        _ => String::new(),
    }
}

/// `flow_test_stream`: a step as it ends, under its flow's file (`{"step": {"flow", "step"}}`),
/// a flow's outcome as its suite's line (`{"flow": …}`), the counts (`{"result": …}`), or why
/// the suite could not go on (`{"error": …}`).
pub fn suite_event(v: &Value) -> String {
    match (
        v.get("step"),
        v.get("flow"),
        v.get("result"),
        v.get("error"),
    ) {
        (Some(st), _, _, _) => format!("{}: {}", s(&st["flow"]), step(&st["step"])),
        (_, Some(f), _, _) => suite_flow(f),
        (_, _, Some(r), _) => counts(r),
        (_, _, _, Some(e)) => format!(
            "suite could not go on: {}: {}",
            s(&e["code"]),
            s(&e["message"])
        ),
        _ => String::new(),
    }
}

/// One step: status, duration, indent by depth, title, file:line, and why it failed.
fn step(step: &Value) -> String {
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
    line
}

/// `flow NAME passed in N ms (K steps)`, and where the failure's artifacts are.
fn verdict(v: &Value) -> String {
    let verdict = match v["success"] == true {
        true => "passed",
        false => "FAILED",
    };
    let mut out = format!(
        "flow {} {verdict} in {} ms ({} steps)",
        s(&v["name"]),
        v["duration_ms"].as_u64().unwrap_or(0),
        v["steps"].as_array().map_or(0, Vec::len)
    );
    if let Some(a) = v["artifacts"].as_str() {
        out += &format!("\nartifacts: {a}");
    }
    out
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
        // Streamed: the same lines, one event at a time.
        let streamed: Vec<String> = v["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|st| event(&json!({ "step": st })))
            .chain([event(&json!({ "result": v }))])
            .collect();
        assert_eq!(streamed.join("\n"), t);
        // A run that could not go on ends with its error.
        let gone = json!({"error": {"code": "DEVICE_OFFLINE", "message": "it went offline"}});
        assert_eq!(
            event(&gone),
            "flow could not go on: DEVICE_OFFLINE: it went offline"
        );
    }

    #[test]
    fn a_streamed_suite_tells_steps_under_their_flow_then_each_flow_then_the_counts() {
        let st = json!({"title": "back", "file": "sub/a.yaml", "line": 2, "depth": 0,
                        "status": "passed", "duration_ms": 7});
        assert_eq!(
            suite_event(&json!({"step": {"flow": "a.yaml", "step": st}})),
            "a.yaml: ok        7 ms  back  (a.yaml:2)"
        );
        let flow = json!({"file": "a.yaml", "name": "a", "tags": [], "status": "failed",
                          "duration_ms": 40, "error": "no"});
        assert_eq!(
            suite_event(&json!({ "flow": flow })),
            "FAIL    a.yaml 40 ms: no"
        );
        let result = json!({"success": false, "passed": 0, "failed": 1, "invalid": 0,
                            "not_run": 0, "flows": [flow], "left_out": []});
        assert_eq!(
            suite_event(&json!({ "result": result })),
            "suite FAILED: 0 passed, 1 failed, 0 invalid, 0 not run (0 left out by tags)"
        );
        // The whole suite's answer: the same flow line, then the same counts.
        assert_eq!(
            suite(&result),
            "FAIL    a.yaml 40 ms: no\nsuite FAILED: 0 passed, 1 failed, 0 invalid, 0 not run (0 left out by tags)"
        );
        let gone = json!({"error": {"code": "DEVICE_OFFLINE", "message": "it went offline"}});
        assert_eq!(
            suite_event(&gone),
            "suite could not go on: DEVICE_OFFLINE: it went offline"
        );
    }
}
