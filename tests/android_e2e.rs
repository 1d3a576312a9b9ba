//! Android end to end: the HTTP API → controller → adb backend → the real `adb` client and
//! server → the virtual device. Assertions read the device's journal (the argv it ran after
//! its shell parsed the command) and its state.

mod common;

use axum::http::StatusCode;
use common::*;
use mobilectl::controller::ControllerConfig;
use mobilectl::exec::{Tool, Toolbox};
use mobilectl::virtual_device::testing::VdHarness;
use serde_json::{json, Value};

fn start_device() -> VdHarness {
    VdHarness::start(env!("CARGO_BIN_EXE_mobilectl"), &[]).expect("virtual device")
}

fn app_for(h: &VdHarness) -> axum::Router {
    app_with_config(
        ControllerConfig {
            tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
            adb_server_port: Some(h.adb_port),
            max_command_time: None,
        },
        loopback_policy(),
    )
}

/// The ref of the first listed element whose id ends with `id_tail`.
fn ref_by_id(snapshot: &Value, id_tail: &str) -> String {
    snapshot["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["id"].as_str().is_some_and(|i| i.ends_with(id_tail)) && e["ref"].is_string()
        })
        .unwrap_or_else(|| panic!("no element with id {id_tail} in {}", snapshot["tree_text"]))["ref"]
        .as_str()
        .unwrap()
        .to_string()
}

fn argvs_with(h: &VdHarness, program: &str) -> Vec<Vec<String>> {
    h.journal_argvs()
        .into_iter()
        .filter(|a| a.first().map(String::as_str) == Some(program))
        .collect()
}

#[tokio::test]
async fn login_flow_through_real_adb() {
    let h = start_device();
    let app = app_for(&h);

    let (status, list) = call(&app, get("/api/v1/device/list?platform=android")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let me = list["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["udid"] == h.serial.as_str())
        .expect("the virtual device is listed");
    assert_eq!(me["state"], "online");

    let (status, snap) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert_eq!(snap["coordinate_space"], "pixels");
    assert_eq!(snap["screen"]["w"], 1080.0);
    assert!(snap["tree_text"].as_str().unwrap().contains("LOG IN"));
    assert_eq!(snap["app"], "com.mobilectl.demo");
    let dumps = argvs_with(&h, "uiautomator");
    assert_eq!(dumps.len(), 1, "one dump per snapshot: {dumps:?}");

    let user = ref_by_id(&snap, "username");
    let (status, typed) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/type",
            &json!({ "ref": user, "text": "alice smith", "snapshot_id": snap["snapshot_id"] }).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{typed}");
    assert_eq!(typed["details"]["typed_with"], "input_text");
    assert_eq!(typed["details"]["matched"], true, "{typed}");
    assert_eq!(typed["details"]["readback"], "alice smith");
    assert!(typed["fingerprint_before"].is_string());
    let inputs = argvs_with(&h, "input");
    assert!(inputs.contains(&vec!["input".into(), "text".into(), "alice".into()]), "{inputs:?}");
    assert!(inputs.contains(&vec!["input".into(), "keyevent".into(), "62".into()]));

    let (status, tapped) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/tap",
            r#"{"selector": {"text": "LOG IN"}, "observe": true}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{tapped}");
    assert_ne!(tapped["fingerprint_before"], tapped["fingerprint_after"]);
    let resolved = &tapped["target"]["resolved"];
    assert_eq!(resolved["x"], 540.0);
    assert_eq!(resolved["y"], 1290.0);
    assert!(argvs_with(&h, "input").contains(&vec![
        "input".into(),
        "tap".into(),
        "540".into(),
        "1290".into()
    ]));

    let (_, after) = call(&app, get("/api/v1/device/ui")).await;
    assert!(after["alert"].is_object(), "the permission dialog is up: {}", after["tree_text"]);
}
