//! Sessions and leases through the real adb on two virtual devices behind one adb server: each
//! session acts on its own device only; an act on a leased device from anyone else is refused
//! before any command reaches it (the devices' journals say so); reads stay open and never
//! make a session's refs stale; expiry and renewal; `wait_ms` first come, first served; bad
//! input. The CLI across processes and MCP clients are in `sessions_clients`.

use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use axum::Router;
use serde_json::{json, Value};

use crate::common::android::{self, journal_mark, ref_by_id, services_since};
use crate::common::{call, error_code, get, post, send_json};

fn in_session(mut req: Request<Body>, session: &str) -> Request<Body> {
    req.headers_mut()
        .insert("mobilectl-session", session.parse().unwrap());
    req
}

async fn start(app: &Router, body: Value) -> Value {
    let (status, v) = call(app, post("/api/v1/sessions", body)).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    v
}

fn tap(x: u32, y: u32) -> Request<Body> {
    post("/api/v1/device/ui/tap", json!({ "x": x, "y": y }))
}

/// The secret a session's creation answered: what acts in it.
fn secret(session: &Value) -> String {
    session["secret"].as_str().unwrap().to_string()
}

async fn sessions(app: &Router) -> Vec<Value> {
    let (status, v) = call(app, get("/api/v1/sessions")).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    v["sessions"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_session_acts_on_its_own_device_and_others_are_refused_before_any_command() {
    let devices = android::start_devices(2);
    let (a, b) = (&devices[0], &devices[1]);
    let app = android::app_for(a);

    let sa = start(&app, json!({ "udid": a.serial, "name": "agent-a" })).await;
    let sb = start(&app, json!({ "udid": b.serial })).await;
    assert_eq!(sa["udid"], a.serial.as_str(), "{sa}");
    assert_eq!(sb["udid"], b.serial.as_str(), "{sb}");
    let (sa_secret, sb_secret) = (secret(&sa), secret(&sb));
    let idb = sb_secret.as_str();

    // A session's request needs no udid and lands on its device only (by its secret).
    let (ma, mb) = (journal_mark(a), journal_mark(b));
    let (status, v) = call(&app, in_session(tap(300, 400), &sa_secret)).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    assert!(!services_since(a, ma).is_empty(), "A's tap reached A");
    assert!(services_since(b, mb).is_empty(), "A's tap reached B");
    let (ma, mb) = (journal_mark(a), journal_mark(b));
    let (status, v) = call(&app, in_session(tap(300, 400), idb)).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    assert!(services_since(a, ma).is_empty(), "B's tap reached A");
    assert!(!services_since(b, mb).is_empty(), "B's tap reached B");

    // A session's name or id, which listings and leases show, acts in nothing: refused
    // before any command, and the session was not renewed by it.
    for label in ["agent-a", sa["id"].as_str().unwrap()] {
        let ma = journal_mark(a);
        let (status, v) = call(&app, in_session(tap(300, 400), label)).await;
        assert_eq!(
            (status.as_u16(), error_code(&v).as_str()),
            (403, "SESSION_FORBIDDEN"),
            "{label}: {v}"
        );
        assert!(services_since(a, ma).is_empty(), "{label} reached A");
        let (status, v) = call(&app, get(&format!("/api/v1/device/ui?session={label}"))).await;
        assert_eq!(status.as_u16(), 403, "{v}");
    }
    // Nor can another caller end it: not by name or id alone, nor from another session.
    for (path, session) in [("agent-a", None), (sa["id"].as_str().unwrap(), Some(idb))] {
        let mut req = send_json("DELETE", &format!("/api/v1/sessions/{path}"), "");
        if let Some(s) = session {
            req = in_session(req, s);
        }
        let (status, v) = call(&app, req).await;
        assert_eq!(
            (status.as_u16(), error_code(&v).as_str()),
            (403, "SESSION_FORBIDDEN"),
            "{v}"
        );
    }
    // No listing, lease or error shows a secret.
    let (_, listed) = call(&app, get("/api/v1/sessions")).await;
    let (_, devices) = call(&app, get("/api/v1/device/list")).await;
    for shown in [listed.to_string(), devices.to_string()] {
        assert!(
            !shown.contains(&sa_secret) && !shown.contains(&sb_secret),
            "{shown}"
        );
    }
    assert!(listed["sessions"][0].get("secret").is_none(), "{listed}");

    // Without a session, an act on A is refused, naming the holder, before any command.
    let ma = journal_mark(a);
    let req = post(
        "/api/v1/device/ui/tap",
        json!({ "udid": a.serial, "x": 300, "y": 400 }),
    );
    let (status, v) = call(&app, req).await;
    assert_eq!(status.as_u16(), 409, "{v}");
    assert_eq!(error_code(&v), "DEVICE_LEASED");
    assert_eq!(v["error"]["details"]["lease"]["name"], "agent-a", "{v}");
    assert!(!v.to_string().contains(&sa_secret), "{v}");
    assert!(
        v["error"]["details"]["lease"]["expires_at"].is_string(),
        "{v}"
    );
    assert!(v["error"]["message"].as_str().unwrap().contains("agent-a"));
    // A system operation too (the active device changes nothing on the device).
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/app/terminate",
            json!({ "udid": a.serial, "bundle_id": "com.mobilectl.demo" }),
        ),
    )
    .await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (409, "DEVICE_LEASED"),
        "{v}"
    );
    assert!(
        services_since(a, ma).is_empty(),
        "a refused act reached the device: {:?}",
        services_since(a, ma)
    );

    // Another session naming A: refused, its own device is B.
    let req = post(
        "/api/v1/device/ui/tap",
        json!({ "udid": a.serial, "x": 300, "y": 400 }),
    );
    let (status, v) = call(&app, in_session(req, idb)).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (409, "SESSION_DEVICE_MISMATCH"),
        "{v}"
    );
    assert!(services_since(a, ma).is_empty());

    // Reads stay open to anyone.
    let (status, snap) = call(&app, get(&format!("/api/v1/device/ui?udid={}", a.serial))).await;
    assert_eq!(status.as_u16(), 200, "{snap}");

    // The listing shows who holds what; the doctor lists the sessions.
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    let leases = list["leases"].as_array().unwrap();
    assert_eq!(leases.len(), 2, "{list}");
    assert!(leases
        .iter()
        .any(|l| l["udid"] == a.serial.as_str() && l["name"] == "agent-a"));
    let (_, doctor) = call(&app, get("/api/v1/doctor")).await;
    assert_eq!(doctor["sessions"].as_array().unwrap().len(), 2, "{doctor}");

    // The debug bundle says who held the device.
    let (status, bundle) = call(
        &app,
        in_session(get("/api/v1/debug/bundle?max_size=0"), &sa_secret),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{bundle}");
    assert_eq!(bundle["lease"]["name"], "agent-a", "{bundle}");

    // B ends its session: its device is free, and a refusal on A names it.
    let req = send_json("DELETE", &format!("/api/v1/sessions/{idb}"), "");
    let (status, ended) = call(&app, req).await;
    assert_eq!(status.as_u16(), 200, "{ended}");
    assert_eq!(ended["released"], b.serial.as_str());
    let req = post(
        "/api/v1/device/ui/tap",
        json!({ "udid": a.serial, "x": 300, "y": 400 }),
    );
    let (_, v) = call(&app, req).await;
    assert_eq!(v["error"]["details"]["free"], json!([b.serial]), "{v}");
    // An ended session is not found, with what happened to it.
    let (status, v) = call(&app, in_session(tap(1, 1), idb)).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (404, "SESSION_NOT_FOUND"),
        "{v}"
    );
    assert!(
        v["error"]["message"].as_str().unwrap().contains("ended"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_callers_reads_never_make_a_sessions_refs_stale() {
    let devices = android::start_devices(1);
    let a = &devices[0];
    let app = android::app_for(a);
    let writer = secret(&start(&app, json!({ "name": "writer" })).await);

    let (status, mine) = call(&app, in_session(get("/api/v1/device/ui"), &writer)).await;
    assert_eq!(status.as_u16(), 200, "{mine}");
    let user = ref_by_id(&mine, "username");
    // Others read the same device in between, as often as they like.
    for _ in 0..3 {
        let (status, theirs) =
            call(&app, get(&format!("/api/v1/device/ui?udid={}", a.serial))).await;
        assert_eq!(status.as_u16(), 200, "{theirs}");
    }
    // The writer's ref, pinned to its snapshot, still acts.
    let typed = post(
        "/api/v1/device/ui/type",
        json!({ "ref": user, "text": "alice", "snapshot_id": mine["snapshot_id"] }),
    );
    let (status, v) = call(&app, in_session(typed, &writer)).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    assert_eq!(v["details"]["readback"], "alice", "{v}");
    // Its snapshots are numbered on their own.
    let (_, again) = call(&app, in_session(get("/api/v1/device/ui"), &writer)).await;
    assert_ne!(again["snapshot_id"], mine["snapshot_id"]);
    let n: u32 = again["snapshot_id"].as_str().unwrap()[1..].parse().unwrap();
    assert!(
        n <= 3,
        "the others' reads counted in the writer's snapshots: {}",
        again["snapshot_id"]
    );

    // The writer gives the device back: anyone may act on it; its next act leases it again.
    let (status, v) = call(
        &app,
        in_session(post("/api/v1/session/release", json!({})), &writer),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{v}");
    assert_eq!(v["released"], a.serial.as_str(), "{v}");
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(list["leases"], json!([]), "{list}");
    let (status, v) = call(&app, tap(300, 400)).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    let (status, v) = call(&app, in_session(tap(300, 400), &writer)).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(list["leases"][0]["name"], "writer", "{list}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_lives_while_used_and_expires_when_idle_releasing_its_lease() {
    let devices = android::start_devices(1);
    let a = &devices[0];
    let app = android::app_for(a);
    let s = start(&app, json!({ "udid": a.serial, "ttl_s": 1 })).await;
    let id = s["id"].as_str().unwrap().to_string();
    let key = secret(&s);

    // Used every 400 ms for 1.6 s: renewed each time, so alive past its TTL.
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let (status, v) = call(&app, in_session(get("/api/v1/session"), &key)).await;
        assert_eq!(status.as_u16(), 200, "{v}");
        assert_eq!(v["udid"], a.serial.as_str());
    }
    // Left idle: it expires, and the server says so for as long as it remembers it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (status, v) = call(&app, get(&format!("/api/v1/sessions/{id}"))).await;
        if status.as_u16() == 410 {
            assert_eq!(error_code(&v), "SESSION_EXPIRED");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "never expired: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, v) = call(&app, in_session(tap(300, 400), &key)).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (410, "SESSION_EXPIRED"),
        "{v}"
    );
    assert_eq!(v["error"]["details"]["request_session"], true, "{v}");
    assert!(
        !v.to_string().contains(&key),
        "the secret is not repeated: {v}"
    );
    // The lease went with it.
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(list["leases"], json!([]), "{list}");
    let req = post(
        "/api/v1/device/ui/tap",
        json!({ "udid": a.serial, "x": 300, "y": 400 }),
    );
    let (status, v) = call(&app, req).await;
    assert_eq!(status.as_u16(), 200, "{v}");
}

/// Waits until the session named `name` is queued for a device.
async fn until_waiting(app: &Router, name: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let all = sessions(app).await;
        if all
            .iter()
            .any(|s| s["name"] == name && s["waiting"] == true)
        {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{name} never queued: {all:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_sessions_get_the_device_first_come_first_served() {
    let devices = android::start_devices(1);
    let a = &devices[0];
    let app = android::app_for(a);
    let holder = start(&app, json!({ "udid": a.serial, "name": "holder" })).await;

    let want = |name: &str| json!({ "udid": a.serial, "name": name, "wait_ms": 30000 });
    let first = tokio::spawn({
        let (app, body) = (app.clone(), want("first"));
        async move { call(&app, post("/api/v1/sessions", body)).await }
    });
    until_waiting(&app, "first").await;
    let second = tokio::spawn({
        let (app, body) = (app.clone(), want("second"));
        async move { call(&app, post("/api/v1/sessions", body)).await }
    });
    until_waiting(&app, "second").await;

    // A short wait runs out: NO_FREE_DEVICE with who holds the candidate, and no session kept.
    let (status, v) = call(
        &app,
        post(
            "/api/v1/sessions",
            json!({ "udid": a.serial, "name": "hasty", "wait_ms": 100 }),
        ),
    )
    .await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (409, "NO_FREE_DEVICE"),
        "{v}"
    );
    let candidate = &v["error"]["details"]["candidates"][0];
    assert_eq!(candidate["udid"], a.serial.as_str(), "{v}");
    assert_eq!(candidate["lease"]["name"], "holder", "{v}");
    assert!(!sessions(&app).await.iter().any(|s| s["name"] == "hasty"));

    // The holder leaves: the first to ask gets the device; the second waits on.
    let req = send_json(
        "DELETE",
        &format!("/api/v1/sessions/{}", secret(&holder)),
        "",
    );
    assert_eq!(call(&app, req).await.0.as_u16(), 200);
    let (status, got) = first.await.unwrap();
    assert_eq!(status.as_u16(), 200, "{got}");
    assert_eq!(got["udid"], a.serial.as_str());
    assert!(!second.is_finished(), "the second waiter jumped the queue");
    let req = send_json("DELETE", &format!("/api/v1/sessions/{}", secret(&got)), "");
    assert_eq!(call(&app, req).await.0.as_u16(), 200);
    let (status, got) = second.await.unwrap();
    assert_eq!(status.as_u16(), 200, "{got}");
    assert_eq!(got["udid"], a.serial.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_session_input_gets_clear_errors_and_leaves_no_lease() {
    let devices = android::start_devices(1);
    let a = &devices[0];
    let app = android::app_for(a);

    // An unknown session, by header, query parameter or body field.
    let (status, v) = call(&app, in_session(tap(300, 400), "nobody")).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (404, "SESSION_NOT_FOUND"),
        "{v}"
    );
    assert!(v["error"]["hint"].is_string());
    let (status, v) = call(&app, get("/api/v1/device/ui?session=nobody")).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (404, "SESSION_NOT_FOUND"),
        "{v}"
    );
    let body = json!({ "x": 300, "y": 400, "session": "nobody" });
    let (status, v) = call(&app, post("/api/v1/device/ui/tap", body)).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (404, "SESSION_NOT_FOUND"),
        "{v}"
    );
    let body = json!({ "x": 300, "y": 400, "session": 7 });
    let (status, v) = call(&app, post("/api/v1/device/ui/tap", body)).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (400, "VALIDATION_FAILED"),
        "{v}"
    );

    // Requests that cannot make a session: none is kept, no device is leased.
    let bad = [
        (json!({ "match": { "platform": "ios" } }), 404, "NO_DEVICE"),
        (json!({ "udid": "no-such-phone" }), 404, "NO_DEVICE"),
        (json!({ "ttl_s": 0 }), 400, "VALIDATION_FAILED"),
        (json!({ "ttl_s": 86401 }), 400, "VALIDATION_FAILED"),
        (json!({ "wait_ms": 600001 }), 400, "VALIDATION_FAILED"),
        (
            json!({ "udid": a.serial, "match": {} }),
            400,
            "VALIDATION_FAILED",
        ),
        (json!({ "name": "../etc" }), 400, "VALIDATION_FAILED"),
        (
            json!({ "match": { "colour": "red" } }),
            400,
            "VALIDATION_FAILED",
        ),
    ];
    for (body, want_status, want_code) in bad {
        let (status, v) = call(&app, post("/api/v1/sessions", body.clone())).await;
        assert_eq!(
            (status.as_u16(), error_code(&v).as_str()),
            (want_status, want_code),
            "{body}: {v}"
        );
        assert!(v["error"]["hint"].is_string(), "{body}: {v}");
    }
    assert!(sessions(&app).await.is_empty());
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(list["leases"], json!([]), "{list}");

    // A name is unique among live sessions.
    start(&app, json!({ "name": "ci" })).await;
    let (status, v) = call(&app, post("/api/v1/sessions", json!({ "name": "ci" }))).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (409, "SESSION_NAME_TAKEN"),
        "{v}"
    );
    // A request outside any session asking for its own session.
    let (status, v) = call(&app, get("/api/v1/session")).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (404, "SESSION_NOT_FOUND"),
        "{v}"
    );
}

/// A CLI run against `url` with its state in `state`, outside any session unless told.
fn cli(url: &str, state: &std::path::Path, session: Option<&str>, args: &[&str]) -> (i32, String) {
    let mut cmd = std::process::Command::new(crate::common::demo_server::BIN);
    cmd.args(args)
        .arg("--no-autostart")
        .env("MOBILECTL_URL", url)
        .env("MOBILECTL_STATE_DIR", state)
        .env_remove("MOBILECTL_TOKEN")
        .env_remove("MOBILECTL_UDID")
        .env_remove("MOBILECTL_SESSION");
    if let Some(s) = session {
        cmd.env("MOBILECTL_SESSION", s);
    }
    let o = cmd.output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), said)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_cli_session_works_across_processes_and_is_started_again_when_forgotten() {
    let s = crate::common::demo_server::DemoServer::start_with(None, 2);
    let state = tempfile::tempdir().unwrap();
    let run = |session: Option<&str>, args: &[&str]| cli(&s.url, state.path(), session, args);

    let (code, said) = run(
        None,
        &[
            "session",
            "start",
            "--name",
            "ci-9",
            "--platform",
            "android",
        ],
    );
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("(ci-9) · device"), "{said}");
    let kept = state.path().join("sessions/ci-9.json");
    let first: Value = serde_json::from_slice(&std::fs::read(&kept).unwrap()).unwrap();
    assert_eq!(
        first["request"]["match"],
        json!({"platform": "android"}),
        "{first}"
    );
    let size = std::fs::metadata(&kept).unwrap().len();
    let kept_secret = first["secret"].as_str().unwrap().to_string();
    assert!(kept_secret.starts_with("mss-"), "{first}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the kept secret is its owner's only");
    }

    // Later processes, by flag and by environment, run in it.
    let (code, said) = run(None, &["--session", "ci-9", "snapshot"]);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("LOG IN"), "{said}");
    let (code, said) = run(Some("ci-9"), &["press", "back"]);
    assert_eq!(code, 0, "{said}");
    let http = reqwest::Client::new();
    let info: Value = http
        .get(format!("{}/api/v1/sessions/ci-9", s.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(info["requests"], 2, "{info}");
    let leased = info["udid"].as_str().unwrap().to_string();
    // Another user's CLI (its own state) naming the session acts in nothing, and cannot end it.
    let stranger = tempfile::tempdir().unwrap();
    for args in [&["press", "back"][..], &["session", "end", "ci-9"][..]] {
        let (code, said) = cli(&s.url, stranger.path(), Some("ci-9"), args);
        assert_ne!(code, 0, "{said}");
        assert!(said.contains("SESSION_FORBIDDEN"), "{said}");
    }
    // Outside the session, its device refuses acts.
    let (code, said) = run(None, &["-d", &leased, "press", "back"]);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("DEVICE_LEASED") && said.contains("ci-9"),
        "{said}"
    );

    // The server forgets it: the next command starts it again from the kept defaults.
    let ended = http
        .delete(format!("{}/api/v1/sessions/ci-9", s.url))
        .header("mobilectl-session", &kept_secret)
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status().as_u16(), 200);
    let (code, said) = run(Some("ci-9"), &["session", "info"]);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("started it again") && said.contains("(ci-9)"),
        "{said}"
    );
    let again: Value = serde_json::from_slice(&std::fs::read(&kept).unwrap()).unwrap();
    assert_ne!(again["id"], first["id"]);
    assert_ne!(
        again["secret"], first["secret"],
        "the new session's secret is kept"
    );
    assert_eq!(
        std::fs::metadata(&kept).unwrap().len(),
        size,
        "overwritten, not appended"
    );

    // Ended from the CLI: gone, file and all.
    let (code, said) = run(None, &["session", "end", "ci-9"]);
    assert_eq!(code, 0, "{said}");
    assert!(!kept.exists());
    let (code, said) = run(Some("ci-9"), &["session", "info"]);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("SESSION_NOT_FOUND"), "{said}");
}

