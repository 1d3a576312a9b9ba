//! Pointing devices at the recording proxy: Android through the real adb and the virtual
//! device (`adb reverse` that really tunnels, the global `http_proxy` setting restored on
//! detach), iOS Simulators through a fake `xcrun` (the CA added to the keychain, the Mac's
//! proxy left to the user), and the server detaching every device it attached when it gets
//! SIGTERM.

use crate::common;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use axum::http::StatusCode;
use common::*;
use mobilectl::backend::BackendConfig;
use mobilectl::controller::DeviceController;
use mobilectl::exec::{Tool, Toolbox};
use mobilectl::proxy::ProxyOptions;
use mobilectl::server::{self, AppState, ServerOptions};
use serde_json::{json, Value};
use test_support::upstream::Upstream;
use virtual_device::testing::{free_port, wait_until, VdHarness};

const BIN: &str = env!("CARGO_BIN_EXE_mobilectl");

/// `allow_local`: ports of this host the proxy lets devices reach.
fn app(
    tools: Toolbox,
    adb_port: Option<u16>,
    state: &std::path::Path,
    allow_local: &[u16],
) -> axum::Router {
    mobilectl::server::check_declared_errors(true);
    let s = AppState::new(
        DeviceController::new(BackendConfig {
            tools,
            adb_server_port: adb_port,
            ..Default::default()
        }),
        ServerOptions {
            proxy: ProxyOptions {
                state_dir: Some(state.to_path_buf()),
                allow_local: allow_local.to_vec(),
                adb_server_port: adb_port,
                ..Default::default()
            },
            ..Default::default()
        },
    );
    server::app(s, loopback_policy())
}

fn http_proxy(h: &VdHarness) -> String {
    let out = h.adb(&["shell", "settings", "get", "global", "http_proxy"]);
    assert!(out.success(), "{}", out.stderr_text());
    out.stdout_text().trim().to_string()
}

fn set_http_proxy(h: &VdHarness, value: &str) {
    let out = h.adb(&["shell", "settings", "put", "global", "http_proxy", value]);
    assert!(out.success(), "{}", out.stderr_text());
}

fn reverse_list(h: &VdHarness) -> String {
    let out = h.adb(&["reverse", "--list"]);
    assert!(out.success(), "{}", out.stderr_text());
    out.stdout_text()
}

