//! Android faults through the real adb and the virtual device's fault knobs: transient dump
//! failures, a device that drops mid-request or goes offline, a command that hangs, an adb
//! server that was killed.

use crate::common;

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::android::*;
use common::*;
use virtual_device::testing::wait_until;

#[tokio::test]
async fn dump_fails_twice_then_succeeds() {
    let h = start_device();
    let app = app_for(&h);
    h.control(&["fail-dumps", "2"]).unwrap();
    let (status, snap) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert!(snap["tree_text"].as_str().unwrap().contains("LOG IN"));
    assert_eq!(
        argvs_with(&h, "uiautomator").len(),
        3,
        "two failures, one success"
    );
}

#[tokio::test]
async fn dump_failing_every_time_is_a_clear_error_with_the_devices_words() {
    let h = start_device();
    let app = app_for(&h);
    h.control(&["fail-dumps", "5"]).unwrap();
    let (status, body) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(error_code(&body), "COMMAND_FAILED");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("could not get idle state"));
    assert_eq!(body["error"]["details"]["attempts"], 3);
    assert_eq!(argvs_with(&h, "uiautomator").len(), 3);
}

#[tokio::test]
async fn offline_device_is_device_offline() {
    let h = start_device();
    let app = app_for(&h);
    let (status, _) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK);
    h.control(&["offline", "on"]).unwrap();
    let (status, body) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "DEVICE_OFFLINE");
    assert_eq!(body["error"]["retryable"], true);
}

// Multi-threaded: the request runs while this test thread polls the journal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn device_dropping_mid_request_is_device_offline() {
    let h = start_device();
    let app = app_for(&h);
    let (status, _) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK);
    h.control(&["latency", "3000"]).unwrap();
    let before = h.journal().len();
    let request = tokio::spawn({
        let app = app.clone();
        async move { call(&app, get("/api/v1/device/ui")).await }
    });
    // Wait until the dump request reached the device, then take the device away under it (its
    // connections drop and it answers no new handshake).
    let reached = wait_until(Duration::from_secs(10), || {
        h.journal()[before..].iter().any(|v| {
            v["service"]
                .as_str()
                .is_some_and(|s| s.contains("uiautomator"))
        })
    });
    assert!(
        reached,
        "the dump never reached the device: {:?}",
        &h.journal()[before..]
    );
    h.control(&["offline", "on"]).unwrap();
    let (status, body) = request.await.unwrap();
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "DEVICE_OFFLINE");
}

/// Processes whose command line mentions `needle` (our private adb port is unique).
fn processes_with(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(needle))
        .collect()
}

#[tokio::test]
async fn hanging_command_times_out_and_its_process_is_gone() {
    let h = start_device();
    let app = app_for_with(&h, Some(Duration::from_millis(1500)));
    let (status, _) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK);
    h.control(&["latency", "20000"]).unwrap();
    let started = Instant::now();
    let (status, body) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::GATEWAY_TIMEOUT, "{body}");
    assert_eq!(error_code(&body), "TIMEOUT");
    assert!(started.elapsed() < Duration::from_secs(15));
    let needle = format!("-P {} -s {} exec-out", h.adb_port, h.serial);
    let gone = wait_until(Duration::from_secs(5), || {
        processes_with(&needle).is_empty()
    });
    assert!(
        gone,
        "adb client still running: {:?}",
        processes_with(&needle)
    );
    h.control(&["latency", "0"]).unwrap();
}

#[tokio::test]
async fn killed_adb_server_is_restarted_and_the_device_reconnected() {
    let h = start_device();
    let app = app_for(&h);
    let udid = h.serial.clone();
    let (status, _) = call(&app, get(&format!("/api/v1/device/ui?udid={udid}"))).await;
    assert_eq!(status, StatusCode::OK);
    let out = h.adb_global(&["kill-server"]);
    assert!(out.success(), "{}", out.stderr_text());
    // Let the device cache age out so the next request looks the device up again.
    let (status, body) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, snap) = call(&app, get(&format!("/api/v1/device/ui?udid={udid}"))).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert!(snap["tree_text"].as_str().unwrap().contains("LOG IN"));
}
