//! Sessions as text: one session (id, name, device, expiry, and the secret in its creator's
//! answer), the live ones, an ended one.

use serde_json::Value;

use super::s;

/// `create_session`, `get_session`, `session_info`: `session ses-… (ci-1) · device … · expires in 600 s`.
pub fn session(v: &Value) -> String {
    let name = match s(&v["name"]) {
        "" => String::new(),
        n => format!(" ({n})"),
    };
    let device = match (s(&v["udid"]), s(&v["device"]["name"])) {
        ("", _) => "no device yet (leased at the first device operation)".to_string(),
        (u, "") => format!("device {u}"),
        (u, n) => format!("device {u} {n}"),
    };
    let app = match s(&v["app"]) {
        "" => String::new(),
        a => format!(" · app {a}"),
    };
    let line = format!(
        "session {}{name} · {device}{app} · expires in {} s (ttl {} s)",
        s(&v["id"]),
        v["expires_in_ms"].as_u64().unwrap_or(0).div_ceil(1000),
        v["ttl_s"]
    );
    // Only the creator's answer has it.
    match s(&v["secret"]) {
        "" => line,
        secret => format!(
            "{line}\nsecret {secret} (send it as Mobilectl-Session: it alone acts in, renews or ends the session)"
        ),
    }
}

/// `list_sessions`: one line per session.
pub fn list(v: &Value) -> String {
    let lines: Vec<String> = v["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(session)
        .collect();
    if lines.is_empty() {
        return "no sessions".into();
    }
    lines.join("\n")
}

/// `end_session`, `release_device`.
pub fn ended(v: &Value) -> String {
    match s(&v["released"]) {
        "" => format!("session {}: no lease held", s(&v["id"])),
        u => format!("session {}: released {u}", s(&v["id"])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_session_says_its_device_and_expiry() {
        let v = json!({"id": "ses-1", "name": "ci", "udid": "emulator-5554",
                       "device": {"name": "Pixel 7"}, "ttl_s": 600, "expires_in_ms": 599_001});
        assert_eq!(
            session(&v),
            "session ses-1 (ci) · device emulator-5554 Pixel 7 · expires in 600 s (ttl 600 s)"
        );
        let lazy = json!({"id": "ses-2", "ttl_s": 60, "expires_in_ms": 0});
        assert!(session(&lazy).contains("no device yet"));
        assert_eq!(list(&json!({"sessions": []})), "no sessions");
        let created = json!({"id": "ses-3", "secret": "mss-ab", "ttl_s": 60, "expires_in_ms": 0});
        assert!(session(&created).ends_with("\nsecret mss-ab (send it as Mobilectl-Session: it alone acts in, renews or ends the session)"));
        assert_eq!(
            ended(&json!({"id": "ses-1", "released": "emulator-5554"})),
            "session ses-1: released emulator-5554"
        );
    }
}
