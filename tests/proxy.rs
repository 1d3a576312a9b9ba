//! Network capture through the recording proxy with real clients (reqwest and curl) to real
//! local HTTP and HTTPS servers (certificates made with rcgen): flows with status, headers,
//! decoded bodies and timings; HTTPS trusted through the served `ca.pem`; redaction; failures
//! (refused, hanging, stalled, TLS); passthrough tunnels; bodies over the cap; filters,
//! summary, stream, clear; protocol switches; and what it refuses: the API, the adb server and
//! itself by every spelling of this host, local ports not allowed, tunnels that are not TLS.

use crate::common;

use std::path::PathBuf;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use common::*;
use http_body_util::BodyExt;
use mobilectl::backend::BackendConfig;
use mobilectl::controller::DeviceController;
use mobilectl::proxy::ProxyOptions;
use mobilectl::server::{self, AppState, SecurityPolicy, ServerOptions};
use serde_json::{json, Value};
use test_support::upstream::{self, TestCa, Upstream};
use tower::ServiceExt;
use virtual_device::testing::wait_until;

pub(crate) struct Capture {
    pub(crate) app: Router,
    pub(crate) state_dir: tempfile::TempDir,
    pub(crate) upstream_ca: TestCa,
    pub(crate) port: u16,
    /// Upstream servers on this host, whose ports the proxy allows.
    pub(crate) http: Upstream,
    pub(crate) https: Upstream,
    /// A port of this host nothing listens on, allowed too.
    pub(crate) closed: u16,
}

fn app_with_proxy(o: ProxyOptions, policy: SecurityPolicy) -> Router {
    app_with_files(o, policy, None)
}

/// [`app_with_proxy`] with `--files-root` (where proxy rules' body files are read).
fn app_with_files(o: ProxyOptions, policy: SecurityPolicy, files_root: Option<PathBuf>) -> Router {
    mobilectl::server::check_declared_errors(true);
    let state = AppState::new(
        DeviceController::new(BackendConfig::default()),
        ServerOptions {
            proxy: o,
            files_root,
            ..Default::default()
        },
    );
    server::app(state, policy)
}

/// An app whose proxy keeps its CA in a temporary state directory (`state` in `state_dir`,
/// which is the files root) and trusts a test CA upstream; the proxy is started on a free
/// port and allows the local upstreams' ports.
pub(crate) async fn capture(tune: impl FnOnce(&mut ProxyOptions)) -> Capture {
    let upstream_ca = TestCa::new();
    let http = Upstream::http().await;
    let https = Upstream::https(&upstream_ca).await;
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let state_dir = tempfile::tempdir().unwrap();
    let mut o = ProxyOptions {
        state_dir: Some(state_dir.path().join("state")),
        upstream_roots: vec![upstream_ca.der.clone()],
        timeout: Duration::from_secs(5),
        allow_local: vec![http.addr.port(), https.addr.port(), closed],
        ..Default::default()
    };
    tune(&mut o);
    o.check().unwrap();
    let app = app_with_files(o, loopback_policy(), Some(state_dir.path().to_path_buf()));
    let (status, v) = call(&app, post("/api/v1/proxy/start", json!({"port": 0}))).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["running"], true, "{v}");
    let port = v["address"]
        .as_str()
        .unwrap()
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    Capture {
        app,
        state_dir,
        upstream_ca,
        port,
        http,
        https,
        closed,
    }
}

/// Status, headers and raw bytes of one request to the app.
async fn raw(app: &Router, uri: &str) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let res = app.clone().oneshot(get(uri)).await.unwrap();
    let (parts, body) = res.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes().to_vec();
    (parts.status, parts.headers, bytes)
}

