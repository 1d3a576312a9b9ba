//! Physical iPhones through devicectl, against a fake `xcrun` replaying recorded real
//! `devicectl … --json-output` answers (`fixtures/ios_devicectl/`), alone and beside a
//! WebDriverAgent endpoint (the fake WDA of `common/wda.rs`): listing, install, launch,
//! terminate, apps, errors, the doctor; WDA devices usable without devicectl; a simulator
//! given to `--wda` listed once; and every device route on a WDA device working or answering
//! `501` with a hint.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use common::wda::*;
use common::*;
use mobilectl::backend::wda::{EndpointSpec, WdaConfig};
use mobilectl::backend::BackendConfig;
use mobilectl::exec::{Tool, Toolbox};
use serde_json::{json, Value};
use tower::ServiceExt;

/// The phone of the recorded `devicectl list devices` (its hardware UDID).
const PHONE: &str = "00000000-0000000000000000";
const LIST: &str =
    "ios_devicectl/devicectl_list_devices_iphone12_ios27_plus_18_simulators_devicectl642.json";
const APPS: &str = "ios_devicectl/devicectl_info_apps_two_dev_apps_qtcreator_devicectl477.json";
const ONE_APP: &str = "ios_devicectl/devicectl_info_apps_one_dev_app_qtcreator_devicectl355.json";
const PROCESSES: &str =
    "ios_devicectl/devicectl_info_processes_iphone12_ios27_468procs_devicectl642.json";
const INSTALLED: &str =
    "ios_devicectl/devicectl_install_app_success_iphone12_ios27_devicectl642.json";
const INSTALL_3002: &str =
    "ios_devicectl/devicectl_install_app_error_3002_invalid_bundle_qtcreator_devicectl355.json";
const LAUNCHED: &str = "ios_devicectl/devicectl_process_launch_preferences_iphone12_ios27.json";
const LAUNCH_10002: &str =
    "ios_devicectl/devicectl_process_launch_error_not_installed_10002_iphone12_ios27.json";
const LOCK: &str = "ios_devicectl/devicectl_info_lockState_iphone12_ios27.json";
/// No `device copy` answer was ever recorded: devicectl's generic success envelope (of an
/// uninstall) stands in, and the copy tests assert only the argv mobilectl sends and the file.
const COPIED: &str =
    "ios_devicectl/devicectl_uninstall_app_not_installed_success_iphone12_ios27.json";
const SIMS: &str =
    "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json";
const BOOTED_SIM: &str = "D2E4C979-FFEA-4236-9F57-64C3209975A0";

/// A fake xcrun answering `simctl list` and devicectl with recorded answers. A failed
/// devicectl command prints its JSON and exits 1, as devicectl does. An `.app` whose name
/// starts with `Broken` gets the recorded 3002 install error.
fn fake_xcrun(fakes: &FakeTools) -> PathBuf {
    let f = |rel: &str| fixture(rel).display().to_string();
    fakes.add(
        "xcrun",
        &format!(
            r#"case "$*" in
  "simctl list devices available -j") cat '{sims}' ;;
  "devicectl list devices --quiet --json-output -") cat '{list}' ;;
  *"device info apps"*"--bundle-id"*) cat '{one_app}' ;;
  *"device info apps"*) cat '{apps}' ;;
  *"device info processes"*) cat '{procs}' ;;
  *"device info lockState"*) cat '{lock}' ;;
  *"device install app"*/Broken*) cat '{i3002}'; exit 1 ;;
  *"device install app"*) cat '{installed}' ;;
  *"process launch"*com.example.notinstalled*) cat '{l10002}'; exit 1 ;;
  *"process launch"*) cat '{launched}' ;;
  *"device copy to"*) cat '{copied}' ;;
  *"device copy from"*)
    dest=""; prev=""
    for a in "$@"; do [ "$prev" = "--destination" ] && dest="$a"; prev="$a"; done
    printf 'bytes from the phone' > "$dest"; cat '{copied}' ;;
  *) echo "fake xcrun: unexpected $*" >&2; exit 1 ;;
esac"#,
            sims = f(SIMS),
            list = f(LIST),
            one_app = f(ONE_APP),
            apps = f(APPS),
            procs = f(PROCESSES),
            lock = f(LOCK),
            i3002 = f(INSTALL_3002),
            installed = f(INSTALLED),
            l10002 = f(LAUNCH_10002),
            launched = f(LAUNCHED),
            copied = f(COPIED),
        ),
    )
}

