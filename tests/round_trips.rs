//! What each operation costs on the device, counted on the virtual device's journal (one
//! `shell:`/`exec:` service request per adb round trip), through the real adb: a snapshot 1,
//! a tap 1, a tap with `observe` 1, a type with clear and read-back 1, a wait 1 per poll, each
//! scroll of scroll-to 1. And what a lean answer costs an agent: a tap's JSON in cl100k tokens.

use crate::common;

use axum::http::StatusCode;
use axum::Router;
use common::android::*;
use common::*;
use serde_json::{json, Value};
use virtual_device::testing::VdHarness;

/// Calls `path` with `body` (POST) or GET, and counts the device services it took.
async fn costed(app: &Router, h: &VdHarness, path: &str, body: Option<Value>) -> (Value, usize) {
    let mark = journal_mark(h);
    let (status, v) = match body {
        Some(b) => call(app, send_json("POST", path, &b.to_string())).await,
        None => call(app, get(path)).await,
    };
    assert_eq!(status, StatusCode::OK, "{path}: {v}");
    (v, services_since(h, mark).len())
}

/// A device listed once (its properties read), as after any earlier call.
async fn warm() -> (VdHarness, Router) {
    let h = start_device();
    let app = app_for(&h);
    let (status, _) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK);
    (h, app)
}

#[tokio::test]
async fn every_step_of_the_login_is_one_round_trip() {
    let (h, app) = warm().await;

    let (snap, n) = costed(&app, &h, "/api/v1/device/ui", None).await;
    assert_eq!(n, 1, "snapshot");
    let user = ref_by_id(&snap, "username");
    let pass = ref_by_id(&snap, "password");

    let body = json!({ "ref": user, "text": "alice", "clear": true });
    let (typed, n) = costed(&app, &h, "/api/v1/device/ui/type", Some(body)).await;
    assert_eq!(n, 1, "type with clear and read-back: {typed}");
    assert_eq!(typed["details"]["matched"], true, "{typed}");
    // The read-back is a receipt too: the field's line, changed, keeps its ref.
    let changed = typed["changes"]["changed"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        changed
            .iter()
            .any(|l| l.as_str().unwrap().contains(&format!("[{user}]"))
                && l.as_str().unwrap().contains("alice")),
        "{typed}"
    );

    // The read-back of the type is the latest snapshot: the next ref needs no new read.
    let body = json!({ "ref": pass, "text": "secret word" });
    let (typed, n) = costed(&app, &h, "/api/v1/device/ui/type", Some(body)).await;
    assert_eq!(n, 1, "type: {typed}");

    let body = json!({ "selector": {"text": "LOG IN"}, "observe": true });
    let (tapped, n) = costed(&app, &h, "/api/v1/device/ui/tap", Some(body)).await;
    assert_eq!(n, 1, "tap with observe: {tapped}");

    let body = json!({ "selector": {"text": "Allow"}, "condition": "visible" });
    let (waited, n) = costed(&app, &h, "/api/v1/device/ui/wait", Some(body)).await;
    assert_eq!(waited["status"], "success", "{waited}");
    assert_eq!(n as u64, waited["polls"].as_u64().unwrap(), "one per poll");

    let body = json!({ "selector": {"text": "Allow"} });
    let (_, n) = costed(&app, &h, "/api/v1/device/ui/tap", Some(body)).await;
    assert!(n <= 2, "a tap after a wait: the wait's read is fresh ({n})");
}

#[tokio::test]
async fn a_plain_tap_is_one_round_trip_and_at_most_60_tokens() {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let (h, app) = warm().await;
    let (snap, _) = costed(&app, &h, "/api/v1/device/ui", None).await;
    let remember = ref_by_id(&snap, "remember");
    let mark = journal_mark(&h);
    let body = json!({ "ref": remember }).to_string();
    let res = app
        .clone()
        .oneshot(send_json("POST", "/api/v1/device/ui/tap", &body))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(services_since(&h, mark).len(), 1);
    // The answer as sent, counted as a model reads it.
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let tokens = tiktoken_rs::cl100k_base_singleton()
        .encode_with_special_tokens(&text)
        .len();
    println!("a tap's answer: {tokens} cl100k tokens: {text}");
    assert!(tokens <= 60, "{tokens} tokens: {text}");
    // Lean: the device by udid, nothing empty.
    let tapped: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(tapped["udid"], h.serial.as_str());
    for absent in [
        "device",
        "fingerprint_after",
        "changes",
        "details",
        "failure_code",
    ] {
        assert!(tapped.get(absent).is_none(), "{absent} in {text}");
    }
}

