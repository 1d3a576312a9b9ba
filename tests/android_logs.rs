//! Logs, crashes and the debug bundle through the real adb from the virtual device: the
//! device's log read and filtered, pages continued by cursor, the stream resumed with
//! `Last-Event-ID`, a slow reader told what it missed, the demo app's crash and ANR reported
//! by the tap that caused them, bad input refused before any device command.

use crate::common;

use std::time::Duration;

use axum::http::{Request, StatusCode};
use axum::Router;
use common::android::*;
use common::sse::SseReader;
use common::*;
use mobilectl::backend::BackendConfig;
use mobilectl::controller::DeviceController;
use mobilectl::exec::{Tool, Toolbox};
use mobilectl::logs::RingLimits;
use mobilectl::server::{self, AppState, ServerOptions};
use serde_json::{json, Value};
use tower::ServiceExt;
use virtual_device::testing::{wait_until, VdHarness};

/// The app, with the controller kept to look inside (ring limits, readers).
fn app_with_ring(h: &VdHarness, limits: Option<RingLimits>) -> (Router, AppState) {
    mobilectl::server::check_declared_errors(true);
    let controller = DeviceController::new(BackendConfig {
        tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
        adb_server_port: Some(h.adb_port),
        ..Default::default()
    });
    if let Some(l) = limits {
        controller.logs().set_limits(l);
    }
    let state = AppState::new(controller, ServerOptions::default());
    (server::app(state.clone(), loopback_policy()), state)
}

async fn logs(app: &Router, query: &str) -> Value {
    let (status, body) = call(app, get(&format!("/api/v1/logs?{query}"))).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    body
}

fn messages(page: &Value) -> Vec<String> {
    page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap().to_string())
        .collect()
}

/// Writes a line to the device's main buffer with Android's `log`.
fn device_log(h: &VdHarness, tag: &str, msg: &str) {
    let out = h.adb(&["shell", "log", "-p", "w", "-t", tag, msg]);
    assert!(out.success(), "{}", out.stderr_text());
}

