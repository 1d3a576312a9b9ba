//! App performance through the real adb and the virtual device: a reading of the demo app, a
//! window over work (its summary, its series and plots among the run's artifacts), a window
//! that ends with its session, and the bad inputs, each a clear error.

use axum::http::StatusCode;
use serde_json::{json, Value};

use crate::common::android::{app_for, log_in, start_device};
use crate::common::{call, error_code, get, get_raw, post, send_json};

const DEMO: &str = "com.mobilectl.demo";

fn in_session(
    mut req: axum::http::Request<axum::body::Body>,
    secret: &str,
) -> axum::http::Request<axum::body::Body> {
    req.headers_mut()
        .insert("mobilectl-session", secret.parse().unwrap());
    req
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_perf_requests_are_refused_with_a_clear_error() {
    let h = start_device();
    let app = app_for(&h);
    let day_ms = 86_400_000;
    let refused = [
        (
            get(&format!("/api/v1/device/perf?app={DEMO}&window_ms=1")),
            "window_ms",
        ),
        (
            get(&format!(
                "/api/v1/device/perf?app={DEMO}&window_ms={day_ms}"
            )),
            "window_ms",
        ),
        (get("/api/v1/device/perf"), "`app` is missing"),
        (get("/api/v1/device/perf?app=com.x;reboot"), "com.x;reboot"),
        (
            post(
                "/api/v1/device/perf/start",
                json!({"app": DEMO, "interval_ms": 1}),
            ),
            "interval_ms",
        ),
        (
            post(
                "/api/v1/device/perf/start",
                json!({"app": DEMO, "interval_ms": day_ms}),
            ),
            "interval_ms",
        ),
        (
            post(
                "/api/v1/device/perf/start",
                json!({"app": DEMO, "max_s": 0}),
            ),
            "max_s",
        ),
        (
            post(
                "/api/v1/device/perf/start",
                json!({"app": DEMO, "name": "../x"}),
            ),
            "name",
        ),
    ];
    for (req, says) in refused {
        let what = format!("{} {}", req.method(), req.uri());
        let (status, v) = call(&app, req).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {v}");
        assert_eq!(error_code(&v), "VALIDATION_FAILED", "{what}: {v}");
        let said = format!("{} {}", v["error"]["message"], v["error"]["hint"]);
        assert!(said.contains(says), "{what}: {v}");
    }
    // An app that is not running is not a reading of zeros.
    for req in [
        get("/api/v1/device/perf?app=com.example.absent"),
        post(
            "/api/v1/device/perf/start",
            json!({"app": "com.example.absent"}),
        ),
    ] {
        let (status, v) = call(&app, req).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("is not running"),
            "{v}"
        );
        assert!(
            v["error"]["hint"].as_str().unwrap().contains("launch"),
            "{v}"
        );
    }
    let (status, v) = call(&app, post("/api/v1/device/perf/stop", json!({}))).await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::CONFLICT, "NO_PERF_WINDOW"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_left_running_ends_with_its_session() {
    let h = start_device();
    let app = app_for(&h);
    let (status, s) = call(
        &app,
        post("/api/v1/sessions", json!({"udid": h.serial, "app": DEMO})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{s}");
    let secret = s["secret"].as_str().unwrap();
    // The session's app is the window's.
    let (status, started) = call(
        &app,
        in_session(
            post("/api/v1/device/perf/start", json!({"interval_ms": 100})),
            secret,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{started}");
    assert_eq!(
        (started["app"].as_str(), started["session"].as_str()),
        (Some(DEMO), s["id"].as_str())
    );
    // A second window on the device is refused while this one runs.
    let (status, v) = call(
        &app,
        in_session(post("/api/v1/device/perf/start", json!({})), secret),
    )
    .await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::CONFLICT, "PERF_WINDOW_ACTIVE"),
        "{v}"
    );

    let id = s["id"].as_str().unwrap();
    let req = in_session(
        send_json("DELETE", &format!("/api/v1/sessions/{id}"), ""),
        secret,
    );
    assert_eq!(call(&app, req).await.0, StatusCode::OK);
    // Stopped with the session, its files saved in the session's run; answered once.
    let (status, stopped) = call(&app, post("/api/v1/device/perf/stop", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{stopped}");
    assert_eq!(stopped["id"], started["id"]);
    assert_eq!(stopped["stopped_by"], "session_end", "{stopped}");
    assert_eq!(stopped["state"], "finished", "{stopped}");
    assert_eq!(stopped["run"], started["run"]);
    assert!(
        stopped["files"]["png"].as_str().unwrap().ends_with(".png"),
        "{stopped}"
    );
    let (status, v) = call(&app, post("/api/v1/device/perf/stop", json!({}))).await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::CONFLICT, "NO_PERF_WINDOW"),
        "{v}"
    );
}

async fn reading(app: &axum::Router) -> Value {
    let (status, v) = call(
        app,
        get(&format!("/api/v1/device/perf?app={DEMO}&window_ms=200")),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_over_work_shows_what_the_work_cost_and_saves_its_plots() {
    let h = start_device();
    let app = app_for(&h);
    let idle = reading(&app).await;
    assert_eq!(idle["measured_on"], "device", "{idle}");
    assert_eq!(idle["cost"]["samples"], 2, "{idle}");
    assert!(idle["threads"].as_u64().unwrap() > 1, "{idle}");
    assert!(
        idle["memory"]["pss_total_kib"].as_u64().unwrap() > 1024,
        "{idle}"
    );

    let (status, started) = call(
        &app,
        post(
            "/api/v1/device/perf/start",
            json!({"app": DEMO, "interval_ms": 100, "name": "login"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{started}");
    assert_eq!(started["state"], "sampling");
    log_in(&app).await;
    for _ in 0..3 {
        let (status, v) = call(
            &app,
            post("/api/v1/device/ui/scroll", json!({"direction": "down"})),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{v}");
    }
    let (status, stopped) = call(&app, post("/api/v1/device/perf/stop", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{stopped}");
    assert_eq!(
        (stopped["state"].as_str(), stopped["stopped_by"].as_str()),
        (Some("finished"), Some("request")),
        "{stopped}"
    );
    let summary = &stopped["summary"];
    let samples = summary["samples"].as_u64().unwrap();
    assert!(samples >= 2, "{stopped}");
    // The work drew frames and used CPU; the list's screens took memory.
    assert!(
        summary["frames"]["frames"].as_u64().unwrap() > 0,
        "{stopped}"
    );
    assert!(
        summary["cpu_percent"]["max"].as_f64().unwrap() > 0.0,
        "{stopped}"
    );
    let memory = &summary["memory_kib"];
    assert!(
        memory["max"].as_f64().unwrap() > memory["min"].as_f64().unwrap(),
        "{stopped}"
    );

    // The files: the series holds every sample; the plots are a PNG and an SVG.
    let run = stopped["run"].as_str().unwrap();
    let file = |name: &str| format!("/api/v1/runs/{run}/artifacts/{name}");
    let (status, headers, series) =
        get_raw(&app, &file(stopped["files"]["series"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "application/json");
    let series: Value = serde_json::from_slice(&series).unwrap();
    let held: u64 = series["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["samples"].as_u64().unwrap())
        .sum();
    assert_eq!(held, samples);
    let (status, headers, png) = get_raw(&app, &file("login.png")).await;
    assert_eq!(
        (status, &headers["content-type"]),
        (
            StatusCode::OK,
            &"image/png".parse::<axum::http::HeaderValue>().unwrap()
        )
    );
    let picture = image::load_from_memory(&png).unwrap();
    assert!(picture.width() >= 800, "{}", picture.width());
    let (status, headers, svg) = get_raw(&app, &file("login.svg")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "image/svg+xml");
    assert!(headers["content-security-policy"]
        .to_str()
        .unwrap()
        .contains("sandbox"));
    assert!(String::from_utf8(svg).unwrap().contains("Frame time"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_with_measure_answers_what_it_cost_the_app() {
    let h = start_device();
    let app = app_for(&h);
    // Nothing read yet (a key press reads nothing): the app in front is not known, so there
    // is nothing to measure.
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/ui/press",
            json!({"key": "volume_up", "measure": true}),
        ),
    )
    .await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::BAD_REQUEST, "VALIDATION_FAILED"),
        "{v}"
    );
    assert!(
        v["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("read the screen"),
        "{v}"
    );

    log_in(&app).await;
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/ui/scroll",
            json!({"direction": "down", "measure": true, "observe": true}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let perf = &v["perf"];
    assert_eq!(perf["app"], DEMO, "{v}");
    assert!(perf["frames"].as_u64().unwrap() > 0, "{v}");
    assert!(perf["longest_frame_ms"].as_f64().unwrap() > 0.0, "{v}");
    assert!(perf["cpu"]["window_ms"].as_u64().is_some(), "{v}");
    // An action without `measure` carries no cost.
    let (_, v) = call(
        &app,
        post("/api/v1/device/ui/scroll", json!({"direction": "up"})),
    )
    .await;
    assert!(v.get("perf").is_none(), "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_launch_is_cold_or_warm_as_asked() {
    let h = start_device();
    let app = app_for(&h);
    let launch = |body: Value| post("/api/v1/device/app/launch", body);
    let (status, cold) = call(&app, launch(json!({"bundle_id": DEMO, "cold": true}))).await;
    assert_eq!(status, StatusCode::OK, "{cold}");
    assert_eq!(cold["startup"]["launch_state"], "COLD", "{cold}");
    let (status, warm) = call(
        &app,
        launch(json!({"bundle_id": DEMO, "cold": false, "repeat": 2})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{warm}");
    assert_ne!(warm["startup"]["launch_state"], "COLD", "{warm}");
    assert_eq!(
        warm["starts"]["times_ms"].as_array().unwrap().len(),
        2,
        "{warm}"
    );
    let (status, v) = call(
        &app,
        launch(json!({"bundle_id": DEMO, "cold": false, "relaunch": true})),
    )
    .await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::BAD_REQUEST, "VALIDATION_FAILED"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_measured_launch_says_what_the_start_cost() {
    let h = start_device();
    let app = app_for(&h);
    let launch = |body: Value| post("/api/v1/device/app/launch", body);
    // Cold: the new process's frames, and its CPU time over the start.
    let (status, cold) = call(
        &app,
        launch(json!({"bundle_id": DEMO, "cold": true, "measure": true})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{cold}");
    assert_eq!(cold["startup"]["launch_state"], "COLD", "{cold}");
    assert!(cold["perf"]["frames"].as_u64().unwrap() > 0, "{cold}");
    assert!(
        cold["perf"]["cpu"]["percent"].as_f64().unwrap() > 0.0,
        "{cold}"
    );
    // Hot: the running process, between the samples around the start.
    let (status, hot) = call(&app, launch(json!({"bundle_id": DEMO, "measure": true}))).await;
    assert_eq!(status, StatusCode::OK, "{hot}");
    assert_eq!(hot["perf"]["app"], DEMO, "{hot}");
    assert!(hot["perf"].get("error").is_none(), "{hot}");
}
