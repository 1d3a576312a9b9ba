//! Device listing, the active device, boot and shutdown — against fake `adb`, `xcrun` and
//! `emulator` executables replaying recorded real outputs, and against the real `adb` with no
//! device attached.

use crate::common;

use axum::http::StatusCode;
use common::*;
use mobilectl::backend::BackendConfig;
use mobilectl::exec::{Tool, Toolbox};

const XIAOMI: &str = "android_misc/adb_devices_l_xiaomi.txt";
const MOTO_PROPS: &str = "android_misc/getprop_motorola_edge20_android13.txt";
const IPHONE14: &str = "5C29B0CE-58B0-4273-A0F5-2A826D0AB379";
const SIMS_XCODE15: &str =
    "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json";

#[tokio::test]
async fn lists_android_from_recorded_adb_output() {
    let fakes = FakeTools::new();
    let adb = fake_adb(&fakes, XIAOMI, MOTO_PROPS);
    let app = app_with(toolbox(&[(Tool::Adb, &adb)]), loopback_policy());
    let (status, body) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let devices = body["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1);
    let d = &devices[0];
    assert_eq!(d["udid"], "6563c026");
    assert_eq!(d["platform"], "android");
    assert_eq!(d["kind"], "device");
    assert_eq!(d["state"], "online");
    assert_eq!(d["name"], "motorola edge 20");
    assert_eq!(d["os_version"], "13");
    assert_eq!(d["api_level"], 33);
    assert_eq!(body["tools"]["android"]["available"], true);
    assert_eq!(body["tools"]["ios"]["available"], false);
    assert!(body["tools"]["ios"]["hint"]
        .as_str()
        .unwrap()
        .contains("Xcode"));
    // One listing plus exactly one round trip per online device.
    let calls = fakes.calls("adb");
    assert_eq!(calls[0], ["devices", "-l"]);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[1][..3], ["-s", "6563c026", "shell"]);
}

#[tokio::test]
async fn lists_ios_simulators_from_recorded_simctl_output() {
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun(&fakes, SIMS_XCODE15);
    let app = app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), loopback_policy());
    let (status, body) = call(&app, get("/api/v1/device/list?platform=ios")).await;
    assert_eq!(status, StatusCode::OK);
    let devices = body["devices"].as_array().unwrap();
    let raw = std::fs::read_to_string(fixture(SIMS_XCODE15)).unwrap();
    assert_eq!(devices.len(), raw.matches("\"udid\"").count());
    let iphone15 = devices
        .iter()
        .find(|d| d["udid"] == "13094867-A44C-4F41-8D5A-4C54E4365C82")
        .unwrap();
    assert_eq!(iphone15["name"], "iPhone 15");
    assert_eq!(iphone15["os_version"], "iOS 17.4");
    assert_eq!(iphone15["kind"], "simulator");
    assert_eq!(body["tools"]["android"]["available"], false);
    // One simctl listing; xcrun also runs devicectl, for physical iPhones (the WDA backend).
    let simctl: Vec<Vec<String>> = fakes
        .calls("xcrun")
        .into_iter()
        .filter(|c| c[0] == "simctl")
        .collect();
    assert_eq!(simctl, [["simctl", "list", "devices", "available", "-j"]]);
}

#[tokio::test]
async fn filters_by_platform_and_state() {
    let fakes = FakeTools::new();
    let adb = fake_adb(&fakes, XIAOMI, MOTO_PROPS);
    let xcrun = fake_xcrun(&fakes, SIMS_XCODE15);
    let app = app_with(
        toolbox(&[(Tool::Adb, &adb), (Tool::Xcrun, &xcrun)]),
        loopback_policy(),
    );
    let (_, all) = call(&app, get("/api/v1/device/list")).await;
    let (_, android) = call(&app, get("/api/v1/device/list?platform=android")).await;
    let (_, booted) = call(&app, get("/api/v1/device/list?state=booted")).await;
    let all = all["devices"].as_array().unwrap();
    assert!(all.len() > 2);
    assert_eq!(android["devices"].as_array().unwrap().len(), 1);
    let booted: Vec<_> = booted["devices"].as_array().unwrap().iter().collect();
    let expected = all.iter().filter(|d| d["state"] == "booted").count();
    assert_eq!(booted.len(), expected);
    assert!(booted.iter().all(|d| d["state"] == "booted"));
}

