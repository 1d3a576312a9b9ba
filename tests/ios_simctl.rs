//! iOS Simulator device, app and system routes against a fake `xcrun` that replays recorded
//! real simctl outputs (`fixtures/ios_simctl/`) and logs the argv it receives.

use crate::common;

use axum::http::StatusCode;
use common::*;
use http_body_util::BodyExt;
use mobilectl::exec::Tool;
use serde_json::json;
use tower::ServiceExt;

const SIMS: &str =
    "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json";
/// The one booted simulator of that listing (iPhone 15 Pro, iOS 17.5).
const UDID: &str = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
const USER_APP: &str = "dev.devicehubpro.fixture.apps";

fn app_with_xcrun(fakes: &FakeTools, arms: &str) -> axum::Router {
    let xcrun = fake_xcrun_with(fakes, SIMS, arms);
    app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), loopback_policy())
}

fn sim(args: &[&str]) -> Vec<String> {
    std::iter::once("simctl")
        .chain(args.iter().copied())
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn lists_apps_from_the_recorded_listapps_plist() {
    let fakes = FakeTools::new();
    let listapps = fixture("ios_simctl/simctl_listapps_xcode27_ios27_40apps_with_user_app.txt");
    let app = app_with_xcrun(
        &fakes,
        &format!(
            "  \"simctl listapps {UDID}\") cat '{}' ;;",
            listapps.display()
        ),
    );
    let (status, body) = call(&app, get("/api/v1/device/app/list")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let apps = body["apps"].as_array().unwrap();
    assert_eq!(apps.len(), 40);
    assert_eq!(apps[0]["bundle_id"], USER_APP);
    assert_eq!(apps[0]["name"], "AQA Fixture");
    assert_eq!(apps[0]["version"], "1.2");
    assert_eq!(apps[0]["kind"], "user");
    assert_eq!(body["device"]["udid"], UDID);
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [sim(&["listapps", UDID])]
    );
}

#[tokio::test]
async fn launches_with_arguments_and_relaunch_and_reports_the_pid() {
    let fakes = FakeTools::new();
    let out = fixture("ios_simctl/simctl_launch_user_app_stdout.txt");
    let app = app_with_xcrun(
        &fakes,
        &format!("  \"simctl launch \"*) cat '{}' ;;", out.display()),
    );
    let body = format!(
        r#"{{"bundle_id": "{USER_APP}", "arguments": ["-AppleLanguages", "(fr)"], "relaunch": true}}"#
    );
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/app/launch", &body)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["pid"], 20645);
    assert_eq!(body["bundle_id"], USER_APP);
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [sim(&[
            "launch",
            "--terminate-running-process",
            UDID,
            USER_APP,
            "-AppleLanguages",
            "(fr)"
        ])]
    );
}

/// Named launch values become launch arguments as Maestro passes them (`-key value`, a
/// boolean as `key true`), after the raw arguments; `clear_keychain` resets the keychain first.
#[tokio::test]
async fn launch_values_become_user_defaults_arguments_after_a_keychain_reset() {
    let fakes = FakeTools::new();
    let out = fixture("ios_simctl/simctl_launch_user_app_stdout.txt");
    let app = app_with_xcrun(
        &fakes,
        &format!(
            "  \"simctl keychain {UDID} reset\") ;;\n  \"simctl launch \"*) cat '{}' ;;",
            out.display()
        ),
    );
    let body = json!({
        "bundle_id": USER_APP,
        "arguments": ["-AppleLanguages", "(fr)"],
        "extras": {"user": "ada lovelace", "onboarded": false, "ratio": 1.5},
        "clear_keychain": true
    });
    let (status, body) = call(&app, post("/api/v1/device/app/launch", body)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [
            sim(&["keychain", UDID, "reset"]),
            sim(&[
                "launch",
                UDID,
                USER_APP,
                "-AppleLanguages",
                "(fr)",
                "onboarded",
                "false",
                "-ratio",
                "1.5",
                "-user",
                "ada lovelace"
            ])
        ]
    );
}