#[tokio::test(flavor = "multi_thread")]
async fn android_attach_and_detach_through_the_real_adb() {
    let h = android::start_device();
    let state = tempfile::tempdir().unwrap();
    let upstream = Upstream::http().await;
    let app = app(
        Toolbox::with([(Tool::Adb, h.adb.clone())]),
        Some(h.adb_port),
        state.path(),
        &[upstream.addr.port()],
    );
    // The phone already uses a proxy: it comes back on detach.
    set_http_proxy(&h, "10.1.2.3:3128");

    let (status, a) = call(
        &app,
        post("/api/v1/proxy/attach", json!({"udid": h.serial})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{a}");
    let ours = a["proxy"].as_str().unwrap().to_string();
    let port: u16 = ours.rsplit(':').next().unwrap().parse().unwrap();
    assert_eq!(a["already"], false);
    assert_eq!(a["previous"], "10.1.2.3:3128");
    assert!(
        a["todo"][0].as_str().unwrap().contains("CA certificate"),
        "{a}"
    );
    assert_eq!(http_proxy(&h), ours);
    let spec = format!("tcp:{port}");
    assert!(
        reverse_list(&h).contains(&format!("{spec} {spec}")),
        "{}",
        reverse_list(&h)
    );
    // Attach started the proxy, and the status lists the device.
    let (_, st) = call(&app, get("/api/v1/proxy/status")).await;
    assert_eq!(st["running"], true);
    assert_eq!(st["attached"][0]["udid"], h.serial.as_str());

    // An app on the device talking to its proxy setting, 127.0.0.1:PORT on the device, goes
    // through adb reverse to the proxy and on to the upstream.
    let device_port = h.state()["reverse"][&spec]["host_port"]
        .as_u64()
        .expect("the device's forward") as u16;
    let client = reqwest::Client::builder()
        .proxy(reqwest::Proxy::http(format!("http://127.0.0.1:{device_port}")).unwrap())
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let r = client.get(upstream.url("/hello")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "hello");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, v) = call(&app, get("/api/v1/proxy/flows")).await;
        if v["flows"][0]["url"] == upstream.url("/hello") {
            assert_eq!(v["flows"][0]["status"], 200);
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no flow: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The same app cannot reach the adb server through it (it would drive the phone).
    let adb_port = h.adb_port;
    let answer = tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", device_port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let connect = format!("CONNECT 127.0.0.1:{adb_port} HTTP/1.1\r\nHost: x\r\n\r\n");
        s.write_all(connect.as_bytes()).unwrap();
        let mut head = [0u8; 12];
        s.read_exact(&mut head).unwrap();
        String::from_utf8_lossy(&head).into_owned()
    })
    .await
    .unwrap();
    assert_eq!(answer, "HTTP/1.1 403", "CONNECT to the adb server");

    // Again: nothing to do.
    let (_, again) = call(
        &app,
        post("/api/v1/proxy/attach", json!({"udid": h.serial})),
    )
    .await;
    assert_eq!(
        (
            again["already"].as_bool(),
            again["done"].as_array().map(Vec::len)
        ),
        (Some(true), Some(0))
    );

    let (status, d) = call(
        &app,
        post("/api/v1/proxy/detach", json!({"udid": h.serial})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{d}");
    assert_eq!(d["was_attached"], true);
    assert_eq!(http_proxy(&h), "10.1.2.3:3128");
    assert_eq!(reverse_list(&h).trim(), "");
    let (_, st) = call(&app, get("/api/v1/proxy/status")).await;
    assert_eq!(st["attached"], json!([]));

    // No setting before: detach sets Android's "no proxy".
    h.adb(&["shell", "settings", "delete", "global", "http_proxy"]);
    assert_eq!(http_proxy(&h), "null");
    let (status, a) = call(&app, post("/api/v1/proxy/attach", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{a}");
    assert!(a.get("previous").is_none(), "{a}");
    assert_eq!(http_proxy(&h), ours);
    call(&app, post("/api/v1/proxy/detach", json!({}))).await;
    assert_eq!(http_proxy(&h), ":0");
    // A setting changed by someone else since is left alone.
    call(&app, post("/api/v1/proxy/attach", json!({}))).await;
    set_http_proxy(&h, "192.168.0.9:8888");
    let (_, d) = call(&app, post("/api/v1/proxy/detach", json!({}))).await;
    assert_eq!(http_proxy(&h), "192.168.0.9:8888");
    assert!(
        d["todo"][0].as_str().unwrap().contains("left as it is"),
        "{d}"
    );
    // Every step went through adb to the device's own `settings`.
    let settings: Vec<Vec<String>> = android::argvs_with(&h, "settings");
    assert!(settings.contains(&vec![
        "settings".into(),
        "put".into(),
        "global".into(),
        "http_proxy".into(),
        ours.clone()
    ]));
}

#[tokio::test]
async fn attach_without_a_device_starts_nothing() {
    let state = tempfile::tempdir().unwrap();
    let app = app(Toolbox::with([]), None, state.path(), &[]);
    let (status, v) = call(&app, post("/api/v1/proxy/attach", json!({}))).await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::NOT_FOUND, "NO_DEVICE"),
        "{v}"
    );
    let (_, st) = call(&app, get("/api/v1/proxy/status")).await;
    assert_eq!(st["running"], false, "{st}");
}

#[tokio::test(flavor = "multi_thread")]
async fn stopping_the_proxy_leaves_another_sessions_device_alone() {
    let h = android::start_device();
    let state = tempfile::tempdir().unwrap();
    let app = app(
        Toolbox::with([(Tool::Adb, h.adb.clone())]),
        Some(h.adb_port),
        state.path(),
        &[],
    );
    set_http_proxy(&h, "10.1.2.3:3128");
    // Session A leases the device and points it at the proxy.
    let (status, v) = call(
        &app,
        post(
            "/api/v1/sessions",
            json!({"udid": h.serial, "name": "agent-a"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let id = v["secret"].as_str().unwrap().to_string();
    let in_session = |mut req: axum::http::Request<axum::body::Body>| {
        req.headers_mut()
            .insert("mobilectl-session", id.parse().unwrap());
        req
    };
    let (status, a) = call(&app, in_session(post("/api/v1/proxy/attach", json!({})))).await;
    assert_eq!(status, StatusCode::OK, "{a}");
    let ours = a["proxy"].as_str().unwrap().to_string();
    assert_eq!(http_proxy(&h), ours);
    let reverse = reverse_list(&h);
    assert!(reverse.contains("tcp:"), "{reverse}");

    // Without a session: a detach of that device is refused, and so is a stop (which would
    // detach it), changing nothing.
    let (status, v) = call(
        &app,
        post("/api/v1/proxy/detach", json!({"udid": h.serial})),
    )
    .await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::CONFLICT, "DEVICE_LEASED"),
        "{v}"
    );
    let (status, v) = call(&app, post("/api/v1/proxy/stop", json!({}))).await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::CONFLICT, "DEVICE_LEASED"),
        "{v}"
    );
    assert_eq!(v["error"]["details"]["udid"], h.serial.as_str(), "{v}");
    assert_eq!(v["error"]["details"]["lease"]["name"], "agent-a", "{v}");
    assert!(
        v["error"]["hint"].as_str().unwrap().contains("session"),
        "{v}"
    );
    assert_eq!(http_proxy(&h), ours);
    assert_eq!(reverse_list(&h), reverse);
    let (_, st) = call(&app, get("/api/v1/proxy/status")).await;
    assert_eq!(st["running"], true, "{st}");
    assert_eq!(st["attached"][0]["udid"], h.serial.as_str(), "{st}");

    // In the session that leases it, the stop detaches it: its setting comes back.
    let (status, v) = call(&app, in_session(post("/api/v1/proxy/stop", json!({})))).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["running"], false, "{v}");
    assert_eq!(http_proxy(&h), "10.1.2.3:3128");
    assert_eq!(reverse_list(&h).trim(), "");
}

#[tokio::test]
async fn an_ios_simulator_trusts_the_ca_and_is_told_about_the_macs_proxy() {
    const SIMS: &str =
        "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json";
    const UDID: &str = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
    let fakes = FakeTools::new();
    let kept = fakes.dir.path().join("added.pem");
    let xcrun = fake_xcrun_with(
        &fakes,
        SIMS,
        &format!(
            "  \"simctl keychain {UDID} add-root-cert \"*) cp \"$5\" '{}' ;;",
            kept.display()
        ),
    );
    let state = tempfile::tempdir().unwrap();
    let app = app(toolbox(&[(Tool::Xcrun, &xcrun)]), None, state.path(), &[]);
    let (status, a) = call(&app, post("/api/v1/proxy/attach", json!({"udid": UDID}))).await;
    assert_eq!(status, StatusCode::OK, "{a}");
    let calls = calls_except_list(&fakes, "xcrun");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0][..4], ["simctl", "keychain", UDID, "add-root-cert"]);
    // The certificate handed to simctl is the served CA, from the state directory.
    let (_, served) = {
        use http_body_util::BodyExt;
        use tower::ServiceExt;
        let r = app
            .clone()
            .oneshot(get("/api/v1/proxy/ca.pem"))
            .await
            .unwrap();
        (
            r.status(),
            r.into_body().collect().await.unwrap().to_bytes(),
        )
    };
    assert_eq!(std::fs::read(&kept).unwrap(), served.to_vec());
    assert!(calls[0][4].starts_with(&state.path().display().to_string()));
    let todo = a["todo"][0].as_str().unwrap();
    assert!(
        todo.contains("networksetup -setwebproxy Wi-Fi 127.0.0.1"),
        "{todo}"
    );
    assert!(todo.contains("-setsecurewebproxy"), "{todo}");
    let (status, d) = call(&app, post("/api/v1/proxy/detach", json!({"udid": UDID}))).await;
    assert_eq!(status, StatusCode::OK, "{d}");
    assert!(
        d["todo"][0]
            .as_str()
            .unwrap()
            .contains("-setwebproxystate Wi-Fi off"),
        "{d}"
    );
    assert_eq!(
        calls_except_list(&fakes, "xcrun").len(),
        1,
        "detach runs nothing"
    );
}

