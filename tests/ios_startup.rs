//! An iOS Simulator launch timed to the app's first screen: fake `xcrun` (the recorded listing,
//! the recorded `simctl listapps` naming the app) and a fake UI tool whose reads replay a
//! recorded tree without the app (the home screen, another app) for the first reads of each
//! launch and the app's recorded screen after, each read stamped with the clock.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::*;
use mobilectl::backend::ios::{SimctlBackend, POLL_INTERVAL};
use mobilectl::backend::Apps;
use mobilectl::device::{Device, LaunchOptions};
use mobilectl::exec::Tool;
use serde_json::{json, Value};

const SIMS: &str =
    "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json";
const UDID: &str = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
const LISTAPPS: &str = "ios_simctl/simctl_listapps_xcode27_ios27_40apps_with_user_app.txt";
/// Listed as `Contacts` in that listapps.
const CONTACTS: &str = "com.apple.MobileAddressBook";
const IDB_HOME: &str = "ios_idb/idb_describe_all_json_springboard_home_iphone_430x932_ios18.4.json";
const IDB_CONTACTS: &str = "ios_idb/idb_describe_all_trimmed_contacts_393x852.json";
const AXE_TUIST: &str = "ios_axe/axe_describe_ui_tuist_app_trimmed_393x852.json";
const AXE_CONTACTS: &str =
    "ios_axe/axe_describe_ui_contacts_search_subtree_ios18.5_axe1.8_reformatted.json";

/// Fakes of one test: the reads of each launch count in `count` (reset by `simctl launch`),
/// and each read's start is stamped in ns in `stamps`.
struct Fakes {
    tools: FakeTools,
    count: PathBuf,
    stamps: PathBuf,
}

impl Fakes {
    fn new() -> Self {
        let tools = FakeTools::new();
        let count = tools.dir.path().join("reads");
        let stamps = tools.dir.path().join("stamps");
        Fakes {
            tools,
            count,
            stamps,
        }
    }

    /// `xcrun`: the recorded listing and listapps; `simctl launch` starts a new count of reads
    /// and prints what `launch_stdout` holds (nothing: no pid).
    fn xcrun(&self, launch_stdout: Option<&Path>) -> PathBuf {
        let print = launch_stdout.map_or(String::new(), |p| format!("; cat '{}'", p.display()));
        fake_xcrun_with(
            &self.tools,
            SIMS,
            &format!(
                "  \"simctl listapps {UDID}\") cat '{}' ;;\n  \"simctl launch \"*) rm -f '{}'{print} ;;",
                fixture(LISTAPPS).display(),
                self.count.display()
            ),
        )
    }

    /// A UI tool whose first `before_reads` reads of a launch print `before`, later ones
    /// `after` (`None`: the read hangs).
    fn ui(&self, name: &str, before_reads: u32, before: &str, after: Option<&str>) -> PathBuf {
        let after = match after {
            Some(a) => format!("cat '{}'", fixture(a).display()),
            None => "sleep 30".into(),
        };
        self.tools.add(
            name,
            &format!(
                "date +%s%N >> '{stamps}'\n\
                 n=$(cat '{count}' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '{count}'\n\
                 if [ $n -le {before_reads} ]; then cat '{before}'; else {after}; fi",
                stamps = self.stamps.display(),
                count = self.count.display(),
                before = fixture(before).display(),
            ),
        )
    }

    /// The start of each read, ns.
    fn stamps(&self) -> Vec<u128> {
        std::fs::read_to_string(&self.stamps)
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect()
    }
}

fn ms_between(from: u128, to: u128) -> u64 {
    ((to - from) / 1_000_000) as u64
}

/// Launch options that ask for the start to be timed (as `measure` or `repeat` do).
fn timed() -> LaunchOptions {
    LaunchOptions {
        time_first_screen: true,
        ..LaunchOptions::default()
    }
}

/// A server on the fakes whose UI reads show the home screen three times, then Contacts (idb,
/// flat).
fn home_then_contacts(fakes: &Fakes) -> axum::Router {
    let xcrun = fakes.xcrun(None);
    let idb = fakes.ui("idb", 3, IDB_HOME, Some(IDB_CONTACTS));
    app_with(
        toolbox(&[(Tool::Xcrun, &xcrun), (Tool::Idb, &idb)]),
        loopback_policy(),
    )
}

