//! Upstream servers for the proxy's tests and benches: the same small app over plain HTTP or
//! over HTTPS with a certificate (for `localhost` and `127.0.0.1`) from a CA made here with
//! rcgen, which a test gives the proxy as an extra upstream root.
//!
//! Routes: `/hello` (text, sets a cookie), `/gzip`, `/deflate`, `/br` (encoded JSON or text),
//! `/big?bytes=N` (N bytes of a known pattern, streamed), `/status/N`, `POST /echo` (the body
//! back, with its SHA-256 in `x-sha256`), `POST /api/login` (the demo app's: a token), `/hang` (never answers), `/stall` (headers and a
//! first chunk, then nothing), `/upgrade` (switches to protocol `echo`: bytes come back).
//! Every server counts the requests it received ([`Upstream::hits`]).

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, Query};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use sha2::{Digest, Sha256};

/// `brotli.compress(b"hello hello hello brotli", quality=11)` (Python brotli 1.2.1).
pub const BROTLI_HELLO: &[u8] = &[
    0x1b, 0x17, 0x00, 0xf8, 0x8d, 0x94, 0x6e, 0xde, 0x44, 0x55, 0x86, 0xd6, 0x6c, 0x20, 0x69, 0x6f,
    0xd3, 0x10, 0x49, 0xe2, 0xa9, 0x03, 0x56, 0x9a, 0x78, 0xb4, 0x68, 0x06,
];
pub const BROTLI_HELLO_TEXT: &str = "hello hello hello brotli";

/// The JSON `/gzip` and `/deflate` send, encoded.
pub const JSON_BODY: &str =
    r#"{"items":[{"id":1,"name":"Order #1001"},{"id":2,"name":"Order #1002"}]}"#;

/// Byte `i` of `/big`.
pub fn pattern(i: usize) -> u8 {
    (i % 251) as u8
}

/// SHA-256 of `/big?bytes=n`, hex.
pub fn big_sha256(n: usize) -> String {
    let mut h = Sha256::new();
    let chunk: Vec<u8> = (0..n).map(pattern).collect();
    h.update(&chunk);
    hex(&h.finalize())
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A certificate authority for upstream test servers.
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    pub der: CertificateDer<'static>,
    pub pem: String,
}

impl TestCa {
    pub fn new() -> TestCa {
        let key = KeyPair::generate().expect("key");
        let mut p = CertificateParams::default();
        p.distinguished_name
            .push(DnType::CommonName, "upstream test CA");
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let cert = p.self_signed(&key).expect("CA");
        TestCa {
            der: cert.der().clone(),
            pem: cert.pem(),
            issuer: Issuer::new(p, key),
        }
    }

    /// A server configuration for `localhost` and `127.0.0.1`.
    fn server_config(&self) -> rustls::ServerConfig {
        let key = KeyPair::generate().expect("key");
        let p = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .expect("params");
        let cert = p.signed_by(&key, &self.issuer).expect("cert");
        let mut c = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            PrivateKeyDer::from(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .expect("config");
        c.alpn_protocols = vec![b"http/1.1".to_vec()];
        c
    }
}

impl Default for TestCa {
    fn default() -> Self {
        TestCa::new()
    }
}

/// A running upstream server (stops when dropped).
pub struct Upstream {
    pub addr: SocketAddr,
    pub tls: bool,
    hits: Arc<std::sync::atomic::AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Upstream {
    /// A plain HTTP server on 127.0.0.1.
    pub async fn http() -> Upstream {
        Self::start(None).await
    }

    /// An HTTPS server on 127.0.0.1 with a certificate from `ca`.
    pub async fn https(ca: &TestCa) -> Upstream {
        Self::start(Some(Arc::new(ca.server_config()))).await
    }

    /// Requests received so far.
    pub fn hits(&self) -> u64 {
        self.hits.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// `http://127.0.0.1:PORT` or `https://localhost:PORT` and `path`.
    pub fn url(&self, path: &str) -> String {
        if self.tls {
            format!("https://localhost:{}{path}", self.addr.port())
        } else {
            format!("http://127.0.0.1:{}{path}", self.addr.port())
        }
    }

    async fn start(tls: Option<Arc<rustls::ServerConfig>>) -> Upstream {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let hits = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let app = app().layer(axum::middleware::from_fn_with_state(hits.clone(), count));
        let is_tls = tls.is_some();
        let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
        let task = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let _ = tcp.set_nodelay(true);
                let app = app.clone();
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let service = hyper_util::service::TowerToHyperService::new(app);
                    let builder = hyper::server::conn::http1::Builder::new();
                    match acceptor {
                        Some(a) => {
                            if let Ok(s) = a.accept(tcp).await {
                                let _ = builder
                                    .serve_connection(hyper_util::rt::TokioIo::new(s), service)
                                    .with_upgrades()
                                    .await;
                            }
                        }
                        None => {
                            let _ = builder
                                .serve_connection(hyper_util::rt::TokioIo::new(tcp), service)
                                .with_upgrades()
                                .await;
                        }
                    }
                });
            }
        });
        Upstream {
            addr,
            tls: is_tls,
            hits,
            task,
        }
    }
}

