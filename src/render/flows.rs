//! The network-capture answers as text: a flow in one line (lists, the stream's events), a
//! flow with its headers and bodies, the flow list, the summary, the proxy's status, attach,
//! detach and clear.

use serde_json::Value;

use super::s;

/// `list_flows`: a line per flow.
pub fn list(v: &Value) -> String {
    let mut lines: Vec<String> = v["flows"]
        .as_array()
        .into_iter()
        .flatten()
        .map(line)
        .collect();
    if lines.is_empty() {
        lines.push("no flows".into());
    }
    if v["missed"] == true {
        lines.push("(some flows after the cursor were evicted before they were read)".into());
    }
    lines.join("\n")
}

/// `proxy_attach`.
pub fn attached(v: &Value) -> String {
    let mut out = vec![format!(
        "{} {} to the proxy at {}",
        if v["already"] == true {
            "already attached"
        } else {
            "attached"
        },
        s(&v["device"]["udid"]),
        s(&v["proxy"])
    )];
    out.extend(steps(v));
    out.join("\n")
}

/// `proxy_detach`.
pub fn detached(v: &Value) -> String {
    let mut out = vec![format!(
        "detached {}{}",
        s(&v["device"]["udid"]),
        if v["was_attached"] == true {
            ""
        } else {
            " (this server had not attached it)"
        }
    )];
    out.extend(steps(v));
    out.join("\n")
}

/// `clear_flows`.
pub fn cleared(v: &Value) -> String {
    let n = v["cleared"].as_u64().unwrap_or(0);
    format!("cleared {n} flow{}", if n == 1 { "" } else { "s" })
}

fn steps(v: &Value) -> Vec<String> {
    let list = |k: &str, tag: &str| -> Vec<String> {
        v[k].as_array()
            .into_iter()
            .flatten()
            .map(|x| format!("  {tag} {}", s(x)))
            .collect()
    };
    [list("done", "ran:"), list("todo", "todo:")].concat()
}

/// `#12 GET 200 https://host/path · 34.1 ms · 1.2 KB`
pub fn line(v: &Value) -> String {
    let kind = v["error"].as_str().or(v["error"]["kind"].as_str());
    let outcome = match (v["status"].as_u64(), kind) {
        (Some(code), Some(k)) => format!("{code} {k}"),
        (Some(code), None) => code.to_string(),
        (None, Some(k)) => k.to_string(),
        (None, None) => "-".into(),
    };
    let mut out = format!(
        "#{} {} {} {} · {} ms",
        v["id"],
        s(&v["method"]),
        outcome.trim_end(),
        s(&v["url"]),
        v["total_ms"]
            .as_f64()
            .or(v["timing"]["total_ms"].as_f64())
            .unwrap_or(0.0)
    );
    if let Some(n) = v["size"].as_u64() {
        out += &format!(" · {}", bytes(n));
    }
    match (v["rule_id"].as_u64(), v["mocked"] == true) {
        (Some(r), true) => out += &format!(" · mocked by rule {r}"),
        (Some(r), false) => out += &format!(" · rule {r}"),
        (None, true) => out += " · shaped by link conditions",
        (None, false) => {}
    }
    out
}

fn bytes(n: u64) -> String {
    match n {
        n if n < 1024 => format!("{n} B"),
        n if n < 1024 * 1024 => format!("{:.1} KB", n as f64 / 1024.0),
        n => format!("{:.1} MB", n as f64 / (1024.0 * 1024.0)),
    }
}