impl Capture {
    pub(crate) fn proxy_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The proxy's CA, as served.
    pub(crate) async fn ca_pem(&self) -> String {
        let (status, headers, pem) = raw(&self.app, "/api/v1/proxy/ca.pem").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers["content-type"], "application/x-pem-file");
        String::from_utf8(pem).unwrap()
    }

    /// reqwest through the proxy, trusting only the proxy's CA.
    pub(crate) async fn reqwest(&self) -> reqwest::Client {
        use rustls::pki_types::pem::PemObject;
        let pem = self.ca_pem().await;
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(rustls::pki_types::CertificateDer::from_pem_slice(pem.as_bytes()).unwrap())
            .unwrap();
        let tls = rustls::ClientConfig::builder_with_provider(mobilectl::proxy::ca::provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        reqwest::Client::builder()
            .proxy(reqwest::Proxy::all(self.proxy_url()).unwrap())
            .use_preconfigured_tls(tls)
            .timeout(Duration::from_secs(20))
            .build()
            .unwrap()
    }

    /// Writes the proxy's CA to a file for curl.
    pub(crate) async fn ca_file(&self) -> PathBuf {
        let p = self.state_dir.path().join("served-ca.pem");
        std::fs::write(&p, self.ca_pem().await).unwrap();
        p
    }

    pub(crate) async fn flows(&self, query: &str) -> Value {
        let (status, v) = call(&self.app, get(&format!("/api/v1/proxy/flows{query}"))).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        v
    }

    /// Waits until at least `n` flows are stored (a flow is stored when its body has ended).
    pub(crate) async fn wait_flows(&self, n: usize) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let v = self.flows("").await;
            let flows = v["flows"].as_array().unwrap().clone();
            if flows.len() >= n {
                return flows;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "only {} flows: {v}",
                flows.len()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub(crate) async fn flow(&self, id: u64, query: &str) -> Value {
        let path = "/api/v1/proxy/flows/{id}".replace("{id}", &id.to_string());
        let (status, v) = call(&self.app, get(&format!("{path}{query}"))).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        v
    }
}

/// `curl ARGS` (blocking, in a thread); its exit code, stdout and stderr.
pub(crate) async fn curl(args: Vec<String>) -> (i32, Vec<u8>, String) {
    tokio::task::spawn_blocking(move || {
        let o = std::process::Command::new("curl")
            .args(["-sS", "--max-time", "20"])
            .args(&args)
            .env_remove("http_proxy")
            .env_remove("https_proxy")
            .env_remove("HTTPS_PROXY")
            .env_remove("ALL_PROXY")
            .output()
            .expect("curl (scripts/test.sh installs it)");
        (
            o.status.code().unwrap_or(-1),
            o.stdout,
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    })
    .await
    .unwrap()
}

/// curl through the proxy of `c`, trusting only `cacert` when given (else its default store).
pub(crate) async fn curl_via(
    c: &Capture,
    cacert: Option<&std::path::Path>,
    url: String,
) -> (i32, Vec<u8>, String) {
    let mut args = vec!["-x".to_string(), c.proxy_url()];
    if let Some(ca) = cacert {
        args.extend(["--cacert".to_string(), ca.display().to_string()]);
    }
    args.push(url);
    curl(args).await
}

/// A GET through `client`, read to its end.
pub(crate) async fn fetch(client: &reqwest::Client, url: String) -> Vec<u8> {
    let r = client.get(url).send().await.unwrap();
    r.bytes().await.unwrap().to_vec()
}

/// The words of a flow's error.
fn failure(flow: &Value) -> &str {
    flow["error"]["message"].as_str().unwrap_or_default()
}

fn header<'a>(side: &'a Value, name: &str) -> Option<&'a str> {
    side["headers"]
        .as_array()?
        .iter()
        .find(|h| h[0] == name)
        .and_then(|h| h[1].as_str())
}

