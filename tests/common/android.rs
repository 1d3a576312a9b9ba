//! Helpers of the Android end-to-end tests: a virtual device behind a private adb server, an
//! app whose controller talks to that adb server, and readers of the device's journal.

use mobilectl::backend::BackendConfig;
use mobilectl::exec::{Tool, Toolbox};
use serde_json::Value;
use virtual_device::testing::VdHarness;

use super::{app_with_config, loopback_policy};

pub fn start_device() -> VdHarness {
    start_device_with(&[])
}

pub fn start_device_with(args: &[&str]) -> VdHarness {
    VdHarness::start(env!("CARGO_BIN_EXE_mobilectl"), args).expect("virtual device")
}

/// `n` virtual devices behind the first one's adb server (use its `adb_port`).
pub fn start_devices(n: usize) -> Vec<VdHarness> {
    let mut all = vec![start_device()];
    for _ in 1..n {
        let h = VdHarness::start_unconnected(env!("CARGO_BIN_EXE_mobilectl"), &[])
            .expect("virtual device");
        let first = &all[0];
        first.adb_global(&["connect", &h.serial]);
        let ready = virtual_device::testing::wait_until(std::time::Duration::from_secs(15), || {
            first
                .adb_global(&["-s", &h.serial, "get-state"])
                .stdout_text()
                .trim()
                == "device"
        });
        assert!(
            ready,
            "{} did not come up on the first adb server",
            h.serial
        );
        all.push(h);
    }
    all
}

pub fn app_for(h: &VdHarness) -> axum::Router {
    app_for_with(h, None)
}

/// An app whose adb commands are capped at `max` (to test time-outs quickly).
pub fn app_for_with(h: &VdHarness, max: Option<std::time::Duration>) -> axum::Router {
    app_with_config(
        BackendConfig {
            tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
            adb_server_port: Some(h.adb_port),
            max_command_time: max,
            ..Default::default()
        },
        loopback_policy(),
    )
}

/// An app for `h`'s device whose runs (their traces and reports) are kept under `cache`.
pub fn app_keeping_runs_in(h: &VdHarness, cache: &std::path::Path) -> axum::Router {
    let controller = mobilectl::controller::DeviceController::new(BackendConfig {
        tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
        adb_server_port: Some(h.adb_port),
        ..Default::default()
    })
    .with_runs(mobilectl::runs::RunStore::open(
        cache.to_path_buf(),
        Default::default(),
    ));
    mobilectl::server::check_declared_errors(true);
    let options = mobilectl::server::ServerOptions {
        script_worker: Some(env!("CARGO_BIN_EXE_mobilectl").into()),
        ..Default::default()
    };
    let state = mobilectl::server::AppState::new(controller, options);
    mobilectl::server::app(state, super::loopback_policy())
}

/// The ref of the first listed element whose id ends with `id_tail`.
pub fn ref_by_id(snapshot: &Value, id_tail: &str) -> String {
    snapshot["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"].as_str().is_some_and(|i| i.ends_with(id_tail)) && e["ref"].is_string())
        .unwrap_or_else(|| panic!("no element with id {id_tail} in {}", snapshot["tree_text"]))
        ["ref"]
        .as_str()
        .unwrap()
        .to_string()
}

pub fn argvs_with(h: &VdHarness, program: &str) -> Vec<Vec<String>> {
    h.journal_argvs()
        .into_iter()
        .filter(|a| a.first().map(String::as_str) == Some(program))
        .collect()
}

/// Where the device's journal stands now: pass it to [`services_since`].
pub fn journal_mark(h: &VdHarness) -> u64 {
    h.journal()
        .last()
        .and_then(|e| e["seq"].as_u64())
        .unwrap_or(0)
}

/// The adb services the device was asked for after `mark` (one per adb round trip:
/// `shell:…`, `exec:…`, `sync:`…), without the adb server's own device probes
/// (`host:features` and the like are not device services and never reach it), and without
/// the log supervisor's: it follows the device's log beside the operations (its `logcat`
/// stream and history read, the clock's `date`, the pid map's `ps`), started by the first
/// action, and none of them is an operation's round trip. (An action's own log read, for
/// its crash check, is inside its one script.)
pub fn services_since(h: &VdHarness, mark: u64) -> Vec<String> {
    h.journal()
        .into_iter()
        .filter(|e| e["seq"].as_u64().is_some_and(|s| s > mark))
        .filter_map(|e| e["service"].as_str().map(str::to_string))
        .filter(|s| !is_log_supervisor(s))
        .collect()
}

fn is_log_supervisor(service: &str) -> bool {
    let command = service.split_once(':').map_or(service, |(_, c)| c);
    command.contains("exec logcat ")
        || command.starts_with("logcat ")
        || command.contains("ps -A -o PID,NAME")
        || command.contains("date '+%Y %z %s.%N'")
}

/// The demo's login by selectors: username, password, LOG IN, then Allow on the dialog.
pub async fn log_in(app: &axum::Router) {
    for (path, body) in [
        (
            "/api/v1/device/ui/type",
            serde_json::json!({"selector": {"id": "username"}, "text": "alice"}),
        ),
        (
            "/api/v1/device/ui/type",
            serde_json::json!({"selector": {"id": "password"}, "text": "pw"}),
        ),
        (
            "/api/v1/device/ui/tap",
            serde_json::json!({"selector": {"text": "LOG IN"}}),
        ),
        (
            "/api/v1/device/ui/tap",
            serde_json::json!({"selector": {"text": "Allow"}}),
        ),
    ] {
        let (status, v) = super::call(app, super::post(path, body)).await;
        assert_eq!(status, axum::http::StatusCode::OK, "{path}: {v}");
    }
}
