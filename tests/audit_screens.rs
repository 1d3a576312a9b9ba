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

/// `expect` with `kind: accessible` is the audit judged at a severity: it fails on the
/// accessibility screen naming what fails, holds against that screen's own audit as a
/// baseline, and fails again on exactly the finding the baseline lacks; a batch asserts it as a
/// step.
#[tokio::test]
async fn expect_accessible_holds_against_a_baseline_and_fails_on_a_new_finding() {
    let h = start_device();
    let app = app_for(&h);
    h.control(&["screen", "a11y"]).unwrap();
    let expect = |body: Value| post("/api/v1/device/ui/expect", body);

    let (status, plain) = call(&app, expect(json!({"kind": "accessible"}))).await;
    assert_eq!(status, StatusCode::OK, "{plain}");
    assert_eq!(plain["success"], false, "{plain}");
    assert_eq!(plain["failure_code"], "ACCESSIBILITY_FINDINGS");
    let observed = &plain["observed"];
    assert_eq!(observed["fail_on"], "error");
    let failing = observed["failing"].as_u64().unwrap();
    assert!(failing >= 1, "{observed}");
    assert!(
        observed["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["severity"] == "error"),
        "{observed}"
    );
    assert!(observed["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "touch-target" && f["name"] == "OK"));

    // The screen's own audit as the baseline: nothing is new, at any severity.
    let (_, audit) = call(&app, post("/api/v1/device/ui/audit", json!({}))).await;
    let (status, same) = call(
        &app,
        expect(json!({"kind": "accessible", "audit_baseline": audit, "fail_on": "info"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{same}");
    assert_eq!(same["success"], true, "{same}");
    assert_eq!(same["observed"]["failing"], 0);
    assert_eq!(same["observed"]["baseline"]["unchanged"], 9, "{same}");

    // A baseline without the vague link: that one finding is new.
    let mut older = audit.clone();
    older["findings"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f["rule"] != "vague-link-text");
    let (_, new) = call(
        &app,
        expect(json!({"kind": "accessible", "audit_baseline": older, "fail_on": "info"})),
    )
    .await;
    assert_eq!(new["success"], false, "{new}");
    assert_eq!(new["observed"]["failing"], 1, "{new}");
    assert_eq!(new["observed"]["findings"][0]["rule"], "vague-link-text");
    assert_eq!(new["observed"]["findings"][0]["name"], "Click here");

    // What the kind does not take, and a baseline that is no audit, are refused.
    for (body, says) in [
        (
            json!({"kind": "accessible", "tolerance": 0.1}),
            "does not take `tolerance`",
        ),
        (
            json!({"kind": "accessible", "audit_baseline": {"findings": 3}}),
            "`audit_baseline` is not a saved audit",
        ),
        (
            json!({"kind": "element_visible", "selector": {"text": "OK"}, "fail_on": "error"}),
            "does not take `fail_on`",
        ),
    ] {
        let (status, err) = call(&app, expect(body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
        assert!(
            err["error"]["message"].as_str().unwrap().contains(says),
            "{says}: {err}"
        );
    }

    // The hint says what the kind takes.
    let (_, err) = call(&app, expect(json!({"kind": "accessible", "mask": []}))).await;
    let hint = err["error"]["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("no other field; optional: audit_baseline, fail_on"),
        "{err}"
    );

    // In a batch, the failing expectation stops it.
    let batch = json!({"steps": [
        {"op": "expect", "body": {"kind": "accessible", "audit_baseline": audit}},
        {"op": "expect", "body": {"kind": "accessible", "fail_on": "warning"}},
        {"op": "tap", "body": {"x": 10, "y": 10}}
    ]});
    let (status, ran) = call(
        &app,
        send_json("POST", "/api/v1/device/batch", &batch.to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{ran}");
    assert_eq!(ran["success"], false, "{ran}");
    assert_eq!(ran["stopped_at"], 1, "{ran}");
    assert_eq!(ran["steps"][0]["ok"], true, "{ran}");
}