#[tokio::test]
async fn reqwest_flows_over_http_and_https_are_recorded_whole_and_redacted() {
    let c = capture(|_| {}).await;
    let http = &c.http;
    let https = &c.https;
    let client = c.reqwest().await;

    let r = client
        .get(http.url("/hello"))
        .header("authorization", "Bearer app-token-123")
        .header("cookie", "sid=cookie-secret; theme=dark")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "hello");
    // HTTPS, decrypted with the proxy's CA (the client trusts nothing else).
    let r = client.get(https.url("/gzip")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-encoding"], "gzip");
    let gz = r.bytes().await.unwrap();
    assert!(
        gz.starts_with(&[0x1f, 0x8b]),
        "the app gets the bytes as sent"
    );

    let flows = c.wait_flows(2).await;
    let (plain, secure) = (&flows[0], &flows[1]);
    assert_eq!(plain["method"], "GET");
    assert_eq!(plain["url"], http.url("/hello"));
    assert_eq!(plain["status"], 200);
    assert_eq!(secure["url"], https.url("/gzip"));

    let d = c.flow(plain["id"].as_u64().unwrap(), "").await;
    assert_eq!(d["host"], "127.0.0.1");
    assert_eq!(
        header(&d["request"], "authorization"),
        Some("Bearer [redacted]")
    );
    assert_eq!(
        header(&d["request"], "cookie"),
        Some("sid=[redacted]; theme=[redacted]")
    );
    assert_eq!(
        header(&d["response"], "set-cookie"),
        Some("session=[redacted]; Path=/; HttpOnly")
    );
    assert!(!d.to_string().contains("secret") && !d.to_string().contains("app-token"));
    assert_eq!(d["response"]["body"]["text"], "hello");
    let t = &d["timing"];
    assert!(t["connect_ms"].as_f64().is_some(), "{t}");
    assert!(t["tls_ms"].is_null(), "plain HTTP has no TLS: {t}");
    let (first, total) = (
        t["first_byte_ms"].as_f64().unwrap(),
        t["total_ms"].as_f64().unwrap(),
    );
    assert!(first > 0.0 && total >= first, "{t}");

    let d = c.flow(secure["id"].as_u64().unwrap(), "").await;
    assert_eq!(d["host"], "localhost");
    assert!(d["timing"]["tls_ms"].as_f64().is_some(), "{}", d["timing"]);
    let body = &d["response"]["body"];
    assert_eq!(body["encoding"], "gzip");
    assert_eq!(body["size"], gz.len());
    assert_eq!(body["text"], upstream::JSON_BODY, "decoded for display");

    // The secrets on request (loopback server).
    let shown = c.flow(plain["id"].as_u64().unwrap(), "?reveal=true").await;
    assert_eq!(
        header(&shown["request"], "authorization"),
        Some("Bearer app-token-123")
    );
    // The raw body, decoded, in its content type.
    let (status, h, bytes) = raw(
        &c.app,
        &format!("/api/v1/proxy/flows/{}?body=response", secure["id"]),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(h["content-type"], "application/json");
    assert_eq!(h["x-body-truncated"], "false");
    assert_eq!(bytes, upstream::JSON_BODY.as_bytes());
}

#[tokio::test]
async fn curl_trusts_the_served_ca_and_encoded_bodies_are_decoded() {
    let c = capture(|_| {}).await;
    let https = &c.https;
    let http = &c.http;
    let ca = c.ca_file().await;
    let (code, out, err) = curl_via(&c, Some(&ca), https.url("/br")).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, upstream::BROTLI_HELLO, "curl gets the encoded bytes");
    let (code, _, err) = curl(vec![
        "-x".into(),
        c.proxy_url(),
        "--compressed".into(),
        http.url("/deflate"),
    ])
    .await;
    assert_eq!(code, 0, "{err}");
    // HTTPS to an address: the proxy's certificate names the IP.
    let by_ip = format!("https://127.0.0.1:{}/hello", https.addr.port());
    let (code, out, err) = curl_via(&c, Some(&ca), by_ip.clone()).await;
    assert_eq!((code, out.as_slice()), (0, &b"hello"[..]), "{err}");

    let flows = c.wait_flows(3).await;
    let br = c.flow(flows[0]["id"].as_u64().unwrap(), "").await;
    assert_eq!(br["response"]["body"]["encoding"], "br");
    assert_eq!(br["response"]["body"]["text"], upstream::BROTLI_HELLO_TEXT);
    assert_eq!(
        header(&br["request"], "user-agent").map(|u| u.starts_with("curl/")),
        Some(true)
    );
    let deflate = c.flow(flows[1]["id"].as_u64().unwrap(), "").await;
    assert_eq!(deflate["response"]["body"]["text"], upstream::JSON_BODY);
    assert_eq!(flows[2]["url"], by_ip);
}