fn app_with(tools: Toolbox, endpoints: &[String]) -> Router {
    app_with_config(
        BackendConfig {
            tools,
            wda: WdaConfig {
                endpoints: EndpointSpec::parse_all(endpoints).unwrap(),
                source_timeout: Duration::from_secs(20),
            },
            ..Default::default()
        },
        loopback_policy(),
    )
}

fn argv(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// `devicectl WORDS --device PHONE --quiet --json-output - REST`, as mobilectl runs it.
fn on_phone(words: &[&str], rest: &[&str]) -> Vec<String> {
    let common = ["--device", PHONE, "--quiet", "--json-output", "-"];
    let all: Vec<&str> = std::iter::once("devicectl")
        .chain(words.iter().copied())
        .chain(common)
        .chain(rest.iter().copied())
        .collect();
    argv(&all)
}

fn devicectl_calls(fakes: &FakeTools) -> Vec<Vec<String>> {
    fakes
        .calls("xcrun")
        .into_iter()
        .filter(|c| c[0] == "devicectl")
        .collect()
}

async fn app_route(app: &Router, route: &str, body: Value) -> (StatusCode, Value) {
    call(app, post(&format!("/api/v1/device/app/{route}"), body)).await
}

async fn install(app: &Router, path: &Path) -> (StatusCode, Value) {
    let body = json!({ "udid": PHONE, "path": path });
    call(app, post("/api/v1/device/app/install", body)).await
}

/// An `.app` folder named `name` in `dir`.
fn app_bundle(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("Info.plist"), "<plist/>").unwrap();
    p
}

fn devices_of<'a>(list: &'a Value, udid: &str) -> Vec<&'a Value> {
    list["devices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["udid"] == udid)
        .collect()
}

