//! Android's resident fast path, through the real adb on the virtual device, with the real
//! APKs of Appium's UiAutomator2 server 10.6.6 (`MOBILECTL_UIA2_APKS`, which scripts/test.sh
//! fetches from npm): `helper install` checks and installs them; reads and acts then go
//! through the server (the device's stand-in speaking its protocol), with the same trees,
//! refs and fingerprints as `uiautomator dump`; a server that dies, hangs or answers garbage
//! falls back to the one-shot tools with one note; a server another tool runs is left alone;
//! releasing the device stops ours.

use std::path::PathBuf;
use std::time::Duration;

use axum::http::StatusCode;
use axum::Router;
use serde_json::{json, Value};
use virtual_device::testing::{wait_until, VdHarness};

use crate::common::android::*;
use crate::common::*;
use mobilectl::backend::BackendConfig;
use mobilectl::exec::{Tool, Toolbox};

const SERVER_APK: &str = "appium-uiautomator2-server-v10.6.6.apk";
const TEST_APK: &str = "appium-uiautomator2-server-debug-androidTest.apk";

/// The folder of the real APKs.
fn apks() -> PathBuf {
    let dir = std::env::var_os("MOBILECTL_UIA2_APKS").map(PathBuf::from).expect(
        "MOBILECTL_UIA2_APKS is unset: run scripts/test.sh, which fetches the UiAutomator2 server's APKs from npm",
    );
    assert!(
        dir.join(SERVER_APK).is_file(),
        "{} lacks {SERVER_APK}: run scripts/test.sh",
        dir.display()
    );
    dir
}

/// An app for `h` whose files root is `root`, its commands capped at `max`.
fn app_rooted(h: &VdHarness, root: PathBuf, max: Option<Duration>) -> Router {
    mobilectl::server::check_declared_errors(true);
    let controller = mobilectl::controller::DeviceController::new(BackendConfig {
        tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
        adb_server_port: Some(h.adb_port),
        max_command_time: max,
        ..Default::default()
    });
    let options = mobilectl::server::ServerOptions {
        files_root: Some(root),
        ..Default::default()
    };
    mobilectl::server::app(
        mobilectl::server::AppState::new(controller, options),
        loopback_policy(),
    )
}