#[tokio::test]
async fn refused_hanging_and_stalled_upstreams_are_recorded_as_failures() {
    let c = capture(|o| o.timeout = Duration::from_millis(600)).await;
    let http = &c.http;
    let client = c.reqwest().await;
    let closed = c.closed;
    let r = client
        .get(format!("http://127.0.0.1:{closed}/x"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 502);
    assert_eq!(r.headers()["x-mobilectl-proxy-error"], "refused");
    let r = client.get(http.url("/hang")).send().await.unwrap();
    assert_eq!(r.status(), 504);
    // Headers, then nothing: the app gets what came, then the body breaks.
    let r = client.get(http.url("/stall")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.bytes().await.is_err(), "a stalled body is cut");
    let r = client
        .get("http://no-such-host.invalid/")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 502);

    let flows = c.wait_flows(4).await;
    let kinds: Vec<&str> = flows.iter().map(|f| f["error"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["refused", "timeout", "timeout", "dns"], "{flows:?}");
    assert!(flows[0]["status"].is_null());
    let hang = c.flow(flows[1]["id"].as_u64().unwrap(), "").await;
    assert!(failure(&hang).contains("600 ms"), "{hang}");
    let stall = c.flow(flows[2]["id"].as_u64().unwrap(), "").await;
    assert_eq!(stall["status"], 200);
    assert_eq!(stall["response"]["body"]["text"], "first chunk");
    // All four count as failed.
    let v = c.flows("?failed=true").await;
    assert_eq!(v["flows"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn tls_failures_on_either_side_are_recorded() {
    let c = capture(|o| o.upstream_roots.clear()).await;
    let https = &c.https;
    // The proxy does not trust the upstream's certificate.
    let r = c
        .reqwest()
        .await
        .get(https.url("/hello"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 502);
    assert_eq!(r.headers()["x-mobilectl-proxy-error"], "tls");
    // The app does not trust the proxy's CA (curl with its default store).
    let (code, _, err) = curl_via(&c, None, https.url("/hello")).await;
    assert_ne!(code, 0, "curl trusted an unknown CA: {err}");
    let flows = c.wait_flows(2).await;
    assert_eq!(flows[0]["error"], "tls");
    assert_eq!(flows[1]["method"], "CONNECT");
    assert_eq!(flows[1]["error"], "tls");
    let d = c.flow(flows[1]["id"].as_u64().unwrap(), "").await;
    assert!(
        failure(&d).contains("refused the proxy's certificate"),
        "{d}"
    );
}

#[tokio::test]
async fn passthrough_hosts_are_tunnelled_not_decrypted() {
    let c = capture(|o| o.passthrough = vec!["localhost".into()]).await;
    let https = &c.https;
    let upstream_ca = c.state_dir.path().join("upstream-ca.pem");
    std::fs::write(&upstream_ca, &c.upstream_ca.pem).unwrap();
    // Only the upstream's own CA is trusted, and it works: the proxy did not decrypt.
    let (code, out, err) = curl_via(&c, Some(&upstream_ca), https.url("/hello")).await;
    assert_eq!((code, out.as_slice()), (0, &b"hello"[..]), "{err}");
    // Trusting only the proxy's CA fails: the certificate is the upstream's.
    let proxy_ca = c.ca_file().await;
    let (code, _, _) = curl_via(&c, Some(&proxy_ca), https.url("/hello")).await;
    assert_ne!(code, 0);
    let flows = c.wait_flows(2).await;
    for f in &flows {
        assert_eq!(
            f["method"], "CONNECT",
            "no request inside was seen: {flows:?}"
        );
        assert_eq!(f["url"], format!("localhost:{}", https.addr.port()));
    }
    let d = c.flow(flows[0]["id"].as_u64().unwrap(), "").await;
    let t = &d["tunnel"];
    assert!(
        t["bytes_sent"].as_u64().unwrap() > 0 && t["bytes_received"].as_u64().unwrap() > 0,
        "{d}"
    );
    assert!(d["timing"]["connect_ms"].as_f64().is_some());
    // The status says which hosts pass through.
    let (_, st) = call(&c.app, get("/api/v1/proxy/status")).await;
    assert_eq!(st["passthrough"], json!(["localhost"]));
}

#[tokio::test]
async fn a_body_over_the_cap_goes_through_whole_and_only_the_cap_is_kept() {
    let cap = 64 * 1024;
    let c = capture(|o| o.body_cap = cap).await;
    let https = &c.https;
    let client = c.reqwest().await;
    let n = 3 * 1024 * 1024 + 17;
    let got = fetch(&client, https.url(&format!("/big?bytes={n}"))).await;
    assert_eq!(got.len(), n);
    assert_eq!(upstream::hex(&sha2_digest(&got)), upstream::big_sha256(n));
    // A request body over the cap reaches the upstream whole too.
    let upload: Vec<u8> = (0..200_000).map(upstream::pattern).collect();
    let r = client
        .post(https.url("/echo"))
        .body(upload.clone())
        .send()
        .await
        .unwrap();
    let sha = r.headers()["x-sha256"].to_str().unwrap().to_string();
    assert_eq!(sha, upstream::hex(&sha2_digest(&upload)));
    assert_eq!(r.bytes().await.unwrap().len(), upload.len());

    let flows = c.wait_flows(2).await;
    let big = c.flow(flows[0]["id"].as_u64().unwrap(), "").await;
    let b = &big["response"]["body"];
    assert_eq!(
        (b["size"].as_u64(), b["stored"].as_u64()),
        (Some(n as u64), Some(cap as u64))
    );
    assert_eq!(b["truncated"], true);
    let echo = c.flow(flows[1]["id"].as_u64().unwrap(), "").await;
    let b = &echo["request"]["body"];
    assert_eq!(
        (b["size"].as_u64(), b["truncated"].as_bool()),
        (Some(200_000), Some(true))
    );
    let (_, h, bytes) = raw(
        &c.app,
        &format!("/api/v1/proxy/flows/{}?body=request", flows[1]["id"]),
    )
    .await;
    assert_eq!(bytes.len(), cap);
    assert_eq!(h["x-body-size"], "200000");
    assert_eq!(h["x-body-truncated"], "true");
}

fn sha2_digest(b: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(b).to_vec()
}

#[tokio::test]
async fn filters_summary_stream_and_clear() {
    let c = capture(|_| {}).await;
    let http = &c.http;
    let client = c.reqwest().await;
    // Follow from now on, two flows then the stream ends.
    let stream = c
        .app
        .clone()
        .oneshot(get("/api/v1/proxy/flows/stream?limit=2&status=4xx"))
        .await
        .unwrap();
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    for path in ["/hello", "/status/404", "/status/500", "/status/401"] {
        fetch(&client, http.url(path)).await;
    }
    client
        .post(http.url("/echo"))
        .body("x=1")
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let sse = tokio::time::timeout(Duration::from_secs(20), stream.into_body().collect())
        .await
        .expect("the stream ended after its limit")
        .unwrap()
        .to_bytes();
    let sse = String::from_utf8_lossy(&sse).to_string();
    let events: Vec<Value> = sse
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert_eq!(events.len(), 2, "{sse}");
    assert_eq!(
        (events[0]["status"].as_u64(), events[1]["status"].as_u64()),
        (Some(404), Some(401))
    );
    assert!(sse.contains(&format!("id: {}", events[0]["id"])), "{sse}");

    c.wait_flows(5).await;
    let n = |v: Value| v["flows"].as_array().unwrap().len();
    assert_eq!(n(c.flows("?status=4xx").await), 2);
    assert_eq!(n(c.flows("?status=500").await), 1);
    assert_eq!(n(c.flows("?method=post").await), 1);
    assert_eq!(n(c.flows("?contains=STATUS").await), 3);
    assert_eq!(n(c.flows("?host=127.0.0.1&failed=false").await), 2);
    assert_eq!(n(c.flows("?since=10m").await), 5);
    // Paging: two at a time from the start.
    let page = c.flows("?since=0&limit=2").await;
    assert_eq!(n(page.clone()), 2);
    let next = c
        .flows(&format!("?since={}&limit=2", page["next_cursor"]))
        .await;
    assert_eq!(
        next["flows"][0]["id"],
        page["flows"][1]["id"].as_u64().unwrap() + 1
    );
    // Without since: the newest.
    let newest = c.flows("?limit=1").await;
    assert_eq!(newest["flows"][0]["method"], "POST");

    for bad in [
        "?status=4x",
        "?since=yesterday",
        "?limit=0",
        "?limit=5000",
        "?method=G%20T",
    ] {
        let (status, v) = call(&c.app, get(&format!("/api/v1/proxy/flows{bad}"))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {v}");
        assert_eq!(error_code(&v), "VALIDATION_FAILED", "{bad}");
        assert!(v["error"]["hint"].is_string(), "{bad}: {v}");
    }
    let (status, v) = call(&c.app, get("/api/v1/proxy/flows?colour=red")).await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::BAD_REQUEST, "BAD_REQUEST")
    );

    let (status, s) = call(&c.app, get("/api/v1/proxy/summary?since=1h")).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    assert_eq!(s["flows"], 5);
    assert_eq!(s["by_status"], json!({"2xx": 2, "4xx": 2, "5xx": 1}));
    assert_eq!(s["failures_total"], 3);
    assert_eq!(s["by_host"][0]["host"], "127.0.0.1");

    let (status, v) = call(&c.app, send_json("DELETE", "/api/v1/proxy/flows", "")).await;
    assert_eq!((status, v["cleared"].as_u64()), (StatusCode::OK, Some(5)));
    assert_eq!(n(c.flows("").await), 0);
    let (status, v) = call(&c.app, get("/api/v1/proxy/flows/1")).await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::NOT_FOUND, "NOT_FOUND")
    );
}

#[tokio::test]
async fn the_ca_is_made_once_in_the_state_dir_and_only_its_certificate_is_served() {
    use std::os::unix::fs::PermissionsExt;
    let c = capture(|_| {}).await;
    let pem = c.ca_pem().await;
    assert!(pem.starts_with("-----BEGIN CERTIFICATE-----") && !pem.contains("PRIVATE"));
    let dir = c.state_dir.path().join("state");
    let key = dir.join(mobilectl::proxy::ca::KEY_FILE);
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(mobilectl::proxy::ca::CERT_FILE)).unwrap(),
        pem
    );
    let (_, st) = call(&c.app, get("/api/v1/proxy/status")).await;
    assert_eq!(
        st["ca"]["path"],
        dir.join("proxy-ca.pem").display().to_string()
    );
    let fingerprint = st["ca"]["sha256"].clone();
    // Another server on the same state directory serves the same CA.
    let again = app_with_proxy(
        ProxyOptions {
            state_dir: Some(dir.clone()),
            ..Default::default()
        },
        loopback_policy(),
    );
    let (_, _, pem2) = raw(&again, "/api/v1/proxy/ca.pem").await;
    assert_eq!(String::from_utf8(pem2).unwrap(), pem);
    let (_, st2) = call(&again, get("/api/v1/proxy/status")).await;
    assert_eq!(st2["ca"]["sha256"], fingerprint);
    assert_eq!(st2["running"], false);
}

