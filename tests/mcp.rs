//! MCP end to end, against `serve --demo` (a virtual Android phone reached through the real
//! adb): `mobilectl mcp` on stdio driven by rmcp's client (a client nobody here wrote), and
//! `/mcp` on the HTTP server driven with plain HTTP requests as the Streamable HTTP
//! transport specifies them.

use std::time::Duration;

use base64::Engine;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject, Tool};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use virtual_device::testing::free_port;

use crate::common;

use common::demo_server::{DemoServer, BIN};

fn args(v: Value) -> JsonObject {
    v.as_object().cloned().unwrap()
}

fn text_of(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// cl100k tokens of the `tools/list` answer as sent.
fn tools_list_tokens(tools: &[Tool]) -> usize {
    let answer = serde_json::to_string(&json!({ "tools": tools })).unwrap();
    // Built once for the binary: built for every tool, unoptimised, the test took 13.3 CPU-s
    // instead of 2.1.
    tiktoken_rs::cl100k_base_singleton()
        .encode_with_special_tokens(&answer)
        .len()
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &'static str,
    a: Value,
) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(name).with_arguments(args(a)))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_mcp_drives_the_demo_login() {
    let s = DemoServer::start(None);
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args(["mcp", "--no-autostart"])
        .env("MOBILECTL_URL", &s.url)
        .env_remove("MOBILECTL_TOKEN")
        .env_remove("MOBILECTL_UDID");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();

    let info = client.peer_info().expect("initialized");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(instructions.contains("STALE_REFERENCE"), "{instructions}");
    assert!(instructions.len() < 2048, "{} bytes", instructions.len());

    // By default the list is the agent's loop plus `call` and `describe`, within 3,000
    // cl100k tokens as sent and 150 a tool; `describe` names every other operation and
    // `call` reaches it.
    let tools = client.list_all_tools().await.unwrap();
    let core: Vec<&str> = mobilectl::api::operations()
        .iter()
        .filter(|op| op.mcp == mobilectl::api::Mcp::Core)
        .map(|op| op.name)
        .collect();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names[..core.len()], core[..]);
    assert_eq!(names[core.len()..], ["call", "describe"]);
    let tokens = tools_list_tokens(&tools);
    println!(
        "tools/list: {} tools, {tokens} cl100k tokens; instructions {} bytes",
        tools.len(),
        instructions.len()
    );
    assert!(tokens <= 3000, "tools/list costs {tokens} tokens");
    for t in &tools {
        let one = tools_list_tokens(std::slice::from_ref(t));
        assert!(one <= 150, "{} costs {one} tokens", t.name);
    }
    let listed = text_of(&call(&client, "describe", json!({})).await);
    for op in mobilectl::api::operations().iter().filter(|o| o.is_tool()) {
        assert!(listed.contains(&format!("\n{}: ", op.name)), "{}", op.name);
    }
    let orientation = call(
        &client,
        "call",
        json!({"operation": "get_orientation", "arguments": {}}),
    )
    .await;
    assert_ne!(orientation.is_error, Some(true), "{orientation:?}");
    assert!(
        text_of(&orientation).contains("portrait"),
        "{}",
        text_of(&orientation)
    );
    // A tool left out of the default list still runs when called by its name.
    assert!(!names.contains(&"get_orientation"));
    let direct = call(&client, "get_orientation", json!({})).await;
    assert_eq!(text_of(&direct), text_of(&orientation));

    // Look: the compact text tree.
    let snap = call(&client, "snapshot", json!({})).await;
    assert_ne!(snap.is_error, Some(true), "{snap:?}");
    let tree = text_of(&snap);
    assert!(tree.contains("textbox #username"), "{tree}");
    let user = common::ref_of(&tree, "username");

    // Act on a ref, then on a selector.
    let typed = call(&client, "type_text", json!({"ref": user, "text": "alice"})).await;
    assert_ne!(typed.is_error, Some(true), "{typed:?}");
    // The text is what the CLI prints (one line, then what changed); the JSON rides beside it.
    let typed_json = typed.structured_content.clone().expect("structuredContent");
    assert_eq!(typed_json["success"], true, "{typed_json}");
    let typed_text = text_of(&typed);
    assert_eq!(
        typed_text,
        mobilectl::render::text("type_text", &typed_json)
    );
    assert!(
        typed_text.starts_with(&format!("type {user} ok · read back \"alice\"")),
        "{typed_text}"
    );
    let tap = call(&client, "tap", json!({"selector": {"text": "LOG IN"}})).await;
    assert_ne!(tap.is_error, Some(true), "{tap:?}");

    // The username ref is from the login screen, which the tap left: stale, said with code and hint.
    let stale = call(&client, "tap", json!({"ref": user})).await;
    assert_eq!(stale.is_error, Some(true), "{stale:?}");
    let said = text_of(&stale);
    assert!(said.starts_with("STALE_REFERENCE: "), "{said}");
    assert!(said.contains(" hint: "), "{said}");

    // Verify.
    let wait = call(
        &client,
        "wait",
        json!({"selector": {"text": "Allow"}, "condition": "visible", "timeout_ms": 10000}),
    )
    .await;
    assert_ne!(wait.is_error, Some(true), "{wait:?}");
    let waited = wait.structured_content.clone().expect("structuredContent");
    assert_eq!(waited["status"], "success", "{waited}");
    assert!(
        text_of(&wait).starts_with("wait success after "),
        "{}",
        text_of(&wait)
    );

    // See: a JPEG that fits 1024 px, with its geometry beside it.
    let shot = call(&client, "screenshot", json!({})).await;
    assert_ne!(shot.is_error, Some(true), "{shot:?}");
    let image = shot
        .content
        .iter()
        .find_map(|c| c.as_image())
        .expect("image content");
    assert_eq!(image.mime_type, "image/jpeg");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&image.data)
        .unwrap();
    let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg).unwrap();
    assert!(
        decoded.width().max(decoded.height()) <= 1024,
        "{}x{}",
        decoded.width(),
        decoded.height()
    );
    let geometry: Value = serde_json::from_str(&text_of(&shot)).unwrap();
    assert!(geometry["tap_per_image_pixel"].is_string(), "{geometry}");
    // The caller's size wins.
    let small = call(&client, "screenshot", json!({"max_size": 200})).await;
    let small_image = small.content.iter().find_map(|c| c.as_image()).unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&small_image.data)
        .unwrap();
    let decoded = image::load_from_memory(&bytes).unwrap();
    assert!(decoded.width().max(decoded.height()) <= 200);

    // Errors are results with the envelope's code, message and hint.
    let missing = call(&client, "tap", json!({"ref": "e999"})).await;
    assert_eq!(missing.is_error, Some(true), "{missing:?}");
    let said = text_of(&missing);
    assert!(said.starts_with("ELEMENT_NOT_FOUND: "), "{said}");
    assert!(said.contains("e999") && said.contains(" hint: "), "{said}");
    let invalid = call(&client, "press", json!({"key": "notakey"})).await;
    assert_eq!(invalid.is_error, Some(true));
    assert!(
        text_of(&invalid).starts_with("VALIDATION_FAILED")
            || text_of(&invalid).starts_with("BAD_REQUEST"),
        "{}",
        text_of(&invalid)
    );
    let unknown_arg = call(&client, "tap", json!({"reff": "e1"})).await;
    assert_eq!(unknown_arg.is_error, Some(true));
    assert!(text_of(&unknown_arg).contains("reff"), "{unknown_arg:?}");

    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_mcp_reports_an_unreachable_server_as_a_tool_error() {
    let port = free_port();
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args(["mcp", "--no-autostart"])
        .env("MOBILECTL_URL", format!("http://127.0.0.1:{port}"))
        .env_remove("MOBILECTL_TOKEN");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    // Listing needs no server.
    assert!(!client.list_all_tools().await.unwrap().is_empty());
    let r = call(&client, "list_devices", json!({})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(
        text_of(&r).starts_with("SERVER_UNREACHABLE: "),
        "{}",
        text_of(&r)
    );
    client.cancel().await.unwrap();
}

/// One JSON-RPC exchange with `/mcp`: the answer (JSON or the SSE event carrying it) and the
/// response headers.
struct Http {
    http: reqwest::Client,
    url: String,
    session: Option<String>,
}

impl Http {
    async fn post(&mut self, message: Value) -> (u16, Value) {
        let mut req = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2025-06-18")
            .timeout(Duration::from_secs(60))
            .body(message.to_string());
        if let Some(s) = &self.session {
            req = req.header("mcp-session-id", s);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        if let Some(s) = resp.headers().get("mcp-session-id") {
            self.session = Some(s.to_str().unwrap().to_string());
        }
        let is_sse = resp
            .headers()
            .get("content-type")
            .is_some_and(|c| c.to_str().unwrap_or("").starts_with("text/event-stream"));
        let id = message.get("id").cloned();
        let body = if is_sse {
            read_sse_answer(resp, id).await
        } else {
            let text = resp.text().await.unwrap();
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        (status, body)
    }
}

/// Reads SSE events until the JSON-RPC message answering `id`.
async fn read_sse_answer(mut resp: reqwest::Response, id: Option<Value>) -> Value {
    let mut buf = String::new();
    while let Some(chunk) = resp.chunk().await.unwrap() {
        buf.push_str(&String::from_utf8_lossy(&chunk));
        for line in buf.lines() {
            if let Some(data) = line.strip_prefix("data:") {
                if let Ok(v) = serde_json::from_str::<Value>(data.trim()) {
                    if id.is_none() || v.get("id") == id.as_ref() {
                        return v;
                    }
                }
            }
        }
    }
    panic!("the stream ended without an answer: {buf}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_mcp_in_the_server() {
    let s = DemoServer::start(None);
    let url = format!("{}/mcp", s.url);
    let mut h = Http {
        http: reqwest::Client::new(),
        url: url.clone(),
        session: None,
    };

    let (status, init) = h
        .post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "plain-http-test", "version": "0"}}}),
        )
        .await;
    assert_eq!(status, 200, "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "mobilectl", "{init}");
    assert!(init["result"]["instructions"]
        .as_str()
        .unwrap()
        .contains("snapshot"));
    assert!(h.session.is_some(), "a session id was given");
    let (status, _) = h
        .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert_eq!(status, 202);

    let (status, list) = h
        .post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    assert_eq!(status, 200, "{list}");
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    // The default list, as over stdio…
    assert_eq!(
        names.len(),
        mobilectl::mcp::Offer::default().list().len(),
        "{names:?}"
    );
    assert!(names.contains(&"snapshot") && names.contains(&"tap") && names.contains(&"call"));
    // …and every operation but the streams as its own tool with `?tools=all` on the URL.
    let default_url = h.url.clone();
    h.url = format!("{default_url}?tools=all");
    let (status, all) = h
        .post(json!({"jsonrpc": "2.0", "id": 20, "method": "tools/list"}))
        .await;
    assert_eq!(status, 200, "{all}");
    let tools = mobilectl::api::operations()
        .iter()
        .filter(|op| mobilectl::mcp::tools::is_tool(op))
        .count();
    assert_eq!(
        all["result"]["tools"].as_array().unwrap().len(),
        tools,
        "every operation but the streams: {all}"
    );
    h.url = format!("{default_url}?tools=nope");
    let (_, bad) = h
        .post(json!({"jsonrpc": "2.0", "id": 21, "method": "tools/list"}))
        .await;
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("no tool group `nope`"),
        "{bad}"
    );
    h.url = default_url;

    let (status, snap) = h
        .post(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "snapshot", "arguments": {"interactive_only": true}}}))
        .await;
    assert_eq!(status, 200, "{snap}");
    let text = snap["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(text.contains("textbox #username"), "{snap}");

    let (_, missing) = h
        .post(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "tap", "arguments": {"ref": "e999"}}}))
        .await;
    assert_eq!(missing["result"]["isError"], true, "{missing}");
    assert!(missing["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("ELEMENT_NOT_FOUND: "));

    // The server's security checks guard /mcp too.
    let foreign = reqwest::Client::new()
        .post(&url)
        .header("host", "evil.example")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status().as_u16(), 403);
    let body: Value = foreign.json().await.unwrap();
    assert_eq!(body["error"]["code"], "FORBIDDEN_HOST", "{body}");
    let cross_site = reqwest::Client::new()
        .post(&url)
        .header("origin", "https://evil.example")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(cross_site.status().as_u16(), 403);

    // Ending the session: accepted once; then, and for a session never given, 404 (the
    // MCP specification's answer for an unknown or terminated session).
    let delete = |id: String| {
        reqwest::Client::new()
            .delete(&url)
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-06-18")
            .send()
    };
    let session = h.session.clone().unwrap();
    let first = delete(session.clone()).await.unwrap();
    assert_eq!(first.status().as_u16(), 202);
    let again = delete(session).await.unwrap();
    assert_eq!(again.status().as_u16(), 404);
    let never = delete("no-such-session".into()).await.unwrap();
    assert_eq!(never.status().as_u16(), 404);
}

