//! `POST /api/v1/device/batch` through the real adb on the virtual device: the demo login as
//! one batch with a receipt, a batch that stops at a failing `expect` (the steps after it do not
//! run), going on after failures when asked, and steps refused as a whole before anything runs.

use crate::common;

use axum::http::StatusCode;
use common::android::*;
use common::*;
use serde_json::json;

fn taps(h: &virtual_device::testing::VdHarness) -> Vec<Vec<String>> {
    argvs_with(h, "input")
        .into_iter()
        .filter(|a| a.get(1).map(String::as_str) == Some("tap"))
        .collect()
}

#[tokio::test]
async fn the_demo_login_as_one_batch_with_a_receipt() {
    let h = start_device();
    let app = app_for(&h);
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    let user = ref_by_id(&snap, "username");
    let pass = ref_by_id(&snap, "password");
    let batch = json!({
        "observe": true,
        "steps": [
            {"op": "type_text", "body": {"ref": user, "text": "alice"}},
            {"op": "type_text", "body": {"ref": pass, "text": "secret"}},
            {"op": "tap", "body": {"selector": {"text": "LOG IN"}}},
            {"op": "wait", "body": {"selector": {"text": "Allow"}, "condition": "visible"}},
            {"op": "alert_accept", "body": {}},
            {"op": "expect", "body": {"kind": "element_visible", "selector": {"text": "Order #1001"}}}
        ]
    });
    let (status, body) = call(
        &app,
        send_json("POST", "/api/v1/device/batch", &batch.to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], true, "{body}");
    let steps = body["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 6);
    for (i, s) in steps.iter().enumerate() {
        assert_eq!(s["ok"], true, "step {i}: {s}");
        assert_eq!(s["status"], 200);
    }
    // Each step answers what its route answers.
    assert_eq!(steps[0]["answer"]["details"]["matched"], true, "{body}");
    assert_eq!(steps[3]["answer"]["status"], "success");
    assert_eq!(body["udid"], h.serial.as_str());
    // The receipt compares the screen before the batch (login) with the one after (inbox).
    let receipt = &body["receipt"];
    assert_eq!(receipt["changes"]["replaced"], true, "{receipt}");
    assert_eq!(
        receipt["changes"]["app"],
        json!(null),
        "same app: {receipt}"
    );
    let state = h.state();
    assert_eq!(state["screen"], "list", "{state}");
}

#[tokio::test]
async fn a_batch_stops_at_a_failing_expect_and_reports_the_steps_before() {
    let h = start_device();
    let app = app_for(&h);
    let batch = json!({
        "steps": [
            {"op": "tap", "body": {"selector": {"id": "remember"}}},
            {"op": "expect", "body": {"kind": "element_visible", "selector": {"text": "Nope"}}},
            {"op": "tap", "body": {"selector": {"id": "login"}}}
        ]
    });
    let (status, body) = call(
        &app,
        send_json("POST", "/api/v1/device/batch", &batch.to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], false);
    assert_eq!(body["stopped_at"], 1, "{body}");
    let steps = body["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{body}");
    assert_eq!(steps[0]["ok"], true);
    assert_eq!(steps[1]["ok"], false);
    assert_eq!(steps[1]["answer"]["success"], false);
    // The step after the failure never ran: one tap (the checkbox), still on the login screen.
    assert_eq!(taps(&h).len(), 1, "{:?}", taps(&h));
    assert_eq!(h.state()["screen"], "login");

    // Told to go on, it runs every step and still says it failed.
    let go_on = json!({ "continue_on_failure": true, "steps": batch["steps"] });
    let (_, body) = call(
        &app,
        send_json("POST", "/api/v1/device/batch", &go_on.to_string()),
    )
    .await;
    assert_eq!(body["steps"].as_array().unwrap().len(), 3, "{body}");
    assert_eq!(body["success"], false);
    assert!(body.get("stopped_at").is_none(), "{body}");
    assert_eq!(h.state()["screen"], "permission");
}

#[tokio::test]
async fn steps_are_checked_whole_before_anything_runs() {
    let h = start_device();
    let app = app_for(&h);
    let cases = [
        (json!({"steps": []}), "1 to 100 steps"),
        (
            json!({"steps": [{"op": "tap", "body": {"x": 1, "y": 2}}, {"op": "snapshot"}]}),
            "step 1: `snapshot` is not a batch step",
        ),
        (
            json!({"steps": [{"op": "tap", "body": {"x": 1, "y": 2}}, {"op": "frob"}]}),
            "step 1: `frob`",
        ),
        (
            json!({"steps": [{"op": "tap", "body": {"x": 1, "y": 2}},
                             {"op": "type_text", "body": {"text": "a", "clr": true}}]}),
            "step 1 (type_text)",
        ),
        (
            json!({"steps": [{"op": "tap", "body": {"x": 1, "y": 2, "udid": "other"}}]}),
            "`udid` belongs to the batch",
        ),
        (
            json!({"steps": [{"op": "tap", "body": {"x": 1, "y": 2}}], "timeout_ms": 0}),
            "timeout_ms",
        ),
        (json!({"steps": [{"op": "tap", "bdy": {}}]}), "bdy"),
    ];
    for (batch, says) in cases {
        let (status, body) = call(
            &app,
            send_json("POST", "/api/v1/device/batch", &batch.to_string()),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{batch}: {body}");
        assert_eq!(body["error"]["code"], "VALIDATION_FAILED", "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{says:?} not in {message:?}");
    }
    assert!(taps(&h).is_empty(), "nothing ran: {:?}", taps(&h));
}

#[tokio::test]
async fn a_step_still_running_at_the_batch_deadline_is_cut_there() {
    let h = start_device();
    let app = app_for(&h);
    let batch = json!({
        "timeout_ms": 300,
        "steps": [
            {"op": "wait", "body": {"selector": {"text": "Never on screen"},
                                    "condition": "exists", "timeout_ms": 10000}},
            {"op": "tap", "body": {"selector": {"id": "login"}}}
        ]
    });
    let started = std::time::Instant::now();
    let (status, body) = call(
        &app,
        send_json("POST", "/api/v1/device/batch", &batch.to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "the wait ran its own 10 s: {body}"
    );
    assert_eq!(body["timed_out"], true, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["stopped_at"], 0, "{body}");
    let steps = body["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "{body}");
    assert_eq!(steps[0]["ok"], false);
    assert_eq!(steps[0]["status"], 504, "{body}");
    assert_eq!(steps[0]["answer"]["error"]["code"], "TIMEOUT", "{body}");
    // The step after the cut never ran, and the device is free again.
    assert!(taps(&h).is_empty(), "{:?}", taps(&h));
    let (status, snap) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
}
