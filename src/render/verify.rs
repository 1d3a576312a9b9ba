//! The answers of verifications as text: a wait, an expectation, a wait for the screen to
//! change.

use serde_json::Value;

use super::{s, short};

/// `wait`: `wait success after 40 ms (2 polls) · @e9 button "Allow"`.
pub fn wait(v: &Value) -> String {
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
        line += &format!(" · {}", observed(&v["observed"]));
    }
    line
}

/// `expect`: `expect ok`, or `expect FAILED CODE · ` what was observed instead.
pub fn expect(v: &Value) -> String {
    if v["success"] == true {
        return "expect ok".to_string();
    }
    let mut line = "expect FAILED".to_string();
    if let Some(code) = v["failure_code"].as_str() {
        line += &format!(" {code}");
    }
    line + &format!(" · {}", observed(&v["observed"]))
}

/// What a verification saw, in words: a selector's matches (`no match`, `2 matches, first @e3
/// button "Allow" hidden`), a comparison of screenshots (`3.20 % changed (tolerance 0.10 %),
/// 4 regions`), else its fields (`app com.example`).
fn observed(o: &Value) -> String {
    if let Some(n) = o["matches"].as_u64() {
        return match &o["first"] {
            first if n > 0 && first.is_object() => {
                let plural = if n == 1 { "" } else { "es" };
                format!("{n} match{plural}, first {}", element(first))
            }
            _ => "no match".to_string(),
        };
    }
    if let Some(share) = o["changed_share"].as_f64() {
        let regions = o["regions"].as_array().map_or(0, Vec::len) as u64
            + o["regions_omitted"].as_u64().unwrap_or(0);
        return format!(
            "{:.2} % changed (tolerance {:.2} %), {regions} regions",
            share * 100.0,
            o["tolerance"].as_f64().unwrap_or(0.0) * 100.0
        );
    }
    if let Some(n) = o["failing"].as_u64() {
        return findings(o, n);
    }
    let fields: Vec<String> = o
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| match v {
            Value::String(t) => format!("{k} {t}"),
            Value::Null => format!("{k} none"),
            other => format!("{k} {other}"),
        })
        .collect();
    fields.join(", ")
}

/// An accessibility expectation's findings at or above its level: `2 findings at or above
/// error: unnamed-control @e4 button, text-contrast @e7 text "Sign in"`, and how many a
/// baseline already had.
fn findings(o: &Value, n: u64) -> String {
    let plural = if n == 1 { "" } else { "s" };
    let mut line = format!("{n} finding{plural} at or above {}", s(&o["fail_on"]));
    let listed: Vec<String> = o["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| format!("{} {}", s(&f["rule"]), element(f)))
        .collect();
    if !listed.is_empty() {
        line += &format!(": {}", listed.join(", "));
        if (listed.len() as u64) < n {
            line += &format!(" and {} more", n - listed.len() as u64);
        }
    }
    if let Some(known) = o["baseline"]["unchanged"].as_u64() {
        line += &format!(" ({known} unchanged against the baseline)");
    }
    line
}

/// An element as verification saw it: `@e3 button "Allow"`, its text when it differs from its
/// name, and `hidden` / `disabled` when it is.
pub(super) fn element(e: &Value) -> String {
    let mut out = String::new();
    if let Some(r) = e["ref"].as_str() {
        out += &format!("@{r} ");
    }
    out += s(&e["role"]);
    if let Some(name) = e["name"].as_str() {
        out += &format!(" {name:?}");
    }
    if let Some(text) = e["text"]
        .as_str()
        .filter(|t| Some(*t) != e["name"].as_str())
    {
        out += &format!(" text {text:?}");
    }
    if e["visible"] == false {
        out += " hidden";
    }
    if e["enabled"] == false {
        out += " disabled";
    }
    out
}

/// `wait_for_change`: `changed after 40 ms (2 polls) · fp aaaaaaaa→bbbbbbbb`.
pub fn change(v: &Value) -> String {
    format!(
        "{} after {} ms ({} polls) · fp {}→{}",
        s(&v["status"]),
        v["elapsed_ms"],
        v["polls"],
        short(&v["fingerprint_before"]),
        short(&v["fingerprint_after"])
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_accessibility_expectation_names_its_failing_findings() {
        let failed = json!({"success": false, "failure_code": "ACCESSIBILITY_FINDINGS",
            "observed": {"fail_on": "error", "failing": 2, "counts": {"error": 2},
                "findings": [
                    {"rule": "unnamed-control", "severity": "error", "ref": "e4", "role": "button"},
                    {"rule": "text-contrast", "severity": "error", "ref": "e7", "role": "text",
                     "name": "Sign in"}],
                "baseline": {"known": 3, "unchanged": 3}}});
        assert_eq!(
            expect(&failed),
            "expect FAILED ACCESSIBILITY_FINDINGS · 2 findings at or above error: \
             unnamed-control @e4 button, text-contrast @e7 text \"Sign in\" \
             (3 unchanged against the baseline)"
        );
        let capped = json!({"success": false, "failure_code": "ACCESSIBILITY_FINDINGS",
            "observed": {"fail_on": "warning", "failing": 12, "findings": [
                {"rule": "touch-target", "ref": "e1", "role": "button", "name": "x"}]}});
        assert!(expect(&capped).ends_with("touch-target @e1 button \"x\" and 11 more"));
    }

    #[test]
    fn what_a_failed_verification_saw_reads_as_words() {
        let none = json!({"success": false, "failure_code": "ELEMENT_NOT_FOUND",
            "observed": {"matches": 0, "first": null}});
        assert_eq!(expect(&none), "expect FAILED ELEMENT_NOT_FOUND · no match");
        let hidden = json!({"success": false, "failure_code": "ELEMENT_NOT_FOUND",
            "observed": {"matches": 2, "first": {"ref": "e3", "role": "button", "name": "Allow",
                "bounds": {}, "visible": false, "enabled": true}}});
        assert_eq!(
            expect(&hidden),
            "expect FAILED ELEMENT_NOT_FOUND · 2 matches, first @e3 button \"Allow\" hidden"
        );
        let typed = json!({"status": "timeout", "elapsed_ms": 500, "polls": 3,
            "observed": {"matches": 1, "first": {"ref": "e1", "role": "textbox", "name": "User",
                "text": "alic", "visible": true, "enabled": false}}});
        assert_eq!(
            wait(&typed),
            "wait timeout after 500 ms (3 polls) · 1 match, first @e1 textbox \"User\" text \"alic\" disabled"
        );
        let app = json!({"success": false, "failure_code": "NAVIGATION_NO_CHANGE",
            "observed": {"app": "com.android.launcher3"}});
        assert_eq!(
            expect(&app),
            "expect FAILED NAVIGATION_NO_CHANGE · app com.android.launcher3"
        );
        let activity = json!({"success": false, "observed": {"activity": null, "app": "com.x"}});
        assert_eq!(
            expect(&activity),
            "expect FAILED · activity none, app com.x"
        );
        let pixels = json!({"success": false, "failure_code": "SCREEN_MISMATCH",
            "observed": {"changed_share": 0.032, "tolerance": 0.001,
                "regions": [{"x": 0}, {"x": 1}], "regions_omitted": 2}});
        assert_eq!(
            expect(&pixels),
            "expect FAILED SCREEN_MISMATCH · 3.20 % changed (tolerance 0.10 %), 4 regions"
        );
        assert_eq!(expect(&json!({"success": true})), "expect ok");
    }
}