/// A device listed, the helper installed from the given APKs; answers the install's reply.
async fn installed(h: &VdHarness, app: &Router) -> Value {
    let (status, _) = call(app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK);
    let (status, v) = call(
        app,
        post(
            "/api/v1/device/helper/install",
            json!({ "apks": [SERVER_APK, TEST_APK] }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let _ = h;
    v
}

async fn snapshot(app: &Router) -> Value {
    let (status, v) = call(app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    v
}

/// The server's requests in the journal since `mark`.
fn server_requests(h: &VdHarness, mark: u64) -> Vec<String> {
    h.journal()
        .into_iter()
        .filter(|e| e["seq"].as_u64().is_some_and(|s| s > mark))
        .filter_map(|e| e["uia2"].as_str().map(str::to_string))
        .collect()
}

fn dumps_since(h: &VdHarness, mark: u64) -> usize {
    services_since(h, mark)
        .iter()
        .filter(|s| s.contains("uiautomator dump"))
        .count()
}

/// What a step's answer says that must not depend on the path: fingerprints, the changes,
/// the outcome (not timings, not how text was typed).
fn essence(v: &Value) -> Value {
    json!({
        "fingerprint_before": v["fingerprint_before"],
        "fingerprint_after": v["fingerprint_after"],
        "changes": v["changes"],
        "verified": v["verified"],
        "target": v["target"],
    })
}

/// The demo's login by refs, with a read before each step; answers each snapshot's
/// fingerprint and tree text and each step's essence.
async fn login(app: &Router) -> Vec<Value> {
    let mut seen = Vec::new();
    let snap = snapshot(app).await;
    seen.push(json!([snap["fingerprint"], snap["tree_text"]]));
    let user = ref_by_id(&snap, "username");
    let pass = ref_by_id(&snap, "password");
    for (path, body) in [
        (
            "/api/v1/device/ui/type",
            json!({ "ref": user, "text": "alice", "clear": true }),
        ),
        (
            "/api/v1/device/ui/type",
            json!({ "ref": pass, "text": "pw" }),
        ),
        (
            "/api/v1/device/ui/tap",
            json!({ "selector": { "text": "LOG IN" }, "observe": true }),
        ),
    ] {
        let (status, v) = call(app, post(path, body)).await;
        assert_eq!(status, StatusCode::OK, "{path}: {v}");
        seen.push(essence(&v));
        let snap = snapshot(app).await;
        seen.push(json!([snap["fingerprint"], snap["tree_text"]]));
    }
    seen
}

#[tokio::test]
async fn the_login_reads_and_acts_through_the_server_with_the_same_trees_as_the_dump() {
    let root = apks();
    // Without the helper: uiautomator dump and input.
    let plain = start_device();
    let plain_app = app_rooted(&plain, root.clone(), None);
    let by_dump = login(&plain_app).await;
    let last = snapshot(&plain_app).await;
    assert_eq!(last["source"], "uiautomator");

    let h = start_device();
    let app = app_rooted(&h, root.clone(), None);
    let done = installed(&h, &app).await;
    assert_eq!(done["source"], "given");
    assert_eq!(
        done["packages"][0]["package"],
        "io.appium.uiautomator2.server"
    );
    assert_eq!(done["packages"][0]["version"], "10.6.6");
    assert_eq!(
        done["packages"][1]["package"],
        "io.appium.uiautomator2.server.test"
    );
    let mark = journal_mark(&h);
    let by_server = login(&app).await;
    let after = snapshot(&app).await;
    assert_eq!(after["source"], "uiautomator2-server", "{after}");
    assert!(after.get("notes").is_none(), "{after}");
    assert_eq!(
        by_server, by_dump,
        "the same screens, refs, fingerprints and receipts on both paths"
    );
    // Every read and act went through the server: no dump, no `input` ran on the device.
    assert_eq!(dumps_since(&h, mark), 0);
    assert!(
        argvs_with(&h, "input").is_empty(),
        "{:?}",
        argvs_with(&h, "input")
    );
    let requests = server_requests(&h, mark);
    assert!(
        requests.iter().any(|r| r.ends_with("/source")),
        "{requests:?}"
    );
    assert!(
        requests.iter().any(|r| r.ends_with("/actions")),
        "{requests:?}"
    );
    assert!(
        requests.iter().any(|r| r.ends_with("/keys")),
        "{requests:?}"
    );
    // The compact header says which path read.
    let (status, _, text) = get_raw(&app, "/api/v1/device/ui?format=text").await;
    assert_eq!(status, StatusCode::OK);
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.lines().next().unwrap().contains("uiautomator2-server"),
        "{text}"
    );
}

#[tokio::test]
async fn a_change_between_two_reads_is_always_seen_through_the_server() {
    let h = start_device();
    let app = app_rooted(&h, apks(), None);
    installed(&h, &app).await;
    let first = snapshot(&app).await;
    let user = ref_by_id(&first, "username");
    let (status, v) = call(&app, post("/api/v1/device/ui/tap", json!({ "ref": user }))).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    for word in ["a", "ab", "abc"] {
        // The field changes outside mobilectl's view (adb's own `input`), then one read.
        let before = snapshot(&app).await;
        h.adb(&["shell", "input", "text", &word[word.len() - 1..]]);
        let after = snapshot(&app).await;
        assert_eq!(after["source"], "uiautomator2-server");
        assert_ne!(after["fingerprint"], before["fingerprint"], "{word}");
        assert!(
            after["tree_text"].as_str().unwrap().contains(word),
            "{after}"
        );
    }
}

#[tokio::test]
async fn a_server_that_dies_mid_flow_falls_back_with_one_note_and_no_failed_step() {
    let h = start_device();
    let app = app_rooted(&h, apks(), None);
    installed(&h, &app).await;
    let snap = snapshot(&app).await;
    assert_eq!(snap["source"], "uiautomator2-server");
    let user = ref_by_id(&snap, "username");
    h.control(&["uia2", "die"]).unwrap();
    // The next step is not failed: it is typed with the one-shot tools.
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/ui/type",
            json!({ "ref": user, "text": "alice" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let next = snapshot(&app).await;
    assert_eq!(next["source"], "uiautomator");
    assert!(
        next["tree_text"].as_str().unwrap().contains("alice"),
        "{next}"
    );
    let again = snapshot(&app).await;
    assert_eq!(again["source"], "uiautomator");
    assert!(
        again.get("notes").is_none(),
        "one note, not one per read: {again}"
    );
}

#[tokio::test]
async fn garbage_or_a_hang_is_bounded_then_read_by_the_dump_with_a_note() {
    for fault in ["garbage", "hang"] {
        let h = start_device();
        // Commands capped at 2 s: a hung server is given up within that.
        let app = app_rooted(&h, apks(), Some(Duration::from_secs(2)));
        installed(&h, &app).await;
        assert_eq!(snapshot(&app).await["source"], "uiautomator2-server");
        h.control(&["uia2", fault]).unwrap();
        let started = std::time::Instant::now();
        let snap = snapshot(&app).await;
        assert_eq!(snap["source"], "uiautomator", "{fault}: {snap}");
        let notes = snap["notes"].as_array().expect("a note says why");
        assert_eq!(notes.len(), 1, "{snap}");
        assert!(
            notes[0]
                .as_str()
                .unwrap()
                .contains("UiAutomator2 server failed"),
            "{snap}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{fault}: bounded"
        );
    }
}

#[tokio::test]
async fn another_tools_server_is_detected_and_left_running() {
    let h = start_device();
    let app = app_rooted(&h, apks(), None);
    installed(&h, &app).await;
    // Another tool (Appium) starts the server itself.
    let mut other = h
        .adb_spawn(&[
            "shell",
            "am",
            "instrument",
            "-w",
            "io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner",
        ])
        .unwrap();
    let pid = || {
        h.adb(&["shell", "pidof", "io.appium.uiautomator2.server"])
            .stdout_text()
    };
    assert!(wait_until(Duration::from_secs(10), || !pid()
        .trim()
        .is_empty()));
    let theirs = pid();
    let snap = snapshot(&app).await;
    assert_eq!(snap["source"], "uiautomator", "{snap}");
    let (status, doctor) = call(&app, get("/api/v1/doctor")).await;
    assert_eq!(status, StatusCode::OK);
    let checks = doctor["checks"].as_array().cloned().unwrap_or_default();
    assert!(
        checks.iter().any(|c| c["name"] == "UiAutomator2 server"
            && c["detail"].as_str().unwrap_or("").contains("another tool")),
        "{doctor}"
    );
    assert_eq!(pid(), theirs, "never killed");
    let _ = other.kill();
    let _ = other.wait();
}

// Multi-threaded: the lease's release stops the server in a task of its own, which runs
// while this test waits (blocking) for the device to show it stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ending_the_session_stops_our_server_and_gives_uiautomation_back() {
    let h = start_device();
    let app = app_rooted(&h, apks(), None);
    installed(&h, &app).await;
    let (status, s) = call(&app, post("/api/v1/sessions", json!({ "name": "agent" }))).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    let secret = s["secret"].as_str().unwrap().to_string();
    let mut read = get("/api/v1/device/ui");
    read.headers_mut()
        .insert("mobilectl-session", secret.parse().unwrap());
    let (status, snap) = call(&app, read).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert_eq!(snap["source"], "uiautomator2-server");
    let pid = || {
        h.adb(&["shell", "pidof", "io.appium.uiautomator2.server"])
            .stdout_text()
    };
    assert!(!pid().trim().is_empty());
    let (status, ended) = call(
        &app,
        send_json("DELETE", &format!("/api/v1/sessions/{secret}"), ""),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{ended}");
    assert!(
        wait_until(Duration::from_secs(10), || pid().trim().is_empty()),
        "stopped: {ended} {s}"
    );
    // Its forward goes too (removed after the server stopped).
    let forwards = || h.adb_global(&["forward", "--list"]).stdout_text();
    assert!(
        wait_until(Duration::from_secs(10), || !forwards().contains("tcp:6790")),
        "{}",
        forwards()
    );
}

#[tokio::test]
async fn files_that_are_not_the_server_are_refused_before_anything_is_installed() {
    let root = tempfile::tempdir().unwrap();
    std::fs::copy(apks().join(SERVER_APK), root.path().join("server.apk")).unwrap();
    std::fs::write(root.path().join("notes.apk"), "not a zip").unwrap();
    let h = start_device();
    let app = app_rooted(&h, root.path().to_path_buf(), None);
    let (status, _) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK);
    let mark = journal_mark(&h);
    for (apks, code, words) in [
        (
            json!(["missing.apk"]),
            StatusCode::NOT_FOUND,
            "cannot be read",
        ),
        (
            json!(["notes.apk"]),
            StatusCode::BAD_REQUEST,
            "is not an APK",
        ),
        (json!(["server.apk"]), StatusCode::BAD_REQUEST, "is missing"),
        (json!(["../../etc/passwd"]), StatusCode::FORBIDDEN, ""),
    ] {
        let (status, v) = call(
            &app,
            post("/api/v1/device/helper/install", json!({ "apks": apks })),
        )
        .await;
        assert_eq!(status, code, "{apks}: {v}");
        assert!(
            v["error"]["message"].as_str().unwrap_or("").contains(words),
            "{v}"
        );
        assert!(
            v["error"]["hint"].is_string() || code != StatusCode::BAD_REQUEST,
            "{v}"
        );
    }
    assert!(
        services_since(&h, mark)
            .iter()
            .all(|s| !s.contains("install")),
        "nothing installed: {:?}",
        services_since(&h, mark)
    );
}

#[tokio::test]
async fn the_servers_source_and_the_dump_of_one_screen_parse_to_the_same_tree() {
    let h = start_device();
    let app = app_rooted(&h, apks(), None);
    installed(&h, &app).await;
    log_in(&app).await;
    let by_server = snapshot(&app).await;
    assert_eq!(by_server["source"], "uiautomator2-server");
    // The same screen, dumped by uiautomator.
    let xml = h
        .adb(&["exec-out", "uiautomator", "dump", "/dev/tty"])
        .stdout_text();
    let xml = &xml[xml.find('<').unwrap()..xml.rfind('>').unwrap() + 1];
    let tree = mobilectl::ui::parse_any(xml).unwrap();
    let screen = mobilectl::ui::analyze(&tree, None, &Default::default());
    assert_eq!(by_server["fingerprint"], screen.fingerprint);
    assert_eq!(by_server["tree_text"], screen.tree_text);
}

#[tokio::test]
async fn swipes_and_long_presses_go_through_the_server_as_pointer_actions() {
    let h = start_device();
    let app = app_rooted(&h, apks(), None);
    installed(&h, &app).await;
    log_in(&app).await;
    let mark = journal_mark(&h);
    for (path, body) in [
        (
            "/api/v1/device/ui/swipe",
            json!({ "from": {"x": 540, "y": 1800}, "to": {"x": 540, "y": 600}, "duration_ms": 300 }),
        ),
        (
            "/api/v1/device/ui/long-press",
            json!({ "x": 540, "y": 1200, "duration_ms": 800 }),
        ),
    ] {
        let (status, v) = call(&app, post(path, body)).await;
        assert_eq!(status, StatusCode::OK, "{path}: {v}");
    }
    let actions = server_requests(&h, mark)
        .into_iter()
        .filter(|r| r.ends_with("/actions"))
        .count();
    assert_eq!(actions, 2);
    assert!(
        argvs_with(&h, "input").is_empty(),
        "{:?}",
        argvs_with(&h, "input")
    );
}

#[tokio::test]
async fn a_server_that_cannot_take_its_port_is_reported_once_and_the_dump_reads() {
    let h = start_device();
    let app = app_rooted(&h, apks(), None);
    installed(&h, &app).await;
    // Something else holds the device's port 6790 (a reverse forward to nowhere).
    let held = h.adb(&["reverse", "tcp:6790", "tcp:9"]);
    assert!(held.success(), "{}", held.stderr_text());
    let snap = snapshot(&app).await;
    assert_eq!(snap["source"], "uiautomator", "{snap}");
    let notes = snap["notes"].as_array().expect("the failed start is said");
    assert_eq!(notes.len(), 1, "{snap}");
    assert!(
        notes[0].as_str().unwrap().contains("did not start"),
        "{snap}"
    );
    let again = snapshot(&app).await;
    assert!(again.get("notes").is_none(), "said once: {again}");
}

#[tokio::test]
async fn without_files_the_install_finds_the_npm_package_and_says_where_it_looked() {
    let apks = apks();
    let h = start_device();
    // A files root without the APKs: they are found, not given.
    let root = tempfile::tempdir().unwrap();
    let app = app_rooted(&h, root.path().to_path_buf(), None);
    let (status, _) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK);
    let (status, done) = call(&app, post("/api/v1/device/helper/install", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    // MOBILECTL_UIA2_APKS (set by scripts/test.sh) is the first place looked in.
    assert_eq!(done["source"], apks.display().to_string(), "{done}");
    let looked: Vec<&str> = done["looked_in"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(looked[0], apks.display().to_string());
    assert!(
        looked
            .iter()
            .any(|p| p.ends_with("node_modules/appium-uiautomator2-server/apks")),
        "{looked:?}"
    );
    assert_eq!(snapshot(&app).await["source"], "uiautomator2-server");
}