/// One JSON-RPC message to `/mcp` of an in-process app; the answer read from its SSE stream.
async fn post_in_process(
    app: &axum::Router,
    token: Option<&str>,
    session: Option<&str>,
    message: Value,
) -> (u16, Option<String>, Value) {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let mut req = axum::http::Request::post("/mcp")
        .header("host", "127.0.0.1:9100")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18");
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let req = req
        .body(axum::body::Body::from(message.to_string()))
        .unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status().as_u16();
    let session = resp
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let mut body = resp.into_body();
    let mut buf = String::new();
    let answer = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(frame) = body.frame().await {
            let Ok(data) = frame.unwrap().into_data() else {
                continue;
            };
            buf.push_str(&String::from_utf8_lossy(&data));
            if let Ok(v) = serde_json::from_str::<Value>(&buf) {
                return v; // a plain JSON answer (errors)
            }
            for line in buf.lines() {
                if let Some(Ok(v)) = line
                    .strip_prefix("data:")
                    .map(|d| serde_json::from_str::<Value>(d.trim()))
                {
                    if v.get("id").is_some() {
                        return v;
                    }
                }
            }
        }
        Value::String(buf.clone())
    })
    .await
    .expect("an answer in time");
    (status, session, answer)
}

#[tokio::test]
async fn mcp_route_needs_the_token_and_calls_the_api_in_process() {
    let policy = mobilectl::server::SecurityPolicy {
        token: Some("s3cret".into()),
        ..common::loopback_policy()
    };
    let app = common::app_with(mobilectl::exec::Toolbox::with([]), policy);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "in-process-test", "version": "0"}}});

    let (status, _, body) = post_in_process(&app, None, None, init.clone()).await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error"]["code"], "UNAUTHORIZED", "{body}");

    let (status, session, body) = post_in_process(&app, Some("s3cret"), None, init).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["serverInfo"]["name"], "mobilectl", "{body}");
    let session = session.expect("a session id");
    let (status, _, _) = post_in_process(
        &app,
        Some("s3cret"),
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(status, 202);

    // With no device tools, listing devices answers (each platform says why it is absent).
    let (status, _, body) = post_in_process(
        &app,
        Some("s3cret"),
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "list_devices", "arguments": {}}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let result = &body["result"];
    assert_eq!(result["isError"], false, "{body}");
    let listed = result["structuredContent"].clone();
    assert_eq!(
        result["content"][0]["text"],
        mobilectl::render::text("list_devices", &listed)
    );
    assert!(listed["devices"].as_array().unwrap().is_empty(), "{listed}");

    // A failing operation is a tool error carrying the API's code.
    let (_, _, body) = post_in_process(
        &app,
        Some("s3cret"),
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "snapshot", "arguments": {}}}),
    )
    .await;
    assert_eq!(body["result"]["isError"], true, "{body}");
    let said = body["result"]["content"][0]["text"].as_str().unwrap();
    assert!(said.starts_with("NO_DEVICE: "), "{said}");
}

