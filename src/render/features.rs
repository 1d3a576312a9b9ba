//! Text of the device features' answers: the clipboard, the orientation, an intent, files,
//! notifications, media, airplane mode.

use serde_json::Value;

use super::s;

/// `get_clipboard`: the text itself (nothing more, so it pipes), or `(empty)`.
pub fn clipboard(v: &Value) -> String {
    match s(&v["text"]) {
        "" => "(empty)".to_string(),
        t => t.to_string(),
    }
}

/// `get_orientation`: `landscape · auto-rotate off`.
pub fn orientation(v: &Value) -> String {
    let mut line = s(&v["orientation"]).to_string();
    match v["auto_rotate"].as_bool() {
        Some(true) => line += " · auto-rotate on",
        Some(false) => line += " · auto-rotate off",
        None => {}
    }
    line
}

/// `send_intent`: `start ok · com.example/.Main`, then what `am` said.
pub fn intent(v: &Value) -> String {
    let mut line = format!(
        "{} {}",
        s(&v["mode"]),
        if v["success"] == true { "ok" } else { "FAILED" }
    );
    if let Some(a) = v["activity"].as_str() {
        line += &format!(" · {a}");
    }
    for l in s(&v["output"]).lines() {
        line += &format!("\n  {l}");
    }
    line
}

/// `push_file` / `pull_file`: `12 bytes · /root/a.txt ↔ /sdcard/a.txt`.
pub fn file(v: &Value) -> String {
    format!(
        "{} bytes · {} ↔ {}",
        v["bytes"].as_u64().unwrap_or(0),
        s(&v["local_path"]),
        s(&v["device_path"])
    )
}

/// `list_notifications`: a line per notification, `app · title: text`.
pub fn notifications(v: &Value) -> String {
    let list = v["notifications"].as_array().cloned().unwrap_or_default();
    if list.is_empty() {
        return "no notifications".to_string();
    }
    list.iter()
        .map(|n| {
            let mut line = String::new();
            if let Some(a) = n["app"].as_str() {
                line += &format!("{a} · ");
            }
            match (n["title"].as_str(), n["text"].as_str()) {
                (Some(t), Some(x)) => line += &format!("{t}: {x}"),
                (Some(t), None) => line += t,
                (None, Some(x)) => line += x,
                (None, None) => line += "(no text)",
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `add_media`: `added 1234 bytes → /sdcard/Pictures/a.jpg`.
pub fn media(v: &Value) -> String {
    format!(
        "added {} bytes → {}",
        v["bytes"].as_u64().unwrap_or(0),
        s(&v["location"])
    )
}

/// `set_airplane_mode`: `airplane mode on`, and the note on a line of its own.
pub fn airplane_mode(v: &Value) -> String {
    let mut line = format!(
        "airplane mode {}",
        if v["enabled"] == true { "on" } else { "off" }
    );
    if let Some(n) = v["note"].as_str() {
        line += &format!("\n  note: {n}");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn features_render_in_a_line_or_two() {
        assert_eq!(clipboard(&json!({"text": "hi"})), "hi");
        assert_eq!(clipboard(&json!({"text": ""})), "(empty)");
        assert_eq!(
            orientation(&json!({"orientation": "landscape", "auto_rotate": false})),
            "landscape · auto-rotate off"
        );
        assert_eq!(
            intent(
                &json!({"mode": "start", "success": true, "activity": "a/.B",
                           "output": "Status: ok"})
            ),
            "start ok · a/.B\n  Status: ok"
        );
        assert_eq!(
            airplane_mode(&json!({"success": true, "enabled": true})),
            "airplane mode on"
        );
        assert_eq!(
            airplane_mode(&json!({"success": true, "enabled": false, "note": "radios not told"})),
            "airplane mode off\n  note: radios not told"
        );
    }
}