#[tokio::test]
async fn launch_of_an_app_that_is_not_installed_is_not_found() {
    let fakes = FakeTools::new();
    let err = fixture("ios_simctl/simctl_launch_not_installed_stderr.txt");
    let app = app_with_xcrun(
        &fakes,
        &format!(
            "  \"simctl launch \"*) cat '{}' >&2; exit 4 ;;\n  \"simctl get_app_container \"*) exit 2 ;;",
            err.display()
        ),
    );
    let body = format!(r#"{{"bundle_id": "{USER_APP}"}}"#);
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/app/launch", &body)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(error_code(&body), "NOT_FOUND");
    assert!(body["error"]["details"]["stderr"]
        .as_str()
        .unwrap()
        .contains("FBSOpenApplicationServiceErrorDomain"));
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [
            sim(&["launch", UDID, USER_APP]),
            sim(&["get_app_container", UDID, USER_APP])
        ]
    );
}

#[tokio::test]
async fn launch_failure_of_an_installed_app_carries_simctl_words() {
    let fakes = FakeTools::new();
    let err = fixture("ios_simctl/simctl_launch_not_installed_stderr.txt");
    let container = fixture("ios_simctl/simctl_get_app_container_data_path.txt");
    let app = app_with_xcrun(
        &fakes,
        &format!(
            "  \"simctl launch \"*) cat '{}' >&2; exit 4 ;;\n  \"simctl get_app_container \"*) cat '{}' ;;",
            err.display(),
            container.display()
        ),
    );
    let body = format!(r#"{{"bundle_id": "{USER_APP}"}}"#);
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/app/launch", &body)).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(error_code(&body), "COMMAND_FAILED");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("An error was encountered processing the command"));
}

#[tokio::test]
async fn installs_terminates_and_opens_urls() {
    let fakes = FakeTools::new();
    let app = app_with_xcrun(
        &fakes,
        "  \"simctl install \"*|\"simctl terminate \"*|\"simctl openurl \"*) exit 0 ;;",
    );
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("AQAAppsFixture.app");
    std::fs::create_dir(&bundle).unwrap();
    let req = format!(r#"{{"path": "{}"}}"#, bundle.display());
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/app/install", &req)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let req = format!(r#"{{"bundle_id": "{USER_APP}"}}"#);
    let (status, _) = call(
        &app,
        send_json("POST", "/api/v1/device/app/terminate", &req),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let req = r#"{"url": "https://example.com/a?b=c"}"#;
    let (status, _) = call(&app, send_json("POST", "/api/v1/device/open-url", req)).await;
    assert_eq!(status, StatusCode::OK);
    let shown = bundle.display().to_string();
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [
            sim(&["install", UDID, &shown]),
            sim(&["terminate", UDID, USER_APP]),
            sim(&["openurl", UDID, "https://example.com/a?b=c"]),
        ]
    );
}

#[tokio::test]
async fn reset_is_not_offered_on_simulators_and_runs_nothing() {
    let fakes = FakeTools::new();
    let app = app_with_xcrun(&fakes, "");
    let req = format!(r#"{{"bundle_id": "{USER_APP}"}}"#);
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/app/reset", &req)).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM");
    assert!(body["error"]["hint"].as_str().unwrap().contains("erase"));
    assert!(calls_except_list(&fakes, "xcrun").is_empty());
}

#[tokio::test]
async fn screenshot_is_the_png_simctl_wrote() {
    let fakes = FakeTools::new();
    let png_path = fakes.dir.path().join("generated.png");
    image::RgbaImage::from_pixel(39, 85, image::Rgba([10, 20, 30, 255]))
        .save(&png_path)
        .unwrap();
    let app = app_with_xcrun(
        &fakes,
        &format!(
            "  \"simctl io \"*) for a in \"$@\"; do last=$a; done; cp '{}' \"$last\" ;;",
            png_path.display()
        ),
    );
    let res = app
        .clone()
        .oneshot(get("/api/v1/device/screenshot"))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "image/png");
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(bytes.as_ref(), std::fs::read(&png_path).unwrap());
    let calls = calls_except_list(&fakes, "xcrun");
    assert_eq!(calls.len(), 1);
    assert_eq!(
        calls[0][..5],
        sim(&["io", UDID, "screenshot", "--type=png"])
    );
    assert!(calls[0][5].ends_with("screen.png"));
}

#[tokio::test]
async fn screenshot_without_an_image_is_command_failed() {
    let fakes = FakeTools::new();
    let app = app_with_xcrun(&fakes, "  \"simctl io \"*) exit 0 ;;");
    let (status, body) = call(&app, get("/api/v1/device/screenshot")).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(error_code(&body), "COMMAND_FAILED");
}

#[tokio::test]
async fn location_and_privacy() {
    let fakes = FakeTools::new();
    let app = app_with_xcrun(
        &fakes,
        "  \"simctl location \"*|\"simctl privacy \"*) exit 0 ;;",
    );
    let req = r#"{"latitude": 48.8584, "longitude": -2.2945}"#;
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/location", req)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = call(
        &app,
        send_json("POST", "/api/v1/device/location", r#"{"clear": true}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    for action in ["grant", "revoke", "reset"] {
        let req = format!(
            r#"{{"bundle_id": "{USER_APP}", "permission": "photos", "action": "{action}"}}"#
        );
        let (status, body) = call(&app, send_json("POST", "/api/v1/device/permission", &req)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [
            sim(&["location", UDID, "set", "48.8584,-2.2945"]),
            sim(&["location", UDID, "clear"]),
            sim(&["privacy", UDID, "grant", "photos", USER_APP]),
            sim(&["privacy", UDID, "revoke", "photos", USER_APP]),
            sim(&["privacy", UDID, "reset", "photos", USER_APP]),
        ]
    );
}

#[tokio::test]
async fn status_bar_override_and_clear() {
    let fakes = FakeTools::new();
    let app = app_with_xcrun(&fakes, "  \"simctl status_bar \"*) exit 0 ;;");
    let req = r#"{"time": "9:41", "battery_level": 100, "battery_state": "charged",
        "wifi_bars": 3, "cellular_bars": 4, "data_network": "5g", "operator_name": "Carrier"}"#;
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/status-bar", req)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = call(
        &app,
        send_json("POST", "/api/v1/device/status-bar", r#"{"clear": true}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [
            sim(&[
                "status_bar",
                UDID,
                "override",
                "--time",
                "9:41",
                "--batteryLevel",
                "100",
                "--batteryState",
                "charged",
                "--wifiBars",
                "3",
                "--cellularBars",
                "4",
                "--dataNetwork",
                "5g",
                "--operatorName",
                "Carrier"
            ]),
            sim(&["status_bar", UDID, "clear"]),
        ]
    );
}