/// The live sessions of the server at `url`.
async fn live_sessions(url: &str) -> Vec<Value> {
    let v: Value = reqwest::get(format!("{url}/api/v1/sessions"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["sessions"].as_array().unwrap().clone()
}

/// Polls until the server has `n` live sessions.
async fn until_sessions(url: &str, n: usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let live = live_sessions(url).await;
        if live.len() == n {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "want {n} sessions: {live:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `mcp --tools GROUPS` offers the tools of those groups of the table only: a smaller
/// `tools/list`, and a call to another tool is refused naming what is offered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_offers_only_the_tool_groups_it_is_given() {
    let s = DemoServer::start(None);
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args([
        "mcp",
        "--no-autostart",
        "--tools",
        "devices,inspect,act,verify",
    ])
    .env("MOBILECTL_URL", &s.url)
    .env_remove("MOBILECTL_TOKEN")
    .env_remove("MOBILECTL_UDID");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let groups = ["devices", "inspect", "act", "verify"];
    let wanted: Vec<&str> = mobilectl::mcp::tools::tools()
        .iter()
        .filter(|t| groups.contains(&t.group))
        .map(|t| t.tool.name.as_ref())
        .collect();
    let offered: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(offered, wanted);
    for name in [
        "snapshot",
        "tap",
        "type_text",
        "wait",
        "expect",
        "list_devices",
    ] {
        assert!(offered.contains(&name), "{name}: {offered:?}");
    }
    let all = mobilectl::mcp::tools::tools().len();
    println!(
        "tools/list with {groups:?}: {} of {all} tools, {} cl100k tokens",
        tools.len(),
        tools_list_tokens(&tools)
    );
    // An offered tool works; another is refused, naming the groups offered.
    let snap = call(&client, "snapshot", json!({})).await;
    assert_ne!(snap.is_error, Some(true), "{snap:?}");
    assert!(text_of(&snap).contains("LOG IN"), "{}", text_of(&snap));
    let refused = client
        .call_tool(CallToolRequestParams::new("add_proxy_rule").with_arguments(args(json!({}))))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("not offered here") && refused.contains("devices, inspect, act, verify"),
        "{refused}"
    );
    client.cancel().await.unwrap();
}

/// `mcp --tools all` offers every operation but the streams as its own tool with its full
/// schema (the list from before the default was made small), and no `call` or `describe`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_all_offers_every_operation_as_its_own_tool() {
    let mut cmd = tokio::process::Command::new(BIN);
    // `tools/list` needs no server.
    cmd.args(["mcp", "--no-autostart", "--tools", "all"])
        .env("MOBILECTL_URL", "http://127.0.0.1:1")
        .env_remove("MOBILECTL_TOKEN")
        .env_remove("MOBILECTL_UDID");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let want: Vec<&Tool> = mobilectl::mcp::tools::tools()
        .iter()
        .map(|t| &t.tool)
        .collect();
    assert_eq!(tools.iter().collect::<Vec<_>>(), want);
    assert!(!tools
        .iter()
        .any(|t| t.name == "call" || t.name == "describe"));
    let ops = mobilectl::api::operations();
    assert_eq!(tools.len(), ops.iter().filter(|o| o.is_tool()).count());
    println!(
        "tools/list with --tools all: {} tools, {} cl100k tokens",
        tools.len(),
        tools_list_tokens(&tools)
    );
    client.cancel().await.unwrap();
}

/// A stdio bridge renews its session while it lives, however long its agent thinks; killed
/// without closing (SIGKILL: no clean-up), it holds its device no longer than the session's
/// idle expiry (`--session-ttl-s`, 60 s by default), not the server's 600 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_stdio_bridge_gives_its_device_back_within_its_session_ttl() {
    let s = DemoServer::start_with(None, 1);
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args(["mcp", "--no-autostart", "--session-ttl-s", "2"])
        .env("MOBILECTL_URL", &s.url)
        .env_remove("MOBILECTL_TOKEN")
        .env_remove("MOBILECTL_UDID");
    let transport = TokioChildProcess::new(cmd).unwrap();
    let pid = transport.id().unwrap();
    let agent = ().serve(transport).await.unwrap();
    let done = call(&agent, "hide_keyboard", json!({})).await;
    assert_ne!(done.is_error, Some(true), "{done:?}");
    let mine = call(&agent, "session_info", json!({})).await;
    let mine = mine.structured_content.clone().expect("structuredContent");
    assert_eq!(mine["ttl_s"], 2, "{mine}");
    assert!(mine["udid"].is_string(), "{mine}");

    // Idle three times as long as its expiry: renewed, the same session holds the device.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let live = live_sessions(&s.url).await;
    assert_eq!(live.len(), 1, "{live:?}");
    assert_eq!(
        (&live[0]["id"], &live[0]["udid"]),
        (&mine["id"], &mine["udid"])
    );

    // Killed: nothing ends the session but its idle expiry, which frees the device.
    common::sigkill(pid);
    until_sessions(&s.url, 0).await;
    drop(agent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_mcp_clients_lease_different_devices_and_closing_gives_them_back() {
    let s = DemoServer::start_with(None, 2);
    let list: Value = reqwest::get(format!("{}/api/v1/device/list", s.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let active = list["active"].as_str().unwrap().to_string();
    let other = list["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["udid"].as_str().unwrap().to_string())
        .find(|u| *u != active)
        .unwrap();

    // A stdio agent acts first: its connection's session leases the active device.
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args(["mcp", "--no-autostart"])
        .env("MOBILECTL_URL", &s.url)
        .env_remove("MOBILECTL_TOKEN")
        .env_remove("MOBILECTL_UDID");
    let stdio = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let done = call(&stdio, "hide_keyboard", json!({})).await;
    assert_ne!(done.is_error, Some(true), "{done:?}");
    let mine = call(&stdio, "session_info", json!({})).await;
    let mine = mine.structured_content.clone().expect("structuredContent");
    assert_eq!(mine["udid"], active.as_str(), "{mine}");

    // A Streamable HTTP agent's first act on that device is refused, naming the free one.
    let mut h = Http {
        http: reqwest::Client::new(),
        url: format!("{}/mcp", s.url),
        session: None,
    };
    let (status, _) = h
        .post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "second-agent", "version": "0"}}}),
        )
        .await;
    assert_eq!(status, 200);
    h.post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let tool = |id: u32, name: &str, args: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": args}})
    };
    let (_, refused) = h.post(tool(2, "hide_keyboard", json!({}))).await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("DEVICE_LEASED: "), "{text}");
    assert!(text.contains(&other), "the free device is named: {text}");
    // It picks the free one, and holds it.
    let (_, done) = h
        .post(tool(3, "hide_keyboard", json!({"udid": other})))
        .await;
    assert_ne!(done["result"]["isError"], true, "{done}");
    let (_, info) = h.post(tool(4, "session_info", json!({}))).await;
    assert_eq!(
        info["result"]["structuredContent"]["udid"],
        other.as_str(),
        "{info}"
    );
    // And the first agent cannot act on it.
    let crossed = call(&stdio, "hide_keyboard", json!({"udid": other})).await;
    assert_eq!(crossed.is_error, Some(true), "{crossed:?}");
    assert!(
        text_of(&crossed).starts_with("SESSION_DEVICE_MISMATCH: "),
        "{}",
        text_of(&crossed)
    );
    until_sessions(&s.url, 2).await;

    // Each sees the other's session listed by its labels, never its secret, and the labels
    // act in nothing: neither an act nor an end goes through as the stdio agent.
    let (_, listed) = h.post(tool(5, "list_sessions", json!({}))).await;
    assert!(!listed.to_string().contains("mss-"), "{listed}");
    let theirs = live_sessions(&s.url)
        .await
        .into_iter()
        .find(|l| l["udid"] == active.as_str())
        .unwrap();
    let http = reqwest::Client::new();
    for label in [theirs["id"].as_str(), theirs["name"].as_str()]
        .into_iter()
        .flatten()
    {
        let acted = http
            .post(format!("{}/api/v1/device/ui/tap", s.url))
            .header("mobilectl-session", label)
            .json(&json!({"x": 5, "y": 5}))
            .send()
            .await
            .unwrap();
        assert_eq!(acted.status().as_u16(), 403, "{label}");
        let ended = http
            .delete(format!("{}/api/v1/sessions/{label}", s.url))
            .send()
            .await
            .unwrap();
        assert_eq!(ended.status().as_u16(), 403, "{label}");
    }
    assert_eq!(live_sessions(&s.url).await.len(), 2);

    // What one agent makes is its own: the stdio agent's proxy rule is neither listed to nor
    // removable by the HTTP agent.
    let added = call(
        &stdio,
        "add_proxy_rule",
        json!({"host": "api.example.com", "status": 503}),
    )
    .await;
    assert_ne!(added.is_error, Some(true), "{added:?}");
    let rule = added.structured_content.clone().expect("structuredContent")["id"].clone();
    let (_, theirs) = h.post(tool(6, "list_proxy_rules", json!({}))).await;
    assert_eq!(
        theirs["result"]["structuredContent"]["rules"],
        json!([]),
        "{theirs}"
    );
    let (_, removed) = h
        .post(tool(7, "delete_proxy_rule", json!({"id": rule})))
        .await;
    assert_eq!(removed["result"]["isError"], true, "{removed}");
    let mine = call(&stdio, "list_proxy_rules", json!({})).await;
    let mine = mine.structured_content.clone().expect("structuredContent");
    assert_eq!(mine["rules"][0]["id"], rule, "{mine}");

    // Closing stdin ends the stdio agent's session at once; its device is free.
    stdio.cancel().await.unwrap();
    until_sessions(&s.url, 1).await;
    let live = live_sessions(&s.url).await;
    assert_eq!(live[0]["udid"], other.as_str(), "{live:?}");
    // Ending the HTTP session releases the other.
    let ended = reqwest::Client::new()
        .delete(&h.url)
        .header("mcp-session-id", h.session.clone().unwrap())
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status().as_u16(), 202);
    until_sessions(&s.url, 0).await;
}
