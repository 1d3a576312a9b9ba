//! Runs through the HTTP API, each server with its own temporary cache directory (never the
//! user's): a session's run gets a trace line per operation and `result.json` when the
//! session ends; a failed tap and a failed `expect` on the virtual device leave a screenshot
//! and the compact tree, readable through the artifact route; artifact names that no index
//! lists (`../x`, encoded, absolute, unknown) are clear JSON 4xx and touch nothing outside the
//! cache; the live runs (a session's, the server's, one holding a recording) survive GC under
//! any pressure (the policy passed explicitly: the process environment is shared).

use std::path::Path;

use axum::body::Body;
use axum::http::Request;
use axum::Router;
use mobilectl::api::wire::runs::{ArtifactKind, GcAction, GcPolicy, GcReason};
use mobilectl::backend::BackendConfig;
use mobilectl::controller::DeviceController;
use mobilectl::exec::{Tool, Toolbox};
use mobilectl::runs::RunStore;
use mobilectl::server::{self, AppState, ServerOptions};
use serde_json::{json, Value};

use crate::common::{android, call, error_code, get, get_raw, loopback_policy, post, send_json};

/// The admin token of the test servers: it reads every session's runs.
const ADMIN: &str = "runs-admin";

fn as_admin(mut req: Request<Body>) -> Request<Body> {
    req.headers_mut()
        .insert("mobilectl-admin", ADMIN.parse().unwrap());
    req
}

/// An app over `controller` keeping its runs under `cache` (default policy), with the admin
/// token [`ADMIN`].
fn app_with_runs(controller: DeviceController, cache: &Path) -> (AppState, Router) {
    server::check_declared_errors(true);
    let runs = RunStore::open(cache.to_path_buf(), GcPolicy::default());
    let options = ServerOptions {
        admin_token: Some(ADMIN.into()),
        ..Default::default()
    };
    let state = AppState::new(controller.with_runs(runs), options);
    let app = server::app(state.clone(), loopback_policy());
    (state, app)
}

fn device_controller(h: &virtual_device::testing::VdHarness) -> DeviceController {
    DeviceController::new(BackendConfig {
        tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
        adb_server_port: Some(h.adb_port),
        ..Default::default()
    })
}

fn in_session(mut req: Request<Body>, session: &str) -> Request<Body> {
    req.headers_mut()
        .insert("mobilectl-session", session.parse().unwrap());
    req
}

