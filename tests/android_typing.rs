//! `type` through the real adb on the virtual device: nothing acts before a refusal, a type
//! that did not land says so (`success: false` with its code), and password fields are never
//! read back.

use crate::common;

use axum::http::StatusCode;
use common::android::*;
use common::*;
use serde_json::json;

#[tokio::test]
async fn refusals_leave_the_field_untouched() {
    let h = start_device();
    let app = app_for(&h);
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    let user = ref_by_id(&snap, "username");
    let (status, typed) = call(
        &app,
        post(
            "/api/v1/device/ui/type",
            json!({ "ref": user, "text": "alice" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{typed}");
    let inputs_before = argvs_with(&h, "input").len();
    for (text, status_code, code) in [
        ("😀", StatusCode::UNPROCESSABLE_ENTITY, "UNSUPPORTED_TEXT"),
        (
            "a\u{0}b",
            StatusCode::UNPROCESSABLE_ENTITY,
            "UNSUPPORTED_TEXT",
        ),
    ] {
        let (status, res) = call(
            &app,
            post(
                "/api/v1/device/ui/type",
                json!({ "ref": user, "text": text, "clear": true }),
            ),
        )
        .await;
        assert_eq!(status, status_code, "{text:?}: {res}");
        assert_eq!(error_code(&res), code);
    }
    let long = "a".repeat(5000);
    let (status, res) = call(
        &app,
        post(
            "/api/v1/device/ui/type",
            json!({ "ref": user, "text": long }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{res}");
    assert_eq!(res["error"]["details"]["limit"], 4096);
    // Nothing was tapped, cleared or typed by the refused requests…
    assert_eq!(argvs_with(&h, "input").len(), inputs_before);
    // …and the field still holds its text.
    let (_, now) = call(&app, get("/api/v1/device/ui")).await;
    let field = now["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"].as_str().is_some_and(|i| i.ends_with("username")))
        .unwrap();
    assert_eq!(field["text"], "alice", "{field}");
}

#[tokio::test]
async fn a_type_that_does_not_land_is_not_a_success() {
    let h = start_device();
    let app = app_for(&h);
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    // A checkbox is no text field: refused as an outcome, before anything runs.
    let remember = ref_by_id(&snap, "remember");
    let (status, res) = call(
        &app,
        post(
            "/api/v1/device/ui/type",
            json!({ "ref": remember, "text": "x" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{res}");
    assert_eq!(res["success"], false);
    assert_eq!(res["failure_code"], "ELEMENT_NOT_EDITABLE");
    assert!(argvs_with(&h, "input").is_empty(), "something ran");
    // Nothing has the focus on a fresh read: typing would go nowhere.
    let (status, res) = call(
        &app,
        post("/api/v1/device/ui/type", json!({ "text": "abc" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{res}");
    assert_eq!(res["success"], false, "{res}");
    assert_eq!(res["failure_code"], "NO_FOCUSED_FIELD");
    assert!(argvs_with(&h, "input").is_empty(), "something ran");
}

#[tokio::test]
async fn password_fields_are_typed_but_never_read_back() {
    let h = start_device();
    let app = app_for(&h);
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    let password = ref_by_id(&snap, "password");
    let (status, res) = call(
        &app,
        post(
            "/api/v1/device/ui/type",
            json!({ "ref": password, "text": "s3cret pw", "clear": true }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{res}");
    assert_eq!(res["success"], true, "{res}");
    assert!(res["details"].get("readback").is_none(), "{res}");
    assert!(!res.to_string().contains("s3cret"), "{res}");
    // Tap, clear and typing ran in that order.
    let inputs = argvs_with(&h, "input");
    assert_eq!(inputs[0][1], "tap", "{inputs:?}");
    assert_eq!(
        inputs[1][..2],
        ["input".to_string(), "keyevent".to_string()]
    );
}
