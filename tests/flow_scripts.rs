//! Flows' JavaScript through the real adb on the demo device: a script that asks a local HTTP
//! server (allowed) for the user to log in as, `output` handed to later steps, a refused
//! host, and scripts that loop or allocate without end, each a clear step failure with the
//! server and the next script unharmed.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::common::android::*;
use crate::common::*;

/// A local API for the scripts: `GET /user` answers a user as JSON, `POST /echo` answers
/// the body and the `x-token` header it got, with status 201.
async fn local_api() -> u16 {
    use axum::routing::{get, post};
    let app = axum::Router::new()
        .route(
            "/user",
            get(|| async { axum::Json(json!({"name": "erin"})) }),
        )
        .route(
            "/echo",
            post(|headers: axum::http::HeaderMap, body: String| async move {
                let token = headers
                    .get("x-token")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_string();
                (
                    axum::http::StatusCode::CREATED,
                    axum::Json(json!({"got": body, "token": token})),
                )
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

/// A posted flow with its scripts; the answer.
async fn run(app: &axum::Router, yaml: &str, files: &[(&str, String)], allow: &[String]) -> Value {
    let files: BTreeMap<&str, &String> = files.iter().map(|(k, v)| (*k, v)).collect();
    let body = json!({
        "yaml": yaml, "file": "flows/login.yaml", "files": files, "allow_http": allow,
        "timeout_ms": 60000,
    });
    let (status, r) = call(app, post("/api/v1/flows/run", body)).await;
    assert_eq!(status, axum::http::StatusCode::OK, "{r}");
    r
}

/// What each step did, as `command status`.
fn outcomes(r: &Value) -> Vec<String> {
    r["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                s["command"].as_str().unwrap_or("?"),
                s["status"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_fetches_the_user_and_later_steps_log_in_as_it() {
    let port = local_api().await;
    let h = start_device();
    let cache = tempfile::tempdir().unwrap();
    let app = app_keeping_runs_in(&h, cache.path());
    let setup = format!(
        "var r = http.get('http://127.0.0.1:{port}/user');\n\
         output.user = json(r.body).name;\n\
         output.field = 'user.*';\n\
         var e = http.post('http://127.0.0.1:{port}/echo', {{body: {{a: 1}}, headers: {{'x-token': TOKEN}}}});\n\
         output.echo = e.status + ' ' + json(e.body).token + ' ' + json(e.body).got;\n\
         console.log('user is', output.user);\n"
    );
    let flow = "appId: com.mobilectl.demo\n---\n- launchApp\n\
        - runScript: {file: ../scripts/setup.js, env: {TOKEN: t-42}}\n\
        - assertTrue: ${output.echo == '201 t-42 {\"a\":1}'}\n\
        - tapOn: {id: \"${output.field}\"}\n- inputText: ${output.user.toUpperCase()}\n\
        - evalScript: ${output.typed = maestro.platform + ':' + output.user}\n\
        - tapOn: LOG IN\n- extendedWaitUntil: {visible: \"Allow|ALLOW\", timeout: 10000}\n\
        - assertTrue: ${output.typed == 'android:erin'}\n";
    let allow = vec![format!("127.0.0.1:{port}")];
    let r = run(&app, flow, &[("scripts/setup.js", setup)], &allow).await;
    assert_eq!(
        r["success"],
        true,
        "{}",
        mobilectl::render::text("flow_run", &r)
    );
    assert_eq!(r["steps"][1]["console"], json!(["user is erin"]), "{r}");
    // The run's trace has them too, on the flow's line.
    let traces = walk(cache.path(), "trace.jsonl");
    let flow_line = traces
        .iter()
        .flat_map(|t| {
            std::fs::read_to_string(t)
                .unwrap_or_default()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter_map(|l| serde_json::from_str::<Value>(&l).ok())
        .find(|l| l["op"] == "flow_run")
        .expect("the flow's trace line");
    assert_eq!(flow_line["console"], json!(["user is erin"]), "{flow_line}");
    let typed = argvs_with(&h, "input");
    assert!(
        typed.contains(&vec!["input".into(), "text".into(), "ERIN".into()]),
        "{typed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_to_a_host_the_run_does_not_allow_fails_its_step_naming_the_option() {
    let port = local_api().await;
    let h = start_device();
    let app = app_for(&h);
    let flow = format!(
        "appId: com.mobilectl.demo\n---\n\
         - evalScript: ${{output.caught = (function() {{ try {{ http.get('http://localhost:{port}/user'); return 'no' }} catch (e) {{ return 'caught' }} }})()}}\n\
         - assertTrue: ${{output.caught == 'caught'}}\n\
         - evalScript: ${{http.get('http://localhost:{port}/user').status}}\n- back\n"
    );
    // Allowed on 127.0.0.1, not as `localhost`: the host is compared as written.
    let r = run(&app, &flow, &[], &[format!("127.0.0.1:{port}")]).await;
    assert_eq!(r["success"], false, "{r}");
    assert_eq!(
        outcomes(&r),
        [
            "evalScript passed",
            "assertTrue passed",
            "evalScript failed"
        ]
    );
    let why = r["steps"][2]["error"].as_str().unwrap_or_default();
    assert!(
        why.contains(&format!("localhost:{port} is not a host this run allows"))
            && why.contains(&format!("--allow-http localhost:{port}")),
        "{why}"
    );
    // The flow's env may allow it too.
    let allowed = format!(
        "appId: com.mobilectl.demo\nenv:\n  MOBILECTL_ALLOW_HTTP: localhost:{port}\n---\n\
        - assertTrue: ${{http.get('http://localhost:{port}/user').ok}}\n"
    );
    let r = run(&app, &allowed, &[], &[]).await;
    assert_eq!(r["success"], true, "{r}");
}

/// Bad scripts against the real server process: a loop without end, one that allocates
/// without end, and a thrown error each fail their step clearly and in bounded time; the
/// server stays up and the next script runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_that_loop_or_allocate_without_end_fail_their_step_and_the_server_goes_on() {
    let mut server = crate::common::demo_server::DemoServer::start(None);
    let http = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(120))
        .build()
        .unwrap();
    let post = |yaml: &str, timeout_ms: u64| {
        let body = json!({"yaml": yaml, "timeout_ms": timeout_ms});
        http.post(format!("{}/api/v1/flows/run", server.url))
            .json(&body)
            .send()
    };
    for (script, timeout_ms, want) in [
        ("while (true) {}", 60_000, "loop iterations"),
        // Each call's loop stays under the engine's limit: the run's time ends it.
        (
            "function spin() { for (var i = 0; i < 1000000; i++) {} } for (;;) { spin() }",
            3_000,
            "its time budget",
        ),
        (
            "var s = 'x'; for (;;) { s = s + s; s.charCodeAt(s.length - 1) }",
            60_000,
            "memory budget of 128 MiB",
        ),
        (
            "throw new TypeError('bad input')",
            60_000,
            "TypeError: bad input",
        ),
    ] {
        let yaml = format!("- evalScript: ${{{script}}}\n- evalScript: ${{output.after = 1}}\n");
        let started = std::time::Instant::now();
        let r: Value = post(&yaml, timeout_ms).await.unwrap().json().await.unwrap();
        assert_eq!(r["success"], false, "{script}: {r}");
        let why = r["steps"][0]["error"].as_str().unwrap_or_default();
        assert!(why.contains(want), "{script}: {why}");
        eprintln!("`{script}` failed in {:?}: {why}", started.elapsed());
        // The next flow's scripts run in a fresh engine.
        let r: Value = post(
            "- evalScript: ${output.x = 1 + 1}\n- assertTrue: ${output.x == 2}\n",
            60_000,
        )
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
        assert_eq!(r["success"], true, "after `{script}`: {r}");
    }
    assert_eq!(server.exited(), None, "the server process ended");
}

/// Every file named `name` under `dir`.
fn walk(dir: &std::path::Path, name: &str) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.file_name().is_some_and(|n| n == name) {
                out.push(p);
            }
        }
    }
    out
}