#[tokio::test]
async fn start_stop_and_what_the_proxy_refuses() {
    let c = capture(|_| {}).await;
    // Running already: its status, unchanged, with a note.
    let (status, v) = call(&c.app, post("/api/v1/proxy/start", json!({"port": 1}))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        v["note"].as_str().unwrap().contains("running already"),
        "{v}"
    );
    assert!(v["address"]
        .as_str()
        .unwrap()
        .ends_with(&format!(":{}", c.port)));
    // The proxy does not forward to itself (a loop) nor to the mobilectl API.
    let client = c.reqwest().await;
    for url in [
        format!("http://127.0.0.1:{}/", c.port),
        "http://localhost:9100/api/v1/device/list".to_string(),
    ] {
        let r = client.get(&url).send().await.unwrap();
        assert_eq!(r.status(), 403, "{url}");
    }
    let flows = c.wait_flows(2).await;
    assert!(flows.iter().all(|f| f["error"] == "blocked"), "{flows:?}");
    // Listening on loopback only.
    assert!(std::net::TcpStream::connect(("127.0.0.1", c.port)).is_ok());

    let (status, v) = call(&c.app, post("/api/v1/proxy/stop", json!({}))).await;
    assert_eq!(
        (status, v["running"].as_bool()),
        (StatusCode::OK, Some(false))
    );
    assert!(wait_until(Duration::from_secs(5), || {
        std::net::TcpStream::connect(("127.0.0.1", c.port)).is_err()
    }));
    // Flows outlive the proxy.
    assert_eq!(c.flows("").await["flows"].as_array().unwrap().len(), 2);
    let (_, v) = call(&c.app, post("/api/v1/proxy/stop", json!({}))).await;
    assert!(v["note"].as_str().unwrap().contains("not running"), "{v}");

    // A taken port.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let (status, v) = call(&c.app, post("/api/v1/proxy/start", json!({"port": port}))).await;
    assert_eq!(status, StatusCode::CONFLICT, "{v}");
    assert_eq!(error_code(&v), "PORT_IN_USE");
    let (status, v) = call(
        &c.app,
        post(
            "/api/v1/proxy/start",
            json!({"port": 0, "passthrough": ["bad host"]}),
        ),
    )
    .await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::BAD_REQUEST, "VALIDATION_FAILED")
    );
}