/// `get_flow`: one flow with its headers, bodies and error.
pub fn flow(v: &Value) -> String {
    let t = &v["timing"];
    let mut first = line(v);
    let parts: Vec<String> = [
        ("connect", &t["connect_ms"]),
        ("tls", &t["tls_ms"]),
        ("first byte", &t["first_byte_ms"]),
    ]
    .iter()
    .filter_map(|(n, x)| x.as_f64().map(|x| format!("{n} {x}")))
    .collect();
    if !parts.is_empty() {
        first += &format!(" ({})", parts.join(", "));
    }
    let mut out = vec![first];
    let side = |m: &Value, arrow: &str, out: &mut Vec<String>| {
        for h in m["headers"].as_array().into_iter().flatten() {
            out.push(format!("{arrow} {}: {}", s(&h[0]), s(&h[1])));
        }
        let b = &m["body"];
        if let Some(text) = b["text"].as_str() {
            out.push(text.to_string());
        }
        if let Some(note) = b["note"].as_str() {
            out.push(format!("({} bytes: {note})", b["size"]));
        }
    };
    side(&v["request"], ">", &mut out);
    if v["response"].is_object() {
        side(&v["response"], "<", &mut out);
    }
    if let Some(t) = v["tunnel"].as_object() {
        out.push(format!(
            "tunnel (not decrypted): {} sent, {} received",
            bytes(t.get("bytes_sent").and_then(Value::as_u64).unwrap_or(0)),
            bytes(t.get("bytes_received").and_then(Value::as_u64).unwrap_or(0))
        ));
    }
    if let Some(e) = v["error"].as_object() {
        out.push(format!(
            "error: {} — {}",
            e.get("kind").and_then(Value::as_str).unwrap_or(""),
            e.get("message").and_then(Value::as_str).unwrap_or("")
        ));
    }
    out.join("\n")
}