#[tokio::test]
async fn each_scroll_of_scroll_to_is_one_round_trip() {
    let (h, app) = warm().await;
    // To the list screen: log in and allow.
    for (path, body) in [
        (
            "/api/v1/device/ui/tap",
            json!({"selector": {"id": "login"}}),
        ),
        ("/api/v1/device/alert/accept", json!({})),
    ] {
        let (status, v) = call(&app, send_json("POST", path, &body.to_string())).await;
        assert_eq!(status, StatusCode::OK, "{v}");
    }
    let (_, n) = costed(&app, &h, "/api/v1/device/ui", None).await;
    assert_eq!(n, 1);
    // The demo's list does not move: scroll-to scrolls until it sees the end.
    let body = json!({ "selector": {"text": "Order #9999"}, "max_scrolls": 5 });
    let mark = journal_mark(&h);
    let (status, answer) = call(
        &app,
        send_json("POST", "/api/v1/device/ui/scroll-to", &body.to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{answer}");
    let scrolls = answer["error"]["details"]["scrolls"].as_u64().unwrap() as usize;
    assert!(scrolls >= 1, "{answer}");
    // The first read is the fresh snapshot; then a swipe and its read, together, per scroll.
    // The failure's screenshot for its run's artifacts (`crate::runs`) is one more, after.
    let mut services = services_since(&h, mark);
    assert_eq!(
        services.pop().as_deref(),
        Some("exec:screencap -p"),
        "{services:?}"
    );
    assert_eq!(services.len(), scrolls, "{services:?}");
    let swipes = argvs_with(&h, "input")
        .iter()
        .filter(|a| a.get(1).map(String::as_str) == Some("swipe"))
        .count();
    assert_eq!(swipes, scrolls);
}

/// After idle time (longer than a listing was ever kept without following the adb server), a
/// request costs what it costs right after another: no `adb devices`, no `getprop`, one round
/// trip. The adb client is wrapped to log each run's arguments.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_idle_time_a_request_neither_lists_nor_probes() {
    use mobilectl::backend::BackendConfig;
    use mobilectl::exec::{Tool, Toolbox};
    let h = start_device();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("adb.argv");
    let wrapper = dir.path().join("adb");
    write_executable(
        &wrapper,
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            h.adb.display()
        ),
    );
    let app = app_with_config(
        BackendConfig {
            tools: Toolbox::with([(Tool::Adb, wrapper)]),
            adb_server_port: Some(h.adb_port),
            ..Default::default()
        },
        loopback_policy(),
    );
    let listings = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(" devices"))
            .count()
    };
    // Warm: the first listing starts following the adb server; once it follows, a call makes
    // no listing at all.
    let mut warm = false;
    for _ in 0..50 {
        let before = listings();
        let (status, _) = call(&app, get("/api/v1/device/ui")).await;
        assert_eq!(status, StatusCode::OK);
        if listings() == before {
            warm = true;
            break;
        }
    }
    assert!(warm, "every call listed devices again");
    let before = listings();
    // Idle for longer than the 3 s a listing is kept when nothing follows the devices.
    tokio::time::sleep(std::time::Duration::from_millis(
        mobilectl::controller::KNOWN_TTL.as_millis() as u64 + 1_000,
    ))
    .await;
    let (_, n) = costed(&app, &h, "/api/v1/device/ui", None).await;
    assert_eq!(n, 1, "one round trip, no getprop");
    assert_eq!(listings(), before, "no `adb devices` after the idle time");
}

/// The programs the device ran since `mark` (their names).
fn programs_since(h: &VdHarness, mark: u64) -> Vec<String> {
    h.journal()
        .into_iter()
        .filter(|e| e["seq"].as_u64().is_some_and(|s| s > mark))
        .filter_map(|e| e["argv"][0].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn a_read_runs_dumpsys_only_when_the_screens_structure_changed() {
    let (h, app) = warm().await;
    let (first, _) = costed(&app, &h, "/api/v1/device/ui", None).await;
    assert!(
        first["activity"]
            .as_str()
            .unwrap()
            .ends_with("LoginActivity"),
        "{first}"
    );
    // The same screen again: uiautomator alone (and the tiny grep, cksum), one round trip.
    let mark = journal_mark(&h);
    let (again, n) = costed(&app, &h, "/api/v1/device/ui", None).await;
    assert_eq!(n, 1);
    let ran = programs_since(&h, mark);
    assert!(ran.contains(&"uiautomator".to_string()), "{ran:?}");
    assert!(!ran.contains(&"dumpsys".to_string()), "{ran:?}");
    assert_eq!(
        again["activity"], first["activity"],
        "the last focus read holds"
    );
    // Typing changes text, not structure (the first typing brings the keyboard's window up:
    // that one is a change): no dumpsys for the next.
    let user = ref_by_id(&again, "username");
    let body = json!({ "ref": user, "text": "ali" });
    let (_, n) = costed(&app, &h, "/api/v1/device/ui/type", Some(body)).await;
    assert_eq!(n, 1);
    let mark = journal_mark(&h);
    let body = json!({ "ref": user, "text": "ce" });
    let (typed, n) = costed(&app, &h, "/api/v1/device/ui/type", Some(body)).await;
    assert_eq!(n, 1);
    let ran = programs_since(&h, mark);
    assert!(!ran.contains(&"dumpsys".to_string()), "{ran:?} {typed}");
    // Another screen in front: its structure differs, dumpsys runs in the same round trip
    // and the activity is the new one.
    let body = json!({ "selector": {"text": "LOG IN"}, "observe": true });
    let mark = journal_mark(&h);
    let (_, n) = costed(&app, &h, "/api/v1/device/ui/tap", Some(body)).await;
    assert_eq!(n, 1);
    assert!(programs_since(&h, mark).contains(&"dumpsys".to_string()));
    let (after, _) = costed(&app, &h, "/api/v1/device/ui", None).await;
    assert_ne!(after["activity"], first["activity"], "{after}");
}
