//! `audit`: a one-line summary (`3 findings: 1 error, 2 warnings · 42 elements`), the rules
//! not run, then one line a finding, most severe first:
//! `error unnamed-control e4 button "" · no name … · fix: …`.

use serde_json::Value;

use super::s;

/// The audit as text, for agents and people.
pub fn audit(v: &Value) -> String {
    let findings = v["findings"].as_array().cloned().unwrap_or_default();
    let c = &v["counts"];
    let n = |k: &str| c[k].as_u64().unwrap_or(0);
    let mut parts = Vec::new();
    for (k, one, many) in [
        ("error", "error", "errors"),
        ("warning", "warning", "warnings"),
        ("info", "info", "info"),
    ] {
        let count = n(k);
        if count > 0 {
            parts.push(format!("{count} {}", if count == 1 { one } else { many }));
        }
    }
    let new = if v["baseline"].is_object() {
        "new "
    } else {
        ""
    };
    let mut out = match findings.len() {
        0 => format!("no {new}findings"),
        1 => format!("1 {new}finding: {}", parts.join(", ")),
        k => format!("{k} {new}findings: {}", parts.join(", ")),
    };
    out += &format!(" · {} elements", v["elements"].as_u64().unwrap_or(0));
    if let Some(d) = v["density"].as_f64() {
        out += &format!(" · {d} dpi");
    }
    out.push('\n');
    for skipped in v["skipped"].as_array().into_iter().flatten() {
        out += &format!("not run: {}\n", s(skipped));
    }
    for f in &findings {
        let r = f["ref"].as_str().map_or(String::new(), |r| format!("{r} "));
        let engine = if f["engine"] == "apple" {
            " (apple)"
        } else {
            ""
        };
        out += &format!(
            "{} {}{engine} {r}{} \"{}\" · {} · fix: {}\n",
            s(&f["severity"]),
            s(&f["rule"]),
            s(&f["role"]),
            s(&f["name"]),
            s(&f["detail"]),
            s(&f["fix"]),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn one_summary_line_then_one_line_a_finding() {
        let v = json!({
            "elements": 12, "density": 420.0,
            "counts": {"error": 1, "warning": 0, "info": 1},
            "skipped": ["text-contrast, non-text-contrast: no screenshot"],
            "findings": [
                {"rule": "unnamed-control", "severity": "error", "engine": "mobilectl", "ref": "e4",
                 "role": "button", "detail": "button with no text", "fix": "Label it."},
                {"rule": "touch-target", "severity": "info", "engine": "mobilectl",
                 "role": "button", "name": "More", "detail": "42×50 dp", "fix": "Grow it."}
            ]
        });
        let t = super::audit(&v);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "2 findings: 1 error, 1 info · 12 elements · 420 dpi"
        );
        assert_eq!(
            lines[1],
            "not run: text-contrast, non-text-contrast: no screenshot"
        );
        assert_eq!(
            lines[2],
            "error unnamed-control e4 button \"\" · button with no text · fix: Label it."
        );
        assert!(lines[3].starts_with("info touch-target button \"More\""));
        let none =
            super::audit(&json!({"elements": 3, "counts": {}, "findings": [], "baseline": {}}));
        assert_eq!(none, "no new findings · 3 elements\n");
    }
}