fn launch_calls(fakes: &Fakes) -> usize {
    calls_except_list(&fakes.tools, "xcrun")
        .iter()
        .filter(|c| c[1] == "launch")
        .count()
}

#[tokio::test]
async fn the_first_screen_is_timed_from_the_launch_to_the_read_that_shows_the_app() {
    let fakes = Fakes::new();
    let app = home_then_contacts(&fakes);
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            // `repeat` asks for the start to be timed (as `measure` does, which also samples
            // the app's process).
            json!({"bundle_id": CONTACTS, "repeat": 1}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let m = &body["startup"];
    assert_eq!(m["measured_by"], "mobilectl", "{body}");
    assert_eq!(
        (m["status"].as_str(), m["complete"].as_bool()),
        (Some("ok"), Some(true))
    );
    let total = m["total_time_ms"].as_u64().unwrap();
    assert_eq!(body["launch_time_ms"], total);
    // Every read was the tool's `describe-all`; the fourth showed the app.
    let reads = fakes.tools.calls("idb");
    assert_eq!(reads.len(), 4);
    assert!(reads
        .iter()
        .all(|c| c == &["ui", "describe-all", "--json", "--udid", UDID]));
    assert_eq!(m["reads"], 4);
    // The measure holds every read up to the one that showed the app, and the pauses between.
    let stamps = fakes.stamps();
    assert!(
        total >= ms_between(stamps[0], stamps[3]),
        "{total} ms, {stamps:?}"
    );
    assert!(total >= 3 * POLL_INTERVAL.as_millis() as u64, "{total} ms");
    // The screen came after the start of the third read, which did not show it.
    let earliest = m["earliest_ms"].as_u64().unwrap();
    assert!(earliest > 0 && earliest < total, "{earliest} of {total} ms");
    assert!(m["wait_time_ms"].as_u64().unwrap() <= total);
    // The app's name was asked before the launch.
    let calls = calls_except_list(&fakes.tools, "xcrun");
    assert_eq!(calls[0], ["simctl", "listapps", UDID]);
    assert_eq!(calls[1], ["simctl", "launch", UDID, CONTACTS]);
    assert_eq!(body["starts"]["times_ms"], json!([total]), "{body}");
}

#[tokio::test]
async fn repeated_starts_each_wait_for_the_first_screen_and_answer_their_median() {
    let fakes = Fakes::new();
    let xcrun = fakes.xcrun(None);
    // AXe: another app (Tuist) in front for two reads of each launch, then Contacts.
    let axe = fakes.ui("axe", 2, AXE_TUIST, Some(AXE_CONTACTS));
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &xcrun), (Tool::Axe, &axe)]),
        loopback_policy(),
    );
    let req = json!({"bundle_id": CONTACTS, "relaunch": true, "repeat": 3});
    let (status, body) = call(&app, post("/api/v1/device/app/launch", req)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let starts = &body["starts"];
    assert_eq!(starts["measured_by"], "mobilectl", "{body}");
    let times: Vec<u64> = starts["times_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_u64().unwrap())
        .collect();
    assert_eq!(times.len(), 3);
    let mut sorted = times.clone();
    sorted.sort_unstable();
    assert_eq!(starts["median_ms"], sorted[1]);
    assert_eq!(
        (starts["min_ms"].as_u64(), starts["max_ms"].as_u64()),
        (Some(sorted[0]), Some(sorted[2]))
    );
    // Each start held its three reads (two of Tuist, one of Contacts).
    let stamps = fakes.stamps();
    assert_eq!(stamps.len(), 9);
    for (i, t) in times.iter().enumerate() {
        let own = ms_between(stamps[3 * i], stamps[3 * i + 2]);
        assert!(*t >= own, "start {i}: {t} ms, its reads {own} ms");
    }
    assert_eq!(body["launch_time_ms"], times[2]);
    assert_eq!(launch_calls(&fakes), 3);
    let text = mobilectl::render::devices::done(&body);
    assert!(
        text.contains(&format!(
            "first screen after {} ms (measured by mobilectl",
            times[2]
        )) && text.contains("3 starts to the first screen: median"),
        "{text}"
    );
}

fn device() -> Device {
    booted_simulator(UDID)
}

#[tokio::test]
async fn a_first_screen_that_never_comes_ends_at_the_bound_with_the_launch_commands_time() {
    let fakes = Fakes::new();
    let xcrun = fakes.xcrun(None);
    // Two reads of the home screen, then a read that hangs.
    let idb = fakes.ui("idb", 2, IDB_HOME, None);
    let limit = Duration::from_millis(1500);
    let backend = SimctlBackend::new(toolbox(&[(Tool::Xcrun, &xcrun), (Tool::Idb, &idb)]))
        .with_first_screen_limit(limit);
    let started = Instant::now();
    let launched = backend
        .launch_app(&device(), CONTACTS, &timed())
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(took >= limit, "{took:?}");
    // The hanging read was stopped at the bound (with room for a loaded machine).
    assert!(took < limit + Duration::from_secs(3), "{took:?}");
    let m = launched.startup.expect("a measure");
    let v: Value = serde_json::to_value(&m).unwrap();
    assert_eq!(v["measured_by"], "mobilectl");
    assert_eq!((m.status.as_deref(), m.complete), (Some("timeout"), false));
    assert_eq!(m.total_time_ms, None);
    assert_eq!(m.reads, Some(3));
    let warning = m.warning.unwrap();
    assert!(
        warning.contains("no first screen within 1500 ms") && warning.contains("home screen"),
        "{warning}"
    );
    // The time answered is the launch command's own.
    assert_eq!(m.wait_time_ms, Some(launched.launch_time_ms));
    assert!(launched.launch_time_ms < took.as_millis() as u64);
}

#[tokio::test]
async fn an_app_nothing_can_recognise_is_timed_by_its_launch_command_without_reads() {
    let fakes = Fakes::new();
    let xcrun = fakes.xcrun(None);
    let idb = fakes.ui("idb", 0, IDB_HOME, Some(IDB_CONTACTS));
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &xcrun), (Tool::Idb, &idb)]),
        loopback_policy(),
    );
    // Not in listapps, and the launch printed no pid.
    let req = json!({"bundle_id": "com.example.unlisted", "repeat": 2});
    let (status, body) = call(&app, post("/api/v1/device/app/launch", req)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.get("startup").is_none(), "{body}");
    assert_eq!(body["starts"]["measured_by"], "launch_command");
    assert!(fakes.tools.calls("idb").is_empty());
    assert_eq!(launch_calls(&fakes), 2);
}