#[tokio::test]
async fn devicectl_lists_the_phone_and_drives_its_apps() {
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun(&fakes);
    let app = app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), &[]);

    let (status, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let phone = devices_of(&list, PHONE);
    assert_eq!(phone.len(), 1, "{list}");
    let p = phone[0];
    assert_eq!(p["name"], "aqa-test-phon");
    assert_eq!(p["model"], "iPhone 12");
    assert_eq!(p["os_version"], "iOS 27.0");
    assert_eq!(
        (&p["kind"], &p["state"]),
        (&json!("device"), &json!("online"))
    );
    assert_eq!(list["tools"]["wda"]["available"], true);
    // devicectl's 18 simulators are simctl's to list (this simctl listing has its own).
    let ios = list["devices"].as_array().unwrap();
    let raw = std::fs::read_to_string(fixture(SIMS)).unwrap();
    assert_eq!(ios.len(), raw.matches("\"udid\"").count() + 1);

    // The UI needs WebDriverAgent: the answer says how to start it for this phone.
    let (status, body) = call(&app, get(&format!("/api/v1/device/ui?udid={PHONE}"))).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(error_code(&body), "TOOL_MISSING");
    let hint = body["error"]["hint"].as_str().unwrap();
    assert!(
        hint.contains(&format!("--wda {PHONE}=http://127.0.0.1:8100")),
        "{hint}"
    );

    let (status, apps) = call(&app, get(&format!("/api/v1/device/app/list?udid={PHONE}"))).await;
    assert_eq!(status, StatusCode::OK, "{apps}");
    let ids: Vec<&str> = apps["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["bundle_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["org.qt-project.appuntitled17", "org.qt-project.ijij"]);
    assert_eq!(
        devicectl_calls(&fakes).last().unwrap(),
        &on_phone(&["device", "info", "apps"], &[])
    );

    let dir = tempfile::tempdir().unwrap();
    let good = app_bundle(dir.path(), "Verifier.app");
    let (status, body) = install(&app, &good).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        devicectl_calls(&fakes).last().unwrap(),
        &on_phone(&["device", "install", "app"], &[good.to_str().unwrap()])
    );
    // The recorded 3002: devicectl's words, its recovery suggestion as the hint.
    let broken = app_bundle(dir.path(), "Broken.app");
    let (status, body) = install(&app, &broken).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(error_code(&body), "COMMAND_FAILED");
    says(&body, "message", "is not a valid bundle");
    says(&body, "hint", "CFBundleIdentifier");
    assert_eq!(body["error"]["details"]["code"], 3002);
    // Not an app bundle at all: refused before devicectl runs.
    let before = devicectl_calls(&fakes).len();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "x").unwrap();
    let (status, _) = install(&app, &text).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(devicectl_calls(&fakes).len(), before);

    let (status, body) = app_route(&app, "launch", json!({"udid": PHONE, "bundle_id": "com.apple.Preferences", "relaunch": true, "arguments": ["-x"], "extras": {"user": "ada", "on": true}})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["pid"], 4924);
    assert_eq!(
        devicectl_calls(&fakes).last().unwrap(),
        &on_phone(
            &["device", "process", "launch"],
            // After `--`, devicectl passes every word on, including those that start with `-`.
            &[
                "--terminate-existing",
                "com.apple.Preferences",
                "--",
                "-x",
                "on",
                "true",
                "-user",
                "ada"
            ]
        )
    );
    // A phone's keychain cannot be reset from the host: refused before the app starts.
    let before = devicectl_calls(&fakes).len();
    let (status, body) = app_route(
        &app,
        "launch",
        json!({"udid": PHONE, "bundle_id": "com.apple.Preferences", "clear_keychain": true}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM");
    assert_eq!(devicectl_calls(&fakes).len(), before);
    let (status, body) = app_route(
        &app,
        "launch",
        json!({"udid": PHONE, "bundle_id": "com.example.notinstalled"}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(error_code(&body), "NOT_FOUND");
    says(
        &body,
        "message",
        "com.example.notinstalled is not installed",
    );

    // Terminate: the app's bundle, then the process running from it. The recorded app does
    // not run among the recorded processes, so nothing is terminated (and that is no error).
    let before = devicectl_calls(&fakes).len();
    let (status, body) = app_route(
        &app,
        "terminate",
        json!({"udid": PHONE, "bundle_id": "org.iuehrg.cmake-widgets"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        devicectl_calls(&fakes)[before..],
        [
            on_phone(
                &["device", "info", "apps"],
                &[
                    "--include-all-apps",
                    "--bundle-id",
                    "org.iuehrg.cmake-widgets"
                ]
            ),
            on_phone(&["device", "info", "processes"], &[]),
        ]
    );

    // The doctor: devicectl's version, the phone's state and lock.
    let (_, doctor) = call(&app, get("/api/v1/doctor")).await;
    let checks = doctor["checks"].as_array().unwrap();
    let d = checks.iter().find(|c| c["name"] == "devicectl").unwrap();
    assert_eq!((&d["ok"], &d["version"]), (&json!(true), &json!("642.16")));
    assert_eq!(d["detail"], "1 iPhone or iPad listed");
    let p = checks.iter().find(|c| c["target"] == PHONE).unwrap();
    assert_eq!(p["name"], "aqa-test-phon");
    assert_eq!(
        p["detail"],
        "paired, wired, developer mode enabled, unlocked"
    );
    assert_eq!(p["version"], "iOS 27.0");
    assert_eq!(p["ok"], true);
    // No WDA endpoint: apps work, the UI does not.
    assert_eq!(doctor["wda"], "degraded");
}

#[tokio::test]
async fn an_endpoint_given_the_phone_s_udid_is_one_device_named_by_devicectl() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun(&fakes);
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &xcrun)]),
        &[format!("{PHONE}={}", fake.url())],
    );
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    let phone = devices_of(&list, PHONE);
    assert_eq!(phone.len(), 1, "{list}");
    assert_eq!(phone[0]["name"], "aqa-test-phon");
    assert_eq!(phone[0]["model"], "iPhone 12");
    assert_eq!(phone[0]["kind"], "device");
    // Its UI through WDA, its apps through devicectl, its launches through WDA.
    let (status, _) = call(&app, get(&format!("/api/v1/device/ui?udid={PHONE}"))).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = call(&app, get(&format!("/api/v1/device/app/list?udid={PHONE}"))).await;
    assert_eq!(status, StatusCode::OK);
    let before = devicectl_calls(&fakes).len();
    let (status, body) = app_route(
        &app,
        "launch",
        json!({"udid": PHONE, "bundle_id": "com.apple.Preferences"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(devicectl_calls(&fakes).len(), before);
    assert!(fake
        .routes_since(0)
        .contains(&"POST /session/:id/wda/apps/launch".to_string()));
}

#[tokio::test]
async fn without_devicectl_wda_devices_stay_usable() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let endpoint = [format!("{PHONE}={}", fake.url())];

    // No xcrun at all (Linux, or a Mac without Xcode).
    let app = app_with(Toolbox::with([]), &endpoint);
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(devices_of(&list, PHONE).len(), 1);
    assert_eq!(list["tools"]["wda"]["available"], true);
    let (status, _) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = call(&app, get("/api/v1/device/app/list")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(error_code(&body), "TOOL_MISSING");
    says(&body, "message", "devicectl");

    // An xcrun whose Xcode has no devicectl: it fails; the WDA device does not mind.
    let fakes = FakeTools::new();
    let xcrun = fakes.add(
        "xcrun",
        r#"case "$1" in devicectl) exit 72 ;; *) exit 1 ;; esac"#,
    );
    let app = app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), &endpoint);
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(devices_of(&list, PHONE).len(), 1, "{list}");
    assert_eq!(list["tools"]["wda"]["available"], true);
    let (status, _) = call(&app, post("/api/v1/device/ui/tap", json!({"x": 3, "y": 3}))).await;
    assert_eq!(status, StatusCode::OK);
    let dir = tempfile::tempdir().unwrap();
    let bundle = app_bundle(dir.path(), "A.app");
    let (status, body) = call(
        &app,
        post("/api/v1/device/app/install", json!({"path": bundle})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(body["error"]["details"]["exit_code"], 72);
}

#[tokio::test]
async fn a_simulator_given_to_wda_is_listed_once_as_a_simulator_driven_through_wda() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun(&fakes);
    let axe = fakes.add("axe", "exit 3");
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &xcrun), (Tool::Axe, &axe)]),
        &[format!("{BOOTED_SIM}={}", fake.url())],
    );
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    let sim = devices_of(&list, BOOTED_SIM);
    assert_eq!(sim.len(), 1, "{list}");
    assert_eq!(sim[0]["kind"], "simulator");
    assert_eq!(sim[0]["name"], "iPhone 15 Pro");
    assert_eq!(sim[0]["state"], "booted");
    assert_eq!(sim[0]["os_version"], "iOS 17.5");
    // Driven through WDA, not AXe.
    let (status, body) = call(&app, get(&format!("/api/v1/device/ui?udid={BOOTED_SIM}"))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(fakes.calls("axe").is_empty());
    assert_eq!(fake.routes_since(1), ["GET /source"]);
    let (status, body) = call(
        &app,
        post("/api/v1/device/boot", json!({"udid": BOOTED_SIM})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    says(&body, "hint", "xcrun simctl boot");
}

#[tokio::test]
async fn apples_audit_through_wda_is_merged_into_the_findings_marked_apple() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun(&fakes);
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &xcrun)]),
        &[format!("{PHONE}={}", fake.url())],
    );
    // WDA's answer in the shape its own code gives (see the fixture's manifest line).
    fake.once_fixture(
        "POST",
        "/wda/performAccessibilityAudit",
        200,
        "ios_wda_source/wda_accessibility_audit_shape_settings.json",
    );
    let (status, body) = call(
        &app,
        post("/api/v1/device/ui/audit", json!({"udid": PHONE})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let findings = body["findings"].as_array().unwrap();
    let apple: Vec<&Value> = findings.iter().filter(|f| f["engine"] == "apple").collect();
    assert_eq!(apple.len(), 3, "{body}");
    // The hit region issue is tied to the screen's Dictate button: its ref, its frame.
    let hit = apple
        .iter()
        .find(|f| f["detail"].as_str().unwrap().starts_with("HitRegion"))
        .unwrap();
    assert_eq!(hit["name"], "Dictate");
    assert_eq!(hit["wcag"], "2.5.8");
    assert_eq!(hit["bounds"], json!({"x": 335, "y": 811, "w": 18, "h": 22}));
    let dictate_ref = hit["ref"].as_str().unwrap();
    // mobilectl's own rule finds the same button too small, with the same ref.
    assert!(findings.iter().any(|f| f["engine"] == "mobilectl"
        && f["rule"] == "touch-target"
        && f["ref"] == dictate_ref));
    // An issue naming no element has no ref.
    let contrast = apple
        .iter()
        .find(|f| f["detail"].as_str().unwrap().starts_with("Contrast"))
        .unwrap();
    assert!(contrast["ref"].is_null());
    assert_eq!(contrast["severity"], "error");
    assert!(fake
        .routes_since(0)
        .iter()
        .any(|r| r.ends_with("/wda/performAccessibilityAudit")));
    // A WDA without the route (before iOS 17 or old): mobilectl's findings, and why Apple's
    // are missing.
    let (status, body) = call(
        &app,
        post("/api/v1/device/ui/audit", json!({"udid": PHONE})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["engine"] == "mobilectl"));
    let skipped = body["skipped"].to_string();
    assert!(skipped.contains("apple-audit"), "{body}");
}

/// A request for every operation, sent to a WDA device with devicectl.
fn every_request(dir: &Path) -> Vec<(&'static str, Request<Body>)> {
    let bundle = app_bundle(dir, "Verifier.app");
    let p = |path: &str, body: Value| post(path, body);
    vec![
        ("health", get("/health")),
        ("doctor", get("/api/v1/doctor")),
        ("list_devices", get("/api/v1/device/list")),
        ("get_device", get(&format!("/api/v1/devices/{PHONE}"))),
        (
            "set_active_device",
            send_json(
                "PUT",
                "/api/v1/device/active",
                &json!({"udid": PHONE}).to_string(),
            ),
        ),
        ("get_active_device", get("/api/v1/device/active")),
        ("boot", p("/api/v1/device/boot", json!({"udid": PHONE}))),
        ("shutdown", p("/api/v1/device/shutdown", json!({}))),
        (
            "connect_device",
            p(
                "/api/v1/device/connect",
                json!({"host": "192.0.2.10", "port": 5555}),
            ),
        ),
        ("erase", p("/api/v1/device/erase", json!({}))),
        (
            "install_helper",
            p("/api/v1/device/helper/install", json!({})),
        ),
        (
            "install_app",
            p("/api/v1/device/app/install", json!({"path": bundle})),
        ),
        (
            "launch_app",
            p(
                "/api/v1/device/app/launch",
                json!({"bundle_id": "com.apple.Preferences"}),
            ),
        ),
        (
            "terminate_app",
            p(
                "/api/v1/device/app/terminate",
                json!({"bundle_id": "com.apple.Preferences"}),
            ),
        ),
        (
            "reset_app",
            p(
                "/api/v1/device/app/reset",
                json!({"bundle_id": "com.apple.Preferences"}),
            ),
        ),
        (
            "reset_keychain",
            p("/api/v1/device/keychain/reset", json!({})),
        ),
        ("list_apps", get("/api/v1/device/app/list")),
        (
            "build_app",
            p("/api/v1/apps/build", json!({"project_dir": "x"})),
        ),
        (
            "build_app_stream",
            p("/api/v1/apps/build/stream", json!({"project_dir": "x"})),
        ),
        ("list_builds", get("/api/v1/apps/builds")),
        (
            "cancel_build",
            p(
                "/api/v1/apps/build/cancel",
                json!({"id": "bld-000000000000"}),
            ),
        ),
        (
            "open_url",
            p(
                "/api/v1/device/open-url",
                json!({"url": "https://example.com"}),
            ),
        ),
        ("snapshot", get("/api/v1/device/ui?format=text")),
        ("screen_summary", get("/api/v1/device/screen-summary")),
        ("find", get("/api/v1/device/ui/find?query=general")),
        ("screenshot", get("/api/v1/device/screenshot")),
        (
            "screenshot_annotated",
            get("/api/v1/device/screenshot/annotated"),
        ),
        // After the screenshot above: the screen before the last action is kept.
        (
            "screenshot_diff",
            p(
                "/api/v1/device/screenshot/diff",
                json!({"baseline": {"previous": true}}),
            ),
        ),
        (
            "audit",
            p("/api/v1/device/ui/audit", json!({"annotate": true})),
        ),
        (
            "tap",
            p(
                "/api/v1/device/ui/tap",
                json!({"selector": {"text": "General", "contains": true}}),
            ),
        ),
        (
            "tap_element",
            p(
                "/api/v1/device/ui/tap-element",
                json!({"label": "Camera", "contains": true}),
            ),
        ),
        (
            "long_press",
            p("/api/v1/device/ui/long-press", json!({"x": 100, "y": 300})),
        ),
        (
            "swipe",
            p(
                "/api/v1/device/ui/swipe",
                json!({"from": {"x": 200, "y": 700}, "to": {"x": 200, "y": 300}}),
            ),
        ),
        (
            "scroll",
            p("/api/v1/device/ui/scroll", json!({"direction": "down"})),
        ),
        (
            "scroll_to",
            p(
                "/api/v1/device/ui/scroll-to",
                json!({"selector": {"text": "StandBy", "contains": true}}),
            ),
        ),
        (
            "type_text",
            p(
                "/api/v1/device/ui/type",
                json!({"selector": {"role": "textbox"}, "text": "x", "verify": false}),
            ),
        ),
        (
            "press",
            p("/api/v1/device/ui/press", json!({"key": "home"})),
        ),
        (
            "hide_keyboard",
            p("/api/v1/device/ui/hide-keyboard", json!({})),
        ),
        (
            "batch",
            p(
                "/api/v1/device/batch",
                json!({"steps": [{"op": "press", "body": {"key": "home"}}], "observe": true}),
            ),
        ),
        (
            "wait",
            p(
                "/api/v1/device/ui/wait",
                json!({"selector": {"text": "General", "contains": true}, "condition": "visible", "timeout_ms": 2000}),
            ),
        ),
        (
            "expect",
            p(
                "/api/v1/device/ui/expect",
                json!({"kind": "element_visible", "selector": {"text": "General", "contains": true}}),
            ),
        ),
        (
            "wait_for_change",
            p(
                "/api/v1/device/ui/wait-for-change",
                json!({"timeout_ms": 300}),
            ),
        ),
        ("alert_accept", p("/api/v1/device/alert/accept", json!({}))),
        (
            "alert_dismiss",
            p("/api/v1/device/alert/dismiss", json!({})),
        ),
        (
            "set_location",
            p(
                "/api/v1/device/location",
                json!({"latitude": 48.85, "longitude": 2.35}),
            ),
        ),
        (
            "set_permission",
            p(
                "/api/v1/device/permission",
                json!({"bundle_id": "com.apple.Preferences", "permission": "camera", "action": "grant"}),
            ),
        ),
        (
            "status_bar",
            p("/api/v1/device/status-bar", json!({"time": "9:41"})),
        ),
        ("get_clipboard", get("/api/v1/device/clipboard")),
        (
            "set_clipboard",
            send_json("PUT", "/api/v1/device/clipboard", r#"{"text": "x"}"#),
        ),
        ("get_orientation", get("/api/v1/device/orientation")),
        (
            "set_orientation",
            send_json(
                "PUT",
                "/api/v1/device/orientation",
                r#"{"orientation": "portrait"}"#,
            ),
        ),
        (
            "send_intent",
            p("/api/v1/device/intent", json!({"action": "A"})),
        ),
        (
            "post_notification",
            p(
                "/api/v1/device/notification",
                json!({"title": "t", "body": "b"}),
            ),
        ),
        ("list_notifications", get("/api/v1/device/notifications")),
        (
            "add_media",
            p(
                "/api/v1/device/media",
                json!({"local_path": "examples/annotated_demo.png"}),
            ),
        ),
        (
            "multi_touch",
            p(
                "/api/v1/device/ui/multi-touch",
                json!({"gesture": "pinch", "scale": 0.5, "x": 180, "y": 400}),
            ),
        ),
        (
            "biometric",
            p("/api/v1/device/biometric", json!({"action": "match"})),
        ),
        (
            "set_airplane_mode",
            p("/api/v1/device/airplane-mode", json!({"enabled": true})),
        ),
        (
            "push_file",
            p(
                "/api/v1/device/files/push",
                json!({"local_path": "Cargo.toml", "device_path": "/Documents/c.toml",
                       "bundle_id": "com.example.app"}),
            ),
        ),
        (
            "pull_file",
            p(
                "/api/v1/device/files/pull",
                json!({"device_path": "/Documents/c.toml", "local_path": "target/wda-pull.bin",
                       "bundle_id": "com.example.app", "overwrite": true}),
            ),
        ),
        // The device's log.
        ("tail_logs", get("/api/v1/logs")),
        ("stream_logs", get("/api/v1/logs/stream")),
        ("list_crashes", get("/api/v1/logs/crashes")),
        ("get_crash", get("/api/v1/logs/crashes/c0123456789ab")),
        ("debug_bundle", get("/api/v1/debug/bundle")),
        // App performance: neither WebDriverAgent nor devicectl reads it.
        ("perf", get("/api/v1/device/perf?app=com.example.app")),
        (
            "perf_start",
            p(
                "/api/v1/device/perf/start",
                json!({"app": "com.example.app"}),
            ),
        ),
        ("perf_stop", p("/api/v1/device/perf/stop", json!({}))),
        // Screen recording: not over WebDriverAgent.
        (
            "recording_start",
            p("/api/v1/device/recording/start", json!({})),
        ),
        (
            "recording_stop",
            p("/api/v1/device/recording/stop", json!({})),
        ),
        ("list_recordings", get("/api/v1/recordings")),
        ("get_recording", get("/api/v1/recordings/rec-none")),
        (
            "delete_recording",
            send_json("DELETE", "/api/v1/recordings/rec-none", ""),
        ),
        // Network capture: the proxy is the server's; pointing the phone at it is not done.
        ("proxy_start", p("/api/v1/proxy/start", json!({"port": 0}))),
        ("proxy_status", get("/api/v1/proxy/status")),
        ("proxy_ca", get("/api/v1/proxy/ca.pem")),
        ("proxy_attach", p("/api/v1/proxy/attach", json!({}))),
        ("proxy_detach", p("/api/v1/proxy/detach", json!({}))),
        ("list_flows", get("/api/v1/proxy/flows")),
        ("get_flow", get("/api/v1/proxy/flows/1")),
        ("stream_flows", get("/api/v1/proxy/flows/stream")),
        ("get_flow_summary", get("/api/v1/proxy/summary")),
        (
            "clear_flows",
            send_json("DELETE", "/api/v1/proxy/flows", ""),
        ),
        (
            "add_proxy_rule",
            p("/api/v1/proxy/rules", json!({"path": "/x", "status": 503})),
        ),
        ("list_proxy_rules", get("/api/v1/proxy/rules")),
        (
            "delete_proxy_rule",
            send_json("DELETE", "/api/v1/proxy/rules/1", ""),
        ),
        (
            "proxy_rules_from_har",
            p(
                "/api/v1/proxy/rules/from-har",
                json!({"har": {"log": {"entries": [{"request": {"method": "GET", "url": "http://a.example/x"}, "response": {"status": 200}}]}}}),
            ),
        ),
        (
            "clear_proxy_rules",
            send_json("DELETE", "/api/v1/proxy/rules", ""),
        ),
        (
            "set_proxy_conditions",
            p("/api/v1/proxy/conditions", json!({"profile": "lte"})),
        ),
        (
            "clear_proxy_conditions",
            send_json("DELETE", "/api/v1/proxy/conditions", ""),
        ),
        ("export_har", get("/api/v1/proxy/flows.har")),
        ("proxy_stop", p("/api/v1/proxy/stop", json!({}))),
        // A Maestro flow: a screen read and a skipped sub-flow.
        (
            "flow_run",
            p(
                "/api/v1/flows/run",
                json!({"yaml": "- waitForAnimationToEnd\n- runFlow: {when: {platform: Android}, commands: [back]}\n"}),
            ),
        ),
        (
            "flow_run_stream",
            p(
                "/api/v1/flows/run/stream",
                json!({"yaml": "- waitForAnimationToEnd\n"}),
            ),
        ),
        (
            "flow_test",
            p(
                "/api/v1/flows/test",
                json!({"files": {"a.yaml": "- waitForAnimationToEnd\n"}}),
            ),
        ),
        (
            "flow_test_stream",
            p(
                "/api/v1/flows/test/stream",
                json!({"files": {"a.yaml": "- waitForAnimationToEnd\n"}}),
            ),
        ),
        (
            "flow_record_start",
            p("/api/v1/flows/record/start", json!({})),
        ),
        (
            "flow_record_stop",
            p("/api/v1/flows/record/stop", json!({})),
        ),
        // Sessions, last (the lease would refuse the session-less acts above): each answers for
        // any device.
        (
            "create_session",
            p("/api/v1/sessions", json!({"udid": PHONE})),
        ),
        ("list_sessions", get("/api/v1/sessions")),
        ("get_session", get("/api/v1/sessions/no-such-session")),
        (
            "end_session",
            send_json("DELETE", "/api/v1/sessions/no-such-session", ""),
        ),
        ("session_info", get("/api/v1/session")),
        ("release_device", p("/api/v1/session/release", json!({}))),
        // Runs: the server's, not a device's; GC plans only.
        ("list_runs", get("/api/v1/runs")),
        ("get_run", get("/api/v1/runs/20200101-000000-abcdef")),
        (
            "get_artifact",
            get("/api/v1/runs/20200101-000000-abcdef/artifacts/x.png"),
        ),
        (
            "delete_run",
            send_json("DELETE", "/api/v1/runs/20200101-000000-abcdef", ""),
        ),
        ("gc", p("/api/v1/gc", json!({"dry_run": true}))),
    ]
}

#[tokio::test]
async fn every_device_route_works_on_a_wda_device_or_answers_501_with_a_hint() {
    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun(&fakes);
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &xcrun)]),
        &[format!("{PHONE}={}", fake.url())],
    );
    let dir = tempfile::tempdir().unwrap();
    let requests = every_request(dir.path());
    let covered: std::collections::BTreeSet<&str> = requests.iter().map(|(op, _)| *op).collect();
    let table: std::collections::BTreeSet<&str> = mobilectl::api::operations()
        .iter()
        .map(|o| o.name)
        .collect();
    assert_eq!(covered, table, "every operation needs a request here");

    let mut unsupported = Vec::new();
    for (op, req) in requests {
        let res = app.clone().oneshot(req).await.unwrap();
        let status = res.status();
        if status.is_success() && op.starts_with("stream_") {
            // A stream goes on while its client stays: its 200 is the answer.
            continue;
        }
        let bytes = http_body_util::BodyExt::collect(res.into_body())
            .await
            .unwrap()
            .to_bytes();
        if status.is_success() {
            continue;
        }
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        // No alert on the Settings screen is an answer, not a failure of the route.
        if op.starts_with("alert_") && error_code(&body) == "NO_ALERT" {
            continue;
        }
        // Not a route of a device: adb's connect, refused off loopback before anything runs.
        if op == "connect_device" && error_code(&body) == "FORBIDDEN" {
            continue;
        }
        // Nothing recorded under that id, or nothing recording: an answer too.
        if (op.starts_with("get_") || op.starts_with("delete_"))
            && ["NOT_FOUND", "RUN_NOT_FOUND"].contains(&error_code(&body).as_str())
            || ["NOT_RECORDING", "NO_PERF_WINDOW"].contains(&error_code(&body).as_str())
        {
            continue;
        }
        // Builds are host work, refused without a build root; no build runs to cancel.
        if op.contains("build") && ["FORBIDDEN", "NOT_FOUND"].contains(&error_code(&body).as_str())
        {
            continue;
        }
        // No such session (the requests above name none): the session routes' answer.
        if error_code(&body) == "SESSION_NOT_FOUND" {
            continue;
        }
        assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{op}: {body}");
        assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM", "{op}");
        let hint = body["error"]["hint"].as_str().unwrap_or_default();
        assert!(hint.len() > 20, "{op}: {body}");
        unsupported.push(op);
    }
    assert_eq!(
        unsupported,
        [
            "boot",
            "shutdown",
            "erase",
            "install_helper",
            "reset_app",
            "reset_keychain",
            "set_permission",
            "status_bar",
            "send_intent",
            "post_notification",
            "list_notifications",
            "add_media",
            "biometric",
            "set_airplane_mode",
            // A physical iPhone's log and network: not yet.
            "tail_logs",
            "stream_logs",
            "list_crashes",
            "get_crash",
            "perf",
            "perf_start",
            "recording_start",
            "proxy_attach",
            "proxy_detach"
        ]
    );
}