/// Polls `GET /logs?{query}` until `ok` holds of the page (or panics after 20 s).
async fn logs_until(app: &Router, query: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let page = logs(app, query).await;
        if ok(&page) {
            return page;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never: {query}: {page}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn tap(app: &Router, body: Value) -> Value {
    let (status, res) = call(app, post("/api/v1/device/ui/tap", body.clone())).await;
    assert_eq!(status, StatusCode::OK, "{body}: {res}");
    res
}

/// Login → permission (allowed) → list → the detail screen, with its CRASH and FREEZE buttons.
async fn to_detail(app: &Router) {
    tap(app, json!({"selector": {"text": "LOG IN"}})).await;
    let (status, res) = call(app, post("/api/v1/device/alert/accept", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{res}");
    tap(app, json!({"selector": {"text": "Order #1001"}})).await;
    let (_, snap) = call(app, get("/api/v1/device/ui")).await;
    assert!(
        snap["tree_text"].as_str().unwrap().contains("CRASH"),
        "{}",
        snap["tree_text"]
    );
}

async fn stream(app: &Router, query: &str, last_event_id: Option<&str>) -> SseReader {
    let mut req =
        Request::get(format!("/api/v1/logs/stream?{query}")).header("host", "127.0.0.1:9100");
    if let Some(id) = last_event_id {
        req = req.header("last-event-id", id);
    }
    let res = app
        .clone()
        .oneshot(req.body(axum::body::Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    SseReader::new(res.into_body())
}

#[tokio::test]
async fn the_log_is_read_filtered_and_continued_by_cursor() {
    let h = start_device();
    let (app, _) = app_with_ring(&h, None);
    let first = logs(&app, "").await;
    let state = first["source"]["state"].as_str().unwrap();
    assert!(["starting", "live"].contains(&state), "{first}");
    let shown = first["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["message"] == "LoginActivity shown")
        .unwrap_or_else(|| panic!("{first}"))
        .clone();
    assert_eq!(
        shown["app"], "com.mobilectl.demo",
        "pid mapped to the package: {shown}"
    );
    assert_eq!(
        (shown["level"].as_str(), shown["tag"].as_str()),
        (Some("D"), Some("DemoApp"))
    );
    assert!(
        shown["time"].as_str().unwrap().ends_with('Z'),
        "the device is in UTC: {shown}"
    );

    // What follows a cursor, exactly.
    let cursor = first["cursor"].as_str().unwrap().to_string();
    device_log(&h, "Probe", "one");
    device_log(&h, "Probe", "two");
    let next = logs_until(&app, &format!("since={cursor}&tag=Probe"), |p| {
        p["entries"].as_array().unwrap().len() == 2
    })
    .await;
    assert_eq!(messages(&next), ["one", "two"]);
    let after = logs(
        &app,
        &format!("since={}&tag=Probe", next["cursor"].as_str().unwrap()),
    )
    .await;
    assert!(messages(&after).is_empty(), "{after}");

    // Filters.
    device_log(&h, "Probe", "needle 42 in a haystack");
    let page = logs_until(&app, "contains=needle", |p| !messages(p).is_empty()).await;
    assert_eq!(messages(&page), ["needle 42 in a haystack"]);
    assert_eq!(
        messages(&logs(&app, "regex=needle%20%5Cd%2B%20in").await).len(),
        1
    );
    let warn = logs(&app, "level=W").await;
    assert!(warn["entries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| ["W", "E", "F"].contains(&e["level"].as_str().unwrap())));
    assert!(messages(&warn).contains(&"one".to_string()));
    let app_only = logs(&app, "app=com.mobilectl.demo").await;
    assert!(!messages(&app_only).is_empty());
    assert!(app_only["entries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["app"] == "com.mobilectl.demo"));
    let tail = logs(&app, "limit=2").await;
    assert_eq!(tail["entries"].as_array().unwrap().len(), 2);
    assert_eq!(tail["more"], true);
    let capped = logs(&app, "limit=100000").await;
    assert_eq!(capped["note"], "limit lowered to 1000");
    let since_time = logs(&app, "since=1m").await;
    assert!(!messages(&since_time).is_empty());

    // One follower on the device, whatever the number of reads.
    let follows = argvs_with(&h, "logcat")
        .into_iter()
        .filter(|a| !a.iter().any(|x| x == "-d"))
        .count();
    assert_eq!(follows, 1, "{:?}", argvs_with(&h, "logcat"));
}

#[tokio::test]
async fn bad_queries_are_refused_before_the_device_is_asked() {
    let h = start_device();
    let (app, _) = app_with_ring(&h, None);
    for q in [
        "regex=(unclosed",
        "since=2999-01-01T00:00:00Z",
        "since=yesterday",
        "level=loud",
        "limit=0",
    ] {
        let (status, body) = call(&app, get(&format!("/api/v1/logs?{q}"))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{q}: {body}");
        assert_eq!(error_code(&body), "VALIDATION_FAILED");
        assert!(body["error"]["hint"].is_string(), "{q}: {body}");
    }
    let (status, body) = call(&app, get("/api/v1/logs/stream?regex=(x")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        argvs_with(&h, "logcat").is_empty(),
        "nothing ran on the device"
    );
    // A cursor of another log.
    logs(&app, "").await;
    let (status, body) = call(&app, get("/api/v1/logs?since=00000001-5")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("another log stream"));
    let (status, body) = call(&app, get("/api/v1/logs/crashes/not-an-id!")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

#[tokio::test]
async fn a_crash_fails_the_tap_that_caused_it() {
    let h = start_device();
    let (app, _) = app_with_ring(&h, None);
    to_detail(&app).await;
    let res = tap(
        &app,
        json!({"selector": {"text": "CRASH"}, "observe": true}),
    )
    .await;
    assert_eq!(res["success"], false, "{res}");
    assert_eq!(res["failure_code"], "APP_CRASHED");
    let crash = &res["details"]["crash"];
    assert_eq!(crash["kind"], "java_crash");
    assert!(
        crash["summary"]
            .as_str()
            .unwrap()
            .contains("java.lang.IllegalStateException"),
        "{crash}"
    );
    assert_eq!(
        h.state()["foreground"],
        false,
        "the app is gone to the launcher"
    );

    let id = crash["id"].as_str().unwrap().to_string();
    let (status, list) = call(&app, get("/api/v1/logs/crashes?app=com.mobilectl.demo")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["crashes"][0]["id"], id.as_str());
    assert_eq!(list["crashes"][0]["app"], "com.mobilectl.demo");
    let (status, one) = call(&app, get(&format!("/api/v1/logs/crashes/{id}"))).await;
    assert_eq!(status, StatusCode::OK, "{one}");
    let text = one["crash"]["text"].as_str().unwrap();
    assert!(text.starts_with("FATAL EXCEPTION: main"), "{text}");
    assert!(text.contains("DetailActivity.onClick"), "{text}");
    let (status, none) = call(&app, get("/api/v1/logs/crashes/c000000000000")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{none}");

    // The next launch and action are not blamed for it.
    let (status, launched) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            json!({"bundle_id": "com.mobilectl.demo"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{launched}");
    assert_eq!(launched["success"], true, "{launched}");
    assert!(launched.get("failure_code").is_none(), "{launched}");
    assert_eq!(h.state()["app_pid"], 4302, "a new process");
    let (_, home) = call(
        &app,
        post(
            "/api/v1/device/ui/press",
            json!({"key": "back", "observe": true}),
        ),
    )
    .await;
    assert_eq!(home["success"], true, "{home}");
}

#[tokio::test]
async fn a_crash_while_starting_fails_the_launch() {
    let h = start_device();
    let (app, _) = app_with_ring(&h, None);
    let launch = json!({"bundle_id": "com.mobilectl.demo"});
    let (status, stopped) = call(&app, post("/api/v1/device/app/terminate", launch.clone())).await;
    assert_eq!(status, StatusCode::OK, "{stopped}");
    h.control(&["crash-on-launch", "on"]).unwrap();
    let (status, res) = call(&app, post("/api/v1/device/app/launch", launch.clone())).await;
    assert_eq!(status, StatusCode::OK, "{res}");
    assert_eq!(res["success"], false, "{res}");
    assert_eq!(res["failure_code"], "APP_CRASHED", "{res}");
    let crash = &res["crash"];
    assert_eq!(crash["kind"], "java_crash", "{res}");
    let summary = crash["summary"].as_str().unwrap();
    assert!(
        summary.contains("java.lang.NullPointerException") && summary.contains("onCreate"),
        "{crash}"
    );
    let (_, list) = call(&app, get("/api/v1/logs/crashes?app=com.mobilectl.demo")).await;
    assert_eq!(list["crashes"][0]["id"], crash["id"], "{list}");
    assert_eq!(h.state()["running"], false, "the process died");

    // Once the app starts cleanly, the launch succeeds and is not blamed for the old crash.
    h.control(&["crash-on-launch", "off"]).unwrap();
    let (status, res) = call(&app, post("/api/v1/device/app/launch", launch)).await;
    assert_eq!(status, StatusCode::OK, "{res}");
    assert_eq!(res["success"], true, "{res}");
    assert!(res.get("failure_code").is_none(), "{res}");
}

#[tokio::test]
async fn a_frozen_app_is_reported_not_responding() {
    let h = start_device();
    h.control(&["anr-timeout", "300"]).unwrap();
    h.control(&["freeze-ms", "1500"]).unwrap();
    let (app, _) = app_with_ring(&h, None);
    to_detail(&app).await;
    let res = tap(
        &app,
        json!({"selector": {"text": "FREEZE"}, "observe": true}),
    )
    .await;
    assert_eq!(res["success"], false, "{res}");
    assert_eq!(res["failure_code"], "APP_NOT_RESPONDING", "{res}");
    assert_eq!(res["details"]["crash"]["kind"], "anr");
    let (_, list) = call(&app, get("/api/v1/logs/crashes")).await;
    let anr = &list["crashes"][0];
    assert_eq!(
        (anr["kind"].as_str(), anr["app"].as_str()),
        (Some("anr"), Some("com.mobilectl.demo"))
    );
    assert!(
        anr["message"]
            .as_str()
            .unwrap()
            .starts_with("Input dispatching timed out"),
        "{anr}"
    );
}

#[tokio::test]
async fn the_stream_resumes_after_the_last_event_id_without_gaps_or_repeats() {
    let h = start_device();
    let (app, state) = app_with_ring(&h, None);
    logs(&app, "").await;
    let mut events = stream(&app, "tag=Resume", None).await;
    for m in ["m1", "m2", "m3"] {
        device_log(&h, "Resume", m);
    }
    let mut got = Vec::new();
    let mut last_id = String::new();
    while got.len() < 3 {
        let ev = events
            .next(Duration::from_secs(20))
            .await
            .expect("an event");
        assert_eq!(ev.event, "entry");
        got.push(ev.data["message"].as_str().unwrap().to_string());
        last_id = ev.id;
    }
    assert_eq!(got, ["m1", "m2", "m3"]);
    // The reader goes away: what it held is freed.
    let device = state.controller.resolve(None).await.unwrap();
    let device_logs = state.controller.device_logs(&device).await.unwrap();
    let readers = device_logs.ring.subscribers();
    drop(events);
    assert_eq!(device_logs.ring.subscribers(), readers - 1);

    for m in ["m4", "m5", "m6"] {
        device_log(&h, "Resume", m);
    }
    let mut events = stream(&app, "tag=Resume", Some(&last_id)).await;
    let mut got = Vec::new();
    while got.len() < 3 {
        let ev = events
            .next(Duration::from_secs(20))
            .await
            .expect("an event");
        got.push(ev.data["message"].as_str().unwrap().to_string());
    }
    assert_eq!(got, ["m4", "m5", "m6"]);
    // `limit` ends a stream.
    let mut two = stream(&app, "tag=Resume&since=1m&limit=2", None).await;
    assert!(two.next(Duration::from_secs(10)).await.is_some());
    assert!(two.next(Duration::from_secs(10)).await.is_some());
    assert!(
        two.next(Duration::from_secs(10)).await.is_none(),
        "ended after 2"
    );
}

/// Whether the device's log is followed (the supervisor's `logcat` without `-d` runs).
fn followers(h: &VdHarness) -> usize {
    argvs_with(h, "logcat")
        .iter()
        .filter(|a| !a.iter().any(|x| x == "-d"))
        .count()
}

// Multi-threaded: the supervisor runs while this test waits on the device.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_gets_a_dropped_event_not_a_growing_buffer() {
    let h = start_device();
    let limits = RingLimits {
        max_entries: 500,
        max_bytes: 1 << 20,
    };
    let (app, _) = app_with_ring(&h, Some(limits));
    logs(&app, "").await;
    let mut events = stream(&app, "tag=FloodTest", None).await;
    assert!(wait_until(Duration::from_secs(20), || followers(&h) == 1));
    h.control(&["flood", "5000"]).unwrap();
    // The reader reads nothing while the device floods the log past the ring's size.
    let page = logs_until(&app, "tag=FloodTest&limit=1", |p| {
        p["entries"][0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("flood line 4999 "))
    })
    .await;
    assert!(
        page["source"]["dropped"].as_u64().unwrap() >= 4500,
        "{page}"
    );
    assert!(page["source"]["entries"].as_u64().unwrap() <= 500, "{page}");
    let first = events
        .next(Duration::from_secs(10))
        .await
        .expect("an event");
    assert_eq!(first.event, "dropped", "{first:?}");
    assert!(first.data["dropped"].as_u64().unwrap() >= 4000, "{first:?}");
    let next = events
        .next(Duration::from_secs(10))
        .await
        .expect("entries follow");
    assert_eq!(next.event, "entry");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_is_restarted_when_the_connection_drops_and_buffers_a_device_lacks_are_left_out()
{
    let h = start_device();
    h.control(&["log-buffers", "main,system"]).unwrap();
    let (app, _) = app_with_ring(&h, None);
    logs_until(&app, "", |p| p["source"]["state"] == "live").await;
    let follower = || {
        argvs_with(&h, "logcat")
            .into_iter()
            .find(|a| !a.iter().any(|x| x == "-d"))
    };
    assert!(wait_until(Duration::from_secs(20), || follower().is_some()));
    let follow = follower().unwrap();
    assert!(!follow.contains(&"crash".to_string()), "{follow:?}");
    h.control(&["drop"]).unwrap();
    assert!(wait_until(Duration::from_secs(30), || followers(&h) >= 2));
    device_log(&h, "After", "the drop");
    let page = logs_until(&app, "tag=After", |p| !messages(p).is_empty()).await;
    assert_eq!(messages(&page), ["the drop"]);
    assert!(page["source"]["restarts"].as_u64().unwrap() >= 1, "{page}");
}

#[tokio::test]
async fn the_debug_bundle_holds_screen_screenshot_errors_and_crashes() {
    use base64::Engine;
    let h = start_device();
    let (app, _) = app_with_ring(&h, None);
    tap(&app, json!({"selector": {"text": "LOG IN"}})).await;
    call(&app, post("/api/v1/device/alert/accept", json!({}))).await;
    let (status, b) = call(&app, get("/api/v1/debug/bundle?max_size=320")).await;
    assert_eq!(status, StatusCode::OK, "{b}");
    assert_eq!(b["app"], "com.mobilectl.demo");
    assert!(
        b["tree_text"].as_str().unwrap().contains("Order #1001"),
        "{}",
        b["tree_text"]
    );
    let shot = &b["screenshot"];
    assert_eq!(shot["content_type"], "image/jpeg");
    assert!(shot["height"].as_u64().unwrap() <= 320);
    let jpeg = base64::engine::general_purpose::STANDARD
        .decode(shot["base64"].as_str().unwrap())
        .unwrap();
    assert!(jpeg.starts_with(&[0xFF, 0xD8]));
    let errors: Vec<&str> = b["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert!(
        errors.iter().any(|m| m.starts_with("avatar fetch failed")),
        "{errors:?}"
    );
    assert!(b["logs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["app"] == "com.mobilectl.demo"));
    assert!(b["crashes"].as_array().unwrap().is_empty());
    assert!(b.get("problems").is_none(), "{b}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_supervisor_stops_when_the_device_is_gone() {
    use mobilectl::controller::SourceState;
    let h = start_device();
    let (app, state) = app_with_ring(&h, None);
    logs_until(&app, "", |p| p["source"]["state"] == "live").await;
    let device = state.controller.resolve(None).await.unwrap();
    let device_logs = state.controller.device_logs(&device).await.unwrap();
    let mut events = stream(&app, "", None).await;
    // The device's logcat is connected before the device goes: a line written now arrives
    // through it. (Cut earlier, the adb client could still be waiting for the device, and a
    // device that stays offline leaves it waiting, with nothing to end.)
    device_log(&h, "Probe", "connected");
    loop {
        let e = events
            .next(Duration::from_secs(20))
            .await
            .expect("the probe line on the stream");
        if e.data["message"] == "connected" {
            break;
        }
    }
    h.control(&["offline", "on"]).unwrap();
    // The stream ends, restarts fail for a while, then the supervisor gives up: its readers'
    // streams end too.
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    while device_logs.status().state != SourceState::Stopped {
        assert!(
            std::time::Instant::now() < deadline,
            "{:?}",
            device_logs.status()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(device_logs.status().last_error.is_some());
    while events.next(Duration::from_secs(10)).await.is_some() {}
    // Back online, a new request starts a new supervisor.
    h.control(&["offline", "off"]).unwrap();
    assert!(h.wait_for_state("device", Duration::from_secs(30)));
    let page = logs_until(&app, "", |p| p["source"]["state"] == "live").await;
    assert_eq!(page["source"]["restarts"], 0, "{page}");
}