/// `get_flow_summary`.
pub fn summary(v: &Value) -> String {
    let classes: Vec<String> = v["by_status"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let n = v["flows"].as_u64().unwrap_or(0);
    let mut out = vec![format!(
        "{n} flow{}{}",
        if n == 1 { "" } else { "s" },
        if classes.is_empty() {
            String::new()
        } else {
            format!(" · {}", classes.join(" · "))
        }
    )];
    let hosts: Vec<String> = v["by_host"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| {
            let failed = h["failed"].as_u64().unwrap_or(0);
            let f = if failed > 0 {
                format!(", {failed} failed")
            } else {
                String::new()
            };
            format!("{} ({}{f})", s(&h["host"]), h["flows"])
        })
        .collect();
    if !hosts.is_empty() {
        out.push(format!("hosts: {}", hosts.join(", ")));
    }
    if let Some(m) = v["mocked"].as_u64().filter(|m| *m > 0) {
        let rules: Vec<String> = v["by_rule"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(r, n)| format!("rule {r}: {n}"))
            .collect();
        out.push(format!("mocked: {m} ({})", rules.join(", ")));
    }
    for (key, title) in [("failures", "failures"), ("slowest", "slowest")] {
        let items = v[key].as_array().cloned().unwrap_or_default();
        if !items.is_empty() {
            let total = if key == "failures" {
                format!(" ({})", v["failures_total"])
            } else {
                String::new()
            };
            out.push(format!("{title}{total}:"));
            out.extend(items.iter().map(|f| format!("  {}", line(f))));
        }
    }
    if v["evicted"].as_u64().unwrap_or(0) > 0 {
        out.push(format!("({} older flows were evicted)", v["evicted"]));
    }
    out.join("\n")
}

/// `proxy_start`, `proxy_stop`, `proxy_status`.
pub fn status(v: &Value) -> String {
    let st = &v["store"];
    let mut first = if v["running"] == true {
        format!("proxy running on {}", s(&v["address"]))
    } else {
        "proxy stopped".to_string()
    };
    first += &format!(
        " · {} flows kept ({} of {}, {} evicted)",
        st["flows"],
        bytes(st["bytes"].as_u64().unwrap_or(0)),
        bytes(st["max_bytes"].as_u64().unwrap_or(0)),
        st["evicted"]
    );
    let mut out = vec![first];
    if let Some(ca) = v["ca"].as_object() {
        out.push(format!(
            "CA {} (sha256 {}){}",
            ca.get("name").and_then(Value::as_str).unwrap_or(""),
            ca.get("sha256").and_then(Value::as_str).unwrap_or(""),
            ca.get("path")
                .and_then(Value::as_str)
                .map(|p| format!(" at {p}"))
                .unwrap_or_default()
        ));
    }
    let pass: Vec<&str> = v["passthrough"]
        .as_array()
        .into_iter()
        .flatten()
        .map(s)
        .collect();
    if !pass.is_empty() {
        out.push(format!("passthrough: {}", pass.join(", ")));
    }
    if let Some(n) = v["rules"].as_u64().filter(|n| *n > 0) {
        out.push(format!(
            "{n} rule{} (proxy rules)",
            if n == 1 { "" } else { "s" }
        ));
    }
    if v["conditions"].is_object() {
        out.push(format!(
            "conditions: {}",
            super::rules::conditions_line(&v["conditions"])
        ));
    }
    for a in v["attached"].as_array().into_iter().flatten() {
        out.push(format!(
            "attached: {} ({}) since {}",
            s(&a["udid"]),
            s(&a["platform"]),
            s(&a["since"])
        ));
    }
    if let Some(n) = v["note"].as_str() {
        out.push(format!("note: {n}"));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flows_read_as_lines() {
        let ok = json!({"id": 12, "started_at": "t", "method": "GET", "url": "https://a.com/x",
            "status": 200, "total_ms": 34.5, "size": 2048});
        assert_eq!(line(&ok), "#12 GET 200 https://a.com/x · 34.5 ms · 2.0 KB");
        let failed = json!({"id": 13, "started_at": "t", "method": "GET",
            "url": "http://127.0.0.1:1/", "error": "refused", "total_ms": 0.4});
        assert_eq!(
            line(&failed),
            "#13 GET refused http://127.0.0.1:1/ · 0.4 ms"
        );
        let both = json!({"flows": [ok, failed], "next_cursor": 13, "evicted": 0});
        assert_eq!(list(&both).lines().count(), 2);
        assert_eq!(
            list(&json!({"flows": [], "next_cursor": 0, "evicted": 0})),
            "no flows"
        );
    }

    #[test]
    fn a_flow_shows_headers_bodies_and_its_error() {
        let v = json!({"id": 3, "method": "POST", "url": "http://h/", "host": "h",
            "started_at": "t", "status": 500,
            "request": {"headers": [["authorization", "Bearer [redacted]"]],
                        "body": {"size": 2, "stored": 2, "truncated": false, "text": "{}"}},
            "response": {"headers": [["content-type", "image/png"]],
                         "body": {"size": 9, "stored": 9, "truncated": false,
                                  "note": "binary (image/png)"}},
            "timing": {"connect_ms": 1.5, "first_byte_ms": 3.0, "total_ms": 4.0},
            "error": {"kind": "aborted", "message": "the app left"}});
        let t = flow(&v);
        assert!(
            t.starts_with("#3 POST 500 aborted http://h/ · 4 ms (connect 1.5, first byte 3)"),
            "{t}"
        );
        assert!(t.contains("> authorization: Bearer [redacted]\n{}"), "{t}");
        assert!(
            t.contains("< content-type: image/png\n(9 bytes: binary (image/png))"),
            "{t}"
        );
        assert!(t.ends_with("error: aborted — the app left"), "{t}");
    }

    #[test]
    fn status_summary_attach_and_clear() {
        let st = json!({"running": true, "address": "127.0.0.1:9101", "passthrough": ["p.com"],
            "in_flight": 0, "attached": [{"udid": "emu", "platform": "android", "port": 9101,
            "since": "t"}], "store": {"flows": 2, "bytes": 2048, "max_flows": 10,
            "max_bytes": 1048576, "evicted": 0, "latest_id": 2}});
        let t = status(&st);
        assert!(
            t.starts_with(
                "proxy running on 127.0.0.1:9101 · 2 flows kept (2.0 KB of 1.0 MB, 0 evicted)"
            ),
            "{t}"
        );
        assert!(
            t.contains("passthrough: p.com") && t.contains("attached: emu (android)"),
            "{t}"
        );
        let sum = json!({"flows": 2, "by_host": [{"host": "a.com", "flows": 2, "failed": 1}],
            "by_status": {"2xx": 1, "5xx": 1}, "failures_total": 1,
            "failures": [{"id": 2, "method": "GET", "url": "http://a.com/", "status": 500,
                          "total_ms": 3.0, "started_at": "t"}],
            "slowest": [], "evicted": 0});
        let t = summary(&sum);
        assert!(
            t.starts_with(
                "2 flows · 2xx 1 · 5xx 1\nhosts: a.com (2, 1 failed)\nfailures (1):\n  #2 GET 500"
            ),
            "{t}"
        );
        let a = json!({"device": {"udid": "emu"}, "proxy": "127.0.0.1:9101", "already": false,
            "done": ["adb reverse"], "todo": ["trust the CA"]});
        assert_eq!(
            attached(&a),
            "attached emu to the proxy at 127.0.0.1:9101\n  ran: adb reverse\n  todo: trust the CA"
        );
        assert_eq!(cleared(&json!({"cleared": 1})), "cleared 1 flow");
    }
}
