//! Runs as text: the listing (one line a run), one run with its artifacts, GC's plan.

use serde_json::Value;

use super::s;

/// `ok`, `FAILED`, `live`, or `unknown` (no result.json).
fn verdict(v: &Value) -> &'static str {
    match (v["live"].as_bool(), v["ok"].as_bool()) {
        (Some(true), _) => "live",
        (_, Some(true)) => "ok",
        (_, Some(false)) => "FAILED",
        _ => "unknown",
    }
}

/// Bytes as `12.3 MB`.
fn size(v: &Value) -> String {
    let b = v.as_u64().unwrap_or(0) as f64;
    match b {
        b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.1} MB", b / 1e6),
        b if b >= 1e3 => format!("{:.1} kB", b / 1e3),
        b => format!("{b} B"),
    }
}

fn line(v: &Value) -> String {
    let who = match (s(&v["session_name"]), s(&v["session_id"])) {
        ("", "") => "server".to_string(),
        ("", id) => id.to_string(),
        (n, _) => n.to_string(),
    };
    format!(
        "run {} · {} · {who} · started {} · {} · {} artifacts",
        s(&v["id"]),
        verdict(v),
        s(&v["started_at"]),
        size(&v["bytes"]),
        v["artifact_count"].as_u64().unwrap_or(0)
    )
}

/// `list_runs`: one line per run, newest first.
pub fn list(v: &Value) -> String {
    let lines: Vec<String> = v["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(line)
        .collect();
    if lines.is_empty() {
        return format!("no runs in {}", s(&v["cache_dir"]));
    }
    let more = v["total"]
        .as_u64()
        .unwrap_or(0)
        .saturating_sub(lines.len() as u64);
    match more {
        0 => lines.join("\n"),
        n => format!("{}\n-- {n} older (limit {})", lines.join("\n"), lines.len()),
    }
}

/// `get_run`: its line, its counts, then its artifacts.
pub fn run(v: &Value) -> String {
    let a = v["artifacts"].as_array().cloned().unwrap_or_default();
    let mut out = vec![format!(
        "run {} · {} · started {}{} · {}",
        s(&v["id"]),
        verdict(v),
        s(&v["started_at"]),
        match s(&v["ended_at"]) {
            "" => String::new(),
            e => format!(" · ended {e}"),
        },
        size(&v["bytes"])
    )];
    let r = &v["result"];
    if r.is_object() {
        out.push(format!(
            "{} operations, {} failed ({} act or verify)",
            r["operations"], r["failures"], r["act_failures"]
        ));
    }
    for e in &a {
        out.push(format!(
            "  {}  {} · {}",
            s(&e["name"]),
            s(&e["kind"]),
            size(&e["bytes"])
        ));
    }
    if a.is_empty() {
        out.push("no artifacts".into());
    }
    out.join("\n")
}

/// `delete_run`: the run and the bytes freed.
pub fn deleted(v: &Value) -> String {
    format!("deleted run {} ({})", s(&v["id"]), size(&v["freed_bytes"]))
}

/// `gc`: what was (or would be) deleted, then the totals.
pub fn gc(v: &Value) -> String {
    let dry = v["dry_run"].as_bool() == Some(true);
    let mut out: Vec<String> = v["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| s(&e["action"]) == "delete")
        .map(|e| {
            format!(
                "{} {} ({}, {})",
                if dry { "would delete" } else { "deleted" },
                s(&e["id"]),
                s(&e["reason"]),
                size(&e["bytes"])
            )
        })
        .collect();
    out.push(format!(
        "gc{}: {} deleted ({}), {} kept ({})",
        if dry { " (dry run)" } else { "" },
        v["deleted"],
        size(&v["freed_bytes"]),
        v["kept"],
        size(&v["kept_bytes"])
    ));
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn runs_and_plans_read_as_lines() {
        let v = json!({"cache_dir": "/c", "runs": [
            {"id": "20260101-120000-ab12cd", "ok": false, "live": false, "session_name": "ci",
             "started_at": "2026-01-01T12:00:00Z", "bytes": 2048, "artifact_count": 2}]});
        assert_eq!(
            list(&v),
            "run 20260101-120000-ab12cd · FAILED · ci · started 2026-01-01T12:00:00Z · 2.0 kB · 2 artifacts"
        );
        assert_eq!(
            list(&json!({"cache_dir": "/c", "runs": []})),
            "no runs in /c"
        );
        let mut cut = v.clone();
        cut["total"] = json!(3);
        assert!(
            list(&cut).ends_with(" · 2 artifacts\n-- 2 older (limit 1)"),
            "{}",
            list(&cut)
        );
        let plan = json!({"dry_run": true, "runs": [
            {"id": "a", "action": "delete", "reason": "expired", "bytes": 10},
            {"id": "b", "action": "keep", "reason": "live", "bytes": 5}],
            "deleted": 1, "kept": 1, "freed_bytes": 10, "kept_bytes": 5});
        assert_eq!(
            gc(&plan),
            "would delete a (expired, 10 B)\ngc (dry run): 1 deleted (10 B), 1 kept (5 B)"
        );
    }
}
