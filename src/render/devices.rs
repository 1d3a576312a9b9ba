//! The answers about devices, apps and the service as text: the device list, the active
//! device, power and other outcomes, installed apps, the doctor, the screen summary, find.

use serde_json::Value;

use super::s;

/// `health`: `ok · mobilectl 0.1.0 · API protocol 1`.
pub fn health(v: &Value) -> String {
    format!(
        "{} · mobilectl {} · API protocol {}",
        s(&v["status"]),
        s(&v["version"]),
        v["api_protocol_version"]
    )
}

/// `list_devices`: a line per device (`*` the active one), then the backends not listed.
pub fn list(v: &Value) -> String {
    let devs = v["devices"].as_array().map_or(&[][..], Vec::as_slice);
    let active = v["active"].as_str();
    let leases = v["leases"].as_array().map_or(&[][..], Vec::as_slice);
    let mut lines: Vec<String> = devs
        .iter()
        .map(|d| {
            let mark = if d["udid"].as_str() == active && active.is_some() {
                "*"
            } else {
                " "
            };
            let lease = leases
                .iter()
                .find(|l| l["udid"] == d["udid"])
                .map(|l| {
                    let who = match s(&l["name"]) {
                        "" => s(&l["session"]),
                        n => n,
                    };
                    format!("  leased by {who} until {}", s(&l["expires_at"]))
                })
                .unwrap_or_default();
            format!(
                "{mark} {}  {}  {} {}  {}  {}{lease}",
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

/// `get_active_device`, `set_active_device`.
pub fn active(v: &Value) -> String {
    match v["udid"].as_str() {
        Some(u) => format!("active device: {u} {}", s(&v["device"]["name"]))
            .trim_end()
            .into(),
        None => "no active device".into(),
    }
}

/// `get_device`: its line as the list gives it, then what it can do.
pub fn device(v: &Value) -> String {
    let caps: Vec<&str> = v["capabilities"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let line = [
        s(&v["udid"]),
        s(&v["name"]),
        s(&v["platform"]),
        s(&v["kind"]),
        s(&v["state"]),
        s(&v["os_version"]),
    ]
    .iter()
    .filter(|f| !f.is_empty())
    .copied()
    .collect::<Vec<_>>()
    .join("  ");
    match caps.is_empty() {
        true => line,
        false => format!("{line}\ncan: {}", caps.join(", ")),
    }
}

/// `connect_device`: `connected 192.168.1.20:5555 Pixel_7 device`.
pub fn connected(v: &Value) -> String {
    let how = if v["already"] == true {
        "already connected"
    } else {
        "connected"
    };
    format!(
        "{how} {} {} {}",
        s(&v["connected"]),
        s(&v["device"]["name"]),
        s(&v["device"]["state"])
    )
    .trim_end()
    .into()
}

/// `helper install`: what was installed, from where.
pub fn helper_installed(v: &Value) -> String {
    let packages: Vec<String> = v["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            format!("{} {}", s(&p["package"]), s(&p["version"]))
                .trim_end()
                .to_string()
        })
        .collect();
    format!(
        "installed {} on {} (from {}, {} ms)",
        packages.join(", "),
        s(&v["device"]["udid"]),
        s(&v["source"]),
        v["install_ms"]
    )
}

/// `boot`, `shutdown`: the device's state after.
pub fn power(v: &Value) -> String {
    if v.get("success").is_some() {
        return done(v);
    }
    format!("{} {}", s(&v["state"]), s(&v["device"]["udid"]))
        .trim_end()
        .into()
}

/// An outcome (`launch_app`, `set_permission`, `erase`…): `ok · com.app · launched in 412 ms`.
pub fn done(v: &Value) -> String {
    let mut line = (if v["success"] == true { "ok" } else { "FAILED" }).to_string();
    if let Some(b) = v["bundle_id"].as_str() {
        line += &format!(" · {b}");
    }
    let startup = &v["startup"];
    let first_screen = match startup["measured_by"] == "mobilectl" {
        true => startup["total_time_ms"]
            .as_u64()
            .filter(|_| startup["complete"] == true),
        false => None,
    };
    if let Some(t) = first_screen {
        line += &format!(" · first screen after {t} ms (measured by mobilectl");
        if let Some(earliest) = startup["earliest_ms"].as_u64() {
            line += &format!(", not before {earliest} ms");
        }
        line += ")";
    } else if let Some(t) = v["launch_time_ms"].as_u64() {
        line += &format!(" · launched in {t} ms");
        if let Some(state) = startup["launch_state"].as_str() {
            line += &format!(" ({} start)", state.to_ascii_lowercase());
        }
        if startup["measured_by"] == "mobilectl" {
            let why = startup["warning"]
                .as_str()
                .unwrap_or("no first screen seen");
            line += &format!(" · {why}");
        }
    }
    let starts = &v["starts"];
    if let (Some(n), Some(median)) = (
        starts["times_ms"].as_array().map(Vec::len),
        starts["median_ms"].as_u64(),
    ) {
        let plural = if n == 1 { "" } else { "s" };
        let (what, by) = match starts["measured_by"].as_str() {
            Some("mobilectl") => (" to the first screen", ""),
            Some("launch_command") => ("", ", the launch command's own time"),
            _ => ("", ""),
        };
        line += &format!(
            " · {n} start{plural}{what}: median {median} ms ({}–{} ms{by})",
            starts["min_ms"], starts["max_ms"]
        );
    }
    if let Some(p) = v.get("perf") {
        line += &super::perf::cost(p);
    }
    if let Some(d) = v["device"]["udid"].as_str() {
        line += &format!(" · {d}");
    }
    line
}

/// `list_apps`: a line per app.
pub fn apps(v: &Value) -> String {
    v["apps"]
        .as_array()
        .into_iter()
        .flatten()
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
        .join("\n")
}

/// `find`: a line per match, best first.
pub fn matches(v: &Value) -> String {
    let ms = v["matches"].as_array().map_or(&[][..], Vec::as_slice);
    if ms.is_empty() {
        return "no match".into();
    }
    // Look-alikes only: say first that nothing matched, so they are not taken for a match.
    let lead = match v["found"] {
        Value::Bool(false) => "no match; look-alikes:\n",
        _ => "",
    };
    let lines = ms
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
    format!("{lead}{lines}")
}

/// `doctor`: the readiness of each backend, then each tool and check.
pub fn doctor(v: &Value) -> String {
    // Beside `overall` and `tools`, one readiness per backend, by its id.
    let backends: Vec<String> = v
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !matches!(k.as_str(), "overall" | "tools" | "checks" | "sessions"))
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
    for session in v["sessions"].as_array().into_iter().flatten() {
        lines.push(format!("  {}", super::sessions::session(session)));
    }
    lines.join("\n")
}

/// `screen_summary`.
pub fn summary(v: &Value) -> String {
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