/// A plain HTTP/1.1 request to the server (no client library: the test is blocking).
fn http(port: u16, method: &str, path: &str, body: &str) -> (u16, Value) {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[test]
fn sigterm_detaches_every_device_the_server_attached() {
    // The device outlives the server (a --demo device would die with it), so what the
    // server left on it can be read afterwards with the real adb.
    let h = android::start_device();
    let state = tempfile::tempdir().unwrap();
    let proxy_port = free_port();
    let (mut child, port) = serve(&h, state.path(), "serve.log", proxy_port);
    let (status, a) = http(
        port,
        "POST",
        "/api/v1/proxy/attach",
        &json!({"udid": h.serial}).to_string(),
    );
    assert_eq!(status, 200, "{a}");
    assert_eq!(a["proxy"], format!("127.0.0.1:{proxy_port}"));
    assert_eq!(http_proxy(&h), format!("127.0.0.1:{proxy_port}"));
    assert!(reverse_list(&h).contains(&format!("tcp:{proxy_port}")));
    // The CA went to the state directory.
    assert!(state.path().join("proxy-ca-key.pem").exists());

    common::sigterm(child.id());
    let exited = wait_until(Duration::from_secs(30), || {
        matches!(child.try_wait(), Ok(Some(_)))
    });
    let log = std::fs::read_to_string(state.path().join("serve.log")).unwrap_or_default();
    assert!(exited, "the server did not stop: {log}");
    assert_eq!(child.wait().unwrap().code(), Some(0), "{log}");
    assert_eq!(http_proxy(&h), ":0", "{log}");
    assert_eq!(reverse_list(&h).trim(), "", "{log}");
    assert!(log.contains("detached from the proxy"), "{log}");
}

/// `mobilectl serve` on a free port with a private adb server and state directory; its port
/// once it answers.
fn serve(
    h: &VdHarness,
    state: &std::path::Path,
    log: &str,
    proxy_port: u16,
) -> (std::process::Child, u16) {
    let port = free_port();
    let log = std::fs::File::create(state.join(log)).unwrap();
    let child = Command::new(BIN)
        .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
        .args(["--adb-server-port", &h.adb_port.to_string()])
        .args(["--proxy-port", &proxy_port.to_string()])
        .env("MOBILECTL_ADB", &h.adb)
        .env("MOBILECTL_STATE_DIR", state)
        .env("MOBILECTL_CACHE_DIR", state.join("cache"))
        .env_remove("MOBILECTL_TOKEN")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    assert!(wait_until(Duration::from_secs(60), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    }));
    (child, port)
}