#[tokio::test]
async fn files_go_to_and_come_from_an_app_container_through_devicectl() {
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun(&fakes);
    let app = app_with(Toolbox::with([(Tool::Xcrun, xcrun)]), &[]);
    let local = "target/wda-files-test.bin";
    let _ = std::fs::remove_file(local);
    let push = json!({"udid": PHONE, "local_path": "Cargo.toml", "device_path": "/Documents/c.toml",
                      "bundle_id": "com.example.app"});
    let (status, v) = call(&app, post("/api/v1/device/files/push", push)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let pushed = devicectl_calls(&fakes);
    let cargo = std::fs::canonicalize("Cargo.toml").unwrap();
    assert_eq!(
        pushed.last().unwrap(),
        &on_phone(
            &["device", "copy", "to"],
            &[
                "--domain-type",
                "appDataContainer",
                "--domain-identifier",
                "com.example.app",
                "--source",
                cargo.to_str().unwrap(),
                "--destination",
                "Documents/c.toml"
            ]
        )
    );
    let pull = json!({"udid": PHONE, "device_path": "/Documents/c.toml", "local_path": local,
                      "bundle_id": "com.example.app"});
    let (status, v) = call(&app, post("/api/v1/device/files/pull", pull)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["bytes"], 20, "{v}");
    assert_eq!(
        std::fs::read_to_string(local).unwrap(),
        "bytes from the phone"
    );
    let pulled = devicectl_calls(&fakes);
    let last = pulled.last().unwrap();
    assert_eq!(&last[..4], &argv(&["devicectl", "device", "copy", "from"]));
    assert!(
        last.windows(2)
            .any(|w| w == ["--source", "Documents/c.toml"]),
        "{last:?}"
    );
    std::fs::remove_file(local).unwrap();
    // No app named, a path leaving the container: refused before devicectl runs.
    let before = devicectl_calls(&fakes).len();
    for bad in [
        json!({"udid": PHONE, "local_path": "Cargo.toml", "device_path": "/Documents/c.toml"}),
        json!({"udid": PHONE, "local_path": "Cargo.toml", "device_path": "/../../etc/x",
               "bundle_id": "com.example.app"}),
    ] {
        let (status, v) = call(&app, post("/api/v1/device/files/push", bad.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {v}");
    }
    assert_eq!(devicectl_calls(&fakes).len(), before);
}
