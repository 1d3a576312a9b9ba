//! Physical iPhones through WebDriverAgent, against the fake WDA of `common/wda.rs` replaying
//! recorded real answers and logging every request: a whole flow on one session, the W3C
//! action bodies with coordinates in points, the requests each operation costs, the JSON
//! source fallback, the screen geometry, and the faults (WDA down, `invalid session id` once,
//! a `/source` slower than its time limit, WDA error bodies) each answering its documented code
//! with the next call working.

use crate::common;

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use common::wda::*;
use common::*;
use mobilectl::backend::wda::{EndpointSpec, WdaConfig};
use mobilectl::backend::BackendConfig;
use mobilectl::exec::Toolbox;
use serde_json::{json, Value};

const UDID: &str = "00008101-001D24E93C08001E";
const SESSION: &str = "01C14CF6-A745-4E05-85C8-905DCEC61424";

fn wda_app(fake: &FakeWda, source_timeout: Duration) -> Router {
    app_with_config(
        BackendConfig {
            tools: Toolbox::with([]),
            wda: WdaConfig {
                endpoints: vec![EndpointSpec::parse(&format!("{UDID}={}", fake.url())).unwrap()],
                source_timeout,
            },
            ..Default::default()
        },
        loopback_policy(),
    )
}

fn wda(fake: &FakeWda) -> Router {
    wda_app(fake, Duration::from_secs(20))
}

/// The element with a ref of `role` whose name starts with `name`.
fn element<'a>(snap: &'a Value, role: &str, name: &str) -> &'a Value {
    snap["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["role"] == role
                && e["ref"].is_string()
                && e["name"].as_str().is_some_and(|n| n.starts_with(name))
        })
        .unwrap_or_else(|| panic!("no {role} {name:?} in {}", snap["tree_text"]))
}

fn centre(e: &Value) -> (f64, f64) {
    let b = &e["bounds"];
    let f = |k: &str| b[k].as_f64().unwrap();
    (
        (f("x") + f("w") / 2.0).round(),
        (f("y") + f("h") / 2.0).round(),
    )
}

fn press(key: &str) -> Request<Body> {
    post("/api/v1/device/ui/press", json!({ "key": key }))
}

fn tap_at(x: impl Into<f64>, y: impl Into<f64>) -> Request<Body> {
    post(
        "/api/v1/device/ui/tap",
        json!({ "x": x.into(), "y": y.into() }),
    )
}

/// The pointer steps of a recorded `/actions` body.
fn steps(seen: &Seen) -> Vec<Value> {
    assert_eq!(
        seen.body["actions"][0]["parameters"]["pointerType"],
        "touch"
    );
    seen.body["actions"][0]["actions"]
        .as_array()
        .unwrap()
        .clone()
}

async fn screenshot(app: &Router) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    get_raw(app, "/api/v1/device/screenshot").await
}

/// Requests each operation cost, from the fake's log.
struct Costs(Vec<(String, Vec<String>)>);

impl Costs {
    fn note(&mut self, op: &str, fake: &FakeWda, from: usize) -> Vec<String> {
        let routes = fake.routes_since(from);
        self.0.push((op.to_string(), routes.clone()));
        routes
    }
}

