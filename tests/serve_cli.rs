//! The `mobilectl serve` binary: refuses unsafe binds, serves the demo device, takes
//! WebDriverAgent endpoints from `--wda` and `MOBILECTL_WDA`, and shuts down gracefully on
//! SIGTERM.

use crate::common;

use std::process::{Command, Stdio};
use std::time::Duration;

use virtual_device::testing::{adb_path, ensure_user_adb_key, free_port, wait_until};

const BIN: &str = env!("CARGO_BIN_EXE_mobilectl");

#[test]
fn non_loopback_bind_without_a_token_refuses_to_start() {
    let out = Command::new(BIN)
        .args(["serve", "--addr", "0.0.0.0:0"])
        .env_remove("MOBILECTL_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("without a token"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_demo_answers_ui_and_stops_on_sigterm() {
    let (port, adb_port) = (free_port(), free_port());
    ensure_user_adb_key(&adb_path());
    let cache = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--demo", "--addr", &format!("127.0.0.1:{port}")])
        .args(["--adb-server-port", &adb_port.to_string()])
        .env("MOBILECTL_CACHE_DIR", cache.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let up = wait_until(Duration::from_secs(30), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    assert!(up, "the server did not come up");
    let ui: serde_json::Value = client
        .get(format!("{base}/api/v1/device/ui"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(ui["tree_text"].as_str().unwrap().contains("LOG IN"), "{ui}");
    // A client following the log does not hold the shutdown up: its stream ends.
    let stream = client
        .get(format!("{base}/api/v1/logs/stream"))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let reader = tokio::spawn(async move { stream.bytes().await.is_ok() });
    common::sigterm(child.id());
    let exited = wait_until(Duration::from_secs(10), || {
        matches!(child.try_wait(), Ok(Some(_)))
    });
    assert!(exited, "the server did not stop on SIGTERM");
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert!(reader.await.unwrap(), "the stream ended cleanly");
    let _ = Command::new("adb")
        .args(["-P", &adb_port.to_string(), "kill-server"])
        .output();
}

#[test]
fn a_bad_wda_endpoint_refuses_to_start() {
    let out = Command::new(BIN)
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--wda",
            "ftp://127.0.0.1:8100",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--wda ftp://127.0.0.1:8100") && err.contains("http or https"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_lists_the_wda_endpoints_of_mobilectl_wda() {
    use common::wda::{FakeWda, SETTINGS, STATUS_IOS14};
    let a = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let b = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let port = free_port();
    let cache = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
        .env("MOBILECTL_CACHE_DIR", cache.path())
        .env(
            "MOBILECTL_WDA",
            format!("00008101-001D24E93C08001E={},{}", a.url(), b.url()),
        )
        // No device tools: only the WDA endpoints are listed.
        .env("MOBILECTL_ADB", "/nonexistent/adb")
        .env("MOBILECTL_XCRUN", "/nonexistent/xcrun")
        .env("MOBILECTL_EMULATOR", "/nonexistent/emulator")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let up = wait_until(Duration::from_secs(30), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    assert!(up, "the server did not come up");
    let list: serde_json::Value =
        reqwest::get(format!("http://127.0.0.1:{port}/api/v1/device/list"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(
        common::udids(&list),
        [
            "00008101-001D24E93C08001E".to_string(),
            format!("wda:{}", b.addr)
        ],
        "{list}"
    );
    let ui: serde_json::Value = reqwest::get(format!(
        "http://127.0.0.1:{port}/api/v1/device/ui?udid=00008101-001D24E93C08001E"
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert!(
        ui["tree_text"].as_str().unwrap().contains("General"),
        "{ui}"
    );
    assert_eq!(a.routes_since(0), ["GET /status", "GET /source"]);
    common::sigterm(child.id());
    let exited = wait_until(Duration::from_secs(10), || {
        matches!(child.try_wait(), Ok(Some(_)))
    });
    assert!(exited, "the server did not stop on SIGTERM");
}
