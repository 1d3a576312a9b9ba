//! Shared helpers of the HTTP tests: an in-process app driven with `oneshot`, and fake tool
//! executables that replay recorded real outputs from `fixtures/` and log the argv they got.
#![allow(dead_code)]

pub mod android;
pub mod demo_server;
pub mod sse;
pub mod wda;

use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use mobilectl::backend::BackendConfig;
use mobilectl::controller::DeviceController;
use mobilectl::exec::{Tool, Toolbox};
use mobilectl::server::{self, AppState, SecurityPolicy, ServerOptions};
use serde_json::Value;
use tower::ServiceExt;

/// Sends SIGTERM to a process this test started (a server, to see it stop gracefully).
pub fn sigterm(pid: u32) {
    // SAFETY: kill(2) only sends a signal; the pid is this test's child, not yet reaped.
    unsafe {
        libc::kill(pid as i32, libc::SIGTERM);
    }
}

/// Sends SIGKILL to a process this test started (to see what is left when it gets no chance
/// to clean up).
pub fn sigkill(pid: u32) {
    // SAFETY: kill(2) only sends a signal; the pid is this test's child, not yet reaped.
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }
}

/// Stops a server this test started: SIGTERM, up to 10 s to exit, then SIGKILL; then the
/// private adb server on `adb_port`, if it had one.
pub fn stop_server(child: &mut std::process::Child, adb_port: Option<u16>) {
    sigterm(child.id());
    let _ = virtual_device::testing::wait_until(std::time::Duration::from_secs(10), || {
        matches!(child.try_wait(), Ok(Some(_)))
    });
    let _ = child.kill();
    let _ = child.wait();
    if let Some(port) = adb_port {
        let _ = std::process::Command::new("adb")
            .args(["-P", &port.to_string(), "kill-server"])
            .output();
    }
}

/// Each flow of a suite's result (`flow_test`, `flow test --report`): its file and status.
pub fn suite_outcomes(r: &serde_json::Value) -> Vec<(&str, &str)> {
    r["flows"]
        .as_array()
        .expect("the suite's flows")
        .iter()
        .map(|f| (f["file"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect()
}

/// The ref on the tree line of the element with this resource id (`… #username … [e3]`).
pub fn ref_of(tree: &str, id: &str) -> String {
    let line = tree
        .lines()
        .find(|l| l.contains(&format!("#{id}")))
        .unwrap_or_else(|| panic!("no #{id} in\n{tree}"));
    let start = line.find("[e").expect("a ref") + 1;
    let end = start + line[start..].find(']').unwrap();
    line[start..end].trim_start_matches("ref=").to_string()
}

pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// Writes an executable script at `path` without this process ever holding it open for
/// writing. Tests run on several threads: a child forked by another test inherits every open
/// descriptor until it execs, so a script written in-process can be "busy" (ETXTBSY) when run a
/// moment later. The text goes to a side file, and `install` (another process) makes the
/// executable.
pub fn write_executable(path: &Path, body: &str) {
    let source = path.with_extension("source");
    std::fs::write(&source, body).unwrap();
    let status = std::process::Command::new("install")
        .args(["-m", "755"])
        .arg(&source)
        .arg(path)
        .status()
        .expect("coreutils install");
    assert!(status.success(), "install {}", path.display());
}

/// A directory of fake tools; each logs its argv (one line per call, arguments separated by
/// the unit separator 0x1f) to `<name>.argv` beside it.
pub struct FakeTools {
    pub dir: tempfile::TempDir,
}

impl FakeTools {
    pub fn new() -> Self {
        FakeTools {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Writes an executable `name` whose body is `script` (POSIX sh), preceded by argv logging.
    pub fn add(&self, name: &str, script: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        let log = self.dir.path().join(format!("{name}.argv"));
        // The line is built first and appended with one write: calls that run at the same
        // time (a listing refreshed in the background) do not interleave.
        let body = format!(
            "#!/bin/sh\n\
             sep=$(printf '\\037'); line=''; first=1; for a in \"$@\"; do if [ $first = 1 ]; then first=0; else line=\"$line$sep\"; fi; line=\"$line$a\"; done; printf '%s\\n' \"$line\" >> '{}'\n\
             {script}\n",
            log.display()
        );
        write_executable(&path, &body);
        path
    }

    /// The argv of every call of `name`, in order.
    pub fn calls(&self, name: &str) -> Vec<Vec<String>> {
        std::fs::read_to_string(self.dir.path().join(format!("{name}.argv")))
            .unwrap_or_default()
            .lines()
            .map(|l| l.split('\u{1f}').map(str::to_string).collect())
            .collect()
    }
}

/// A fake `adb` that answers `devices -l` with a recorded listing and `getprop` queries with
/// values read from a recorded `getprop` dump.
pub fn fake_adb(tools: &FakeTools, devices_fixture: &str, getprop_fixture: &str) -> PathBuf {
    let devices = fixture(devices_fixture);
    let getprop = fixture(getprop_fixture);
    tools.add(
        "adb",
        &format!(
            r#"case "$*" in
  *"devices -l"*) cat '{devices}' ;;
  *getprop*)
    for k in ro.product.model ro.build.version.release ro.build.version.sdk ro.kernel.qemu; do
      v=$(tr -d '\r' < '{getprop}' | sed -n "s/^\[$k\]: \[\(.*\)\]$/\1/p" | head -n 1)
      printf '%s\n' "$v"
    done ;;
  *) echo "fake adb: unexpected $*" >&2; exit 1 ;;
esac"#,
            devices = devices.display(),
            getprop = getprop.display()
        ),
    )
}

/// A fake `xcrun` that answers `simctl list …` with a recorded listing.
pub fn fake_xcrun(tools: &FakeTools, list_fixture: &str) -> PathBuf {
    let list = fixture(list_fixture);
    tools.add(
        "xcrun",
        &format!(
            r#"case "$*" in
  "simctl list devices available -j") cat '{}' ;;
  *) echo "fake xcrun: unexpected $*" >&2; exit 1 ;;
esac"#,
            list.display()
        ),
    )
}