#[tokio::test]
async fn active_device_can_be_set_read_and_cleared() {
    let fakes = FakeTools::new();
    let adb = fake_adb(&fakes, XIAOMI, MOTO_PROPS);
    let xcrun = fake_xcrun(&fakes, SIMS_XCODE15);
    let app = app_with(
        toolbox(&[(Tool::Adb, &adb), (Tool::Xcrun, &xcrun)]),
        loopback_policy(),
    );
    let (_, body) = call(&app, get("/api/v1/device/active")).await;
    assert!(body["udid"].is_null());
    let (status, body) = call(
        &app,
        send_json("PUT", "/api/v1/device/active", r#"{"udid": "iPhone 14"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["udid"], IPHONE14);
    let (_, body) = call(&app, get("/api/v1/device/active")).await;
    assert_eq!(body["device"]["name"], "iPhone 14");
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(list["active"], IPHONE14);
    // The recorded listing has two simulators named "iPhone 15" (two runtimes): a name is
    // not enough there.
    let (status, body) = call(
        &app,
        send_json("PUT", "/api/v1/device/active", r#"{"udid": "iPhone 15"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(error_code(&body), "AMBIGUOUS_DEVICE");
    assert_eq!(
        body["error"]["details"]["candidates"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let (status, _) = call(
        &app,
        send_json("PUT", "/api/v1/device/active", r#"{"udid": null}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, body) = call(&app, get("/api/v1/device/active")).await;
    assert!(body["udid"].is_null());
    let (status, body) = call(
        &app,
        send_json("PUT", "/api/v1/device/active", r#"{"udid": "nope"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(error_code(&body), "NO_DEVICE");
}

#[tokio::test]
async fn boot_simulator_by_name_calls_simctl_boot_with_its_udid() {
    let fakes = FakeTools::new();
    let list = fixture(SIMS_XCODE15);
    let xcrun = fakes.add(
        "xcrun",
        &format!(
            r#"case "$1 $2" in
  "simctl list") cat '{}' ;;
  "simctl boot") exit 0 ;;
  *) exit 1 ;;
esac"#,
            list.display()
        ),
    );
    let app = app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), loopback_policy());
    let (status, body) = call(
        &app,
        send_json("POST", "/api/v1/device/boot", r#"{"udid": "iPhone 14"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let calls = fakes.calls("xcrun");
    assert!(calls.contains(&vec!["simctl".to_string(), "boot".into(), IPHONE14.into()]));
}

#[tokio::test]
async fn boot_failure_carries_the_tools_words() {
    let fakes = FakeTools::new();
    let list = fixture(SIMS_XCODE15);
    let stderr = fixture("ios_simctl/simctl_launch_not_installed_stderr.txt");
    let xcrun = fakes.add(
        "xcrun",
        &format!(
            r#"case "$1 $2" in
  "simctl list") cat '{}' ;;
  *) cat '{}' >&2; exit 4 ;;
esac"#,
            list.display(),
            stderr.display()
        ),
    );
    let app = app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), loopback_policy());
    let (status, body) = call(
        &app,
        send_json("POST", "/api/v1/device/boot", r#"{"udid": "iPhone 14"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(error_code(&body), "COMMAND_FAILED");
    let recorded = std::fs::read_to_string(&stderr).unwrap();
    assert_eq!(body["error"]["details"]["stderr"], recorded.as_str());
    assert_eq!(body["error"]["details"]["exit_code"], 4);
}

#[tokio::test]
async fn boot_android_without_emulator_binary_is_503_tool_missing() {
    let (status, body) = call(
        &bare_app(),
        send_json(
            "POST",
            "/api/v1/device/boot",
            r#"{"avd": "Pixel_7_API_34"}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(error_code(&body), "TOOL_MISSING");
    assert!(body["error"]["hint"].as_str().unwrap().contains("emulator"));
}

#[tokio::test]
async fn boot_by_name_with_a_backend_that_cannot_list_is_503_with_its_hint() {
    let fakes = FakeTools::new();
    let adb = fake_adb(&fakes, XIAOMI, MOTO_PROPS);
    let app = app_with(toolbox(&[(Tool::Adb, &adb)]), loopback_policy());
    let (status, body) = call(
        &app,
        send_json("POST", "/api/v1/device/boot", r#"{"udid": "iPhone 15"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(error_code(&body), "TOOL_MISSING");
    assert!(body["error"]["message"].as_str().unwrap().contains("ios"));
    assert!(body["error"]["hint"].as_str().unwrap().contains("Xcode"));
    // A listed Android phone is running already: emulators boot by AVD name.
    let (status, body) = call(
        &app,
        send_json("POST", "/api/v1/device/boot", r#"{"udid": "6563c026"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert!(body["error"]["hint"].as_str().unwrap().contains("avd"));
}

#[tokio::test]
async fn boot_android_starts_the_emulator_detached() {
    let fakes = FakeTools::new();
    let emulator = fakes.add(
        "emulator",
        r#"case "$1" in -list-avds) echo Pixel_7_API_34; echo Tablet_API_30 ;; esac"#,
    );
    let adb = fakes.add("adb", r#"echo "List of devices attached""#);
    let app = app_with(
        toolbox(&[(Tool::Emulator, &emulator), (Tool::Adb, &adb)]),
        loopback_policy(),
    );
    let (status, body) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/boot",
            r#"{"avd": "Tablet_API_30", "wait": false}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["state"], "booting");
    // The detached emulator logs its argv asynchronously: wait (bounded) for it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while fakes.calls("emulator").len() < 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        fakes.calls("emulator"),
        [
            vec!["-list-avds"],
            vec!["-avd", "Tablet_API_30", "-no-boot-anim"]
        ]
    );

    let (status, body) = call(
        &app,
        send_json("POST", "/api/v1/device/boot", r#"{"avd": "Nope"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["details"]["available"][1], "Tablet_API_30");
    let (status, _) = call(
        &app,
        send_json("POST", "/api/v1/device/boot", r#"{"avd": "-wipe-data"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn shutdown_of_a_physical_phone_is_501() {
    let fakes = FakeTools::new();
    let adb = fake_adb(&fakes, XIAOMI, MOTO_PROPS);
    let app = app_with(toolbox(&[(Tool::Adb, &adb)]), loopback_policy());
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/shutdown", "{}")).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM");
}

#[tokio::test]
async fn two_ready_devices_and_no_choice_is_409_with_candidates() {
    let fakes = FakeTools::new();
    let adb = fake_adb(&fakes, XIAOMI, MOTO_PROPS);
    let xcrun = fake_xcrun(&fakes, SIMS_XCODE15);
    let app = app_with(
        toolbox(&[(Tool::Adb, &adb), (Tool::Xcrun, &xcrun)]),
        loopback_policy(),
    );
    let (_, list) = call(&app, get("/api/v1/device/list?state=booted")).await;
    assert!(
        !list["devices"].as_array().unwrap().is_empty(),
        "the recorded Xcode 15 listing has a booted simulator"
    );
    let (status, body) = call(&app, send_json("POST", "/api/v1/device/shutdown", "{}")).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "AMBIGUOUS_DEVICE");
    assert!(
        body["error"]["details"]["candidates"]
            .as_array()
            .unwrap()
            .len()
            >= 2
    );
}

/// The real adb, with a private adb server, and nothing attached: an empty list, no error.
#[tokio::test]
async fn real_adb_with_no_device_lists_nothing() {
    let Some(adb) = Tool::Adb.resolve() else {
        panic!("adb must be installed for the tests (the README's test command installs it)");
    };
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let app = app_with_config(
        BackendConfig {
            tools: Toolbox::with([(Tool::Adb, adb.clone())]),
            adb_server_port: Some(port),
            ..Default::default()
        },
        loopback_policy(),
    );
    let (status, body) = call(&app, get("/api/v1/device/list")).await;
    let _ = std::process::Command::new(&adb)
        .args(["-P", &port.to_string(), "kill-server"])
        .output();
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["devices"].as_array().unwrap().len(), 0);
    assert_eq!(body["tools"]["android"]["available"], true);
}

#[tokio::test]
async fn reads_naming_a_device_leave_the_active_device_alone_actions_choose_it() {
    let fakes = FakeTools::new();
    let adb = fake_adb(&fakes, XIAOMI, MOTO_PROPS);
    let xcrun = fake_xcrun(&fakes, SIMS_XCODE15);
    let app = app_with(
        toolbox(&[(Tool::Adb, &adb), (Tool::Xcrun, &xcrun)]),
        loopback_policy(),
    );
    let (_, booted) = call(&app, get("/api/v1/device/list?state=booted&platform=ios")).await;
    let sim = booted["devices"][0]["udid"].as_str().unwrap().to_string();
    // A read that names a device (it fails later: the fake has no app list) does not choose it.
    let _ = call(&app, get(&format!("/api/v1/device/app/list?udid={sim}"))).await;
    let (_, active) = call(&app, get("/api/v1/device/active")).await;
    assert_eq!(active["udid"], serde_json::Value::Null, "{active}");
    // An action that names it does.
    let _ = call(
        &app,
        post(
            "/api/v1/device/app/terminate",
            serde_json::json!({"udid": sim, "bundle_id": "com.example.app"}),
        ),
    )
    .await;
    let (_, active) = call(&app, get("/api/v1/device/active")).await;
    assert_eq!(active["udid"], sim.as_str(), "{active}");
}
