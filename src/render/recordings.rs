//! Text of the screen recordings' answers.

use serde_json::Value;

use super::s;

/// One recording: `rec-… recording · emulator-5554 · max 300 s`, or, finished,
/// `rec-… finished · 12.4 s · 1080x2400 · 1.2 MB · stopped by request` and its path.
pub fn recording(v: &Value) -> String {
    let mut line = format!("{} {}", s(&v["id"]), s(&v["state"]));
    match v["duration_s"].as_f64() {
        Some(d) => {
            line += &format!(" · {d:.1} s");
            if let (Some(w), Some(h)) = (v["width"].as_u64(), v["height"].as_u64()) {
                line += &format!(" · {w}x{h}");
            }
            if let Some(b) = v["bytes"].as_u64() {
                line += &format!(" · {:.1} MB", b as f64 / 1e6);
            }
        }
        None => line += &format!(" · {} · max {} s", s(&v["udid"]), v["max_s"]),
    }
    if let Some(by) = v["stopped_by"].as_str() {
        line += &format!(" · stopped by {}", by.replace('_', " "));
    }
    if let Some(e) = v["error"].as_str() {
        line += &format!("\n  error: {e}");
    }
    line + &format!("\n  {}", s(&v["path"]))
}

/// `list_recordings`: one line per recording, newest first.
pub fn list(v: &Value) -> String {
    let all = v["recordings"].as_array().cloned().unwrap_or_default();
    if all.is_empty() {
        return "no recordings".to_string();
    }
    all.iter()
        .map(|r| recording(r).lines().next().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `delete_recording`: `deleted rec-…`.
pub fn deleted(v: &Value) -> String {
    format!("deleted {}", s(&v["id"]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_finished_recording_says_how_long_how_big_and_where() {
        let v = json!({"id": "rec-1", "state": "finished", "udid": "emulator-5554", "max_s": 300,
            "duration_s": 12.44, "width": 1080, "height": 2400, "bytes": 1_234_567,
            "stopped_by": "max_s", "path": "/c/runs/x/artifacts/rec-1.mp4"});
        assert_eq!(
            recording(&v),
            "rec-1 finished · 12.4 s · 1080x2400 · 1.2 MB · stopped by max s\n  /c/runs/x/artifacts/rec-1.mp4"
        );
        let running =
            json!({"id": "rec-2", "state": "recording", "udid": "e", "max_s": 60, "path": "/p"});
        assert_eq!(recording(&running), "rec-2 recording · e · max 60 s\n  /p");
        assert_eq!(
            list(&json!({"recordings": [v, running]})).lines().count(),
            2
        );
        assert_eq!(list(&json!({"recordings": []})), "no recordings");
    }
}