pub fn app_with(toolbox: Toolbox, policy: SecurityPolicy) -> Router {
    app_with_config(
        BackendConfig {
            tools: toolbox,
            adb_server_port: None,
            ..Default::default()
        },
        policy,
    )
}

pub fn app_with_config(config: BackendConfig, policy: SecurityPolicy) -> Router {
    // An operation answering a code its spec does not declare fails the test (a 500).
    mobilectl::server::check_declared_errors(true);
    // Flows' scripts run in the product's binary (this process is the test harness).
    let options = ServerOptions {
        script_worker: Some(env!("CARGO_BIN_EXE_mobilectl").into()),
        ..Default::default()
    };
    let state = AppState::new(DeviceController::new(config), options);
    server::app(state, policy)
}

/// An app with no tools at all and the default (loopback, no token) policy.
pub fn bare_app() -> Router {
    app_with(Toolbox::with([]), loopback_policy())
}

pub fn loopback_policy() -> SecurityPolicy {
    SecurityPolicy {
        bound: Some("127.0.0.1:9100".parse().unwrap()),
        ..Default::default()
    }
}

pub fn toolbox(entries: &[(Tool, &Path)]) -> Toolbox {
    Toolbox::with(entries.iter().map(|(t, p)| (*t, p.to_path_buf())))
}

/// A request to the app as a local client would send it.
pub fn get(path: &str) -> Request<Body> {
    Request::get(path)
        .header("host", "127.0.0.1:9100")
        .body(Body::empty())
        .unwrap()
}

pub fn send_json(method: &str, path: &str, body: &str) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .header("host", "127.0.0.1:9100")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

/// A POST of a JSON value.
pub fn post(path: &str, body: serde_json::Value) -> Request<Body> {
    send_json("POST", path, &body.to_string())
}

/// Sends one request; returns the status and the JSON body (the body must be JSON).
pub async fn call(app: &Router, req: Request<Body>) -> (StatusCode, Value) {
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let ct = res
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    assert!(
        ct.starts_with("application/json"),
        "{status}: content-type {ct:?}, body {:?}",
        String::from_utf8_lossy(&bytes)
    );
    let json = serde_json::from_slice(&bytes).unwrap();
    (status, json)
}

/// A GET whose answer is not JSON (an image): status, headers and body.
pub async fn get_raw(app: &Router, path: &str) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let res = app.clone().oneshot(get(path)).await.unwrap();
    let (parts, body) = res.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes().to_vec();
    (parts.status, parts.headers, bytes)
}

/// The udids of a device listing, in order.
pub fn udids(list: &Value) -> Vec<&str> {
    list["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["udid"].as_str().unwrap())
        .collect()
}

/// A black PNG of `w`×`h` pixels.
pub fn blank_png(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    image::RgbImage::new(w, h)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// Asserts the error envelope and returns its code.
pub fn error_code(body: &Value) -> String {
    let e = &body["error"];
    assert!(e["message"].is_string(), "no message in {body}");
    assert!(e["retryable"].is_boolean(), "no retryable in {body}");
    e["code"].as_str().unwrap().to_string()
}

/// A fake `xcrun` that answers `simctl list …` with a recorded listing and otherwise runs the
/// given `case "$*" in` arms (POSIX sh); anything else fails loudly.
pub fn fake_xcrun_with(tools: &FakeTools, list_fixture: &str, arms: &str) -> PathBuf {
    let list = fixture(list_fixture);
    tools.add(
        "xcrun",
        &format!(
            r#"case "$*" in
  "simctl list devices available -j") cat '{}' ;;
{arms}
  *) echo "fake xcrun: unexpected $*" >&2; exit 1 ;;
esac"#,
            list.display()
        ),
    )
}

/// A fake `xcrun` whose `simctl list` answers the recorded listing `list_fixture` and whose
/// `simctl io … screenshot FILE` copies `png` to FILE; anything else succeeds quietly.
pub fn fake_xcrun_screenshots(tools: &FakeTools, list_fixture: &str, png: &Path) -> PathBuf {
    tools.add(
        "xcrun",
        &format!(
            r#"case "$1 $2" in
  "simctl list") cat '{}' ;;
  "simctl io") for a in "$@"; do last="$a"; done; cp '{}' "$last" ;;
  *) exit 0 ;;
esac"#,
            fixture(list_fixture).display(),
            png.display()
        ),
    )
}

/// The calls of `name` other than device listings.
pub fn calls_except_list(tools: &FakeTools, name: &str) -> Vec<Vec<String>> {
    tools
        .calls(name)
        .into_iter()
        .filter(|c| c.get(1).map(String::as_str) != Some("list"))
        .collect()
}

/// A booted iPhone 15 Pro Simulator (iOS 17.5) of the simctl backend, as its listing gives it.
pub fn booted_simulator(udid: &str) -> mobilectl::device::Device {
    use mobilectl::device::{Device, DeviceKind, DeviceState, Platform};
    Device {
        udid: udid.into(),
        name: "iPhone 15 Pro".into(),
        platform: Platform::Ios,
        kind: DeviceKind::Simulator,
        state: DeviceState::Booted,
        os_version: Some("iOS 17.5".into()),
        api_level: None,
        model: None,
        backend: mobilectl::backend::ios::SimctlBackend::ID,
        capabilities: Vec::new(),
    }
}
