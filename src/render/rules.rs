//! The proxy's rules and link conditions as text: a rule in one line (id, hits, match,
//! action), the list, what was added or removed, the conditions; and the HAR export (its JSON,
//! which is what a HAR file is).

use serde_json::Value;

use super::s;

/// Match fields, in the order they read.
const MATCH: &[&str] = &[
    "method",
    "host",
    "path",
    "path_glob",
    "path_regex",
    "query",
    "header",
    "json_field",
    "json_equals",
    "nth",
    "times",
];

/// `#3 [hits 2] POST api.x.com /login → respond 500`
pub fn rule_line(view: &Value) -> String {
    let v = &view["rule"];
    let what: Vec<String> = MATCH
        .iter()
        .filter(|k| !v[**k].is_null())
        .map(|k| match &v[*k] {
            Value::String(x) if matches!(*k, "method" | "host" | "path") => x.clone(),
            x => format!("{k}={x}"),
        })
        .collect();
    let action = s(&v["action"]);
    let detail = match action {
        "respond" => format!("respond {}", v["status"].as_u64().unwrap_or(200)),
        "fail" => format!("fail {}", s(&v["fail"])),
        "delay" => format!(
            "delay {} ms (first byte +{} ms)",
            v["delay_ms"].as_u64().unwrap_or(0),
            v["first_byte_delay_ms"].as_u64().unwrap_or(0)
        ),
        "throttle" => format!(
            "throttle down {} B/s, up {} B/s",
            v["down_bytes_per_sec"], v["up_bytes_per_sec"]
        ),
        other => other.to_string(),
    };
    format!(
        "#{} [hits {}, matched {}] {} → {detail}",
        view["id"],
        view["hits"],
        view["matched"],
        if what.is_empty() {
            "every request".to_string()
        } else {
            what.join(" ")
        },
    )
}

/// `add_proxy_rule`, `delete_proxy_rule`.
pub fn rule(v: &Value) -> String {
    rule_line(v)
}

/// `list_proxy_rules`.
pub fn list(v: &Value) -> String {
    let lines: Vec<String> = v["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .map(rule_line)
        .collect();
    if lines.is_empty() {
        "no rules".into()
    } else {
        lines.join("\n")
    }
}

/// `clear_proxy_rules`.
pub fn cleared(v: &Value) -> String {
    let n = v["cleared"].as_u64().unwrap_or(0);
    format!("removed {n} rule{}", if n == 1 { "" } else { "s" })
}

/// `proxy_rules_from_har`.
pub fn added(v: &Value) -> String {
    let mut out: Vec<String> = v["added"]
        .as_array()
        .into_iter()
        .flatten()
        .map(rule_line)
        .collect();
    out.push(format!("{} rules in all", v["total"]));
    out.join("\n")
}

/// The conditions in one line.
pub fn conditions_line(c: &Value) -> String {
    if c["offline"] == true {
        return "offline".into();
    }
    let mut parts = Vec::new();
    if let Some(p) = c["profile"].as_str() {
        parts.push(p.to_string());
    }
    parts.push(format!(
        "{} ms ± {}",
        c["latency_ms"].as_u64().unwrap_or(0),
        c["jitter_ms"].as_u64().unwrap_or(0)
    ));
    if let Some(d) = c["down_kbps"].as_u64() {
        parts.push(format!("down {d} kbit/s"));
    }
    if let Some(u) = c["up_kbps"].as_u64() {
        parts.push(format!("up {u} kbit/s"));
    }
    if let Some(l) = c["loss_percent"].as_f64().filter(|l| *l > 0.0) {
        parts.push(format!("loss {l} %"));
    }
    parts.join(" · ")
}

/// `set_proxy_conditions`, `clear_proxy_conditions`.
pub fn conditions(v: &Value) -> String {
    match v["conditions"].is_object() {
        true => format!("link conditions: {}", conditions_line(&v["conditions"])),
        false => "no link conditions".into(),
    }
}

/// `export_har`: the document itself.
pub fn har(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
