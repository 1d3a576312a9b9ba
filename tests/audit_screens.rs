//! The accessibility audit on the virtual device's screen built to break each rule once
//! (`crates/virtual-device/src/demo/a11y.xml`, shown with the `screen a11y` control): every
//! finding comes from the device's own dump and screenshot, contrast from its drawn pixels.

use crate::common;

use axum::http::StatusCode;
use common::android::*;
use common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn each_rule_is_broken_once_on_the_accessibility_screen() {
    let h = start_device();
    let app = app_for(&h);
    h.control(&["screen", "a11y"]).unwrap();
    let (status, body) = call(&app, post("/api/v1/device/ui/audit", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["density"], 420.0, "read from `wm density`");
    let findings = body["findings"].as_array().unwrap();
    let of =
        |rule: &str| -> Vec<&Value> { findings.iter().filter(|f| f["rule"] == rule).collect() };
    let name = |f: &Value| f["name"].as_str().unwrap_or("").to_string();
    for rule in [
        "unnamed-control",
        "touch-target",
        "text-contrast",
        "non-text-contrast",
        "duplicate-name",
        "name-repeats-role",
        "field-labelled-by-description",
        "overlapping-targets",
        "vague-link-text",
    ] {
        assert_eq!(of(rule).len(), 1, "{rule}: {body}");
    }
    assert_eq!(findings.len(), 9, "{body}");
    // "OK" is 100×60 px: 38.1×22.9 dp, under WCAG's 24.
    let tiny = of("touch-target")[0];
    assert_eq!(name(tiny), "OK");
    assert_eq!(tiny["severity"], "error");
    // Text drawn #a4a4a4 on white: 2.5:1 fails; the #6f6f6f line (5:1) passes.
    let faint = of("text-contrast")[0];
    assert_eq!(name(faint), "Faint text");
    let ratio = faint["measured"]["value"].as_f64().unwrap();
    assert!((ratio - 2.5).abs() < 0.1, "{faint}");
    assert_eq!(name(of("non-text-contrast")[0]), "Settings");
    assert_eq!(name(of("duplicate-name")[0]), "Delete");
    assert_eq!(name(of("name-repeats-role")[0]), "Send button");
    assert_eq!(name(of("field-labelled-by-description")[0]), "email-field");
    assert_eq!(name(of("overlapping-targets")[0]), "Right");
    assert_eq!(name(of("vague-link-text")[0]), "Click here");
    // Every control's finding names it by a ref of the same read; static text has none.
    assert!(findings
        .iter()
        .filter(|f| f["rule"] != "text-contrast")
        .all(|f| f["ref"].is_string()));
    assert!(faint["ref"].is_null());
}
