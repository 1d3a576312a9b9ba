//! Who makes adb reach out over the network, through the real adb and the virtual device: a
//! `udid` never does (an unknown one is `404 NO_DEVICE` and nothing is contacted), only an
//! explicit `POST /api/v1/device/connect` does, to loopback unless the server allows more;
//! a device the server listed before and adb forgot is reconnected on use.

use crate::common;

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::*;
use mobilectl::backend::BackendConfig;
use mobilectl::exec::Toolbox;
use serde_json::json;
use virtual_device::testing::{free_port, wait_until, VdHarness};

fn listed(h: &VdHarness) -> String {
    let out = h.adb_global(&["devices"]);
    assert!(out.success(), "{}", out.stderr_text());
    out.stdout_text()
}

/// Whether anything connects to `listener` within `within`.
async fn contacted(listener: &tokio::net::TcpListener, within: Duration) -> bool {
    tokio::time::timeout(within, listener.accept())
        .await
        .is_ok()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_udid_is_no_device_and_nothing_is_contacted() {
    let h = android::start_device();
    let app = android::app_for(&h);
    // The server knows the adb server and its device.
    let (status, _) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK);
    let before = listed(&h);

    // A port this test owns: an `adb connect` there would be seen as a connection.
    let bait = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let bait_udid = format!("127.0.0.1:{}", bait.local_addr().unwrap().port());
    for path in [
        format!("/api/v1/device/screenshot?udid={bait_udid}"),
        format!("/api/v1/device/ui?udid={bait_udid}"),
    ] {
        let (status, v) = call(&app, get(&path)).await;
        assert_eq!(
            (status, error_code(&v).as_str()),
            (StatusCode::NOT_FOUND, "NO_DEVICE"),
            "{path}: {v}"
        );
    }
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({"udid": bait_udid, "x": 1, "y": 1}),
        ),
    )
    .await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::NOT_FOUND, "NO_DEVICE"),
        "{v}"
    );
    assert!(
        !contacted(&bait, Duration::from_secs(2)).await,
        "the server made adb connect to {bait_udid}"
    );
    assert_eq!(listed(&h), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn connect_makes_a_device_listed_and_usable() {
    let h = VdHarness::start_unconnected(env!("CARGO_BIN_EXE_mobilectl"), &[]).unwrap();
    let app = android::app_for(&h);
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert!(!udids(&list).contains(&h.serial.as_str()), "{list}");

    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/connect",
            json!({"host": "127.0.0.1", "port": h.port}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["connected"], h.serial.as_str());
    assert_eq!(v["already"], false);
    assert_eq!(v["device"]["udid"], h.serial.as_str());
    assert_eq!(v["device"]["state"], "online", "{v}");
    assert!(listed(&h).contains(&h.serial));
    let (status, snap) = call(&app, get(&format!("/api/v1/device/ui?udid={}", h.serial))).await;
    assert_eq!(status, StatusCode::OK, "{snap}");

    // Again: already connected, same answer.
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/connect",
            json!({"host": "127.0.0.1", "port": h.port}),
        ),
    )
    .await;
    assert_eq!(
        (status, v["already"].as_bool()),
        (StatusCode::OK, Some(true)),
        "{v}"
    );

    // Nothing listens: refused, said so.
    let closed = free_port();
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/connect",
            json!({"host": "127.0.0.1", "port": closed}),
        ),
    )
    .await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, "DEVICE_UNREACHABLE"),
        "{v}"
    );
    assert_eq!(v["error"]["details"]["reason"], "refused", "{v}");
    assert!(v["error"]["hint"].is_string(), "{v}");

    // Bad input: a clear 400, nothing run.
    for (body, code) in [
        (
            json!({"host": "a;reboot", "port": 5555}),
            "VALIDATION_FAILED",
        ),
        (
            json!({"host": "127.0.0.1:5555", "port": 5555}),
            "VALIDATION_FAILED",
        ),
        (json!({"host": "127.0.0.1", "port": 0}), "VALIDATION_FAILED"),
        (json!({"host": "127.0.0.1", "port": 65536}), "BAD_REQUEST"),
        (json!({"host": "127.0.0.1"}), "BAD_REQUEST"),
    ] {
        let (status, v) = call(&app, post("/api/v1/device/connect", body.clone())).await;
        assert_eq!(
            (status, error_code(&v).as_str()),
            (StatusCode::BAD_REQUEST, code),
            "{body}: {v}"
        );
    }
}

#[tokio::test]
async fn a_connect_off_loopback_is_refused_before_any_attempt() {
    // No adb at all: had the server tried to connect, it would answer TOOL_MISSING.
    let app = app_with(Toolbox::with([]), loopback_policy());
    let started = Instant::now();
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/connect",
            json!({"host": "192.0.2.10", "port": 5555}),
        ),
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::FORBIDDEN, "FORBIDDEN"),
        "{v}"
    );
    assert_eq!(v["error"]["details"]["reason"], "not_allowed", "{v}");
    assert!(
        v["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("--adb-connect-allow 192.0.2.10/32"),
        "{v}"
    );
    // IPv6, and an IPv4 address written as IPv6: the same.
    for host in ["2001:db8::1", "::ffff:192.0.2.10"] {
        let (status, v) = call(
            &app,
            post(
                "/api/v1/device/connect",
                json!({"host": host, "port": 5555}),
            ),
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{host}: {v}");
    }

    // Allowed by the server: the policy lets it through to adb (missing here, so nothing
    // is sent either).
    let app = app_with_config(
        BackendConfig {
            tools: Toolbox::with([]),
            adb_connect_allow: vec!["192.0.2.0/24".parse().unwrap()],
            ..Default::default()
        },
        loopback_policy(),
    );
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/connect",
            json!({"host": "192.0.2.10", "port": 5555}),
        ),
    )
    .await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, "TOOL_MISSING"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_listed_device_that_adb_forgot_is_reconnected_on_use() {
    let h = android::start_device();
    let app = android::app_for(&h);
    let (status, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(udids(&list).contains(&h.serial.as_str()), "{list}");

    let out = h.adb_global(&["disconnect", &h.serial]);
    assert!(out.success(), "{}", out.stderr_text());
    assert!(wait_until(Duration::from_secs(10), || !listed(&h).contains(&h.serial)));
    // Once the server's listing shows it gone too (its device stream may lag a moment).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, list) = call(&app, get("/api/v1/device/list")).await;
        if !udids(&list).contains(&h.serial.as_str()) {
            break;
        }
        assert!(Instant::now() < deadline, "still listed: {list}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, snap) = call(&app, get(&format!("/api/v1/device/ui?udid={}", h.serial))).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert!(listed(&h).contains(&h.serial));
}