#[tokio::test]
async fn a_whole_flow_runs_on_one_session_with_taps_in_points() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let app = wda(&fake);
    let mut costs = Costs(Vec::new());

    // The endpoint is a device, named from /status (devicectl is absent here).
    let n = fake.log().len();
    let (status, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let d = &list["devices"][0];
    assert_eq!(d["udid"], UDID);
    assert_eq!(d["platform"], "ios");
    assert_eq!(d["kind"], "device");
    assert_eq!(d["state"], "online");
    assert_eq!(d["os_version"], "iOS 14.6");
    assert_eq!(d["name"], format!("iPhone at {}", fake.addr));
    assert_eq!(list["tools"]["wda"]["available"], true);
    assert_eq!(
        costs.note("list devices (first)", &fake, n),
        ["GET /status"]
    );

    // A snapshot is one /source, outside any session.
    let n = fake.log().len();
    let (status, snap) = call(&app, get("/api/v1/device/ui?format=json")).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert_eq!(snap["coordinate_space"], "points");
    assert_eq!(snap["source"], "wda");
    assert_eq!(costs.note("snapshot", &fake, n), ["GET /source"]);
    assert_eq!(
        fake.log()[n].query.as_deref(),
        Some("format=xml&excluded_attributes=accessible,index")
    );

    // Tap a ref: the session is created on first use, then one W3C action at the element's
    // centre in points (the screenshot is 1206 px wide for 402 points: pixels would be 3×).
    let general = element(&snap, "cell", "General");
    let (x, y) = centre(general);
    let n = fake.log().len();
    let (status, tapped) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({"ref": general["ref"], "snapshot_id": snap["snapshot_id"]}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{tapped}");
    assert_eq!(
        costs.note("tap (first action: opens the session)", &fake, n),
        ["POST /session", "POST /session/:id/actions"]
    );
    let log = fake.log();
    assert_eq!(log[n].body["capabilities"]["alwaysMatch"], json!({}));
    assert_eq!(log[n + 1].path, format!("/session/{SESSION}/actions"));
    let s = steps(&log[n + 1]);
    let kinds: Vec<&str> = s.iter().map(|a| a["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["pointerMove", "pointerDown", "pause", "pointerUp"]);
    assert_eq!(
        (s[0]["x"].as_f64().unwrap(), s[0]["y"].as_f64().unwrap()),
        (x, y)
    );
    assert!(x < 402.0 && y < 874.0, "points, not pixels: ({x}, {y})");
    assert_eq!(
        (
            tapped["target"]["x"].as_f64(),
            tapped["target"]["y"].as_f64()
        ),
        (Some(x), Some(y))
    );

    // A point is sent as given, in the same session.
    let n = fake.log().len();
    let (status, _) = call(&app, tap_at(20.5, 700)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        costs.note("tap (point)", &fake, n),
        ["POST /session/:id/actions"]
    );
    let s = steps(&fake.log()[n]);
    assert_eq!(
        (s[0]["x"].as_f64(), s[0]["y"].as_f64()),
        (Some(20.5), Some(700.0))
    );

    let n = fake.log().len();
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/ui/long-press",
            json!({"x": 100, "y": 200, "duration_ms": 1500}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        costs.note("long press", &fake, n),
        ["POST /session/:id/actions"]
    );
    assert_eq!(
        steps(&fake.log()[n])[2],
        json!({"type": "pause", "duration": 1500})
    );

    let n = fake.log().len();
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/ui/swipe",
            json!({"from": {"x": 200, "y": 700}, "to": {"x": 200, "y": 200}, "duration_ms": 400}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(costs.note("swipe", &fake, n), ["POST /session/:id/actions"]);
    let s = steps(&fake.log()[n]);
    assert_eq!(
        (s[0]["x"].as_f64(), s[0]["y"].as_f64()),
        (Some(200.0), Some(700.0))
    );
    assert_eq!(s[3]["type"], "pointerMove");
    assert_eq!(
        (s[3]["y"].as_f64(), s[3]["duration"].as_u64()),
        (Some(200.0), Some(400))
    );

    // Type into the search field: a tap on it, then one /wda/keys (no read-back asked).
    let n = fake.log().len();
    let (_, snap) = call(&app, get("/api/v1/device/ui?format=json")).await;
    costs.note("snapshot", &fake, n);
    let search = element(&snap, "textbox", "Search");
    let n = fake.log().len();
    let (status, typed) = call(
        &app,
        post(
            "/api/v1/device/ui/type",
            json!({"ref": search["ref"], "text": "Wi-Fi ☕", "verify": false}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{typed}");
    assert_eq!(typed["details"]["typed_with"], "wda_keys");
    assert_eq!(
        costs.note("type into a target (verify: false)", &fake, n),
        ["POST /session/:id/actions", "POST /session/:id/wda/keys"]
    );
    let log = fake.log();
    assert_eq!(
        (
            steps(&log[n])[0]["x"].as_f64(),
            steps(&log[n])[0]["y"].as_f64()
        ),
        {
            let (x, y) = centre(search);
            (Some(x), Some(y))
        }
    );
    assert_eq!(log[n + 1].body, json!({"value": ["Wi-Fi ☕"]}));

    // Clear, type and submit in one /wda/keys: deletes, text, Return.
    let n = fake.log().len();
    let (status, typed) = call(
        &app,
        post(
            "/api/v1/device/ui/type",
            json!({"ref": search["ref"], "text": "ab", "clear": true, "submit": true}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{typed}");
    let routes = fake.routes_since(n);
    let keys = fake.log()[n..]
        .iter()
        .find(|s| s.path.ends_with("/wda/keys"))
        .unwrap()
        .body
        .clone();
    // The field shows its placeholder "Search" as its value: six deletes.
    assert_eq!(
        keys,
        json!({"value": ["\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}ab\n"]})
    );
    assert_eq!(
        routes.iter().filter(|r| r.ends_with("/wda/keys")).count(),
        1,
        "{routes:?}"
    );

    let n = fake.log().len();
    let (status, _) = call(&app, press("home")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        costs.note("press home", &fake, n),
        ["POST /session/:id/wda/pressButton"]
    );
    assert_eq!(fake.log()[n].body, json!({"name": "home"}));
    for (key, route, body) in [
        (
            "volume_up",
            "POST /session/:id/wda/pressButton",
            json!({"name": "volumeup"}),
        ),
        (
            "enter",
            "POST /session/:id/wda/keys",
            json!({"value": ["\n"]}),
        ),
        ("lock", "POST /session/:id/wda/lock", json!({})),
    ] {
        let n = fake.log().len();
        let (status, body_) = call(&app, press(key)).await;
        assert_eq!(status, StatusCode::OK, "{key}: {body_}");
        assert_eq!(fake.routes_since(n), [route], "{key}");
        assert_eq!(fake.log()[n].body, body, "{key}");
    }
    let n = fake.log().len();
    let (status, _) = call(
        &app,
        post("/api/v1/device/ui/press", json!({"keycode": 41})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        fake.routes_since(n),
        ["POST /session/:id/wda/performIoHidEvent"]
    );
    assert_eq!(fake.log()[n].body["usage"], 41);

    // Apps through /wda/apps/*.
    let n = fake.log().len();
    let (status, launched) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            json!({"bundle_id": "com.apple.Preferences", "arguments": ["-a"], "extras": {"level": 3}}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{launched}");
    assert_eq!(
        costs.note("launch app", &fake, n),
        ["POST /session/:id/wda/apps/launch"]
    );
    assert_eq!(
        fake.log()[n].body,
        json!({"bundleId": "com.apple.Preferences", "arguments": ["-a", "-level", "3"]})
    );
    let n = fake.log().len();
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/app/terminate",
            json!({"bundle_id": "com.apple.Preferences"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        costs.note("terminate app", &fake, n),
        ["POST /session/:id/wda/apps/terminate"]
    );
    let n = fake.log().len();
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/open-url",
            json!({"url": "https://example.com/x"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(costs.note("open URL", &fake, n), ["POST /session/:id/url"]);

    // A screenshot with a snapshot kept: one /screenshot; its pixels are 3 per point.
    let n = fake.log().len();
    let (status, headers, png) = screenshot(&app).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(costs.note("screenshot", &fake, n), ["GET /screenshot"]);
    assert_eq!(image::load_from_memory(&png).unwrap().width(), 1206);
    assert_eq!(headers["x-coordinate-space"], "points");
    assert_eq!(headers["x-tap-per-image-pixel"], "0.333333");

    // An alert in the source: read in the snapshot, answered by WDA's own command naming the
    // button the controller picked.
    fake.show(LOCATION_ALERT);
    let n = fake.log().len();
    let (_, snap) = call(&app, get("/api/v1/device/ui?format=json")).await;
    costs.note("snapshot", &fake, n);
    assert_eq!(
        snap["alert"]["title"],
        "Allow “Yamsafer” to access your location?"
    );
    // What WDA itself sees of the same alert (its alert routes answer for it).
    let labels: Vec<String> = snap["alert"]["buttons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["label"].as_str().unwrap().to_string())
        .collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let title = snap["alert"]["title"].as_str().unwrap().to_string();
    fake.alert(&title, &labels);
    let n = fake.log().len();
    let (status, answer) = call(&app, post("/api/v1/device/alert/accept", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["details"]["button"], "Always Allow");
    assert_eq!(
        costs.note("alert accept (after a snapshot)", &fake, n),
        ["POST /session/:id/alert/accept"]
    );
    assert_eq!(fake.log()[n].body, json!({"name": "Always Allow"}));
    // Without a fresh snapshot the screen is read first.
    fake.alert(&title, &labels);
    let n = fake.log().len();
    let (status, _) = call(&app, post("/api/v1/device/alert/dismiss", json!({}))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        costs.note("alert dismiss (no fresh snapshot)", &fake, n),
        ["GET /source", "POST /session/:id/alert/dismiss"]
    );
    assert_eq!(fake.log()[n + 1].body, json!({"name": "Don’t Allow"}));

    // An alert WDA sees that the source does not show: asked with /alert/text.
    fake.show(SETTINGS);
    fake.alert(
        "Allow “Maps” to use your location?\nYour location is used to show nearby places.",
        &["Allow Once", "Allow While Using App", "Don’t Allow"],
    );
    let n = fake.log().len();
    let (status, answer) = call(&app, post("/api/v1/device/alert/accept", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        answer["details"]["alert"]["title"],
        "Allow “Maps” to use your location?"
    );
    assert_eq!(
        answer["details"]["alert"]["message"],
        "Your location is used to show nearby places."
    );
    assert_eq!(answer["details"]["button"], "Allow While Using App");
    assert_eq!(
        costs.note("alert accept (system alert outside the source)", &fake, n),
        [
            "GET /source",
            "GET /session/:id/alert/text",
            "GET /session/:id/wda/alert/buttons",
            "POST /session/:id/alert/accept"
        ]
    );
    // No alert anywhere: NO_ALERT.
    let n = fake.log().len();
    let (status, body) = call(&app, post("/api/v1/device/alert/dismiss", json!({}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(error_code(&body), "NO_ALERT");
    assert_eq!(
        fake.routes_since(n),
        ["GET /source", "GET /session/:id/alert/text"]
    );

    // One session for the whole flow.
    let sessions = fake
        .log()
        .iter()
        .filter(|s| s.route() == "POST /session")
        .count();
    assert_eq!(sessions, 1);
    assert!(fake
        .log()
        .iter()
        .filter(|s| s.path.starts_with("/session/"))
        .all(|s| s.path.starts_with(&format!("/session/{SESSION}/"))));

    eprintln!("requests per operation on WDA:");
    for (op, routes) in &costs.0 {
        eprintln!("  {op}: {} — {}", routes.len(), routes.join(", "));
    }
}

#[tokio::test]
async fn a_screenshot_before_any_snapshot_asks_the_scale_once() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let app = wda(&fake);
    call(&app, get("/api/v1/device/list")).await;
    let n = fake.log().len();
    let (status, headers, _) = screenshot(&app).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(fake.routes_since(n), ["GET /screenshot", "GET /wda/screen"]);
    assert_eq!(headers["x-tap-per-image-pixel"], "0.333333");
    let n = fake.log().len();
    screenshot(&app).await;
    assert_eq!(fake.routes_since(n), ["GET /screenshot"]);

    // An old WDA without /wda/screen (the recorded JSONWP "Unhandled endpoint"): the window
    // size is asked (recorded 375×812), which has no scale, so the UI is read for it.
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    fake.screen(None);
    let app = wda(&fake);
    call(&app, get("/api/v1/device/list")).await;
    let n = fake.log().len();
    let (status, headers, _) = screenshot(&app).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        fake.routes_since(n),
        [
            "GET /screenshot",
            "GET /wda/screen",
            "GET /window/size",
            "GET /source"
        ]
    );
    assert_eq!(headers["x-tap-per-image-pixel"], "0.333333");
}

#[tokio::test]
async fn an_old_wda_s_json_tree_is_read_when_it_sends_no_xml() {
    // The recorded answer of an old WDA: `{"value": {"tree": …}}` with UIA* types.
    let fake = FakeWda::start(LEGACY_TREE, STATUS_IOS14).await;
    let app = wda(&fake);
    let (status, snap) = call(&app, get("/api/v1/device/ui?format=json")).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert_eq!(snap["source"], "wda");
    let elements = snap["elements"].as_array().unwrap();
    assert!(elements.len() > 10);
    assert!(elements
        .iter()
        .any(|e| e["class"].as_str().is_some_and(|c| c.starts_with("UIA"))));

    // A WDA that refuses the XML format is asked for JSON.
    fake.once(
        "GET",
        "/source",
        400,
        r#"{"value": {"error": "invalid argument", "message": "Unknown source format 'xml'", "traceback": ""}, "sessionId": null}"#,
    );
    let n = fake.log().len();
    let (status, snap) = call(&app, get("/api/v1/device/ui?format=json")).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    let log = fake.log();
    assert_eq!(
        log[n].query.as_deref(),
        Some("format=xml&excluded_attributes=accessible,index")
    );
    assert_eq!(log[n + 1].query.as_deref(), Some("format=json"));
}

#[tokio::test]
async fn wda_down_answers_device_unreachable_and_the_next_call_works() {
    let mut fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let app = wda(&fake);
    let (status, _) = call(&app, tap_at(10, 10)).await;
    assert_eq!(status, StatusCode::OK);
    fake.stop().await;
    for req in [tap_at(10, 10), get("/api/v1/device/ui")] {
        let (status, body) = call(&app, req).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(error_code(&body), "DEVICE_UNREACHABLE");
        assert_eq!(body["error"]["retryable"], true);
        let hint = body["error"]["hint"].as_str().unwrap();
        assert!(
            hint.contains(&format!("iproxy 8100 8100 -u {UDID}")),
            "{hint}"
        );
    }
    // The device stays listed while WDA is down.
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(list["devices"][0]["udid"], UDID);

    // WDA restarted (without our session): the next call opens a new session and works.
    fake.restart().await;
    let n = fake.log().len();
    let (status, body) = call(&app, tap_at(10, 10)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        fake.routes_since(n),
        [
            "POST /session/:id/actions",
            "POST /session",
            "POST /session/:id/actions"
        ]
    );
}

#[tokio::test]
async fn an_invalid_session_is_recreated_once_and_the_action_repeated() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let app = wda(&fake);
    call(&app, press("home")).await;
    // Another client took WDA's one session.
    fake.forget_session();
    let n = fake.log().len();
    let (status, body) = call(&app, press("home")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        fake.routes_since(n),
        [
            "POST /session/:id/wda/pressButton",
            "POST /session",
            "POST /session/:id/wda/pressButton"
        ]
    );
    // And the new session is reused.
    let n = fake.log().len();
    call(&app, press("home")).await;
    assert_eq!(fake.routes_since(n), ["POST /session/:id/wda/pressButton"]);

    // Twice in a row: COMMAND_FAILED, not a loop.
    let invalid = r#"{"value": {"error": "invalid session id", "message": "Session does not exist", "traceback": ""}, "sessionId": null}"#;
    fake.once("POST", "/wda/pressButton", 404, invalid);
    fake.once("POST", "/wda/pressButton", 404, invalid);
    let n = fake.log().len();
    let (status, body) = call(&app, press("home")).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(error_code(&body), "COMMAND_FAILED");
    assert_eq!(fake.routes_since(n).len(), 3);
    let (status, _) = call(&app, press("home")).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_source_slower_than_its_limit_is_a_timeout_and_the_next_read_works() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let app = wda_app(&fake, Duration::from_millis(500));
    fake.delay_once("GET", "/source", Duration::from_secs(5));
    let started = std::time::Instant::now();
    let (status, body) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::GATEWAY_TIMEOUT, "{body}");
    assert_eq!(error_code(&body), "TIMEOUT");
    says(&body, "hint", "--wda-source-timeout-ms");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    let (status, body) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn wda_error_bodies_get_their_codes_and_the_next_call_works() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let app = wda(&fake);

    // A 500 with WDA's error body.
    fake.once(
        "POST",
        "/wda/pressButton",
        500,
        r#"{"value": {"error": "unknown error", "message": "The button 'volumeup' is not supported. The device under test only supports the following buttons: [home]", "traceback": ""}, "sessionId": "01C14CF6-A745-4E05-85C8-905DCEC61424"}"#,
    );
    let (status, body) = call(&app, press("volume_up")).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(error_code(&body), "COMMAND_FAILED");
    says(&body, "message", "The button 'volumeup' is not supported");
    assert_eq!(body["error"]["details"]["wda_error"], "unknown error");
    let (status, _) = call(&app, press("home")).await;
    assert_eq!(status, StatusCode::OK);

    // unexpected alert open → ALERT_BLOCKING; stale element reference → STALE_REFERENCE.
    for (error, code, http) in [
        (
            "unexpected alert open",
            "ALERT_BLOCKING",
            StatusCode::CONFLICT,
        ),
        (
            "stale element reference",
            "STALE_REFERENCE",
            StatusCode::CONFLICT,
        ),
        (
            "unknown command",
            "UNSUPPORTED_ON_PLATFORM",
            StatusCode::NOT_IMPLEMENTED,
        ),
    ] {
        let body = json!({"value": {"error": error, "message": "m", "traceback": ""}, "sessionId": SESSION});
        fake.once("POST", "/actions", 500, &body.to_string());
        let (status, body) = call(&app, tap_at(5, 5)).await;
        assert_eq!(status, http, "{error}: {body}");
        assert_eq!(error_code(&body), code);
        assert!(body["error"]["hint"].is_string());
        let (status, _) = call(&app, tap_at(5, 5)).await;
        assert_eq!(status, StatusCode::OK, "after {error}");
    }

    // Keys under an alert (WDA's "unexpected alert open"), and with no keyboard up.
    for (error, code) in [
        ("unexpected alert open", "ALERT_BLOCKING"),
        ("invalid element state", "ELEMENT_NOT_INTERACTABLE"),
    ] {
        let body = json!({"value": {"error": error, "message": "m", "traceback": ""}, "sessionId": SESSION});
        fake.once("POST", "/wda/keys", 500, &body.to_string());
        let (status, body) = call(&app, press("enter")).await;
        assert_eq!(error_code(&body), code, "{status} {body}");
    }

    // Recorded JSONWP errors of old WDAs, sent with a 200: status 13 and "Unhandled endpoint".
    fake.once_fixture("POST", "/wda/apps/launch", 200, JSONWP_FAILED_LAUNCH);
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            json!({"bundle_id": "com.apple.mobilesafari"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    says(
        &body,
        "message",
        "Failed to launch com.apple.mobilesafari application",
    );
    fake.once_fixture("POST", "/wda/keyboard/dismiss", 200, JSONWP_UNHANDLED);
    let (_, snap) = call(&app, get("/api/v1/device/ui?format=json")).await;
    assert!(snap["snapshot_id"].is_string());
    let (status, body) = call(&app, post("/api/v1/device/ui/hide-keyboard", json!({}))).await;
    // The Settings screen shows no keyboard: nothing is sent, whatever WDA would say.
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["details"]["keyboard_was_visible"], false);
    fake.once_fixture("POST", "/wda/pressButton", 200, JSONWP_UNHANDLED);
    let (status, body) = call(&app, press("home")).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM");
    let (status, _) = call(&app, press("home")).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_session_wda_will_not_create_is_command_failed_with_its_words() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    fake.session_answer(SESSION_W3C);
    let app = wda(&fake);
    // The recorded `session not created` answer (a 500).
    fake.once_fixture("POST", "/session", 500, SESSION_NOT_CREATED);
    let (status, body) = call(&app, tap_at(1, 1)).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(error_code(&body), "COMMAND_FAILED");
    says(
        &body,
        "message",
        "'capabilities' is mandatory to create a new session",
    );
    says(&body, "hint", "unlock the phone");
    // Next call: the session opens (the recorded W3C answer) and the tap goes through in it.
    let n = fake.log().len();
    let (status, _) = call(&app, tap_at(1, 1)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        fake.log()[n + 1].path,
        "/session/8B295A66-779A-4C88-B6B9-2C1179C18592/actions"
    );
}

#[tokio::test]
async fn doctor_reports_each_endpoint() {
    let mut fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let app = wda(&fake);
    let (status, doctor) = call(&app, get("/api/v1/doctor")).await;
    assert_eq!(status, StatusCode::OK);
    let checks = doctor["checks"].as_array().unwrap();
    let wda = checks
        .iter()
        .find(|c| c["name"] == "WebDriverAgent")
        .unwrap();
    assert_eq!(wda["backend"], "wda");
    assert_eq!(wda["target"], fake.url());
    assert_eq!(wda["ok"], true);
    assert_eq!(wda["version"], "built Jul 17 2021 18:57:32");
    // The recorded status shows a session WDA holds (not mobilectl's: none was opened).
    assert_eq!(
        wda["session"],
        "EAB73269-5D5B-45EB-913B-2BAA21FE2830 (another client's)"
    );
    assert!(wda["detail"].as_str().unwrap().contains("iOS 14.6"));
    let devicectl = checks.iter().find(|c| c["name"] == "devicectl").unwrap();
    assert_eq!(devicectl["ok"], false);
    assert!(devicectl["remediation"].as_str().unwrap().contains("Xcode"));
    assert_eq!(doctor["wda"], "ready");

    fake.stop().await;
    let (_, doctor) = call(&app, get("/api/v1/doctor")).await;
    let checks = doctor["checks"].as_array().unwrap();
    let wda = checks
        .iter()
        .find(|c| c["name"] == "WebDriverAgent")
        .unwrap();
    assert_eq!(wda["ok"], false);
    assert!(wda["remediation"].as_str().unwrap().contains("iproxy"));
    assert_eq!(doctor["wda"], "blocked");
}

#[tokio::test]
async fn hiding_the_keyboard_is_wda_s_keyboard_dismiss() {
    use mobilectl::backend::wda::WdaBackend;
    use mobilectl::backend::Input;
    use mobilectl::device::{Device, DeviceKind, DeviceState, Platform};
    // No recorded WDA source shows a keyboard, so the route would not ask (it hides a keyboard
    // only when the screen shows one): the backend is called directly, against the fake WDA.
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let config = WdaConfig {
        endpoints: vec![EndpointSpec::parse(&format!("{UDID}={}", fake.url())).unwrap()],
        ..Default::default()
    };
    let backend = WdaBackend::new(Toolbox::with([]), &config, None);
    let device = Device {
        udid: UDID.into(),
        name: "iPhone".into(),
        platform: Platform::Ios,
        kind: DeviceKind::Device,
        state: DeviceState::Online,
        os_version: None,
        api_level: None,
        model: None,
        backend: WdaBackend::ID,
        capabilities: Vec::new(),
    };
    backend.hide_keyboard(&device).await.unwrap();
    backend.clear_field(&device, 3).await.unwrap();
    assert_eq!(
        fake.routes_since(0),
        [
            "POST /session",
            "POST /session/:id/wda/keyboard/dismiss",
            "POST /session/:id/wda/keys"
        ]
    );
    assert_eq!(fake.log()[2].body, json!({"value": ["\u{7f}\u{7f}\u{7f}"]}));
}