#[tokio::test]
async fn status_bar_values_are_validated_before_any_command() {
    let fakes = FakeTools::new();
    let app = app_with_xcrun(&fakes, "  \"simctl status_bar \"*) exit 0 ;;");
    for req in [
        r#"{"battery_level": 101}"#,
        r#"{"wifi_bars": 4}"#,
        r#"{"time": "--help"}"#,
        r#"{}"#,
        r#"{"clear": true, "time": "9:41"}"#,
    ] {
        let (status, body) = call(&app, send_json("POST", "/api/v1/device/status-bar", req)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{req}: {body}");
    }
    assert!(calls_except_list(&fakes, "xcrun").is_empty());
}

#[tokio::test]
async fn erasing_a_booted_simulator_shuts_it_down_erases_and_boots_it() {
    let fakes = FakeTools::new();
    let app = app_with_xcrun(
        &fakes,
        "  \"simctl shutdown \"*|\"simctl erase \"*|\"simctl boot \"*) exit 0 ;;",
    );
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/erase", "{}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["device"]["udid"], UDID);
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [
            sim(&["shutdown", UDID]),
            sim(&["erase", UDID]),
            sim(&["boot", UDID])
        ]
    );
}

#[tokio::test]
async fn erasing_a_shut_down_simulator_only_erases_it() {
    let fakes = FakeTools::new();
    let app = app_with_xcrun(&fakes, "  \"simctl erase \"*) exit 0 ;;");
    let req = r#"{"udid": "5C29B0CE-58B0-4273-A0F5-2A826D0AB379"}"#;
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/erase", req)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [sim(&["erase", "5C29B0CE-58B0-4273-A0F5-2A826D0AB379"])]
    );
}

#[tokio::test]
async fn erase_and_status_bar_are_501_on_android() {
    let fakes = FakeTools::new();
    let adb = fake_adb(
        &fakes,
        "android_misc/adb_devices_l_xiaomi.txt",
        "android_misc/getprop_motorola_edge20_android13.txt",
    );
    let app = app_with(toolbox(&[(Tool::Adb, &adb)]), loopback_policy());
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/erase", "{}")).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM");
    let req = r#"{"time": "9:41"}"#;
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/status-bar", req)).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
}

#[tokio::test]
async fn app_routes_work_without_any_ui_tool() {
    // Neither AXe nor idb in the toolbox: device and app routes are unaffected.
    let fakes = FakeTools::new();
    let app = app_with_xcrun(&fakes, "  \"simctl openurl \"*) exit 0 ;;");
    let req = r#"{"url": "myapp://home"}"#;
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/open-url", req)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}