/// Counts a request, then serves it.
async fn count(
    axum::extract::State(hits): axum::extract::State<Arc<std::sync::atomic::AtomicU64>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    hits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    next.run(req).await
}

fn encoded(encoding: &'static str, ctype: &'static str, bytes: Vec<u8>) -> Response {
    (
        [
            (header::CONTENT_ENCODING, encoding),
            (header::CONTENT_TYPE, ctype),
        ],
        bytes,
    )
        .into_response()
}

fn app() -> Router {
    Router::new()
        .route(
            "/hello",
            get(|| async {
                (
                    [
                        (header::CONTENT_TYPE, "text/plain"),
                        (
                            header::SET_COOKIE,
                            "session=upstream-secret; Path=/; HttpOnly",
                        ),
                    ],
                    "hello",
                )
            }),
        )
        .route(
            "/gzip",
            get(|| async {
                let mut e =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                let _ = e.write_all(JSON_BODY.as_bytes());
                encoded("gzip", "application/json", e.finish().unwrap_or_default())
            }),
        )
        .route(
            "/deflate",
            get(|| async {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
                let _ = e.write_all(JSON_BODY.as_bytes());
                encoded(
                    "deflate",
                    "application/json",
                    e.finish().unwrap_or_default(),
                )
            }),
        )
        .route(
            "/br",
            get(|| async { encoded("br", "text/plain", BROTLI_HELLO.to_vec()) }),
        )
        .route("/big", get(big))
        .route(
            "/status/{code}",
            get(|Path(code): Path<u16>| async move {
                (
                    StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST),
                    "status",
                )
            }),
        )
        .route("/echo", post(echo))
        .route(
            "/api/login",
            post(|| async {
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    r#"{"token":"demo-token"}"#,
                )
            }),
        )
        .route(
            "/hang",
            get(|| async {
                std::future::pending::<()>().await;
                "never"
            }),
        )
        .route("/stall", get(stall))
        .route("/upgrade", get(upgrade))
}

/// Switches to `echo`: every byte sent after the `101` comes back.
async fn upgrade(mut req: axum::extract::Request) -> Response {
    let on = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let Ok(up) = on.await else { return };
        let mut io = hyper_util::rt::TokioIo::new(up);
        let mut buf = [0u8; 1024];
        while let Ok(n @ 1..) = io.read(&mut buf).await {
            if io.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
    });
    (
        StatusCode::SWITCHING_PROTOCOLS,
        [(header::CONNECTION, "upgrade"), (header::UPGRADE, "echo")],
    )
        .into_response()
}

#[derive(serde::Deserialize)]
struct BigQuery {
    bytes: usize,
}

async fn big(Query(q): Query<BigQuery>) -> Response {
    const CHUNK: usize = 64 * 1024;
    let n = q.bytes;
    let chunks = futures::stream::iter((0..n).step_by(CHUNK).map(move |start| {
        let end = (start + CHUNK).min(n);
        Ok::<_, std::io::Error>((start..end).map(pattern).collect::<Vec<u8>>())
    }));
    (
        [(header::CONTENT_TYPE, "application/octet-stream")],
        Body::from_stream(chunks),
    )
        .into_response()
}

async fn echo(headers: HeaderMap, body: axum::body::Bytes) -> Response {
    let ctype = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_string();
    let sha = hex(&Sha256::digest(&body));
    (
        [
            (header::CONTENT_TYPE, ctype),
            (header::HeaderName::from_static("x-sha256"), sha),
        ],
        body,
    )
        .into_response()
}

async fn stall() -> Response {
    let first = futures::stream::once(async { Ok::<_, std::io::Error>(b"first chunk".to_vec()) });
    let never = futures::stream::once(async {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok::<_, std::io::Error>(Vec::new())
    });
    (
        [(header::CONTENT_TYPE, "text/plain")],
        Body::from_stream(futures::StreamExt::chain(first, never)),
    )
        .into_response()
}