#[tokio::test]
async fn secrets_are_shown_only_by_a_loopback_server() {
    let policy = SecurityPolicy {
        bound: Some("0.0.0.0:9100".parse().unwrap()),
        token: Some("0123456789abcdef0123".into()),
        ..Default::default()
    };
    let app = app_with_proxy(ProxyOptions::default(), policy);
    let req = |uri: &str| {
        Request::get(uri)
            .header("host", "127.0.0.1:9100")
            .header("authorization", "Bearer 0123456789abcdef0123")
            .body(Body::empty())
            .unwrap()
    };
    let (status, v) = call(&app, req("/api/v1/proxy/flows/1?reveal=true")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{v}");
    assert_eq!(error_code(&v), "FORBIDDEN");
    assert!(v["error"]["message"].as_str().unwrap().contains("loopback"));
    // Without reveal the same server answers (here: no such flow).
    let (status, _) = call(&app, req("/api/v1/proxy/flows/1")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// The real API served on a port of its own, with its proxy started (allowing the local
/// ports `allow`); requests that reach a device route are counted.
struct Served {
    api: std::net::SocketAddr,
    proxy: u16,
    app: Router,
    device_hits: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    _state: tempfile::TempDir,
    _task: tokio::task::JoinHandle<()>,
}

async fn served(tune: impl FnOnce(std::net::SocketAddr, &mut ProxyOptions)) -> Served {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let api = listener.local_addr().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mut o = ProxyOptions {
        state_dir: Some(state.path().join("state")),
        ..Default::default()
    };
    tune(api, &mut o);
    o.check().unwrap();
    let app = app_with_proxy(
        o,
        SecurityPolicy {
            bound: Some(api),
            // The in-process calls of `call`.
            allow_hosts: vec!["127.0.0.1:9100".into()],
            ..Default::default()
        },
    );
    let device_hits = std::sync::Arc::new(AtomicUsize::new(0));
    let hits = device_hits.clone();
    let counted = app.clone().layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| {
            let hits = hits.clone();
            async move {
                if req.uri().path().starts_with("/api/v1/device") {
                    hits.fetch_add(1, Ordering::SeqCst);
                }
                next.run(req).await
            }
        },
    ));
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, counted).await;
    });
    let (status, v) = call(&app, post("/api/v1/proxy/start", json!({"port": 0}))).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let proxy = v["address"].as_str().unwrap().rsplit(':').next().unwrap();
    Served {
        api,
        proxy: proxy.parse().unwrap(),
        app,
        device_hits,
        _state: state,
        _task: task,
    }
}

