//! Building apps from source (`build_app`, `build_app_stream`, `list_builds`,
//! `cancel_build`), end to end through the API: stand-ins for a project's Gradle wrapper and
//! for `xcodebuild` replay real build logs recorded from real builds (fixtures/build_logs) and
//! write what the real tools write where they write it (an APK with the Android Gradle Plugin's
//! `output-metadata.json`; an `.app` where the build settings say); the demo device installs
//! and launches the APK through the real adb. What the tests expect of a log is counted from
//! the log itself here (its `e: `/`w: ` lines, its `> Task` lines), not from the product's
//! reader.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use axum::body::Body;
use axum::http::StatusCode;
use axum::Router;
use serde_json::{json, Value};
use tower::ServiceExt;

use crate::common::android::start_device;
use crate::common::sse::SseReader;
use crate::common::*;
use mobilectl::backend::BackendConfig;
use mobilectl::controller::DeviceController;
use mobilectl::exec::{Tool, Toolbox};
use mobilectl::server::{self, AppState, ServerOptions};

/// A stand-in of `tests/fixtures/standins/` (its comment says what it does).
fn standin(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/standins")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// A build root with an Android project `shop` whose wrapper replays `log` and exits `code`.
fn android_project(log: &str, code: i32) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("shop");
    std::fs::create_dir_all(dir.join("app")).unwrap();
    write_executable(&dir.join("gradlew"), &standin("gradlew"));
    std::fs::write(dir.join("replay"), fixture(log).display().to_string()).unwrap();
    std::fs::write(dir.join("outcome"), code.to_string()).unwrap();
    root
}

/// The server's state over `config`, building under `root`.
fn app_building(config: BackendConfig, root: Option<&Path>) -> Router {
    mobilectl::server::check_declared_errors(true);
    let options = ServerOptions {
        build_root: root.map(Path::to_path_buf),
        ..Default::default()
    };
    let state = AppState::new(DeviceController::new(config), options);
    server::app(state, loopback_policy())
}

fn no_devices() -> BackendConfig {
    BackendConfig {
        tools: Toolbox::with([]),
        ..Default::default()
    }
}

/// The lines of a fixture log.
fn log_lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(fixture(name))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The distinct Kotlin diagnostics of a log with this prefix (`e: `, `w: `).
fn kotlin_lines(name: &str, prefix: &str) -> BTreeSet<String> {
    log_lines(name)
        .into_iter()
        .filter(|l| l.starts_with(prefix))
        .collect()
}

/// Starts a streamed build; its SSE reader.
async fn stream(app: &Router, body: Value) -> SseReader {
    let resp = app
        .clone()
        .oneshot(post("/api/v1/apps/build/stream", body))
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    SseReader::new(resp.into_body())
}

/// Every event of a stream to its end.
async fn all_events(r: &mut SseReader) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while let Some(e) = r.next(Duration::from_secs(120)).await {
        out.push((e.event, e.data));
    }
    out
}

/// Polls (within 10 s, yielding to the server's tasks) until `cond` holds.
async fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    for _ in 0..1000 {
        if cond() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    cond()
}

/// Whether the process `pid` is gone (a killed orphan's zombie counts as gone).
fn is_gone(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks that the process exists.
    let exists = unsafe { libc::kill(pid, 0) } == 0;
    let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    });
    !exists || zombie
}

async fn gone(pid: i32) -> bool {
    eventually(|| is_gone(pid)).await
}

