//! Verification through the real adb and the virtual device: wait, expect, wait-for-change,
//! alerts, and the checks that refuse a tap an agent did not mean (alert, keyboard).

use crate::common;

use std::time::Duration;

use axum::http::StatusCode;
use common::android::*;
use common::*;
use serde_json::json;
use virtual_device::testing::wait_until;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_succeeds_after_a_transition() {
    let h = start_device();
    let app = app_for(&h);
    let dumps_before = argvs_with(&h, "uiautomator").len();
    let waiting = tokio::spawn({
        let app = app.clone();
        async move {
            call(
                &app,
                post(
                    "/api/v1/device/ui/wait",
                    json!({
                "selector": { "text": "Allow" }, "condition": "visible",
                "timeout_ms": 10000, "poll_interval_ms": 100 }),
                ),
            )
            .await
        }
    });
    // Once the wait has looked at the login screen once, log in.
    assert!(wait_until(Duration::from_secs(10), || argvs_with(
        &h,
        "uiautomator"
    )
    .len()
        > dumps_before));
    let (status, _) = call(
        &app,
        post("/api/v1/device/ui/tap", json!({ "x": 540, "y": 1290 })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = waiting.await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "success", "{body}");
    assert!(body["polls"].as_u64().unwrap() >= 2, "{body}");
    assert_eq!(body["matched"]["name"], "Allow");
}

#[tokio::test]
async fn wait_times_out_with_what_it_observed() {
    let h = start_device();
    let app = app_for(&h);
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/wait",
            json!({
        "selector": { "text": "LOG IN" }, "condition": "not_exists",
        "timeout_ms": 500, "poll_interval_ms": 100 }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "timeout");
    assert_eq!(body["observed"]["matches"], 1);
    assert_eq!(body["observed"]["first"]["name"], "LOG IN");
    assert!(body["polls"].as_u64().unwrap() >= 2);
    assert!(body["elapsed_ms"].as_u64().unwrap() >= 500);

    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/wait",
            json!({
        "selector": { "id": "username" }, "condition": "text_equals" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

#[tokio::test]
async fn expect_true_and_false() {
    let h = start_device();
    let app = app_for(&h);
    let (_, yes) = call(
        &app,
        post(
            "/api/v1/device/ui/expect",
            json!({
        "kind": "element_visible", "selector": { "text": "LOG IN" } }),
        ),
    )
    .await;
    assert_eq!(yes["success"], true, "{yes}");
    assert!(yes.get("failure_code").is_none());
    let (_, no) = call(
        &app,
        post(
            "/api/v1/device/ui/expect",
            json!({
        "kind": "element_visible", "selector": { "text": "Order #1001" } }),
        ),
    )
    .await;
    assert_eq!(no["success"], false, "{no}");
    assert_eq!(no["failure_code"], "ELEMENT_NOT_FOUND");
    assert_eq!(no["observed"]["matches"], 0);
    // Each failed expectation has its own code.
    for (body, code) in [
        (
            json!({"kind": "element_not_visible", "selector": {"text": "LOG IN"}}),
            "ELEMENT_VISIBLE",
        ),
        (
            json!({"kind": "element_has_text", "selector": {"text": "LOG IN"}, "text": "SIGN IN"}),
            "TEXT_MISMATCH",
        ),
        (
            json!({"kind": "element_has_text", "selector": {"text": "Nope"}, "text": "x"}),
            "ELEMENT_NOT_FOUND",
        ),
    ] {
        let (_, verdict) = call(&app, post("/api/v1/device/ui/expect", body.clone())).await;
        assert_eq!(verdict["success"], false, "{body}: {verdict}");
        assert_eq!(verdict["failure_code"], code, "{body}: {verdict}");
    }
    // A kind without the field it needs, or with one it does not take, is refused.
    for body in [
        json!({"kind": "element_has_text", "selector": {"text": "LOG IN"}}),
        json!({"kind": "foreground_app", "app": "x", "selector": {"text": "a"}}),
    ] {
        let (status, answer) = call(&app, post("/api/v1/device/ui/expect", body.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(error_code(&answer), "VALIDATION_FAILED");
    }
    let (_, activity) = call(
        &app,
        post(
            "/api/v1/device/ui/expect",
            json!({
        "kind": "foreground_activity", "activity": ".LoginActivity" }),
        ),
    )
    .await;
    assert_eq!(activity["success"], true, "{activity}");
    let (_, other) = call(
        &app,
        post(
            "/api/v1/device/ui/expect",
            json!({
        "kind": "foreground_app", "app": "com.android.settings" }),
        ),
    )
    .await;
    assert_eq!(other["success"], false);
    assert_eq!(other["observed"]["app"], "com.mobilectl.demo");
    // Judged on one read: the same answer twice.
    let (_, again) = call(
        &app,
        post(
            "/api/v1/device/ui/expect",
            json!({
        "kind": "element_visible", "selector": { "text": "LOG IN" } }),
        ),
    )
    .await;
    assert_eq!(again["success"], true);
    assert_eq!(again["snapshot_id"], yes["snapshot_id"]);
}

#[tokio::test]
async fn wait_for_change_across_a_tap() {
    let h = start_device();
    let app = app_for(&h);
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    let before = snap["fingerprint"].clone();
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({ "selector": { "text": "LOG IN" } }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/wait-for-change",
            json!({
        "fingerprint": before, "timeout_ms": 5000, "poll_interval_ms": 100 }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "changed", "{body}");
    assert_ne!(body["fingerprint_after"], before);
    assert!(
        body["polls"].as_u64().unwrap() >= 2,
        "a confirming read: {body}"
    );
    // Nothing changes any more: a timeout.
    let (_, body) = call(
        &app,
        post(
            "/api/v1/device/ui/wait-for-change",
            json!({
        "timeout_ms": 400, "poll_interval_ms": 100 }),
        ),
    )
    .await;
    assert_eq!(body["status"], "timeout", "{body}");
}

#[tokio::test]
async fn permission_dialog_is_detected_blocks_and_is_accepted() {
    let h = start_device();
    let app = app_for(&h);
    call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({ "selector": { "text": "LOG IN" } }),
        ),
    )
    .await;
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    let alert = &snap["alert"];
    assert!(
        alert["title"].as_str().unwrap().contains("notifications"),
        "{snap}"
    );
    let labels: Vec<&str> = alert["buttons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Allow", "Don’t allow"]);

    // Acting on something under the alert is refused, with the alert in the answer.
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({ "selector": { "text": "12:00" } }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "ALERT_BLOCKING");
    assert_eq!(
        body["error"]["details"]["alert"]["buttons"][0]["label"],
        "Allow"
    );
    // So is a point under it, and a button the alert does not have is named, not debug text.
    let (status, body) = call(
        &app,
        post("/api/v1/device/ui/tap", json!({ "x": 100, "y": 100 })),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "ALERT_BLOCKING");
    let (status, body) = call(
        &app,
        post("/api/v1/device/alert/dismiss", json!({ "button": "Nope" })),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error"]["message"], "the alert has no button \"Nope\"");

    let (status, body) = call(&app, post("/api/v1/device/alert/accept", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["details"]["button"], "Allow");
    assert!(argvs_with(&h, "input").contains(&vec![
        "input".into(),
        "tap".into(),
        "540".into(),
        "1270".into()
    ]));
    let (_, now) = call(
        &app,
        post(
            "/api/v1/device/ui/expect",
            json!({
        "kind": "foreground_activity", "activity": ".InboxActivity" }),
        ),
    )
    .await;
    assert_eq!(now["success"], true, "{now}");
    let (status, body) = call(&app, post("/api/v1/device/alert/dismiss", json!({}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "no alert any more: {body}");
    assert_eq!(error_code(&body), "NO_ALERT");
}

#[tokio::test]
async fn tap_behind_the_keyboard_is_refused() {
    let h = start_device();
    let app = app_for(&h);
    call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({ "selector": { "id": "username" } }),
        ),
    )
    .await;
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(snap["keyboard_visible"], true);
    let taps = argvs_with(&h, "input").len();
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({ "selector": { "text": "Forgot password?" } }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "ELEMENT_OBSCURED");
    assert!(body["error"]["hint"].as_str().unwrap().contains("hide"));
    assert_eq!(argvs_with(&h, "input").len(), taps, "no key was tapped");
    // Coordinates on the keyboard are refused too: they would silently tap a key.
    let (status, body) = call(
        &app,
        post("/api/v1/device/ui/tap", json!({ "x": 540, "y": 1460 })),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "ELEMENT_OBSCURED");
}
