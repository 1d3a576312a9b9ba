//! The log answers as text: a log entry is one line
//! as logcat prints it (`23:11:55.460  4302  4302 D DemoApp: shown`), a `dropped` notice one
//! line, a page its entries, crashes one line each (their id and summary), a crash its summary
//! and text, a debug bundle what it holds and where it was saved.

use serde_json::Value;

use super::s;

/// `hh:mm:ss.mmm` of an RFC 3339 time (the whole text when it is not one).
fn clock(t: &str) -> &str {
    t.get(11..23).unwrap_or(t)
}

/// One log entry as logcat's `threadtime` shows it (without the date), its app after.
pub fn entry_line(v: &Value) -> String {
    let num = |k: &str| v[k].as_u64().map_or("-".to_string(), |n| n.to_string());
    let mut line = format!(
        "{} {:>5} {:>5} {} {}: {}",
        v["time"].as_str().map_or("            ", clock),
        num("pid"),
        num("tid"),
        s(&v["level"]),
        s(&v["tag"]),
        s(&v["message"])
    );
    if let Some(app) = v["app"].as_str() {
        line += &format!("  [{app}]");
    }
    line
}

fn crash_line(c: &Value) -> String {
    format!(
        "{}  {}  {}",
        s(&c["id"]),
        c["time"].as_str().map_or("-", |t| t.get(..19).unwrap_or(t)),
        s(&c["summary"])
    )
}

/// A `stream_logs` event: an entry, or a notice that this reader fell behind.
pub fn event(v: &Value) -> String {
    if v.get("dropped").is_some() && v.get("message").is_none() {
        return format!(
            "-- {} entries dropped: this reader fell behind the log",
            v["dropped"]
        );
    }
    entry_line(v)
}

/// `tail_logs`: its entries, a line each.
pub fn page(v: &Value) -> String {
    let entries = v["entries"].as_array().map_or(&[][..], Vec::as_slice);
    let mut lines: Vec<String> = entries.iter().map(entry_line).collect();
    if let Some(n) = v["missed"].as_u64() {
        lines.insert(0, format!("-- {n} entries were dropped before this read"));
    }
    if entries.is_empty() {
        lines.push("no entries".into());
    }
    if v["more"] == true {
        lines.push(format!(
            "-- more: {}",
            super::call(crate::error::Op::TailLogs, &[("since", s(&v["cursor"]))])
        ));
    }
    lines.join("\n")
}

/// `list_crashes`: a line each.
pub fn crashes(v: &Value) -> String {
    let crashes = v["crashes"].as_array().map_or(&[][..], Vec::as_slice);
    if crashes.is_empty() {
        return "no crashes".into();
    }
    crashes
        .iter()
        .map(crash_line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `get_crash`: its line, then its text.
pub fn crash(v: &Value) -> String {
    let c = &v["crash"];
    format!("{}\n\n{}", crash_line(c), s(&c["text"]))
}

/// `debug_bundle`: what it holds and where it was saved.
pub fn bundle(v: &Value) -> String {
    let mut lines = vec![format!(
        "{} · {} · {}",
        s(&v["device"]["udid"]),
        v["activity"].as_str().or(v["app"].as_str()).unwrap_or("?"),
        s(&v["taken_at"])
    )];
    if let Some(tree) = v["tree_text"].as_str() {
        lines.push(tree.trim_end().to_string());
    }
    let logs = v["logs"].as_array().map_or(&[][..], Vec::as_slice);
    lines.push(format!("-- {} warnings and errors", logs.len()));
    lines.extend(logs.iter().map(entry_line));
    let crashes = v["crashes"].as_array().map_or(&[][..], Vec::as_slice);
    lines.push(format!("-- {} crashes", crashes.len()));
    lines.extend(crashes.iter().map(crash_line));
    if let Some(flows) = v["network"].as_array().filter(|f| !f.is_empty()) {
        lines.push(format!("-- {} failed or mocked requests", flows.len()));
        lines.extend(flows.iter().map(super::flows::line));
    }
    if let Some(reading) = v["perf"].get("reading") {
        lines.push(format!("-- performance at {}", s(&reading["taken_at"])));
        lines.push(super::perf::now(reading));
    }
    if let Some(window) = v["perf"].get("window") {
        lines.push("-- performance window".to_string());
        lines.push(super::perf::window(window));
    }
    for p in v["problems"].as_array().into_iter().flatten() {
        lines.push(format!("-- not read: {}", s(p)));
    }
    for p in v["saved"].as_array().into_iter().flatten() {
        lines.push(format!("saved {}", s(p)));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_are_one_line() {
        let e = json!({"time": "2026-11-23T23:11:55.460Z", "level": "D", "tag": "DemoApp",
            "message": "LoginActivity shown", "pid": 4302, "tid": 4302, "app": "com.mobilectl.demo"});
        assert_eq!(
            event(&e),
            "23:11:55.460  4302  4302 D DemoApp: LoginActivity shown  [com.mobilectl.demo]"
        );
        let d = json!({"dropped": 12, "cursor": "a-1"});
        assert!(event(&d).contains("12 entries dropped"));
        let answer = json!({"udid": "x", "entries": [e], "cursor": "a-9", "more": true,
            "source": {}});
        let t = page(&answer);
        assert!(t.ends_with("-- more: `tail_logs since=a-9`"), "{t}");
        assert_eq!(crashes(&json!({"crashes": []})), "no crashes");
    }
}