impl Served {
    fn hits(&self) -> usize {
        self.device_hits.load(std::sync::atomic::Ordering::SeqCst)
    }

    async fn flows(&self) -> Vec<Value> {
        let (_, v) = call(&self.app, get("/api/v1/proxy/flows")).await;
        v["flows"].as_array().unwrap().clone()
    }
}

/// Writes `head` to the proxy on a raw socket and reads what comes back until the proxy
/// closes or 5 s pass.
async fn raw_proxy(port: u16, head: String, then: &'static [u8]) -> String {
    tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(head.as_bytes()).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        // The answer to the head, then whatever follows the bytes sent after it.
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => return String::from_utf8_lossy(&got).into_owned(),
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        if !then.is_empty() {
            let _ = s.write_all(then);
        }
        loop {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        String::from_utf8_lossy(&got).into_owned()
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn the_api_is_out_of_reach_by_every_spelling_of_this_host() {
    // Even with the API's port allowed, it is refused.
    let s = served(|api, o| o.allow_local = vec![api.port()]).await;
    let port = s.api.port();
    let proxy = format!("http://127.0.0.1:{}", s.proxy);
    let path = "/api/v1/device/active";
    let mut cases: Vec<Vec<String>> = [
        "127.0.0.1",
        "127.1",
        "0.0.0.0",
        "2130706433",
        "0x7f000001",
        "[::ffff:127.0.0.1]",
        "localhost",
        "[::1]",
    ]
    .iter()
    .map(|h| vec![format!("http://{h}:{port}{path}")])
    .collect();
    // The client's own Host header changes nothing.
    cases.push(vec![
        "-H".into(),
        format!("Host: 127.0.0.1:{port}"),
        format!("http://127.1:{port}{path}"),
    ]);
    // Nor a protocol switch (WebSocket).
    cases.push(vec![
        "-H".into(),
        "Connection: Upgrade".into(),
        "-H".into(),
        "Upgrade: websocket".into(),
        "-H".into(),
        "Sec-WebSocket-Version: 13".into(),
        "-H".into(),
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==".into(),
        format!("http://0x7f000001:{port}{path}"),
    ]);
    // Nor does an action.
    cases.push(vec![
        "-H".into(),
        "content-type: application/json".into(),
        "-d".into(),
        r#"{"key":"home"}"#.into(),
        format!("http://127.0.0.1:{port}/api/v1/device/ui/press"),
    ]);
    for case in &cases {
        let mut args = vec![
            "-x".to_string(),
            proxy.clone(),
            "-o".into(),
            "/dev/null".into(),
            "-w".into(),
            "%{http_code} %header{x-mobilectl-proxy-error}".into(),
        ];
        args.extend(case.iter().cloned());
        let (_, out, err) = curl(args).await;
        assert_eq!(
            String::from_utf8_lossy(&out),
            "403 blocked",
            "{case:?}: {err}"
        );
    }
    // Through a tunnel too.
    let (code, _, err) = curl(vec![
        "-x".into(),
        proxy.clone(),
        "-k".into(),
        format!("https://127.1:{port}{path}"),
    ])
    .await;
    assert_ne!(code, 0);
    assert!(err.contains("403"), "{err}");
    assert_eq!(s.hits(), 0, "the API was reached through its proxy");
    let flows = s.flows().await;
    assert_eq!(flows.len(), cases.len() + 1, "{flows:?}");
    for f in &flows {
        assert_eq!(f["error"], "blocked", "{f}");
        let why = f["blocked"].as_str().unwrap();
        assert!(why.contains("the mobilectl API"), "{f}");
    }
}

#[tokio::test]
async fn tunnels_to_the_adb_server_or_the_api_and_plain_text_tunnels_are_refused() {
    // A stand-in adb server (allowed or not, never reached) and a plain HTTP server whose
    // port is allowed.
    let adb = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    adb.set_nonblocking(true).unwrap();
    let adb_port = adb.local_addr().unwrap().port();
    let http = Upstream::http().await;
    let allowed = http.addr.port();
    let s = served(|api, o| {
        o.adb_server_port = Some(adb_port);
        o.allow_local = vec![adb_port, api.port(), allowed];
    })
    .await;
    for target in [
        format!("127.0.0.1:{adb_port}"),
        "127.0.0.1:5037".to_string(),
        format!("localhost:{}", s.api.port()),
        format!("0x7f000001:{}", s.proxy),
    ] {
        let head = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n");
        let answer = raw_proxy(s.proxy, head, b"host:transport-any").await;
        assert!(answer.starts_with("HTTP/1.1 403"), "{target}: {answer}");
    }
    assert!(
        adb.accept().is_err(),
        "the adb server was reached through the proxy"
    );
    // An allowed destination, but the tunnel speaks plain text: refused after the first
    // bytes, and nothing comes back from the upstream.
    let head = format!("CONNECT 127.0.0.1:{allowed} HTTP/1.1\r\nHost: x\r\n\r\n");
    let answer = raw_proxy(
        s.proxy,
        head,
        b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(!answer.contains("hello"), "the upstream answered: {answer}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let flows = loop {
        let flows = s.flows().await;
        if flows.len() >= 5 || tokio::time::Instant::now() > deadline {
            break flows;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let why: Vec<&str> = flows
        .iter()
        .map(|f| f["blocked"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(why.len(), 5, "{flows:?}");
    assert!(why[0].contains("the adb server"), "{why:?}");
    assert!(why[1].contains("the adb server"), "{why:?}");
    assert!(why[2].contains("the mobilectl API"), "{why:?}");
    assert!(why[3].contains("the proxy itself"), "{why:?}");
    assert!(why[4].contains("did not start with TLS"), "{why:?}");
    assert!(flows.iter().all(|f| f["method"] == "CONNECT"));
}

#[tokio::test]
async fn an_allowed_local_port_is_reached_and_its_neighbours_are_not() {
    let c = capture(|_| {}).await;
    let port = c.http.addr.port();
    let client = c.reqwest().await;
    let r = client.get(c.http.url("/hello")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let mut refused = 0;
    for p in [port - 1, port + 1] {
        if [c.https.addr.port(), c.closed].contains(&p) {
            continue; // allowed as well
        }
        refused += 1;
        let r = client
            .get(format!("http://localhost:{p}/hello"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{p}");
        assert_eq!(r.headers()["x-mobilectl-proxy-error"], "blocked");
    }
    let flows = c.wait_flows(1 + refused).await;
    assert_eq!(flows[0]["status"], 200);
    for f in &flows[1..] {
        let why = f["blocked"].as_str().unwrap();
        assert!(why.contains("--proxy-allow-local"), "{f}");
    }
}

#[tokio::test]
async fn a_protocol_switch_to_an_allowed_upstream_is_relayed_and_recorded() {
    let c = capture(|_| {}).await;
    let (proxy, port) = (c.port, c.http.addr.port());
    let head = format!(
        "GET http://127.0.0.1:{port}/upgrade HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
         Connection: Upgrade\r\nUpgrade: echo\r\n\r\n"
    );
    let (answer, echo) = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", proxy)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(head.as_bytes()).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 1];
        while !got.ends_with(b"\r\n\r\n") {
            let n = s.read(&mut buf).unwrap();
            assert!(n > 0, "closed: {}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&buf[..n]);
        }
        s.write_all(b"ping").unwrap();
        let mut echo = [0u8; 4];
        s.read_exact(&mut echo).unwrap();
        (String::from_utf8_lossy(&got).into_owned(), echo)
    })
    .await
    .unwrap();
    assert!(answer.starts_with("HTTP/1.1 101"), "{answer}");
    assert_eq!(&echo, b"ping");
    let flows = c.wait_flows(1).await;
    assert_eq!(flows[0]["status"], 101, "{flows:?}");
    let d = c.flow(flows[0]["id"].as_u64().unwrap(), "").await;
    assert_eq!(d["tunnel"]["bytes_sent"], 4, "{d}");
    assert_eq!(d["tunnel"]["bytes_received"], 4, "{d}");
}
