//! The screen as text: the snapshot's compact tree under a one-line header that says which
//! read it is, what is in front and the screen's size. The device and the fingerprint stay in
//! the JSON (an agent's session knows its device; `wait_for_change` defaults to the screen
//! now), which keeps the header a quarter of the server's own `format=text` header.

use serde_json::Value;

use super::s;

/// `snapshot`: `# s1 · com.app/.MainActivity · 1080x2400 px`, then one line per element.
pub fn snapshot(v: &Value) -> String {
    let unit = if v["coordinate_space"] == "points" {
        "pt"
    } else {
        "px"
    };
    let front = v["activity"].as_str().or(v["app"].as_str()).unwrap_or("?");
    // Whole numbers without a fraction: `1080x2400`, not `1080.0x2400.0`.
    let size = |k: &str| {
        v["screen"][k]
            .as_f64()
            .map_or("?".to_string(), |n| n.to_string())
    };
    format!(
        "# {} · {front} · {}x{} {unit}\n{}",
        s(&v["snapshot_id"]),
        size("w"),
        size("h"),
        s(&v["tree_text"])
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_snapshot_is_its_tree_under_a_short_header() {
        let v = json!({"snapshot_id": "s3", "activity": "com.a/.Main", "app": "com.a",
            "coordinate_space": "pixels", "screen": {"w": 1080.0, "h": 2400.0},
            "fingerprint": "87d1f2af041a0c2b", "device": {"udid": "emulator-5554"},
            "tree_text": "button \"OK\" [e1]\n"});
        assert_eq!(
            snapshot(&v),
            "# s3 · com.a/.Main · 1080x2400 px\nbutton \"OK\" [e1]\n"
        );
        let ios = json!({"snapshot_id": "s1", "app": "com.apple.Preferences",
            "coordinate_space": "points", "screen": {"w": 393, "h": 852}, "tree_text": ""});
        assert_eq!(
            snapshot(&ios),
            "# s1 · com.apple.Preferences · 393x852 pt\n"
        );
    }
}