#[tokio::test]
async fn a_sessions_proxy_rules_end_with_it() {
    let app = crate::common::bare_app();
    let s = start(&app, json!({ "lazy": true, "name": "mocker" })).await;
    let rule = json!({ "host": "api.example.com", "status": 503 });
    let (status, added) = call(
        &app,
        in_session(post("/api/v1/proxy/rules", rule.clone()), &secret(&s)),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{added}");
    assert_eq!(added["session"], s["id"], "{added}");
    // A rule added outside any session stays.
    let (status, kept) = call(&app, post("/api/v1/proxy/rules", rule)).await;
    assert_eq!(status.as_u16(), 200, "{kept}");
    assert!(kept.get("session").is_none(), "{kept}");
    let req = in_session(
        send_json("DELETE", "/api/v1/sessions/mocker", ""),
        &secret(&s),
    );
    assert_eq!(call(&app, req).await.0.as_u16(), 200);
    let (_, rules) = call(&app, get("/api/v1/proxy/rules")).await;
    let ids: Vec<&Value> = rules["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [&kept["id"]], "{rules}");
}

/// An app with no tools whose admin token is `root-token`.
fn app_with_admin() -> Router {
    mobilectl::server::check_declared_errors(true);
    let controller = mobilectl::controller::DeviceController::new(Default::default());
    let options = mobilectl::server::ServerOptions {
        admin_token: Some("root-token".into()),
        ..Default::default()
    };
    let state = mobilectl::server::AppState::new(controller, options);
    mobilectl::server::app(state, crate::common::loopback_policy())
}

fn as_admin(mut req: Request<Body>, token: &str) -> Request<Body> {
    req.headers_mut()
        .insert("mobilectl-admin", token.parse().unwrap());
    req
}

async fn rule_ids(app: &Router, caller: impl Fn(Request<Body>) -> Request<Body>) -> Vec<Value> {
    let (status, rules) = call(app, caller(get("/api/v1/proxy/rules"))).await;
    assert_eq!(status.as_u16(), 200, "{rules}");
    rules["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].clone())
        .collect()
}

#[tokio::test]
async fn what_a_session_makes_is_its_own_and_only_the_admin_token_sees_all() {
    let app = app_with_admin();
    let a = secret(&start(&app, json!({ "lazy": true, "name": "a" })).await);
    let b = secret(&start(&app, json!({ "lazy": true, "name": "b" })).await);
    let rule = json!({ "host": "api.example.com", "status": 503 });
    let add = |who: Option<&str>| {
        let req = post("/api/v1/proxy/rules", rule.clone());
        match who {
            Some(s) => in_session(req, s),
            None => req,
        }
    };
    let (_, ra) = call(&app, add(Some(&a))).await;
    let (_, rb) = call(&app, add(Some(&b))).await;
    let (_, rn) = call(&app, add(None)).await;

    // Each sees its own rules only; a session-less caller the session-less ones.
    assert_eq!(
        rule_ids(&app, |r| in_session(r, &a)).await,
        [ra["id"].clone()]
    );
    assert_eq!(
        rule_ids(&app, |r| in_session(r, &b)).await,
        [rb["id"].clone()]
    );
    assert_eq!(rule_ids(&app, |r| r).await, [rn["id"].clone()]);
    // B can neither delete A's rule nor clear it: 404, and A's rule stays.
    let del = send_json("DELETE", &format!("/api/v1/proxy/rules/{}", ra["id"]), "");
    let (status, v) = call(&app, in_session(del, &b)).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (404, "NOT_FOUND"),
        "{v}"
    );
    let (status, cleared) = call(
        &app,
        in_session(send_json("DELETE", "/api/v1/proxy/rules", ""), &b),
    )
    .await;
    assert_eq!(
        (status.as_u16(), &cleared["cleared"]),
        (200, &json!(1)),
        "{cleared}"
    );
    assert_eq!(
        rule_ids(&app, |r| in_session(r, &a)).await,
        [ra["id"].clone()]
    );
    // The admin token sees every rule; a wrong one is no admin.
    let all = rule_ids(&app, |r| as_admin(r, "root-token")).await;
    assert_eq!(all, [ra["id"].clone(), rn["id"].clone()]);
    assert_eq!(
        rule_ids(&app, |r| as_admin(r, "root-tokem")).await,
        [rn["id"].clone()]
    );

    // The link's conditions A sets are A's: B and a session-less caller cannot lift or
    // replace them; the admin can; and they end with A.
    let lte = json!({ "profile": "lte" });
    let (status, v) = call(
        &app,
        in_session(post("/api/v1/proxy/conditions", lte.clone()), &a),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{v}");
    for req in [
        in_session(
            post("/api/v1/proxy/conditions", json!({ "profile": "offline" })),
            &b,
        ),
        send_json("DELETE", "/api/v1/proxy/conditions", ""),
    ] {
        let (status, v) = call(&app, req).await;
        assert_eq!(
            (status.as_u16(), error_code(&v).as_str()),
            (403, "SESSION_FORBIDDEN"),
            "{v}"
        );
    }
    let (_, status_now) = call(&app, get("/api/v1/proxy/status")).await;
    assert_eq!(status_now["conditions"]["profile"], "lte", "{status_now}");
    let req = in_session(send_json("DELETE", "/api/v1/sessions/a", ""), &a);
    assert_eq!(call(&app, req).await.0.as_u16(), 200);
    let (_, status_now) = call(&app, get("/api/v1/proxy/status")).await;
    assert!(
        status_now["conditions"].is_null(),
        "ended with A: {status_now}"
    );
    let (status, v) = call(&app, in_session(post("/api/v1/proxy/conditions", lte), &b)).await;
    assert_eq!(status.as_u16(), 200, "{v}");
    let (status, v) = call(
        &app,
        as_admin(
            send_json("DELETE", "/api/v1/proxy/conditions", ""),
            "root-token",
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "the admin lifts B's conditions: {v}");
}
