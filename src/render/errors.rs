//! The candidates an error names, as text: an ambiguous target's elements
//! (`@e3 button "Order #1001"`), an ambiguous device's devices (`emulator-5554 "Pixel 7"
//! android online`). The hint of such an error says to pick one; these lines put the refs and
//! udids it means in the text the CLI prints and the MCP tool result says, not only in the
//! JSON `details`.

use serde_json::Value;

use super::s;

/// How many candidates are listed; more are counted.
const MOST: usize = 8;

/// A line per candidate of an error's `details` (at most [`MOST`], then how many more);
/// none when it names no candidates.
pub fn candidates(details: &Value) -> Vec<String> {
    let all = details["candidates"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let mut lines: Vec<String> = all.iter().take(MOST).map(candidate).collect();
    if all.len() > MOST {
        lines.push(format!("… {} more", all.len() - MOST));
    }
    lines
}

/// An element (it has a role) or a device (it has a udid).
fn candidate(c: &Value) -> String {
    match c["udid"].as_str() {
        Some(udid) => format!(
            "{udid} {:?} {} {}",
            s(&c["name"]),
            s(&c["platform"]),
            s(&c["state"])
        )
        .trim_end()
        .to_string(),
        None => super::verify::element(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_elements_by_ref_role_and_name() {
        let details = json!({ "candidates": [
            { "ref": "e3", "role": "button", "name": "Order #1001 · Shipped", "bounds": {} },
            { "role": "text", "name": "Shipped", "bounds": {} },
        ], "selector": { "text": "Shipped", "contains": true } });
        assert_eq!(
            candidates(&details),
            [r#"@e3 button "Order #1001 · Shipped""#, r#"text "Shipped""#]
        );
    }

    #[test]
    fn lists_devices_by_udid_name_platform_and_state() {
        let details = json!({ "candidates": [
            { "udid": "emulator-5554", "name": "Pixel 7", "platform": "android", "state": "online" },
        ] });
        assert_eq!(
            candidates(&details),
            [r#"emulator-5554 "Pixel 7" android online"#]
        );
    }

    #[test]
    fn counts_what_it_does_not_list() {
        let many: Vec<Value> = (1..=11)
            .map(|i| json!({ "ref": format!("e{i}"), "role": "button" }))
            .collect();
        let lines = candidates(&json!({ "candidates": many }));
        assert_eq!(lines.len(), MOST + 1);
        assert_eq!(lines[0], "@e1 button");
        assert_eq!(lines[MOST], "… 3 more");
    }

    #[test]
    fn nothing_for_an_error_without_candidates() {
        assert!(candidates(&json!({ "selector": { "text": "x" } })).is_empty());
        assert!(candidates(&Value::Null).is_empty());
    }
}