async fn child_pid(root: &Path) -> i32 {
    let file = root.join("shop/child.pid");
    let read = || {
        std::fs::read_to_string(&file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
    };
    assert!(
        eventually(|| read().is_some()).await,
        "the stand-in never started its child"
    );
    read().unwrap()
}

#[tokio::test]
async fn a_gradle_build_streams_its_progress_then_installs_and_launches_on_the_demo_device() {
    const LOG: &str = "build_logs/gradle_spotless_detekt_test_success_kotlin_warnings_snapify.txt";
    let h = start_device();
    let root = android_project(LOG, 0);
    let app = app_building(
        BackendConfig {
            tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
            adb_server_port: Some(h.adb_port),
            ..Default::default()
        },
        Some(root.path()),
    );
    let mut r = stream(&app, json!({ "project_dir": "shop", "launch": true })).await;
    let events = all_events(&mut r).await;
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"started"), "{names:?}");
    assert_eq!(names.last(), Some(&"result"), "{names:?}");
    let started = &events[0].1["started"];
    let argv: Vec<&str> = started["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(argv[0].ends_with("/shop/gradlew"), "{argv:?}");
    assert_eq!(&argv[1..], ["--console=plain", ":app:assembleDebug"]);
    // Progress came as it went, its steps never going back.
    let steps: Vec<u64> = events
        .iter()
        .filter(|(n, _)| n == "progress")
        .map(|(_, v)| v["progress"]["steps"].as_u64().unwrap())
        .collect();
    assert!(!steps.is_empty(), "{names:?}");
    assert!(steps.windows(2).all(|w| w[0] <= w[1]), "{steps:?}");
    let result = &events.last().unwrap().1["result"];
    assert_eq!(result["success"], true, "{result}");
    assert_eq!(result["status"], "succeeded");
    assert_eq!(result["exit_code"], 0);
    // Gradle prints a task's header again when its output resumes after another task's.
    let tasks: BTreeSet<String> = log_lines(LOG)
        .iter()
        .filter_map(|l| l.strip_prefix("> Task "))
        .filter_map(|rest| rest.split_whitespace().next().map(str::to_string))
        .collect();
    assert_eq!(
        result["steps"],
        tasks.len(),
        "one step per task the log shows"
    );
    let warnings = kotlin_lines(LOG, "w: ");
    assert_eq!(result["warnings"], warnings.len(), "{result}");
    assert_eq!(result["errors"], 0);
    // Each warning was also told as it was seen.
    let told = events.iter().filter(|(n, _)| n == "diagnostic").count();
    assert_eq!(told, warnings.len());
    // The app, installed through the real adb and launched on the demo device.
    let apk = root
        .path()
        .canonicalize()
        .unwrap()
        .join("shop/app/build/outputs/apk/debug/app-debug.apk");
    assert_eq!(result["app"]["path"], apk.display().to_string());
    assert_eq!(result["app"]["app_id"], "com.mobilectl.demo");
    assert_eq!(result["installed_on"]["udid"], h.serial);
    assert!(result["launch_time_ms"].is_u64(), "{result}");
    let journal = h.journal_argvs();
    let installed = journal
        .iter()
        .position(|a| a.iter().any(|w| w == "install" || w == "install-streamed"))
        .expect("the device never installed an APK");
    let launched = journal[installed..].iter().any(|a| {
        a.iter().any(|w| w.contains("com.mobilectl.demo"))
            && (a.iter().any(|w| w == "start") || a[0] == "monkey")
    });
    assert!(
        launched,
        "the app was not started after its install: {journal:?}"
    );
    // The whole log is the run's artifact, byte for byte.
    let log = &result["log"];
    let kept = std::fs::metadata(fixture(LOG)).unwrap().len();
    assert_eq!(log["bytes"], kept, "{log}");
    let (status, _, bytes) = get_raw(
        &app,
        &format!(
            "/api/v1/runs/{}/artifacts/{}",
            log["run"].as_str().unwrap(),
            log["artifact"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(bytes, std::fs::read(fixture(LOG)).unwrap());
}

#[tokio::test]
async fn a_failing_build_answers_the_logs_errors_and_its_session_remembers_the_project() {
    const LOG: &str = "build_logs/gradle_assembleDebug_kotlin_errors_97_plaid.txt";
    let root = android_project(LOG, 1);
    let app = app_building(no_devices(), Some(root.path()));
    let (status, session) = call(&app, post("/api/v1/sessions", json!({ "lazy": true }))).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let secret = session["secret"].as_str().unwrap().to_string();
    let in_session = |mut req: axum::http::Request<Body>| {
        req.headers_mut()
            .insert("mobilectl-session", secret.parse().unwrap());
        req
    };
    let (status, result) = call(
        &app,
        in_session(post("/api/v1/apps/build", json!({ "project_dir": "shop" }))),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["success"], false);
    assert_eq!(result["status"], "failed");
    assert_eq!(result["exit_code"], 1);
    let errors = kotlin_lines(LOG, "e: ");
    assert_eq!(result["errors"], errors.len(), "{}", result["errors"]);
    assert_eq!(
        result["failure"]["kind"], "compile",
        "{}",
        result["failure"]
    );
    assert!(!result["failure"]["hint"].as_str().unwrap().is_empty());
    // The first error as the log's first `e: file:///PATH:LINE:COL MESSAGE` line says it.
    let first = log_lines(LOG)
        .into_iter()
        .find(|l| l.starts_with("e: "))
        .unwrap();
    let rest = first.strip_prefix("e: file://").unwrap();
    let (place, message) = rest.split_once(' ').unwrap();
    let mut parts = place.rsplitn(3, ':');
    let column: u64 = parts.next().unwrap().parse().unwrap();
    let line: u64 = parts.next().unwrap().parse().unwrap();
    let file = parts.next().unwrap();
    let d = &result["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["file"], file);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column))
    );
    assert_eq!(d["message"], message);
    // The session keeps the project: the next build needs no arguments.
    let (status, again) = call(&app, in_session(post("/api/v1/apps/build", json!({})))).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["project_dir"], result["project_dir"]);
    let calls = std::fs::read_to_string(root.path().join("shop/argv.log")).unwrap();
    assert_eq!(calls.lines().count(), 2, "{calls}");
    let (_, info) = call(&app, in_session(get("/api/v1/session"))).await;
    assert_eq!(info["build"]["project_dir"], "shop", "{info}");
    // Without a session nothing is remembered.
    let (status, body) = call(&app, post("/api/v1/apps/build", json!({}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

#[tokio::test]
async fn cancelling_a_build_or_leaving_its_stream_ends_its_whole_process_tree() {
    let root = android_project(
        "build_logs/gradle_assembleDebug_kotlin_error_1_plaid.txt",
        0,
    );
    std::fs::write(root.path().join("shop/hang"), "").unwrap();
    let app = app_building(no_devices(), Some(root.path()));
    let mut r = stream(&app, json!({ "project_dir": "shop" })).await;
    let started = r.next(Duration::from_secs(30)).await.unwrap();
    assert_eq!(started.event, "started");
    let id = started.data["started"]["id"].as_str().unwrap().to_string();
    let pid = child_pid(root.path()).await;
    // Running: listed, and a second build of the same folder is refused, naming it.
    let (_, list) = call(&app, get("/api/v1/apps/builds")).await;
    assert_eq!(list["builds"][0]["id"], id.as_str(), "{list}");
    let (status, busy) = call(
        &app,
        post("/api/v1/apps/build", json!({ "project_dir": "shop" })),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{busy}");
    assert_eq!(error_code(&busy), "BUSY");
    assert_eq!(busy["error"]["details"]["build"], id.as_str());
    // Cancelled: the result says so and the child it started is gone too.
    let (status, c) = call(&app, post("/api/v1/apps/build/cancel", json!({ "id": id }))).await;
    assert_eq!(status, StatusCode::OK, "{c}");
    let events = all_events(&mut r).await;
    let (name, last) = events.last().unwrap();
    assert_eq!(name, "result", "{events:?}");
    assert_eq!(last["result"]["status"], "cancelled");
    assert_eq!(last["result"]["success"], false);
    assert!(
        gone(pid).await,
        "the build's child {pid} outlived the cancel"
    );
    let (status, _) = call(&app, post("/api/v1/apps/build/cancel", json!({ "id": id }))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A client that leaves the stream stops the build the same way.
    std::fs::remove_file(root.path().join("shop/child.pid")).unwrap();
    let mut r = stream(&app, json!({ "project_dir": "shop" })).await;
    assert_eq!(
        r.next(Duration::from_secs(30)).await.unwrap().event,
        "started"
    );
    let pid = child_pid(root.path()).await;
    drop(r);
    assert!(
        gone(pid).await,
        "the build's child {pid} outlived its stream"
    );
    let mut listed = true;
    for _ in 0..1000 {
        listed = call(&app, get("/api/v1/apps/builds")).await.1["builds"] != json!([]);
        if !listed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!listed, "the build stayed listed");
}

#[tokio::test]
async fn a_build_that_never_ends_stops_at_its_time_limit() {
    let root = android_project(
        "build_logs/gradle_assembleDebug_kotlin_error_1_plaid.txt",
        0,
    );
    std::fs::write(root.path().join("shop/hang"), "").unwrap();
    let app = app_building(no_devices(), Some(root.path()));
    let (status, result) = call(
        &app,
        post(
            "/api/v1/apps/build",
            json!({ "project_dir": "shop", "timeout_ms": 1000 }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["status"], "timed_out");
    assert!(result["exit_code"].is_null());
    assert!(gone(child_pid(root.path()).await).await);
}

#[tokio::test]
async fn a_100_mb_log_is_kept_whole() {
    let root = android_project(
        "build_logs/gradle_assembleDebug_kotlin_error_1_plaid.txt",
        0,
    );
    // 100 MiB of 1,000-byte lines, the last one cut, before the replayed log.
    let big = root.path().join("big.sh");
    write_executable(
        &big,
        "#!/bin/sh\nyes \"$(printf '%0999d' 0)\" | head -c 104857600\n",
    );
    let gradlew = root.path().join("shop/gradlew");
    let script = standin("gradlew").replace(
        "cat \"$(cat replay)\"",
        &format!("{}\necho\ncat \"$(cat replay)\"", big.display()),
    );
    write_executable(&gradlew, &script);
    let app = app_building(no_devices(), Some(root.path()));
    let (status, result) = call(
        &app,
        post("/api/v1/apps/build", json!({ "project_dir": "shop" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["success"], true, "{}", result["status"]);
    // Each line is kept with its newline, the cut one and a last one without included.
    let replayed = std::fs::read(fixture(
        "build_logs/gradle_assembleDebug_kotlin_error_1_plaid.txt",
    ))
    .unwrap();
    let ended = u64::from(replayed.last() != Some(&b'\n'));
    assert_eq!(
        result["log"]["bytes"],
        104_857_600 + 1 + replayed.len() as u64 + ended
    );
    assert!(result["log"].get("truncated").is_none());
}

#[tokio::test]
async fn bad_build_requests_are_clear_errors() {
    let root = android_project(
        "build_logs/gradle_assembleDebug_kotlin_error_1_plaid.txt",
        0,
    );
    std::fs::create_dir_all(root.path().join("ios/Shop.xcodeproj")).unwrap();
    let off = app_building(no_devices(), None);
    let (status, body) = call(
        &off,
        post("/api/v1/apps/build", json!({ "project_dir": "shop" })),
    )
    .await;
    assert_eq!(
        (status, error_code(&body).as_str()),
        (StatusCode::FORBIDDEN, "FORBIDDEN"),
        "{body}"
    );
    assert!(body["error"]["hint"]
        .as_str()
        .unwrap()
        .contains("--build-root"));
    let app = app_building(no_devices(), Some(&root.path().join("shop")));
    for (body, want) in [
        (json!({ "project_dir": ".." }), StatusCode::FORBIDDEN),
        (json!({ "project_dir": "/" }), StatusCode::FORBIDDEN),
        (json!({ "project_dir": "nope" }), StatusCode::NOT_FOUND),
        (
            json!({ "project_dir": ".", "timeout_ms": 10 }),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({ "project_dir": ".", "android": { "module": "../x" } }),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({ "project_dir": ".", "colour": "red" }),
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let (status, answer) = call(&app, post("/api/v1/apps/build", body.clone())).await;
        assert_eq!(status, want, "{body} → {answer}");
        assert!(
            answer["error"]["hint"].is_string() || status == StatusCode::BAD_REQUEST,
            "{answer}"
        );
    }
    // A Gradle wrapper that cannot be run: said, with how to fix it.
    let stuck = root.path().join("stuck");
    std::fs::create_dir_all(stuck.join("app")).unwrap();
    std::fs::write(stuck.join("gradlew"), "#!/bin/sh\n").unwrap();
    let app = app_building(no_devices(), Some(root.path()));
    let (status, body) = call(
        &app,
        post("/api/v1/apps/build", json!({ "project_dir": "stuck" })),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("chmod +x gradlew"),
        "{body}"
    );
    // An iOS project on a host without xcodebuild: the tool is missing, said as such.
    let app = app_building(no_devices(), Some(root.path()));
    let (status, body) = call(
        &app,
        post("/api/v1/apps/build", json!({ "project_dir": "ios" })),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(error_code(&body), "TOOL_MISSING");
}

#[tokio::test]
async fn an_xcode_build_finds_its_scheme_and_its_app_or_says_which_scheme_is_missing() {
    let tools = FakeTools::new();
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("birds/Birds.xcodeproj")).unwrap();
    let xcodebuild = tools.add(
        "xcodebuild",
        standin("xcodebuild").trim_start_matches("#!/bin/sh\n"),
    );
    let set = |name: &str, value: &str| std::fs::write(tools.dir.path().join(name), value).unwrap();
    let list = fixture("build_logs/xcodebuild_list_json_workspace_tca_neoxcd.json");
    set("list", &list.display().to_string());
    set(
        "replay",
        &fixture("build_logs/xcodebuild_clean_build_success_macos_xcode15.1_backyardbirds_xcbeautify.txt")
            .display()
            .to_string(),
    );
    set("outcome", "0");
    let app = app_building(
        BackendConfig {
            tools: Toolbox::with([(Tool::Xcodebuild, xcodebuild)]),
            ..Default::default()
        },
        Some(root.path()),
    );
    // The recorded listing has several schemes: which to build is asked, with the list.
    let listed: Value = serde_json::from_str(&std::fs::read_to_string(&list).unwrap()).unwrap();
    let schemes = listed["workspace"]["schemes"]
        .as_array()
        .or(listed["project"]["schemes"].as_array())
        .unwrap()
        .clone();
    let (status, body) = call(
        &app,
        post("/api/v1/apps/build", json!({ "project_dir": "birds" })),
    )
    .await;
    if schemes.len() > 1 {
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["error"]["details"]["schemes"], json!(schemes));
    }
    let scheme = schemes[0].as_str().unwrap();
    let (status, result) = call(
        &app,
        post(
            "/api/v1/apps/build",
            json!({ "project_dir": "birds", "ios": { "scheme": scheme } }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["success"], true, "{}", result["failure"]);
    assert_eq!(result["platform"], "ios");
    assert_eq!(result["errors"], 0);
    assert!(result["steps"].as_u64().unwrap() > 0);
    let app_path = result["app"]["path"].as_str().unwrap();
    assert!(
        app_path.ends_with("Build/Products/Debug-iphonesimulator/Backyard Birds.app"),
        "{app_path}"
    );
    assert!(Path::new(app_path).is_dir());
    assert_eq!(
        result["app"]["app_id"],
        "com.example.apple-samplecode.Backyard-Birds"
    );
    let build_call = tools
        .calls("xcodebuild")
        .into_iter()
        .find(|c| c.last().is_some_and(|a| a == "build"))
        .unwrap();
    assert_eq!(
        &build_call[..4],
        ["-project", "Birds.xcodeproj", "-scheme", scheme]
    );
    assert!(
        build_call.contains(&"generic/platform=iOS Simulator".to_string()),
        "{build_call:?}"
    );

    // A scheme the project does not have: xcodebuild's own words, classified.
    set(
        "replay",
        &fixture("build_logs/xcodebuild_archive_missing_scheme_spm_jeffctown.txt")
            .display()
            .to_string(),
    );
    set("outcome", "65");
    let (status, result) = call(
        &app,
        post(
            "/api/v1/apps/build",
            json!({ "project_dir": "birds", "ios": { "scheme": "Nope" } }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["success"], false);
    assert_eq!(
        result["failure"]["kind"], "scheme_missing",
        "{}",
        result["failure"]
    );
}

/// The CLI against a real server: `app build` tells the progress and the diagnostics as they
/// come and exits 0 or 1 by the build's outcome.
#[test]
fn the_cli_builds_with_progress_and_exits_by_the_outcome() {
    let root = android_project(
        "build_logs/gradle_assembleDebug_kotlin_errors_97_plaid.txt",
        1,
    );
    let root_arg = root.path().display().to_string();
    let server =
        crate::common::demo_server::DemoServer::start_with_args(&["--build-root", &root_arg]);
    let run = |args: &[&str]| {
        std::process::Command::new(crate::common::demo_server::BIN)
            .args(args)
            .arg("--no-autostart")
            .env("MOBILECTL_URL", &server.url)
            .env_remove("MOBILECTL_TOKEN")
            .env_remove("MOBILECTL_UDID")
            .output()
            .unwrap()
    };
    let out = run(&["app", "build", "shop"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("build bld-") && lines[0].contains(":app:assembleDebug"),
        "{stdout}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("[")),
        "no progress line: {stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("error") && l.contains("AiAgent.kt:98:73")),
        "{stdout}"
    );
    assert!(lines.iter().any(|l| l.contains("FAILED")), "{stdout}");
    let out = run(&["app", "build", "shop", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["errors"],
        kotlin_lines(
            "build_logs/gradle_assembleDebug_kotlin_errors_97_plaid.txt",
            "e: "
        )
        .len()
    );
}

/// What each recorded failure makes of a build, through the stand-ins as the server runs them:
/// its kind, and its errors as many as the log's distinct `PATH:LINE[:COL]: error:` lines
/// (counted here with a pattern of the compilers' own format).
#[tokio::test]
async fn each_recorded_failure_is_told_as_its_kind_with_the_logs_errors() {
    use regex::Regex;
    let compiler_error = Regex::new(r"^\S.*\.(swift|m|mm|c|java):\d+(:\d+)?: error: ").unwrap();
    let cases = [
        (
            "gradle",
            "build_logs/gradle_javac_errors_windows_tasks_issue710.txt",
            "compile",
        ),
        (
            "gradle",
            "build_logs/gradle_sdk_location_not_found_sigblock_pr1.txt",
            "sdk_missing",
        ),
        (
            "xcode",
            "build_logs/xcodebuild_macos_swift_errors_xcode26_warden.txt",
            "compile",
        ),
        (
            "xcode",
            "build_logs/xcodebuild_objc_clang_errors_ios7_kiwi_xcpretty.txt",
            "compile",
        ),
        (
            "xcode",
            "build_logs/xcodebuild_error_snippets_codesign_provisioning_clang_ld_xcpretty.txt",
            "signing",
        ),
    ];
    for (tool, log, kind) in cases {
        let (app, _keep): (Router, Box<dyn std::any::Any>) = if tool == "gradle" {
            let root = android_project(log, 1);
            (
                app_building(no_devices(), Some(root.path())),
                Box::new(root),
            )
        } else {
            let tools = FakeTools::new();
            let root = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(root.path().join("shop/Shop.xcodeproj")).unwrap();
            let xcodebuild = tools.add(
                "xcodebuild",
                standin("xcodebuild").trim_start_matches("#!/bin/sh\n"),
            );
            std::fs::write(
                tools.dir.path().join("replay"),
                fixture(log).display().to_string(),
            )
            .unwrap();
            std::fs::write(tools.dir.path().join("outcome"), "65").unwrap();
            let app = app_building(
                BackendConfig {
                    tools: Toolbox::with([(Tool::Xcodebuild, xcodebuild)]),
                    ..Default::default()
                },
                Some(root.path()),
            );
            (app, Box::new((tools, root)))
        };
        let body = json!({ "project_dir": "shop", "ios": { "scheme": "Shop" } });
        let body = if tool == "gradle" {
            json!({ "project_dir": "shop" })
        } else {
            body
        };
        let (status, result) = call(&app, post("/api/v1/apps/build", body)).await;
        assert_eq!(status, StatusCode::OK, "{log}: {result}");
        assert_eq!(result["success"], false, "{log}");
        assert_eq!(
            result["failure"]["kind"], kind,
            "{log}: {}",
            result["failure"]
        );
        assert!(
            !result["failure"]["hint"]
                .as_str()
                .unwrap_or_default()
                .is_empty(),
            "{log}"
        );
        let errors: BTreeSet<String> = log_lines(log)
            .into_iter()
            .filter(|l| compiler_error.is_match(l))
            .collect();
        if kind == "compile" {
            assert_eq!(
                result["errors"],
                errors.len(),
                "{log}: {}",
                result["diagnostics"]
            );
            // Each error with a place is one of the log's lines.
            for d in result["diagnostics"].as_array().unwrap() {
                let (Some(file), Some(line)) = (d["file"].as_str(), d["line"].as_u64()) else {
                    continue;
                };
                if d["severity"] == "error" {
                    let at = format!("{file}:{line}:");
                    assert!(errors.iter().any(|l| l.starts_with(&at)), "{log}: {d}");
                }
            }
        }
    }
}
