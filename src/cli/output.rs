//! What the client prints: with `--json` the server's JSON unchanged (errors too, on stdout);
//! otherwise readable text — the compact tree for `snapshot`, one line per action — with
//! errors, their hint, on stderr. Also decides the exit code of a successful HTTP answer.

use serde_json::Value;

use super::client::{exit, CliError};
use super::plan::Answer;

/// Prints a successful answer; returns the exit code.
pub fn answer(a: &Answer, json: bool) -> i32 {
    match a {
        Answer::Text(r) => {
            print!("{}", r.raw);
            if !r.raw.ends_with('\n') {
                println!();
            }
            exit::OK
        }
        Answer::Streamed => exit::OK,
        Answer::Saved(v) => {
            if json {
                println!("{v}");
            } else if v["path"] != "-" {
                println!(
                    "saved {} ({} bytes, {})",
                    v["path"].as_str().unwrap_or("?"),
                    v["bytes"],
                    v["content_type"].as_str().unwrap_or("?")
                );
            }
            exit::OK
        }
        Answer::Json(r) => {
            if json {
                println!("{}", r.raw.trim_end());
            } else {
                let mut v = r.value.clone();
                // An action's line ends with the server's time for it.
                if let (Some(t), true) = (r.timing_ms, v.get("action_type").is_some()) {
                    v["timing_ms"] = serde_json::json!(t.round() as u64);
                }
                println!("{}", text(&v).trim_end());
            }
            outcome(&r.value)
        }
    }
}

/// Prints one event of a stream as it arrives: its JSON unchanged with `--json`, else the
/// readable form of its shape (one line for a log entry or a flow).
pub fn event(data: &str, json: bool) {
    use std::io::Write;
    let line = match serde_json::from_str::<Value>(data) {
        Ok(v) if !json => text(&v),
        _ => data.to_string(),
    };
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) ends the output quietly; the stream ends with the process.
    if writeln!(out, "{}", line.trim_end())
        .and_then(|_| out.flush())
        .is_err()
    {
        std::process::exit(exit::OK);
    }
}

/// Prints a failure; returns its exit code.
pub fn error(e: &CliError, json: bool) -> i32 {
    if json {
        println!("{}", e.json());
    } else {
        eprintln!("mobilectl: {}: {}", e.code, e.message);
        if let Some(h) = &e.hint {
            eprintln!("hint: {}", super::hint::to_cli(h));
        }
    }
    e.exit
}

/// 1 when a 2xx answer reports that the thing did not happen, else 0.
pub fn outcome(v: &Value) -> i32 {
    let failed =
        v["success"] == Value::Bool(false) || v["status"] == "timeout" || v["overall"] == "blocked";
    if failed {
        exit::FAILED
    } else {
        exit::OK
    }
}

/// A JSON string's text, or nothing.
pub(super) fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

fn short(fp: &Value) -> String {
    fp.as_str()
        .map_or("?".into(), |f| f.chars().take(8).collect::<String>())
}

