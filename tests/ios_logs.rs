//! iOS Simulator logs and crash reports through fake tools: `xcrun` replays the recorded
//! `log stream --style ndjson` output (history and live, read once each: the second read is
//! recognised as already seen) and the recorded `simctl listapps`; crash reports are recorded
//! `.crash`/`.ips` files in the folders the host and the simulator keep them in.

// They drive the virtual Android device and stand-in tools written as shell scripts: Unix
// hosts only. On Windows the product's own unit tests run; these are compiled out.
#![cfg(unix)]

mod common;

use std::path::PathBuf;

use axum::http::StatusCode;
use common::*;
use mobilectl::exec::Tool;
use serde_json::json;

const UDID: &str = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
const SIMS: &str =
    "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json";
const NDJSON: &str = "ios_logs/ios_sim_log_stream_ndjson_coreauthd_ios27.ndjson";

fn xcrun(fakes: &FakeTools) -> PathBuf {
    let list = fixture(SIMS);
    let apps = fixture("ios_simctl/simctl_listapps_xcode27_ios27_40apps_with_user_app.txt");
    let ndjson = fixture(NDJSON);
    fakes.add(
        "xcrun",
        &format!(
            r#"case "$*" in
  "simctl list devices available -j") cat '{list}' ;;
  "simctl listapps {UDID}") cat '{apps}' ;;
  "simctl spawn {UDID} log show --style ndjson --last 300s") cat '{ndjson}' ;;
  "simctl spawn {UDID} log stream --style ndjson --level info") cat '{ndjson}'; exec sleep 60 ;;
  "simctl spawn {UDID} log show --style ndjson --start "*) cat '{ndjson}' ;;
  *) echo "fake xcrun: unexpected $*" >&2; exit 1 ;;
esac"#,
            list = list.display(),
            apps = apps.display(),
            ndjson = ndjson.display(),
        ),
    )
}

fn copy(rel: &str, to: &std::path::Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(fixture(rel), to).unwrap();
}

// One test: the report folders are process-wide settings (environment variables).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulator_logs_and_crash_reports() {
    let reports = tempfile::tempdir().unwrap();
    let host = reports.path().join("host");
    let devices = reports.path().join("Devices");
    // The host's folder: another simulator's crash (its UDID says so), an unattributed one
    // from a simulator, a Mac test runner's report naming another simulator.
    copy(
        "ios_logs/sim_app_tablesearch.crash",
        &host.join("TableSearch.crash"),
    );
    copy(
        "ios_logs/sim_webdriveragent.crash",
        &host.join("WebDriverAgent.crash"),
    );
    copy(
        "ios_logs/xctest_concatenated_json.ips",
        &host.join("xctest.ips"),
    );
    std::fs::write(host.join("notes.txt"), "not a report").unwrap();
    // The simulator's own folder.
    copy(
        "ios_logs/sim_assetsd_system_daemon.crash",
        &devices
            .join(UDID)
            .join("data/Library/Logs/DiagnosticReports/assetsd.crash"),
    );
    std::env::set_var("MOBILECTL_DIAGNOSTIC_REPORTS", &host);
    std::env::set_var("MOBILECTL_SIMULATOR_DEVICES", &devices);
    // `log show --start` takes the host's local time: make it UTC here.
    std::env::set_var("TZ", "UTC");

    let fakes = FakeTools::new();
    let x = xcrun(&fakes);
    let tree = fixture("ios_axe/axe_describe_ui_tuist_app_trimmed_393x852.json");
    let axe = fakes.add(
        "axe",
        &format!(
            "case \"$*\" in\n  *describe*) cat '{}' ;;\n  *) exit 0 ;;\nesac",
            tree.display()
        ),
    );
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &x), (Tool::Axe, &axe)]),
        loopback_policy(),
    );

    let (status, page) = call(&app, get(&format!("/api/v1/logs?udid={UDID}"))).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let entries = page["entries"].as_array().unwrap();
    assert_eq!(
        entries.len(),
        2,
        "history and stream hold the same two lines: {page}"
    );
    assert_eq!(
        entries[0]["message"],
        "Will post com.apple.LocalAuthentication.ui.presented"
    );
    assert_eq!(
        entries[0]["tag"],
        "com.apple.LocalAuthentication:Notifications"
    );
    assert_eq!(entries[0]["pid"], 40513);
    assert_eq!(entries[0]["level"], "I");
    let calls = fakes.calls("xcrun");
    assert!(
        calls
            .iter()
            .any(|c| c.len() > 4 && c[..4] == ["simctl", "spawn", UDID, "log"] && c[4] == "show"),
        "{calls:?}"
    );
    let stream_started =
        virtual_device::testing::wait_until(std::time::Duration::from_secs(10), || {
            fakes
                .calls("xcrun")
                .iter()
                .any(|c| c.len() > 4 && c[4] == "stream")
        });
    assert!(stream_started);
    let (_, again) = call(&app, get(&format!("/api/v1/logs?udid={UDID}"))).await;
    assert_eq!(again["entries"].as_array().unwrap().len(), 2, "{again}");
    // An app's lines since before the ring begins: its history, the app as the predicate.
    let (status, _) = call(
        &app,
        get(&format!(
            "/api/v1/logs?udid={UDID}&app=com.example.app&since=2026-10-05T18:00:00Z"
        )),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let show = fakes
        .calls("xcrun")
        .into_iter()
        .find(|c| c.iter().any(|a| a == "--predicate"))
        .expect("a history read for the app");
    assert_eq!(
        show[7..9],
        ["--start".to_string(), "2026-10-05 18:00:00".into()]
    );
    assert_eq!(show.last().unwrap(), "subsystem == \"com.example.app\"");

    let (status, list) = call(&app, get(&format!("/api/v1/logs/crashes?udid={UDID}"))).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let crashes = list["crashes"].as_array().unwrap();
    let processes: Vec<&str> = crashes
        .iter()
        .map(|c| c["process"].as_str().unwrap())
        .collect();
    assert_eq!(
        processes,
        ["assetsd", "WebDriverAgent"],
        "newest first, this simulator's only: {list}"
    );
    let assetsd = &crashes[0];
    assert_eq!(assetsd["kind"], "ios_crash");
    assert_eq!(assetsd["source"], "crash_report");
    assert_eq!(assetsd["exception"], "NSInternalInconsistencyException");
    let id = assetsd["id"].as_str().unwrap();
    let (status, one) = call(&app, get(&format!("/api/v1/logs/crashes/{id}?udid={UDID}"))).await;
    assert_eq!(status, StatusCode::OK, "{one}");
    assert!(one["crash"]["text"]
        .as_str()
        .unwrap()
        .starts_with("Process:               assetsd"));
    let (_, old) = call(
        &app,
        get(&format!("/api/v1/logs/crashes?udid={UDID}&since=1h")),
    )
    .await;
    assert!(
        old["crashes"].as_array().unwrap().is_empty(),
        "the reports are from 2016: {old}"
    );

    // An observing action looks for new reports; those older than it are not its fault.
    let before = std::fs::read_dir(&host).unwrap().count();
    let (status, res) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({"udid": UDID, "x": 10, "y": 10, "observe": true}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{res}");
    assert_eq!(res["success"], true, "{res}");
    assert!(res["details"].get("crash").is_none(), "{res}");
    assert_eq!(std::fs::read_dir(&host).unwrap().count(), before);
}
