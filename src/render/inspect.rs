//! The screen as text: the snapshot's compact tree under a one-line header that says which
//! read it is, what is in front and the screen's size. The device and the fingerprint stay in
//! the JSON (an agent's session knows its device; `wait_for_change` defaults to the screen
//! now), which keeps the header a quarter of the server's own `format=text` header.

use serde_json::Value;

use super::s;

/// `snapshot`: `# s1 com.app/.MainActivity 1080x2400 px`, then one line per element.
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
        "# {} {front} {}x{} {unit}\n{}",
        s(&v["snapshot_id"]),
        size("w"),
        size("h"),
        s(&v["tree_text"])
    )
}

/// `screenshot_diff`: `changed 0.43% · 1 region (px) · baseline previous`, then one line per
/// region (`1. 60,780 960x840 · 12% of it changed`).
pub fn diff(v: &Value) -> String {
    let unit = if v["coordinate_space"] == "points" {
        "pt"
    } else {
        "px"
    };
    let pct = |x: &Value| format!("{:.2}%", x.as_f64().unwrap_or(0.0) * 100.0);
    let regions = v["regions"].as_array().cloned().unwrap_or_default();
    let n = regions.len() as u64 + v["regions_omitted"].as_u64().unwrap_or(0);
    let mut out = format!(
        "changed {} · {n} region{} ({unit}) · baseline {}",
        pct(&v["changed_share"]),
        if n == 1 { "" } else { "s" },
        s(&v["baseline"]["source"]),
    );
    if v["baseline"]["before_last_action"] == false {
        out += " (no screenshot before the last action: the latest)";
    }
    let num = |x: &Value| x.as_f64().map_or("?".to_string(), |n| n.to_string());
    for (i, r) in regions.iter().enumerate() {
        out += &format!(
            "\n{}. {},{} {}x{} · {} of it changed",
            i + 1,
            num(&r["x"]),
            num(&r["y"]),
            num(&r["width"]),
            num(&r["height"]),
            pct(&r["changed_share"])
        );
    }
    if let Some(n) = v["regions_omitted"].as_u64() {
        out += &format!("\n… and {n} smaller");
    }
    if let Some(f) = v["image"]["file"].as_str() {
        out += &format!("\nimage: {f}");
    }
    out
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
            "# s3 com.a/.Main 1080x2400 px\nbutton \"OK\" [e1]\n"
        );
        let ios = json!({"snapshot_id": "s1", "app": "com.apple.Preferences",
            "coordinate_space": "points", "screen": {"w": 393, "h": 852}, "tree_text": ""});
        assert_eq!(snapshot(&ios), "# s1 com.apple.Preferences 393x852 pt\n");
    }

    #[test]
    fn a_diff_is_its_share_then_one_line_per_region() {
        let v = json!({"changed_share": 0.413308, "coordinate_space": "pixels",
            "baseline": {"source": "previous", "before_last_action": true},
            "regions": [{"x": 1, "y": 1440, "width": 1078, "height": 960, "changed_share": 0.98}],
            "image": {"file": "d.png"}});
        assert_eq!(
            diff(&v),
            "changed 41.33% · 1 region (px) · baseline previous\n\
             1. 1,1440 1078x960 · 98.00% of it changed\nimage: d.png"
        );
        let v = json!({"changed_share": 0.0, "coordinate_space": "points", "regions": [],
            "baseline": {"source": "previous", "before_last_action": false}});
        assert_eq!(
            diff(&v),
            "changed 0.00% · 0 regions (pt) · baseline previous (no screenshot before the last \
             action: the latest)"
        );
    }
}