#[test]
fn a_killed_servers_attachment_is_restored_by_the_next_one() {
    let h = android::start_device();
    let state = tempfile::tempdir().unwrap();
    set_http_proxy(&h, "10.1.2.3:3128");
    let proxy_port = free_port();
    let (mut first, port) = serve(&h, state.path(), "first.log", proxy_port);
    let (status, a) = http(
        port,
        "POST",
        "/api/v1/proxy/attach",
        &json!({"udid": h.serial}).to_string(),
    );
    assert_eq!(status, 200, "{a}");
    let ours = format!("127.0.0.1:{proxy_port}");
    assert_eq!(http_proxy(&h), ours);
    // Recorded in the state directory, with the setting before.
    let records = state.path().join("proxy-attachments");
    let file = records.join(format!("{}.json", first.id()));
    let kept: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(kept["attachments"][0]["udid"], h.serial.as_str(), "{kept}");
    assert_eq!(
        kept["attachments"][0]["previous"], "10.1.2.3:3128",
        "{kept}"
    );

    // SIGKILL: no clean-up. The phone points at a proxy that no longer runs. The killed
    // server is left unreaped (a zombie, as under a parent that has not collected it yet)
    // while the next one starts: it is dead all the same.
    first.kill().unwrap();
    let stat = format!("/proc/{}/stat", first.id());
    assert!(wait_until(Duration::from_secs(30), || {
        std::fs::read_to_string(&stat).is_ok_and(|s| s.contains(") Z"))
    }));
    assert_eq!(http_proxy(&h), ours);
    assert!(reverse_list(&h).contains(&format!("tcp:{proxy_port}")));

    // The next server, with the same state directory (another proxy port), restores it.
    let (mut second, port) = serve(&h, state.path(), "second.log", free_port());
    let restored = wait_until(Duration::from_secs(30), || {
        http_proxy(&h) == "10.1.2.3:3128" && reverse_list(&h).trim().is_empty()
    });
    let log = std::fs::read_to_string(state.path().join("second.log")).unwrap_or_default();
    assert!(
        restored,
        "http_proxy {}, reverse {}: {log}",
        http_proxy(&h),
        reverse_list(&h)
    );
    let (status, st) = http(port, "GET", "/api/v1/proxy/status", "");
    assert_eq!(status, 200, "{st}");
    assert_eq!(st["attached"], json!([]), "{st}");
    assert_eq!(st["repaired"][0]["udid"], h.serial.as_str(), "{st}");
    assert_eq!(st["repaired"][0]["port"], proxy_port, "{st}");
    assert_eq!(st["repaired"][0]["previous"], "10.1.2.3:3128", "{st}");
    let log = std::fs::read_to_string(state.path().join("second.log")).unwrap_or_default();
    assert!(log.contains("WARN") && log.contains("restored"), "{log}");
    // Nothing is left to restore: the dead server's record is gone, and so is the new one's.
    assert!(wait_until(Duration::from_secs(10), || std::fs::read_dir(
        &records
    )
    .map_or(0, |d| d.count())
        == 0));
    common::stop_server(&mut second, None);
    first.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stale_attachment_is_shown_then_restored_when_the_device_is_listed() {
    let h = android::start_device();
    let state = tempfile::tempdir().unwrap();
    // What a killed server left: the device at its proxy, and its record.
    let dead_port = free_port();
    set_http_proxy(&h, &format!("127.0.0.1:{dead_port}"));
    let spec = format!("tcp:{dead_port}");
    assert!(h.adb(&["reverse", &spec, &spec]).success());
    let dir = state.path().join("proxy-attachments");
    std::fs::create_dir_all(&dir).unwrap();
    let dead_pid = i32::MAX - 9;
    std::fs::write(
        dir.join(format!("{dead_pid}.json")),
        json!({"pid": dead_pid, "attachments": [{"udid": h.serial, "backend": "android",
            "port": dead_port, "previous": null, "since": "2026-11-24T20:00:00Z"}]})
        .to_string(),
    )
    .unwrap();

    let controller = DeviceController::new(BackendConfig {
        tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
        adb_server_port: Some(h.adb_port),
        ..Default::default()
    });
    controller.keep_proxy_state_in(state.path()).unwrap();
    let s = AppState::new(controller, ServerOptions::default());
    let app = server::app(s, loopback_policy());
    // Not listed yet: shown as stale.
    let (_, st) = call(&app, get("/api/v1/proxy/status")).await;
    assert_eq!(st["stale"][0]["udid"], h.serial.as_str(), "{st}");
    assert_eq!(st["stale"][0]["port"], dead_port, "{st}");
    // And in the doctor's report, with the repair.
    let (_, doc) = call(&app, get("/api/v1/doctor")).await;
    let row = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["backend"] == "proxy")
        .unwrap_or_else(|| panic!("{doc}"))
        .clone();
    assert_eq!(
        (row["target"].as_str(), row["ok"].as_bool()),
        (Some(h.serial.as_str()), Some(false))
    );
    assert!(
        row["remediation"]
            .as_str()
            .unwrap()
            .contains("/api/v1/proxy/detach"),
        "{row}"
    );
    // Taken over: the dead server's file is gone, this one's holds the record.
    assert!(!dir.join(format!("{dead_pid}.json")).exists());
    assert!(dir.join(format!("{}.json", std::process::id())).exists());

    // Listed: restored ("no proxy", as there was none), the reverse removed.
    let (status, _) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(http_proxy(&h), ":0");
    assert_eq!(reverse_list(&h).trim(), "");
    let (_, st) = call(&app, get("/api/v1/proxy/status")).await;
    assert!(st.get("stale").is_none(), "{st}");
    assert_eq!(st["repaired"][0]["udid"], h.serial.as_str(), "{st}");
    assert!(!dir.join(format!("{}.json", std::process::id())).exists());
}