/// The readable form of a JSON answer, chosen by its shape.
pub fn text(v: &Value) -> String {
    if let (Some(steps), Some(_)) = (v["steps"].as_array(), v.get("udid")) {
        return batch(v, steps);
    }
    if let Some(t) = super::flows_text::text(v) {
        return t;
    }
    if v.get("action_type").is_some() {
        return action_line(v);
    }
    if let Some(line) = super::output_logs::text(v) {
        return line;
    }
    if v.get("polls").is_some() && v.get("fingerprint_before").is_some() {
        return format!(
            "{} after {} ms ({} polls) · fp {}→{}",
            s(&v["status"]),
            v["elapsed_ms"],
            v["polls"],
            short(&v["fingerprint_before"]),
            short(&v["fingerprint_after"])
        );
    }
    if v.get("polls").is_some() {
        return wait_line(v);
    }
    if v.get("api_protocol_version").is_some() {
        return format!(
            "{} · mobilectl {} · API protocol {}",
            s(&v["status"]),
            s(&v["version"]),
            v["api_protocol_version"]
        );
    }
    if v.get("observed").is_some() {
        let ok = v["success"] == true;
        let mut line = format!("expect {}", if ok { "ok" } else { "FAILED" });
        if !ok {
            line += &format!(" · observed {}", v["observed"]);
        }
        return line;
    }
    if let Some(c) = v["connected"].as_str() {
        let how = if v["already"] == true {
            "already connected"
        } else {
            "connected"
        };
        return format!(
            "{how} {c} {} {}",
            s(&v["device"]["name"]),
            s(&v["device"]["state"])
        )
        .trim_end()
        .into();
    }
    if let Some(devs) = v["devices"].as_array() {
        return devices(v, devs);
    }
    if v.get("overall").is_some() {
        return doctor(v);
    }
    if let Some(apps) = v["apps"].as_array() {
        return apps
            .iter()
            .map(|a| {
                format!(
                    "{}  {}  {}",
                    s(&a["bundle_id"]),
                    s(&a["name"]),
                    s(&a["version"])
                )
                .trim_end()
                .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n");
    }
    if v.get("screen_description").is_some() {
        return summary(v);
    }
    if let Some(ms) = v["matches"].as_array() {
        if ms.is_empty() {
            return "no match".into();
        }
        return ms
            .iter()
            .map(|m| {
                let name = m["name"].as_str().map(|n| format!(" {n:?}"));
                format!(
                    "{} {}{} ({} {:.2})",
                    m["ref"].as_str().map_or("-".into(), |r| format!("@{r}")),
                    s(&m["role"]),
                    name.unwrap_or_default(),
                    s(&m["kind"]),
                    m["score"].as_f64().unwrap_or(0.0)
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
    }
    if v.get("state").is_some() && v.get("success").is_none() {
        return format!("{} {}", s(&v["state"]), s(&v["device"]["udid"]))
            .trim_end()
            .into();
    }
    if v.get("success").is_some() {
        let mut line = (if v["success"] == true { "ok" } else { "FAILED" }).to_string();
        if let Some(b) = v["bundle_id"].as_str() {
            line += &format!(" · {b}");
        }
        if let Some(t) = v["launch_time_ms"].as_u64() {
            line += &format!(" · launched in {t} ms");
        }
        if let Some(d) = v["device"]["udid"].as_str() {
            line += &format!(" · {d}");
        }
        return line;
    }
    if v.get("udid").is_some() || v.get("device").is_some() {
        return match v["udid"].as_str() {
            Some(u) => format!("active device: {u} {}", s(&v["device"]["name"]))
                .trim_end()
                .into(),
            None => "no active device".into(),
        };
    }
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// A batch: a numbered line per step (its own readable answer, or its error), then the
/// receipt and the outcome.
fn batch(v: &Value, steps: &[Value]) -> String {
    let mut lines = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let answer = &step["answer"];
        let said = match answer["error"]["code"].as_str() {
            Some(code) => format!(
                "{} FAILED {code}: {}",
                s(&step["op"]),
                s(&answer["error"]["message"])
            ),
            None => text(answer),
        };
        lines.push(format!("{i} {}", said.replace('\n', "\n  ")));
    }
    if let Some(r) = v.get("receipt") {
        let mut line = format!("receipt · fp {}", short(&r["fingerprint_after"]));
        if let Some(c) = r.get("changes") {
            line += &changes(c);
        }
        lines.push(line);
    }
    lines.push(match v["stopped_at"].as_u64() {
        Some(i) if v["timed_out"] == true => format!("batch FAILED: out of time before step {i}"),
        Some(i) => format!("batch FAILED at step {i}"),
        None if v["success"] == true => format!("batch ok ({} steps)", steps.len()),
        None => "batch FAILED (went on after failures)".to_string(),
    });
    lines.join("\n")
}

fn action_line(v: &Value) -> String {
    let r = &v["target"];
    let mut line = s(&v["action_type"]).to_string();
    if let Some(rf) = r["ref"].as_str() {
        line += &format!(" {rf}");
    }
    if let (Some(x), Some(y)) = (r["x"].as_f64(), r["y"].as_f64()) {
        line += &format!(" ({x},{y})");
    }
    if let Some(n) = r["name"].as_str().filter(|n| !n.is_empty()) {
        line += &format!(" {n:?}");
    }
    if v["success"] == true {
        line += " ok";
    } else {
        line += " FAILED";
        if let Some(c) = v["failure_code"].as_str() {
            line += &format!(" {c}");
        }
        if let Some(id) = v["details"]["crash"]["id"].as_str() {
            line += &format!(" (mobilectl crashes {id})");
        }
    }
    // What typing left in the field, when it was read back.
    let d = &v["details"];
    if let Some(m) = d.get("matched").filter(|m| !m.is_null()) {
        line += &format!(" · matched {m}");
        if let Some(r) = d.get("readback") {
            line += &format!(" · readback {r}");
        }
    }
    match (&v["fingerprint_before"], &v["fingerprint_after"]) {
        (Value::Null, Value::Null) => {}
        (b, Value::Null) => line += &format!(" · fp {}", short(b)),
        (b, a) => line += &format!(" · fp {}→{}", short(b), short(a)),
    }
    if let Some(t) = v["timing_ms"].as_u64() {
        line += &format!(" · {t} ms");
    }
    if let Some(c) = v.get("changes") {
        line += &changes(c);
    }
    line
}

/// The lines of an observed action's `changes`, under its line: `+` appeared, `-` gone,
/// `~` changed.
fn changes(c: &Value) -> String {
    let mut out = String::new();
    let mut list = |mark: &str, key: &str| {
        for l in c[key].as_array().into_iter().flatten() {
            out += &format!("\n  {mark} {}", s(l));
        }
    };
    list("+", "appeared");
    list("-", "disappeared");
    list("~", "changed");
    if c["replaced"] == true {
        out += &format!("\n  (a new screen; {} line(s) gone)", c["gone"]);
    }
    if let Some(app) = c["app"].as_str() {
        out += &format!("\n  app → {app}");
    }
    if let Some(a) = c["alert"].as_str() {
        out += &format!("\n  alert {a:?}");
    }
    if c["alert_gone"] == true {
        out += "\n  alert gone";
    }
    if let Some(k) = c["keyboard"].as_bool() {
        out += if k {
            "\n  keyboard up"
        } else {
            "\n  keyboard down"
        };
    }
    if out.is_empty() {
        out += "\n  (no change)";
    }
    out
}

fn wait_line(v: &Value) -> String {
    let mut line = format!(
        "wait {} after {} ms ({} polls)",
        s(&v["status"]),
        v["elapsed_ms"],
        v["polls"]
    );
    let m = &v["matched"];
    if !m.is_null() {
        if let Some(r) = m["ref"].as_str() {
            line += &format!(" · @{r}");
        }
        line += &format!(" {} {:?}", s(&m["role"]), s(&m["name"]));
    } else if v["status"] == "timeout" {
        line += &format!(" · observed {}", v["observed"]);
    }
    line
}

fn devices(v: &Value, devs: &[Value]) -> String {
    let active = v["active"].as_str();
    let mut lines: Vec<String> = devs
        .iter()
        .map(|d| {
            let mark = if d["udid"].as_str() == active && active.is_some() {
                "*"
            } else {
                " "
            };
            format!(
                "{mark} {}  {}  {} {}  {}  {}",
                s(&d["udid"]),
                s(&d["name"]),
                s(&d["platform"]),
                s(&d["kind"]),
                s(&d["state"]),
                s(&d["os_version"])
            )
            .trim_end()
            .to_string()
        })
        .collect();
    if devs.is_empty() {
        lines.push("no devices".into());
    }
    for (backend, t) in v["tools"].as_object().into_iter().flatten() {
        if t["available"] == false {
            lines.push(format!("({backend} not listed: {})", s(&t["reason"])));
        }
    }
    lines.join("\n")
}

fn doctor(v: &Value) -> String {
    // Beside `overall` and `tools`, one readiness per backend, by its id.
    let backends: Vec<String> = v
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !matches!(k.as_str(), "overall" | "tools" | "checks"))
        .map(|(k, r)| format!("{k}: {}", s(r)))
        .collect();
    let mut lines = vec![format!(
        "overall: {} ({})",
        s(&v["overall"]),
        backends.join(", ")
    )];
    for t in v["tools"].as_array().into_iter().flatten() {
        if t["found"] == true {
            lines.push(format!(
                "  ok       {}  {}  {}",
                s(&t["tool"]),
                s(&t["path"]),
                s(&t["version"])
            ));
        } else {
            lines.push(format!(
                "  missing  {}  {}",
                s(&t["tool"]),
                s(&t["remediation"])
            ));
        }
    }
    // The backends' own checks: endpoints, devicectl, devices.
    for c in v["checks"].as_array().into_iter().flatten() {
        let facts: Vec<&str> = ["version", "session", "detail"]
            .iter()
            .map(|k| s(&c[*k]))
            .filter(|x| !x.is_empty())
            .collect();
        let line = format!(
            "  {:<8} {}  {}  {}",
            if c["ok"] == true { "ok" } else { "failing" },
            s(&c["name"]),
            s(&c["target"]),
            facts.join(" · ")
        );
        lines.push(line.trim_end().to_string());
        if c["ok"] != true && !s(&c["remediation"]).is_empty() {
            lines.push(format!("           → {}", s(&c["remediation"])));
        }
    }
    lines.join("\n")
}

fn summary(v: &Value) -> String {
    let mut lines = vec![s(&v["screen_description"]).to_string()];
    for e in v["interactive_elements"].as_array().into_iter().flatten() {
        lines.push(format!(
            "  @{} {} {:?}",
            s(&e["ref"]),
            s(&e["role"]),
            s(&e["name"])
        ));
    }
    lines.push(format!("fingerprint {}", s(&v["fingerprint"])));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn action_results_are_one_line() {
        let v = json!({"action_type": "tap", "success": true,
            "target": {"ref": "e4", "x": 540, "y": 1290, "name": "LOG IN"},
            "fingerprint_before": "87d1aaaaaaaa", "udid": "x", "timing_ms": 12});
        assert_eq!(
            text(&v),
            "tap e4 (540,1290) \"LOG IN\" ok · fp 87d1aaaa · 12 ms"
        );
        assert_eq!(outcome(&v), 0);
        // With observe, what changed follows the line.
        let observed = json!({"action_type": "tap", "success": true,
            "target": {"ref": "e4", "x": 540, "y": 1290},
            "fingerprint_before": "87d1aaaaaaaa", "fingerprint_after": "99aabbccdd",
            "changes": {"appeared": ["button \"Allow\" [e9]"], "replaced": true, "gone": 7,
                        "alert": "Allow access?"},
            "udid": "x", "timing_ms": 30});
        assert_eq!(
            text(&observed),
            "tap e4 (540,1290) ok · fp 87d1aaaa→99aabbcc · 30 ms\n  + button \"Allow\" [e9]\n  \
             (a new screen; 7 line(s) gone)\n  alert \"Allow access?\""
        );
        let unchanged = json!({"action_type": "press", "success": true, "changes": {},
            "udid": "x", "timing_ms": 3});
        assert_eq!(text(&unchanged), "press ok · 3 ms\n  (no change)");
        let typed = json!({"action_type": "type", "success": false,
            "failure_code": "TEXT_MISMATCH", "timing_ms": 5,
            "details": {"matched": false, "readback": "alic"}});
        assert_eq!(
            text(&typed),
            "type FAILED TEXT_MISMATCH · matched false · readback \"alic\" · 5 ms"
        );
        assert_eq!(outcome(&typed), 1);
    }

    #[test]
    fn change_and_health_lines() {
        let v = json!({"status": "changed", "fingerprint_before": "aaaaaaaaaa",
            "fingerprint_after": "bbbbbbbbbb", "elapsed_ms": 40, "polls": 2, "snapshot_id": "s"});
        assert_eq!(
            text(&v),
            "changed after 40 ms (2 polls) · fp aaaaaaaa→bbbbbbbb"
        );
        let t = json!({"status": "timeout", "fingerprint_before": "a", "fingerprint_after": "a",
            "elapsed_ms": 300, "polls": 3, "snapshot_id": "s"});
        assert_eq!(outcome(&t), 1);
        let h = json!({"status": "ok", "version": "0.1.0", "api_protocol_version": 1});
        assert_eq!(text(&h), "ok · mobilectl 0.1.0 · API protocol 1");
    }

    #[test]
    fn device_and_doctor_lines_name_every_backend() {
        let list = json!({"devices": [], "tools": {
            "android": {"available": true},
            "ios": {"available": false, "reason": "`xcrun` was not found"},
            "wda": {"available": false, "reason": "no endpoint"}}});
        assert_eq!(
            text(&list),
            "no devices\n(ios not listed: `xcrun` was not found)\n(wda not listed: no endpoint)"
        );
        let doctor = json!({"overall": "degraded", "android": "ready", "ios": "degraded",
            "wda": "degraded", "tools": [], "checks": [
                {"backend": "wda", "name": "WebDriverAgent", "target": "http://127.0.0.1:8100",
                 "ok": true, "version": "9.3.0", "detail": "iOS 17.5"},
                {"backend": "wda", "name": "devicectl", "target": "xcrun devicectl",
                 "ok": false, "remediation": "install Xcode"}]});
        assert_eq!(
            text(&doctor),
            "overall: degraded (android: ready, ios: degraded, wda: degraded)\n  \
             ok       WebDriverAgent  http://127.0.0.1:8100  9.3.0 · iOS 17.5\n  \
             failing  devicectl  xcrun devicectl\n           → install Xcode"
        );
    }

    #[test]
    fn outcomes() {
        assert_eq!(outcome(&json!({"success": false})), 1);
        assert_eq!(outcome(&json!({"status": "timeout", "polls": 3})), 1);
        assert_eq!(outcome(&json!({"status": "success", "polls": 3})), 0);
        assert_eq!(outcome(&json!({"overall": "blocked"})), 1);
        assert_eq!(outcome(&json!({"devices": []})), 0);
    }
}
