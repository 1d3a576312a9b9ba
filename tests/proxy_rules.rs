//! The proxy's rules and link conditions with real clients (reqwest and curl) through the
//! proxy to real local HTTP and HTTPS servers: `respond` without reaching the upstream, `delay`
//! and `throttle` within 10 %, each `fail` as a client sees it, `rewrite`, `times`, `nth` and
//! rule order, flows marked `rule_id`/`mocked` and counted in the summary, bad rules refused
//! whole (the proxy and the rules in place undisturbed), conditions (offline, latency), and
//! HAR: export in the 1.2 shape and a HAR → rules → replay round trip.

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{json, Value};
use sha2::Digest;

use crate::common::*;
use crate::proxy::{capture, curl, curl_via, Capture};

async fn add(c: &Capture, rule: Value) -> Value {
    let (status, v) = call(&c.app, post("/api/v1/proxy/rules", rule)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    v
}

async fn refused(c: &Capture, rule: Value) -> Value {
    let (status, v) = call(&c.app, post("/api/v1/proxy/rules", rule.clone())).await;
    assert!(status.is_client_error(), "{rule} → {status} {v}");
    assert!(v["error"]["code"].is_string(), "{v}");
    v["error"].clone()
}

async fn delete(c: &Capture, path: &str) -> Value {
    let (status, v) = call(&c.app, send_json("DELETE", path, "")).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    v
}

async fn rules(c: &Capture) -> Vec<Value> {
    let (_, v) = call(&c.app, get("/api/v1/proxy/rules")).await;
    v["rules"].as_array().unwrap().clone()
}

/// The flow of the newest request to `url`, once recorded.
async fn flow_of(c: &Capture, url: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let v = c.flows("").await;
        if let Some(f) = v["flows"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|f| f["url"] == url)
        {
            return f.clone();
        }
        assert!(Instant::now() < deadline, "no flow of {url}: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn respond_serves_without_the_upstream_over_http_and_https() {
    let c = capture(|_| {}).await;
    let r = add(
        &c,
        json!({"path": "/api/login", "method": "POST", "status": 500,
               "headers": {"x-mock": "yes"}, "body_json": {"error": "server down"}}),
    )
    .await;
    assert_eq!((r["id"].as_u64().is_some(), &r["hits"]), (true, &json!(0)));
    let id = r["id"].as_u64().unwrap();
    let client = c.reqwest().await;
    for up in [&c.http, &c.https] {
        let res = client
            .post(up.url("/api/login"))
            .json(&json!({"user": "ann"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 500);
        assert_eq!(res.headers()["x-mock"], "yes");
        assert_eq!(res.headers()["content-type"], "application/json");
        assert_eq!(
            res.json::<Value>().await.unwrap(),
            json!({"error": "server down"})
        );
        // curl too (HTTPS: trusting only the proxy's CA).
        let ca = c.ca_file().await;
        let (code, out, err) = curl(vec![
            "-x".into(),
            c.proxy_url(),
            "--cacert".into(),
            ca.display().to_string(),
            "-X".into(),
            "POST".into(),
            "-d".into(),
            "{}".into(),
            "-w".into(),
            "\n%{http_code}".into(),
            up.url("/api/login"),
        ])
        .await;
        assert_eq!(code, 0, "{err}");
        let out = String::from_utf8(out).unwrap();
        assert!(out.ends_with("\n500"), "{out}");
        assert!(out.starts_with(r#"{"error":"server down"}"#), "{out}");
        assert_eq!(up.hits(), 0, "the upstream was reached");
        let f = flow_of(&c, &up.url("/api/login")).await;
        assert_eq!(
            (&f["rule_id"], &f["mocked"], &f["status"]),
            (&json!(id), &json!(true), &json!(500)),
            "{f}"
        );
        let detail = c.flow(f["id"].as_u64().unwrap(), "").await;
        assert!(
            detail["request"]["body"]["text"]
                .as_str()
                .unwrap_or("")
                .contains('{'),
            "{detail}"
        );
    }
    // Other paths go on to the upstream, unmarked.
    let res = client.get(c.http.url("/hello")).send().await.unwrap();
    assert_eq!(res.text().await.unwrap(), "hello");
    assert_eq!(c.http.hits(), 1);
    let f = flow_of(&c, &c.http.url("/hello")).await;
    assert!(
        f.get("rule_id").is_none() && f.get("mocked").is_none(),
        "{f}"
    );
    assert_eq!(rules(&c).await[0]["hits"], 4);
    let (_, summary) = call(&c.app, get("/api/v1/proxy/summary")).await;
    assert_eq!(summary["mocked"], 4, "{summary}");
    assert_eq!(summary["by_rule"][id.to_string()], 4, "{summary}");
}

#[tokio::test]
async fn delay_adds_the_latency_asked_within_ten_percent() {
    let c = capture(|_| {}).await;
    let client = c.reqwest().await;
    let url = c.http.url("/hello");
    // Warm the connection, and measure the way without a rule.
    client.get(&url).send().await.unwrap().text().await.unwrap();
    let t = Instant::now();
    client.get(&url).send().await.unwrap().text().await.unwrap();
    let base = t.elapsed();
    for (rule, ms) in [
        (
            json!({"path": "/hello", "action": "delay", "delay_ms": 400}),
            400,
        ),
        (
            json!({"path": "/hello", "action": "delay", "first_byte_delay_ms": 300}),
            300,
        ),
        (
            json!({"path": "/hello", "delay_ms": 250, "body": "mocked"}),
            250,
        ),
    ] {
        let id = add(&c, rule).await["id"].as_u64().unwrap();
        let t = Instant::now();
        client.get(&url).send().await.unwrap().text().await.unwrap();
        let added = t.elapsed().saturating_sub(base).as_secs_f64() * 1000.0;
        let want = ms as f64;
        assert!(
            (want * 0.9..=want * 1.1).contains(&added),
            "asked {ms} ms, added {added:.1} ms"
        );
        delete(&c, &format!("/api/v1/proxy/rules/{id}")).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn throttle_holds_the_rate_within_ten_percent_on_5_mb() {
    let c = capture(|_| {}).await;
    let client = c.reqwest().await;
    const SIZE: usize = 5_000_000;
    const RATE: u64 = 5_000_000;
    // A throttle rule that never matches changes nothing.
    add(
        &c,
        json!({"path": "/nothing", "action": "throttle", "down_bytes_per_sec": 1000}),
    )
    .await;
    let url = c.http.url(&format!("/big?bytes={SIZE}"));
    let t = Instant::now();
    let body = client
        .get(&url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let free = t.elapsed().as_secs_f64();
    assert_eq!(body.len(), SIZE);
    add(
        &c,
        json!({"path": "/big", "action": "throttle", "down_bytes_per_sec": RATE}),
    )
    .await;
    // From the answer's headers to its last byte.
    let res = client.get(&url).send().await.unwrap();
    let t = Instant::now();
    let body = res.bytes().await.unwrap();
    let took = t.elapsed().as_secs_f64();
    assert_eq!(body.len(), SIZE);
    assert_eq!(
        test_support::upstream::big_sha256(SIZE),
        test_support::upstream::hex(&sha2::Sha256::digest(&body)),
        "the bytes are whole"
    );
    let rate = SIZE as f64 / took;
    assert!(
        (RATE as f64 * 0.9..=RATE as f64 * 1.1).contains(&rate),
        "{rate:.0} B/s for {RATE} asked ({took:.3} s; unthrottled {free:.3} s)"
    );
    // The request body's pace: 500 kB up at 1 MB/s (answered once it is all in).
    add(
        &c,
        json!({"path": "/echo", "action": "throttle", "up_bytes_per_sec": 1_000_000}),
    )
    .await;
    let sent = vec![7u8; 500_000];
    let t = Instant::now();
    let back = client
        .post(c.http.url("/echo"))
        .body(sent.clone())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let took = t.elapsed().as_secs_f64();
    assert_eq!(back.len(), sent.len());
    assert!(
        (0.45..=0.55).contains(&took),
        "500 kB up at 1 MB/s took {took:.3} s"
    );
}

#[tokio::test]
async fn each_fail_kind_is_what_a_client_sees() {
    let c = capture(|_| {}).await;
    let client = c.reqwest().await;
    add(
        &c,
        json!({"path": "/status/503", "action": "fail", "fail": "503"}),
    )
    .await;
    add(
        &c,
        json!({"path": "/hello", "action": "fail", "fail": "reset"}),
    )
    .await;
    add(
        &c,
        json!({"path": "/gzip", "action": "fail", "fail": "timeout", "delay_ms": 3000}),
    )
    .await;
    add(
        &c,
        json!({"path": "/big", "action": "fail", "fail": "cut", "cut_after_bytes": 1000}),
    )
    .await;

    // 503, over HTTPS too.
    let res = client.get(c.https.url("/status/503")).send().await.unwrap();
    assert_eq!(res.status(), 503);
    // Reset: no answer at all.
    let (code, out, err) = curl_via(&c, None, c.http.url("/hello")).await;
    assert_eq!(code, 52, "curl: {err}");
    assert!(out.is_empty());
    assert!(client.get(c.http.url("/hello")).send().await.is_err());
    // Timeout: held; the client gives up first.
    let t = Instant::now();
    let (code, _, err) = curl(vec![
        "-x".into(),
        c.proxy_url(),
        "--max-time".into(),
        "0.5".into(),
        c.http.url("/gzip"),
    ])
    .await;
    assert_eq!(code, 28, "curl: {err}");
    assert!(t.elapsed() < Duration::from_secs(2));
    // Cut: the announced length is not delivered.
    let (code, out, err) = curl_via(&c, None, c.http.url("/big?bytes=100000")).await;
    assert_eq!(code, 18, "curl: {err}");
    assert_eq!(out.len(), 1000);
    let res = client
        .get(c.https.url("/big?bytes=100000"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.bytes().await.is_err(), "a cut body fails to read");
    assert_eq!(c.http.hits(), 1, "only the cut request went on");

    let cut = flow_of(&c, &c.http.url("/big?bytes=100000")).await;
    assert_eq!(
        (&cut["status"], &cut["mocked"]),
        (&json!(200), &json!(true)),
        "{cut}"
    );
    assert!(cut["error"].is_string(), "{cut}");
    let reset = flow_of(&c, &c.http.url("/hello")).await;
    assert_eq!(reset["error"], "connection", "{reset}");
    // The held request is recorded as a timeout when the hold ends or the client goes.
    let held = flow_of(&c, &c.http.url("/gzip")).await;
    assert_eq!(
        (&held["error"], &held["mocked"]),
        (&json!("timeout"), &json!(true)),
        "{held}"
    );
}

#[tokio::test]
async fn rewrite_changes_what_the_client_receives() {
    let c = capture(|_| {}).await;
    let client = c.reqwest().await;
    add(
        &c,
        json!({"path": "/echo", "action": "rewrite",
               "request_headers": {"x-debug": "1", "x-drop": null},
               "response_headers": {"x-rewritten": "yes", "x-sha256": null},
               "json_patch": {"user.role": "admin", "/count": 0}}),
    )
    .await;
    for up in [&c.http, &c.https] {
        let res = client
            .post(up.url("/echo"))
            .header("x-drop", "gone")
            .json(&json!({"user": {"name": "ann", "role": "guest"}, "count": 9}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.headers()["x-rewritten"], "yes");
        assert!(res.headers().get("x-sha256").is_none());
        assert_eq!(
            res.json::<Value>().await.unwrap(),
            json!({"user": {"name": "ann", "role": "admin"}, "count": 0})
        );
        let f = flow_of(&c, &up.url("/echo")).await;
        let d = c.flow(f["id"].as_u64().unwrap(), "").await;
        let names: Vec<&str> = d["request"]["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h[0].as_str().unwrap())
            .collect();
        assert!(
            names.contains(&"x-debug") && !names.contains(&"x-drop"),
            "{names:?}"
        );
        assert!(
            d["response"]["body"]["text"]
                .as_str()
                .unwrap()
                .contains("admin"),
            "{d}"
        );
    }
}

#[tokio::test]
async fn times_nth_and_rule_order_are_honoured() {
    let c = capture(|_| {}).await;
    let a = add(
        &c,
        json!({"path": "/hello", "times": 2, "status": 201, "body": "a"}),
    )
    .await;
    let b = add(
        &c,
        json!({"path": "/hello", "nth": 2, "status": 202, "body": "b"}),
    )
    .await;
    let client = c.reqwest().await;
    let mut seen = Vec::new();
    for _ in 0..5 {
        let r = client.get(c.http.url("/hello")).send().await.unwrap();
        seen.push((r.status().as_u16(), r.text().await.unwrap()));
    }
    let want: Vec<(u16, String)> = [
        (201, "a"),
        (201, "a"),
        (200, "hello"),
        (202, "b"),
        (200, "hello"),
    ]
    .iter()
    .map(|(s, t)| (*s, t.to_string()))
    .collect();
    assert_eq!(seen, want);
    assert_eq!(c.http.hits(), 2);
    let listed = rules(&c).await;
    assert_eq!(
        (&listed[0]["id"], &listed[0]["hits"]),
        (&a["id"], &json!(2))
    );
    assert_eq!(
        (&listed[1]["id"], &listed[1]["hits"], &listed[1]["matched"]),
        (&b["id"], &json!(1), &json!(3))
    );
    // Matching on query, header and a JSON body field; host patterns.
    add(&c, json!({"host": "*.nowhere.test", "status": 418})).await;
    add(&c, json!({"method": "POST", "json_field": "user.name", "json_equals": "bob", "status": 207, "body": "json"})).await;
    add(&c, json!({"path_glob": "/status/*", "query": {"v": "2"}, "header": "x-app: demo", "status": 208, "body": "q"})).await;
    let r = client
        .post(c.http.url("/echo"))
        .json(&json!({"user": {"name": "bob"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 207);
    let r = client
        .post(c.http.url("/echo"))
        .json(&json!({"user": {"name": "ann"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "another value goes on");
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"user": {"name": "ann"}})
    );
    let r = client
        .get(c.http.url("/status/204?v=2"))
        .header("x-app", "demo")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 208);
    let r = client
        .get(c.http.url("/status/204?v=3"))
        .header("x-app", "demo")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
}

#[tokio::test]
async fn bad_rules_are_refused_whole_and_disturb_nothing() {
    let c = capture(|_| {}).await;
    let keep = add(&c, json!({"path": "/hello", "body": "kept"})).await;
    let e = refused(&c, json!({"path_regex": "/(unclosed"})).await;
    assert!(
        e["message"].as_str().unwrap().contains("does not compile"),
        "{e}"
    );
    assert_eq!(e["details"]["field"], "path_regex");
    let dir = c.state_dir.path().join("bodies");
    std::fs::create_dir_all(&dir).unwrap();
    let e = refused(&c, json!({"body_file": dir})).await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("not a regular file"),
        "{e}"
    );
    let link = dir.join("passwd.json");
    std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
    let e = refused(&c, json!({"body_file": link})).await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("outside the files root"),
        "{e}"
    );
    let e = refused(&c, json!({"action": "delay", "delay_ms": -5})).await;
    assert!(e["message"].as_str().unwrap().contains("-5"), "{e}");
    let e = refused(&c, json!({"method": "GET", "json_field": "user"})).await;
    assert!(
        e["message"].as_str().unwrap().contains("never match"),
        "{e}"
    );
    let e = refused(&c, json!({"path": "login"})).await;
    assert!(e["details"]["reason"].is_string(), "{e}");
    // A 100 MB inline body: refused before it is read whole.
    let big = "x".repeat(100 * 1024 * 1024);
    let (status, v) = call(&c.app, post("/api/v1/proxy/rules", json!({"body": big}))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    drop(big);
    // Rules up to the limit, then a clear refusal (10,000 asked: the 1,001st is refused).
    let limit = {
        let (_, v) = call(&c.app, get("/api/v1/proxy/rules")).await;
        v["limit"].as_u64().unwrap()
    };
    let mut refusal = None;
    for i in 1..10_000 {
        let (status, v) = call(
            &c.app,
            post(
                "/api/v1/proxy/rules",
                json!({"path": format!("/r{i}"), "body": "x"}),
            ),
        )
        .await;
        if status != StatusCode::OK {
            refusal = Some((i, v));
            break;
        }
    }
    let (at, v) = refusal.expect("no limit");
    assert_eq!(at as u64, limit, "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("at most"),
        "{v}"
    );
    // The proxy and the first rule still work.
    let client = c.reqwest().await;
    let r = client.get(c.http.url("/hello")).send().await.unwrap();
    assert_eq!(r.text().await.unwrap(), "kept");
    assert_eq!(rules(&c).await[0]["id"], keep["id"]);
    let cleared = delete(&c, "/api/v1/proxy/rules").await;
    assert_eq!(cleared["cleared"], limit);
    let r = client.get(c.http.url("/hello")).send().await.unwrap();
    assert_eq!(r.text().await.unwrap(), "hello");
}

#[tokio::test]
async fn a_body_file_is_read_once_from_under_the_files_root_and_nowhere_else() {
    // The files root is the capture's folder; the proxy's state directory (`state`, with the
    // CA's key) is inside it.
    let c = capture(|_| {}).await;
    let root = c.state_dir.path();
    c.ca_pem().await;
    let key = root.join("state").join("proxy-ca-key.pem");
    assert!(key.exists());
    std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
    let outside = [
        json!("/etc/passwd"),
        json!("/etc/shadow"),
        json!("/proc/self/environ"),
        // A parent directory that is a link out of the root.
        json!("etc/passwd"),
        json!(root.join("etc/passwd")),
        // The CA's private key: in the state directory, never served.
        json!(key),
        json!("state/proxy-ca-key.pem"),
    ];
    for f in &outside {
        let (status, v) = call(
            &c.app,
            post(
                "/api/v1/proxy/rules",
                json!({"path": "/leak", "body_file": f}),
            ),
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{f}: {v}");
        assert_eq!(error_code(&v), "FORBIDDEN", "{f}: {v}");
        assert_eq!(v["error"]["details"]["field"], "body_file", "{f}: {v}");
        assert!(v["error"]["hint"].as_str().is_some_and(|h| !h.is_empty()));
    }
    // Nothing was added, so nothing is served: the request goes on to the upstream.
    assert!(rules(&c).await.is_empty());
    let client = c.reqwest().await;
    let leak = client.get(c.http.url("/leak")).send().await.unwrap();
    let text = leak.text().await.unwrap();
    assert!(
        !text.contains("root:") && !text.contains("PRIVATE KEY"),
        "{text}"
    );
    assert_eq!(c.http.hits(), 1);

    // A file under the root, relative to it or absolute: read once, when the rule is added.
    std::fs::create_dir(root.join("bodies")).unwrap();
    let answer = root.join("bodies").join("answer.json");
    std::fs::write(&answer, r#"{"v":1}"#).unwrap();
    add(
        &c,
        json!({"path": "/one", "body_file": "bodies/answer.json"}),
    )
    .await;
    add(&c, json!({"path": "/two", "body_file": answer})).await;
    // Changed afterwards, then swapped for a link to a secret: what is served stays.
    std::fs::write(&answer, r#"{"v":2}"#).unwrap();
    let served = |path: &'static str| {
        let client = client.clone();
        let url = c.http.url(path);
        async move { client.get(url).send().await.unwrap().text().await.unwrap() }
    };
    assert_eq!(served("/one").await, r#"{"v":1}"#);
    std::fs::remove_file(&answer).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &answer).unwrap();
    assert_eq!(served("/two").await, r#"{"v":1}"#);
    assert_eq!(served("/one").await, r#"{"v":1}"#);
    assert_eq!(c.http.hits(), 1, "the mocks reached the upstream");
    // The flow's recorded answer is the kept bytes too.
    let f = flow_of(&c, &c.http.url("/two")).await;
    let (status, _, body) = get_raw(
        &c.app,
        &format!("/api/v1/proxy/flows/{}?body=response", f["id"]),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, br#"{"v":1}"#);
}

#[tokio::test]
async fn conditions_cut_or_slow_the_whole_link_and_show_in_status() {
    let c = capture(|_| {}).await;
    let (status, v) = call(
        &c.app,
        post("/api/v1/proxy/conditions", json!({"profile": "offline"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let (_, st) = call(&c.app, get("/api/v1/proxy/status")).await;
    assert_eq!(st["conditions"]["offline"], true, "{st}");
    let (code, _, err) = curl_via(&c, None, c.http.url("/hello")).await;
    assert_eq!(code, 52, "{err}");
    let ca = c.ca_file().await;
    let (code, _, err) = curl_via(&c, Some(&ca), c.https.url("/hello")).await;
    assert_ne!(code, 0, "{err}");
    assert_eq!(c.http.hits() + c.https.hits(), 0);
    let (status, v) = call(
        &c.app,
        post("/api/v1/proxy/conditions", json!({"latency_ms": 300})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["previous"]["offline"], true, "{v}");
    let client = c.reqwest().await;
    let t = Instant::now();
    let r = client.get(c.http.url("/hello")).send().await.unwrap();
    assert_eq!(r.text().await.unwrap(), "hello");
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_millis(1000),
        "{took:?}"
    );
    // Bandwidth down: 4000 kbit/s is 500 kB/s; 250 kB take 0.5 s.
    let (status, v) = call(
        &c.app,
        post("/api/v1/proxy/conditions", json!({"down_kbps": 4000})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let res = client
        .get(c.http.url("/big?bytes=250000"))
        .send()
        .await
        .unwrap();
    let t = Instant::now();
    assert_eq!(res.bytes().await.unwrap().len(), 250_000);
    let took = t.elapsed().as_secs_f64();
    assert!(
        (0.45..=0.55).contains(&took),
        "250 kB at 500 kB/s took {took:.3} s"
    );
    let e = call(
        &c.app,
        post("/api/v1/proxy/conditions", json!({"loss_percent": 200})),
    )
    .await;
    assert_eq!(e.0, StatusCode::BAD_REQUEST, "{}", e.1);
    let v = delete(&c, "/api/v1/proxy/conditions").await;
    assert!(v.get("conditions").is_none(), "{v}");
    let (_, st) = call(&c.app, get("/api/v1/proxy/status")).await;
    assert!(st.get("conditions").is_none(), "{st}");
}

#[tokio::test]
async fn har_export_has_the_1_2_shape_and_replays_through_rules() {
    let c = capture(|_| {}).await;
    let client = c.reqwest().await;
    let hello = client
        .get(c.http.url("/hello?x=1"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let gz = client
        .get(c.https.url("/gzip"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    client
        .get(c.http.url("/big?bytes=300"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    c.wait_flows(3).await;
    let (status, har) = call(&c.app, get("/api/v1/proxy/flows.har")).await;
    assert_eq!(status, StatusCode::OK, "{har}");
    let log = &har["log"];
    assert_eq!(log["version"], "1.2");
    assert!(log["creator"]["name"].is_string() && log["creator"]["version"].is_string());
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3);
    for e in entries {
        for k in [
            "startedDateTime",
            "time",
            "request",
            "response",
            "cache",
            "timings",
        ] {
            assert!(!e[k].is_null(), "{k}: {e}");
        }
        let rq = &e["request"];
        for k in [
            "method",
            "url",
            "httpVersion",
            "cookies",
            "headers",
            "queryString",
            "headersSize",
            "bodySize",
        ] {
            assert!(!rq[k].is_null(), "request.{k}: {e}");
        }
        let rs = &e["response"];
        for k in [
            "status",
            "statusText",
            "httpVersion",
            "cookies",
            "headers",
            "content",
            "redirectURL",
            "headersSize",
            "bodySize",
        ] {
            assert!(!rs[k].is_null(), "response.{k}: {e}");
        }
        assert!(
            rs["content"]["size"].is_u64() && rs["content"]["mimeType"].is_string(),
            "{e}"
        );
        for k in ["send", "wait", "receive"] {
            assert!(
                e["timings"][k].as_f64().is_some_and(|t| t >= 0.0),
                "timings.{k}: {e}"
            );
        }
        assert!(
            chrono::DateTime::parse_from_rfc3339(e["startedDateTime"].as_str().unwrap()).is_ok()
        );
    }
    assert_eq!(
        entries[0]["request"]["queryString"],
        json!([{"name": "x", "value": "1"}])
    );
    // Secrets stay redacted in the export.
    let cookie = entries[0]["response"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "set-cookie")
        .unwrap();
    assert_eq!(cookie["value"], "[redacted]");
    // Binary bodies are base64.
    assert_eq!(entries[2]["response"]["content"]["encoding"], "base64");

    // Replay: the HAR's answers as rules; the upstreams are not reached.
    let hits = (c.http.hits(), c.https.hits());
    let (status, v) = call(
        &c.app,
        post("/api/v1/proxy/rules/from-har", json!({"har": har})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["added"].as_array().unwrap().len(), 3, "{v}");
    let again = client
        .get(c.http.url("/hello?x=1"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(again, hello);
    let r = client.get(c.https.url("/gzip")).send().await.unwrap();
    assert!(
        r.headers().get("content-encoding").is_none(),
        "replayed decoded"
    );
    let json_text = r.text().await.unwrap();
    assert_eq!(json_text, test_support::upstream::JSON_BODY);
    assert!(!gz.is_empty());
    let big = client
        .get(c.http.url("/big?bytes=300"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(big.len(), 300);
    assert_eq!(big[299], test_support::upstream::pattern(299));
    assert_eq!((c.http.hits(), c.https.hits()), hits);
    // Not a HAR: refused.
    let (status, v) = call(
        &c.app,
        post("/api/v1/proxy/rules/from-har", json!({"har": {"x": 1}})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
}

/// The demo app through the real adb and the virtual device: its LOG IN calls the app's API
/// on this host through the device's proxy setting, over `adb reverse` to the proxy. A mocked
/// 500 shows the app's error; the screen, the flow and the app's log say the same in the
/// debug bundle; without the rule the login goes through to the API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mocked_500_makes_the_demo_app_show_its_login_error() {
    use mobilectl::backend::BackendConfig;
    use mobilectl::controller::DeviceController;
    use mobilectl::exec::{Tool, Toolbox};
    use mobilectl::proxy::ProxyOptions;
    use mobilectl::server::{self, AppState, ServerOptions};
    use test_support::upstream::Upstream;

    let h = android::start_device();
    let api = Upstream::http().await;
    let state = tempfile::tempdir().unwrap();
    mobilectl::server::check_declared_errors(true);
    let app = server::app(
        AppState::new(
            DeviceController::new(BackendConfig {
                tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
                adb_server_port: Some(h.adb_port),
                ..Default::default()
            }),
            ServerOptions {
                proxy: ProxyOptions {
                    state_dir: Some(state.path().to_path_buf()),
                    allow_local: vec![api.addr.port()],
                    adb_server_port: Some(h.adb_port),
                    ..Default::default()
                },
                ..Default::default()
            },
        ),
        loopback_policy(),
    );
    let (status, a) = call(
        &app,
        post("/api/v1/proxy/attach", json!({"udid": h.serial})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{a}");
    let out = h.adb(&[
        "shell",
        "settings",
        "put",
        "global",
        "mobilectl_demo_api",
        &api.url(""),
    ]);
    assert!(out.success(), "{}", out.stderr_text());
    let (status, rule) = call(
        &app,
        post(
            "/api/v1/proxy/rules",
            json!({"method": "POST", "path": "/api/login", "status": 500,
                   "body_json": {"error": "backend down"}}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{rule}");
    let adb = |args: &'static [&'static str]| {
        let h = &h;
        let out = h.adb(args);
        assert!(out.success(), "{}", out.stderr_text());
    };
    // LOG IN (its centre on the login screen).
    adb(&["shell", "input", "tap", "540", "1290"]);
    assert_eq!(h.state()["screen"], "login_error", "{}", h.state());
    assert_eq!(api.hits(), 0, "the mock answered");

    let path = format!("/api/v1/debug/bundle?udid={}&max_size=0", h.serial);
    let (status, b) = call(&app, get(&path)).await;
    assert_eq!(status, StatusCode::OK, "{b}");
    let tree = b["tree_text"].as_str().unwrap_or_default();
    assert!(tree.contains("Sign-in failed"), "{tree}");
    let logged = b["logs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e.to_string().contains("answered HTTP 500"));
    assert!(logged, "{}", b["logs"]);
    let flow = &b["network"][0];
    assert_eq!(flow["url"], api.url("/api/login"), "{b}");
    assert_eq!(
        (&flow["status"], &flow["mocked"], &flow["rule_id"]),
        (&json!(500), &json!(true), &rule["id"]),
        "{flow}"
    );

    // Without the rule, the same tap signs in through the proxy to the API.
    let (status, _) = call(&app, send_json("DELETE", "/api/v1/proxy/rules", "")).await;
    assert_eq!(status, StatusCode::OK);
    adb(&["shell", "input", "tap", "540", "1290"]);
    assert_eq!(h.state()["screen"], "permission", "{}", h.state());
    assert_eq!(api.hits(), 1);
    let (status, _) = call(
        &app,
        post("/api/v1/proxy/detach", json!({"udid": h.serial})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}
