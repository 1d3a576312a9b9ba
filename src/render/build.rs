//! Builds as text: the verdict line (status, time, steps, counts), the first errors one line
//! each (`error  File.kt:12:5  message`), what made it fail and what to do, the app it made and
//! where it went, and where the whole log is; a streamed build's events a line each.

use serde_json::Value;

use super::s;

/// The most diagnostics a result lists as text (the JSON has all it kept).
const SHOWN: usize = 10;

/// `build_app`: the verdict, the first diagnostics, the failure, the app, the log.
pub fn result(v: &Value) -> String {
    let status = match s(&v["status"]) {
        "succeeded" => "succeeded",
        "failed" => "FAILED",
        "cancelled" => "CANCELLED",
        "timed_out" => "TIMED OUT",
        other => other,
    };
    let secs = v["duration_ms"].as_u64().unwrap_or(0) as f64 / 1000.0;
    let mut lines = vec![format!(
        "build {} {status} in {secs:.1} s · {} steps · {} · {}",
        s(&v["id"]),
        v["steps"].as_u64().unwrap_or(0),
        count(v["errors"].as_u64().unwrap_or(0), "error"),
        count(v["warnings"].as_u64().unwrap_or(0), "warning"),
    )];
    let diags = v["diagnostics"].as_array().cloned().unwrap_or_default();
    // Errors first: they are what an agent acts on.
    let (errors, warnings): (Vec<&Value>, Vec<&Value>) =
        diags.iter().partition(|d| d["severity"] == "error");
    for d in errors.iter().chain(warnings.iter()).take(SHOWN) {
        lines.push(format!("  {}", diagnostic(d)));
    }
    if diags.len() > SHOWN {
        lines.push(format!(
            "  … {} more in the JSON answer",
            diags.len() - SHOWN
        ));
    }
    if let Some(f) = v.get("failure").filter(|f| f.is_object()) {
        lines.push(format!("failure ({}): {}", s(&f["kind"]), s(&f["message"])));
        if !s(&f["hint"]).is_empty() {
            lines.push(format!("hint: {}", s(&f["hint"])));
        }
    }
    if let Some(app) = v.get("app").filter(|a| a.is_object()) {
        let id = app["app_id"]
            .as_str()
            .map(|i| format!(" ({i})"))
            .unwrap_or_default();
        lines.push(format!("app: {}{id}", s(&app["path"])));
    }
    if let Some(d) = v.get("installed_on").filter(|d| d.is_object()) {
        let launched = v["launch_time_ms"]
            .as_u64()
            .map(|ms| format!(", launched in {ms} ms"))
            .unwrap_or_default();
        lines.push(format!("installed on {}{launched}", s(&d["udid"])));
    }
    let log = &v["log"];
    lines.push(format!(
        "log: artifact {} of run {} ({} bytes{})",
        s(&log["artifact"]),
        s(&log["run"]),
        log["bytes"].as_u64().unwrap_or(0),
        if log["truncated"] == true {
            ", truncated"
        } else {
            ""
        }
    ));
    lines.join("\n")
}

fn count(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `error  path/File.kt:12:5  message`.
fn diagnostic(d: &Value) -> String {
    let mut at = s(&d["file"]).to_string();
    for k in ["line", "column"] {
        if let Some(n) = d[k].as_u64() {
            at += &format!(":{n}");
        }
    }
    let severity = s(&d["severity"]);
    let message = s(&d["message"]).lines().next().unwrap_or_default();
    if at.is_empty() {
        format!("{severity:<7} {message}")
    } else {
        format!("{severity:<7} {at}  {message}")
    }
}

/// A build's progress: `[compile] 12 steps · 0 errors · 3.2 s · :app:compileDebugKotlin`.
fn progress(p: &Value) -> String {
    let phase = &p["phase"];
    let name = phase["name"].as_str().unwrap_or("starting");
    let detail = s(&phase["detail"]);
    let secs = p["elapsed_ms"].as_u64().unwrap_or(0) as f64 / 1000.0;
    let mut line = format!(
        "[{name}] {} steps · {} · {secs:.1} s",
        p["steps"].as_u64().unwrap_or(0),
        count(p["errors"].as_u64().unwrap_or(0), "error"),
    );
    if !detail.is_empty() {
        line += &format!(" · {detail}");
    }
    line
}

/// `build_app_stream`: each event as a line (the result as [`result`] tells it).
pub fn event(v: &Value) -> String {
    if let Some(st) = v.get("started") {
        let argv: Vec<&str> = st["command"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        return format!("build {} started: {}", s(&st["id"]), argv.join(" "));
    }
    if let Some(p) = v.get("progress") {
        return progress(p);
    }
    if let Some(d) = v.get("diagnostic") {
        return diagnostic(d);
    }
    if let Some(r) = v.get("result") {
        return result(r);
    }
    if let Some(e) = v.get("error") {
        return format!(
            "build could not go on: {}: {}",
            s(&e["code"]),
            s(&e["message"])
        );
    }
    String::new()
}

/// `list_builds`: a line per running build.
pub fn list(v: &Value) -> String {
    let builds = v["builds"].as_array().cloned().unwrap_or_default();
    if builds.is_empty() {
        return "no build is running".into();
    }
    builds
        .iter()
        .map(|b| format!("{} {} {}", s(&b["id"]), s(&b["project_dir"]), progress(b)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `cancel_build`.
pub fn cancelled(v: &Value) -> String {
    format!("build {}: asked to stop", s(&v["id"]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_failed_build_says_its_errors_first_then_why_and_where_the_log_is() {
        let v = json!({
            "id": "bld-1", "status": "failed", "duration_ms": 12_340, "steps": 7,
            "errors": 2, "warnings": 1,
            "diagnostics": [
                {"severity": "warning", "file": "A.kt", "line": 3, "message": "unused"},
                {"severity": "error", "file": "B.kt", "line": 12, "column": 5, "message": "Unresolved reference: foo\nmore"},
                {"severity": "error", "message": "linker command failed"}
            ],
            "failure": {"kind": "compile", "message": "2 errors", "hint": "fix them"},
            "log": {"run": "r1", "artifact": "build.log", "bytes": 99}
        });
        let text = result(&v);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "build bld-1 FAILED in 12.3 s · 7 steps · 2 errors · 1 warning"
        );
        assert_eq!(lines[1], "  error   B.kt:12:5  Unresolved reference: foo");
        assert_eq!(lines[2], "  error   linker command failed");
        assert_eq!(lines[3], "  warning A.kt:3  unused");
        assert_eq!(lines[4], "failure (compile): 2 errors");
        assert_eq!(lines[5], "hint: fix them");
        assert_eq!(lines[6], "log: artifact build.log of run r1 (99 bytes)");
    }

    #[test]
    fn events_are_a_line_each() {
        let started =
            json!({"started": {"id": "bld-2", "command": ["./gradlew", ":app:assembleDebug"]}});
        assert_eq!(
            event(&started),
            "build bld-2 started: ./gradlew :app:assembleDebug"
        );
        let p = json!({"progress": {"steps": 4, "errors": 1, "elapsed_ms": 2500,
            "phase": {"name": "compile", "detail": ":app:compileDebugKotlin"}}});
        assert_eq!(
            event(&p),
            "[compile] 4 steps · 1 error · 2.5 s · :app:compileDebugKotlin"
        );
        let e = json!({"error": {"code": "DEVICE_OFFLINE", "message": "gone"}});
        assert_eq!(event(&e), "build could not go on: DEVICE_OFFLINE: gone");
    }
}