fn trace_of(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The run listed for `session` (none: the server's), as the admin sees it.
async fn run_of(app: &Router, session: Option<&str>) -> Value {
    let (status, list) = call(app, as_admin(get("/api/v1/runs"))).await;
    assert_eq!(status.as_u16(), 200, "{list}");
    list["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["session_id"].as_str() == session && (session.is_some() || r["live"] == true))
        .unwrap_or_else(|| panic!("no run of {session:?} in {list}"))
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_run_traces_each_operation_and_ends_with_its_result() {
    let h = android::start_device();
    let cache = tempfile::tempdir().unwrap();
    let (_, app) = app_with_runs(device_controller(&h), cache.path());

    let (status, s) = call(
        &app,
        post(
            "/api/v1/sessions",
            json!({"udid": h.serial, "name": "run-a"}),
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{s}");
    let sid = s["id"].as_str().unwrap().to_string();
    let key = s["secret"].as_str().unwrap().to_string();
    let (status, v) = call(&app, in_session(get("/api/v1/device/ui"), &key)).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    let (status, v) = call(
        &app,
        in_session(
            post("/api/v1/device/ui/tap", json!({"x": 10, "y": 10})),
            &key,
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{v}");

    let run = run_of(&app, Some(&sid)).await;
    assert_eq!(run["live"], true, "{run}");
    assert_eq!(run["session_name"], "run-a", "{run}");
    let id = run["id"].as_str().unwrap().to_string();
    let dir = cache.path().join("runs").join(&id);
    assert!(
        !dir.join("result.json").exists(),
        "a live run has no result yet"
    );
    let lines = trace_of(&dir);
    let ops: Vec<&str> = lines.iter().map(|l| l["op"].as_str().unwrap()).collect();
    assert_eq!(ops, ["snapshot", "tap"], "{lines:?}");
    for l in &lines {
        assert_eq!(l["session"], sid.as_str(), "{l}");
        assert_eq!(l["udid"], h.serial.as_str(), "{l}");
        assert_eq!(l["outcome"], "ok", "{l}");
        assert!(l["duration_ms"].is_u64(), "{l}");
        assert!(
            chrono::DateTime::parse_from_rfc3339(l["time"].as_str().unwrap()).is_ok(),
            "{l}"
        );
    }
    assert_eq!(lines[1]["target"], json!({"x": 10, "y": 10}));
    // The run is the session's own: it lists and reads it; another session and a
    // session-less caller neither list nor read it.
    let (status, other) = call(&app, post("/api/v1/sessions", json!({"lazy": true}))).await;
    assert_eq!(status.as_u16(), 200, "{other}");
    let other = other["secret"].as_str().unwrap().to_string();
    let (_, mine) = call(&app, in_session(get("/api/v1/runs"), &key)).await;
    assert!(mine.to_string().contains(&id), "{mine}");
    for stranger in [Some(other.as_str()), None] {
        let wrap = |r: Request<Body>| match stranger {
            Some(s) => in_session(r, s),
            None => r,
        };
        let (_, listed) = call(&app, wrap(get("/api/v1/runs"))).await;
        assert!(!listed.to_string().contains(&id), "{listed}");
        let (status, v) = call(&app, wrap(get(&format!("/api/v1/runs/{id}")))).await;
        assert_eq!(
            (status.as_u16(), error_code(&v).as_str()),
            (404, "RUN_NOT_FOUND"),
            "{v}"
        );
        let (status, v) = call(
            &app,
            wrap(get(&format!("/api/v1/runs/{id}/artifacts/trace.jsonl"))),
        )
        .await;
        assert_eq!(
            (status.as_u16(), error_code(&v).as_str()),
            (404, "RUN_NOT_FOUND"),
            "{v}"
        );
    }

    // Ending the session (from inside it) ends its run: result.json, and the run is no longer
    // live; the ending request's line goes last, into the same run.
    let (status, v) = call(
        &app,
        in_session(
            send_json("DELETE", &format!("/api/v1/sessions/{sid}"), ""),
            &key,
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{v}");
    let ops: Vec<String> = trace_of(&dir)
        .iter()
        .map(|l| l["op"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ops, ["snapshot", "tap", "list_runs", "end_session"]);
    let (_, list) = call(&app, as_admin(get("/api/v1/runs"))).await;
    let of_session = list["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["session_id"] == sid.as_str())
        .count();
    assert_eq!(of_session, 1, "no second run for the ended session: {list}");
    let result: Value =
        serde_json::from_slice(&std::fs::read(dir.join("result.json")).unwrap()).unwrap();
    assert_eq!(result["run_id"], id.as_str());
    assert_eq!(result["session_id"], sid.as_str());
    assert_eq!(result["session_name"], "run-a");
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(result["operations"], 3, "{result}");
    assert_eq!(result["failures"], 0, "{result}");
    assert_eq!(result["devices"], json!([h.serial]));
    assert!(result["ended_at"].is_string(), "{result}");
    let (status, detail) = call(&app, as_admin(get(&format!("/api/v1/runs/{id}")))).await;
    assert_eq!(status.as_u16(), 200, "{detail}");
    assert_eq!(detail["live"], false, "{detail}");
    assert_eq!(detail["ok"], true, "{detail}");
    assert_eq!(detail["result"]["operations"], 3, "{detail}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_tap_and_a_failed_expect_leave_a_screenshot_and_the_tree() {
    let h = android::start_device();
    let cache = tempfile::tempdir().unwrap();
    let (_, app) = app_with_runs(device_controller(&h), cache.path());

    let (status, v) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    let (status, failed) = call(&app, post("/api/v1/device/ui/tap", json!({"ref": "e999"}))).await;
    assert!(status.is_client_error(), "{status}: {failed}");
    let code = error_code(&failed);
    let (status, no) = call(
        &app,
        post(
            "/api/v1/device/ui/expect",
            json!({"kind": "element_visible", "selector": {"text": "Not on this screen"}}),
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{no}");
    assert_eq!(no["success"], false, "{no}");

    let run = run_of(&app, None).await;
    let id = run["id"].as_str().unwrap().to_string();
    let lines = trace_of(&cache.path().join("runs").join(&id));
    let tap = lines
        .iter()
        .find(|l| l["op"] == "tap")
        .expect("the tap's line");
    assert_eq!(tap["outcome"], "error", "{tap}");
    assert_eq!(tap["code"], code.as_str(), "{tap}");
    assert_eq!(tap["target"], json!({"ref": "e999"}), "{tap}");
    assert_eq!(
        tap["artifacts"],
        json!(["failure-tap.png", "failure-tap.txt"]),
        "{tap}"
    );
    // A saved screenshot is a baseline: the screen has not changed since the failed tap.
    let (status, same) = call(
        &app,
        post(
            "/api/v1/device/screenshot/diff",
            json!({"baseline": {"artifact": {"run": id, "name": "failure-tap.png"}}}),
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{same}");
    assert_eq!(same["changed_share"], 0.0, "{same}");
    let expect = lines
        .iter()
        .find(|l| l["op"] == "expect")
        .expect("the expect's line");
    assert_eq!(expect["outcome"], "failed", "{expect}");
    assert_eq!(expect["code"], "ELEMENT_NOT_FOUND", "{expect}");
    assert_eq!(
        expect["artifacts"],
        json!(["failure-expect.png", "failure-expect.txt"])
    );
    // The snapshot before is not a failure of the run; the tap and the expect are.
    let (status, detail) = call(&app, get(&format!("/api/v1/runs/{id}"))).await;
    assert_eq!(status.as_u16(), 200, "{detail}");
    assert_eq!(detail["live"], true);
    assert_eq!(detail["result"]["ok"], false, "{detail}");
    assert_eq!(detail["result"]["act_failures"], 2, "{detail}");
    let kinds: Vec<(&str, &str)> = detail["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("failure-tap.png", "screenshot"),
            ("failure-tap.txt", "tree"),
            ("failure-expect.png", "screenshot"),
            ("failure-expect.txt", "tree"),
        ]
    );

    let name = "failure-tap.png";
    let (status, headers, png) =
        get_raw(&app, &format!("/api/v1/runs/{id}/artifacts/{name}")).await;
    assert_eq!(status.as_u16(), 200);
    assert_eq!(headers["content-type"], "image/png");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let (status, headers, tree) = get_raw(
        &app,
        &format!("/api/v1/runs/{id}/artifacts/failure-tap.txt"),
    )
    .await;
    assert_eq!(status.as_u16(), 200);
    assert!(headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let tree = String::from_utf8(tree).unwrap();
    assert!(tree.contains("LOG IN"), "{tree}");
}

#[tokio::test]
async fn names_no_index_lists_are_clear_errors_and_touch_nothing_outside() {
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    let secret = root.path().join("secret.txt");
    std::fs::write(&secret, "keep me").unwrap();
    let (state, app) = app_with_runs(
        DeviceController::with_backends(Toolbox::default(), Vec::new()),
        &cache,
    );
    let saved = state
        .controller
        .runs()
        .save_artifact(None, "shot.png", ArtifactKind::Screenshot, b"\x89PNG fake")
        .unwrap();
    let id = saved.run.clone();
    // A symlink inside the run's artifacts pointing out, as if planted: not in the index.
    std::os::unix::fs::symlink(&secret, saved.path.with_file_name("planted.txt")).unwrap();
    let before = std::fs::read_dir(root.path()).unwrap().count();

    for (path, status, code) in [
        (
            format!("/api/v1/runs/{id}/artifacts/..%2F..%2F..%2Fsecret.txt"),
            400,
            "VALIDATION_FAILED",
        ),
        (
            format!("/api/v1/runs/{id}/artifacts/%2e%2e%2fx"),
            400,
            "VALIDATION_FAILED",
        ),
        (
            format!("/api/v1/runs/{id}/artifacts/..%2fx"),
            400,
            "VALIDATION_FAILED",
        ),
        (
            format!("/api/v1/runs/{id}/artifacts/%2Fetc%2Fpasswd"),
            400,
            "VALIDATION_FAILED",
        ),
        (
            format!("/api/v1/runs/{id}/artifacts/.."),
            400,
            "VALIDATION_FAILED",
        ),
        (
            format!("/api/v1/runs/{id}/artifacts/nope.png"),
            404,
            "ARTIFACT_NOT_FOUND",
        ),
        // Files of the run that are not artifacts, and a planted link: not in the index.
        (
            format!("/api/v1/runs/{id}/artifacts/trace.jsonl"),
            404,
            "ARTIFACT_NOT_FOUND",
        ),
        (
            format!("/api/v1/runs/{id}/artifacts/planted.txt"),
            404,
            "ARTIFACT_NOT_FOUND",
        ),
        // A literal `..` segment matches no route.
        (
            format!("/api/v1/runs/{id}/artifacts/../x"),
            404,
            "ROUTE_NOT_FOUND",
        ),
        (
            "/api/v1/runs/..%2F..%2Fsecret.txt/artifacts/shot.png".to_string(),
            400,
            "VALIDATION_FAILED",
        ),
        (
            "/api/v1/runs/20200101-000000-abcdef/artifacts/shot.png".to_string(),
            404,
            "RUN_NOT_FOUND",
        ),
        (
            "/api/v1/runs/20200101-000000-abcdef".to_string(),
            404,
            "RUN_NOT_FOUND",
        ),
        ("/api/v1/runs/%2Ftmp".to_string(), 400, "VALIDATION_FAILED"),
    ] {
        let (got, body) = call(&app, get(&path)).await;
        assert_eq!(got.as_u16(), status, "{path}: {body}");
        assert_eq!(error_code(&body), code, "{path}: {body}");
        assert!(body["error"]["hint"].is_string(), "{path}: {body}");
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "keep me");
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), before);
    // The one the index lists is served.
    let (status, headers, bytes) =
        get_raw(&app, &format!("/api/v1/runs/{id}/artifacts/shot.png")).await;
    assert_eq!(status.as_u16(), 200);
    assert_eq!(headers["content-type"], "image/png");
    assert_eq!(bytes, b"\x89PNG fake");
}

/// A finished run `id` in `cache` with `bytes` of payload.
fn synthetic_run(cache: &Path, id: &str, ok: bool, bytes: usize) {
    let dir = cache.join("runs").join(id);
    std::fs::create_dir_all(dir.join("artifacts")).unwrap();
    let started = mobilectl::runs::dirs::time_of_name(id).unwrap();
    let result = json!({"run_id": id, "started_at": started.to_rfc3339(), "ok": ok,
                        "operations": 1, "failures": 0, "act_failures": 0, "devices": []});
    std::fs::write(dir.join("result.json"), result.to_string()).unwrap();
    std::fs::write(dir.join("artifacts/blob"), vec![0u8; bytes]).unwrap();
}

#[tokio::test]
async fn live_and_held_runs_survive_gc_under_any_pressure() {
    let cache = tempfile::tempdir().unwrap();
    let (state, app) = app_with_runs(
        DeviceController::with_backends(Toolbox::default(), Vec::new()),
        cache.path(),
    );
    let runs = state.controller.runs().clone();
    synthetic_run(cache.path(), "20200101-000000-aaaaaa", true, 1000);
    synthetic_run(cache.path(), "20200102-000000-bbbbbb", false, 1000);
    // The server's run (a session-less operation starts it) and a session's.
    let (status, v) = call(&app, get("/api/v1/runs")).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    // `limit` keeps the newest; `total` counts them all (the server's run is there now).
    let (_, all) = call(&app, get("/api/v1/runs")).await;
    let (status, cut) = call(&app, get("/api/v1/runs?limit=1")).await;
    assert_eq!(status.as_u16(), 200, "{cut}");
    assert_eq!(cut["runs"].as_array().unwrap().len(), 1, "{cut}");
    assert_eq!(all["total"], 3, "{all}");
    assert_eq!(cut["total"], 3, "{cut}");
    assert_eq!(cut["runs"][0]["id"], all["runs"][0]["id"], "{cut}");
    let (status, zero) = call(&app, get("/api/v1/runs?limit=0")).await;
    assert_eq!(status.as_u16(), 400, "{zero}");
    assert_eq!(zero["error"]["code"], "VALIDATION_FAILED", "{zero}");
    let (status, s) = call(
        &app,
        post("/api/v1/sessions", json!({"lazy": true, "name": "gc-live"})),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{s}");
    let sid = s["id"].as_str().unwrap().to_string();
    let key = s["secret"].as_str().unwrap().to_string();
    let (status, v) = call(&app, in_session(get("/api/v1/session"), &key)).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    let server_run = run_of(&app, None).await["id"].as_str().unwrap().to_string();
    let session_run = run_of(&app, Some(&sid)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    // A recording in progress in another session, whose session then ends.
    let (status, r) = call(&app, post("/api/v1/sessions", json!({"lazy": true}))).await;
    assert_eq!(status.as_u16(), 200, "{r}");
    let rid = r["id"].as_str().unwrap().to_string();
    let (recording, hold) = runs
        .reserve_artifact(Some(&rid), "screen.mp4", ArtifactKind::Recording)
        .unwrap();
    std::fs::write(&recording.path, vec![1u8; 5000]).unwrap();
    let (status, v) = call(
        &app,
        send_json(
            "DELETE",
            &format!("/api/v1/sessions/{}", r["secret"].as_str().unwrap()),
            "",
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{v}");

    // The route plans with the server's policy (defaults: everything is recent).
    let (status, plan) = call(&app, post("/api/v1/gc", json!({"dry_run": true}))).await;
    assert_eq!(status.as_u16(), 200, "{plan}");
    assert_eq!(plan["deleted"], 0, "{plan}");
    assert_eq!(plan["runs"].as_array().unwrap().len(), 5, "{plan}");

    // Keep nothing, no failure, no byte: only the live and held runs stay.
    let nothing = GcPolicy {
        keep_last: 0,
        keep_failure_days: 0,
        max_bytes: 0,
    };
    let dry = runs.gc_with(nothing, true);
    let action = |plan: &mobilectl::runs::GcPlan, id: &str| {
        let e = plan.runs.iter().find(|e| e.id == id).unwrap();
        (e.action, e.reason)
    };
    for id in [&server_run, &session_run, &recording.run] {
        assert_eq!(action(&dry, id), (GcAction::Keep, GcReason::Live), "{id}");
    }
    for id in ["20200101-000000-aaaaaa", "20200102-000000-bbbbbb"] {
        assert_eq!(action(&dry, id).0, GcAction::Delete, "{id}");
        assert!(
            cache.path().join("runs").join(id).is_dir(),
            "a dry run deletes nothing"
        );
    }
    let done = runs.gc_with(nothing, false);
    assert_eq!(done.deleted, 2, "{done:?}");
    for id in [&server_run, &session_run, &recording.run] {
        assert!(cache.path().join("runs").join(id).is_dir(), "{id} survived");
    }
    assert!(!cache.path().join("runs/20200101-000000-aaaaaa").exists());
    // The recording completes: its size is in the index; once its hold goes, so can its run.
    let committed = runs.commit_artifact(&recording).unwrap();
    assert_eq!(committed.bytes, 5000);
    let (status, detail) = call(
        &app,
        as_admin(get(&format!("/api/v1/runs/{}", recording.run))),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{detail}");
    assert_eq!(detail["artifacts"][0]["bytes"], 5000, "{detail}");
    drop(hold);
    let done = runs.gc_with(nothing, false);
    assert_eq!(
        action(&done, &recording.run),
        (GcAction::Delete, GcReason::Expired)
    );
    assert!(!cache.path().join("runs").join(&recording.run).exists());
    assert!(cache.path().join("runs").join(&session_run).is_dir());
}

#[tokio::test]
async fn a_finished_run_is_deleted_a_live_one_is_refused_and_anothers_is_not_found() {
    let cache = tempfile::tempdir().unwrap();
    let (_state, app) = app_with_runs(
        DeviceController::with_backends(Toolbox::default(), Vec::new()),
        cache.path(),
    );
    let done = "20200101-000000-aaaaaa";
    synthetic_run(cache.path(), done, true, 1000);
    let (status, v) = call(
        &app,
        send_json("DELETE", &format!("/api/v1/runs/{done}"), ""),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{v}");
    assert_eq!(v["id"], done, "{v}");
    assert!(v["freed_bytes"].as_u64().unwrap() >= 1000, "{v}");
    assert!(!cache.path().join("runs").join(done).exists());
    // Gone now: a second delete finds nothing.
    let (status, v) = call(
        &app,
        send_json("DELETE", &format!("/api/v1/runs/{done}"), ""),
    )
    .await;
    assert_eq!(status.as_u16(), 404, "{v}");
    assert_eq!(v["error"]["code"], "RUN_NOT_FOUND", "{v}");

    // The server's own run is live (the calls above started it).
    let server_run = run_of(&app, None).await["id"].as_str().unwrap().to_string();
    let (status, v) = call(
        &app,
        send_json("DELETE", &format!("/api/v1/runs/{server_run}"), ""),
    )
    .await;
    assert_eq!(status.as_u16(), 409, "{v}");
    assert_eq!(v["error"]["code"], "RUN_LIVE", "{v}");
    assert!(cache.path().join("runs").join(&server_run).is_dir());

    // A session's run, once the session ended: another caller cannot see it, so cannot
    // delete it; the admin can.
    let (status, s) = call(&app, post("/api/v1/sessions", json!({"lazy": true}))).await;
    assert_eq!(status.as_u16(), 200, "{s}");
    let sid = s["id"].as_str().unwrap().to_string();
    let key = s["secret"].as_str().unwrap().to_string();
    let session_run = run_of(&app, Some(&sid)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/api/v1/runs/{session_run}");
    let (status, v) = call(&app, in_session(send_json("DELETE", &path, ""), &key)).await;
    assert_eq!(status.as_u16(), 409, "its own session is live: {v}");
    let (status, v) = call(
        &app,
        send_json("DELETE", &format!("/api/v1/sessions/{key}"), ""),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{v}");
    let (status, v) = call(&app, send_json("DELETE", &path, "")).await;
    assert_eq!(status.as_u16(), 404, "not this caller's: {v}");
    assert!(cache.path().join("runs").join(&session_run).is_dir());
    let (status, v) = call(&app, as_admin(send_json("DELETE", &path, ""))).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    assert!(!cache.path().join("runs").join(&session_run).exists());

    // Not a run id: refused before any path is made of it.
    let (status, v) = call(&app, send_json("DELETE", "/api/v1/runs/..%2F..%2Fetc", "")).await;
    assert_eq!(status.as_u16(), 400, "{v}");
    assert_eq!(v["error"]["code"], "VALIDATION_FAILED", "{v}");
}

#[test]
fn the_servers_run_ends_with_the_server_and_an_old_run_goes_at_start() {
    use std::process::{Command, Stdio};
    use std::time::Duration;
    use virtual_device::testing::{free_port, wait_until};

    let cache = tempfile::tempdir().unwrap();
    // Older than any failure is kept, beyond the newest one: GC at start deletes it.
    synthetic_run(cache.path(), "20200101-000000-aaaaaa", false, 10);
    synthetic_run(cache.path(), "20200102-000000-bbbbbb", true, 10);
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mobilectl"))
        .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
        .args(["--cache-dir", cache.path().to_str().unwrap()])
        .env("MOBILECTL_GC_KEEP_LAST", "1")
        .env_remove("MOBILECTL_TOKEN")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let addr = format!("127.0.0.1:{port}");
    let get = |path: &str| -> String {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    assert!(wait_until(Duration::from_secs(30), || {
        std::net::TcpStream::connect(&addr).is_ok()
    }));
    let old = cache.path().join("runs/20200101-000000-aaaaaa");
    assert!(
        wait_until(Duration::from_secs(10), || !old.exists()),
        "GC at start"
    );
    assert!(cache.path().join("runs/20200102-000000-bbbbbb").is_dir());
    let answer = get("/api/v1/sessions");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    crate::common::stop_server(&mut child, None);

    let runs: Vec<_> = std::fs::read_dir(cache.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("20200102-000000-bbbbbb"))
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let result: Value =
        serde_json::from_slice(&std::fs::read(runs[0].join("result.json")).unwrap()).unwrap();
    assert_eq!(result["ok"], true, "{result}");
    assert!(result["session_id"].is_null(), "{result}");
    assert!(result["operations"].as_u64().unwrap() >= 1, "{result}");
    assert!(result["ended_at"].is_string(), "{result}");
}