#[tokio::test]
async fn another_apps_process_and_name_are_not_the_launched_app() {
    // The recorded launch of the user app (pid 20645, listed as `AQA Fixture`): AXe reads of
    // Tuist (process 44977) and Contacts (process 81282) are other apps.
    let fakes = Fakes::new();
    let out = fixture("ios_simctl/simctl_launch_user_app_stdout.txt");
    let xcrun = fakes.xcrun(Some(&out));
    let axe = fakes.ui("axe", 1, AXE_TUIST, Some(AXE_CONTACTS));
    let limit = Duration::from_millis(800);
    let backend = SimctlBackend::new(toolbox(&[(Tool::Xcrun, &xcrun), (Tool::Axe, &axe)]))
        .with_first_screen_limit(limit);
    let launched = backend
        .launch_app(&device(), "dev.devicehubpro.fixture.apps", &timed())
        .await
        .unwrap();
    assert_eq!(launched.pid, Some(20645));
    // Neither is the app launched: no first screen.
    let m = launched.startup.unwrap();
    assert!(!m.complete);
    assert!(m.warning.unwrap().contains("`Contacts` in front"));
}

#[tokio::test]
async fn a_launch_not_asked_to_measure_reads_no_screen() {
    let fakes = Fakes::new();
    let app = home_then_contacts(&fakes);
    let (status, body) = call(
        &app,
        post("/api/v1/device/app/launch", json!({"bundle_id": CONTACTS})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The launch command's own time, no UI read and no `startup`.
    assert!(body.get("startup").is_none(), "{body}");
    assert!(calls_except_list(&fakes.tools, "idb").is_empty());
}
