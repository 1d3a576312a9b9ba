//! The recording handler hudsucker calls for every request it receives (plain HTTP, and HTTPS
//! it decrypted with the proxy's CA): it forwards the request itself with a timed client, tees
//! both bodies ([`super::tee`]), and stores the exchange when the response body has ended —
//! or the failure when there was no answer (refused, DNS, TLS, timeout, blocked).
//!
//! `CONNECT` to a passthrough host is answered here and tunnelled byte for byte, never
//! decrypted, and recorded as one `CONNECT` flow with its byte counts. A `CONNECT` that was
//! intercepted but carried no request (the app refused the proxy's certificate) is recorded as
//! a TLS failure when its connection ends.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use http_body_util::combinators::BoxBody;
use hudsucker::hyper::header::{HeaderMap, HeaderValue};
use hudsucker::hyper::{Method, Request, Response, StatusCode, Uri};
use hudsucker::{Body, HttpContext, HttpHandler, RequestOrResponse};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio_util::sync::CancellationToken;

use super::flow::{ms, Captured, Failure, FailureKind, Flow, Header, Message, Timing, Tunnel};
use super::store::FlowStore;
use super::tee::{End, Tee};
use super::upstream::{classify, ConnInfo, Connector};

/// What every request handled by one running proxy shares.
pub struct Shared {
    pub store: Arc<FlowStore>,
    client: Client<Connector, Body>,
    connector: Connector,
    pub passthrough: Vec<String>,
    pub body_cap: usize,
    pub timeout: Duration,
    /// Addresses never forwarded to: the proxy itself and the mobilectl API.
    pub own: Vec<SocketAddr>,
    pub in_flight: AtomicUsize,
    /// Cancelled when the proxy stops: ends the tunnels.
    pub stopped: CancellationToken,
}

impl Shared {
    pub fn new(
        store: Arc<FlowStore>,
        connector: Connector,
        passthrough: Vec<String>,
        body_cap: usize,
        timeout: Duration,
        own: Vec<SocketAddr>,
        stopped: CancellationToken,
    ) -> Shared {
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .http1_title_case_headers(true)
            .http1_preserve_header_case(true)
            .build(connector.clone());
        Shared {
            store,
            client,
            connector,
            passthrough,
            body_cap,
            timeout,
            own,
            in_flight: AtomicUsize::new(0),
            stopped,
        }
    }

    /// Whether `host` is tunnelled, not decrypted: a listed host or a subdomain of one.
    pub fn is_passthrough(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.passthrough
            .iter()
            .any(|p| host == *p || host.ends_with(&format!(".{p}")))
    }

    /// Whether `host:port` is the proxy itself or the mobilectl API (a loop, or a way for an
    /// app on the device to drive mobilectl).
    fn is_own(&self, host: &str, port: u16) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let ip = host.parse::<std::net::IpAddr>().ok();
        let local_name = host.eq_ignore_ascii_case("localhost")
            || host.to_ascii_lowercase().ends_with(".localhost");
        self.own.iter().any(|a| {
            a.port() == port
                && (local_name
                    || ip.is_some_and(|ip| {
                        ip == a.ip()
                            || ip.is_loopback()
                            || (a.ip().is_unspecified() && ip.is_unspecified())
                    }))
        })
    }
}

/// One exchange being recorded.
struct Draft {
    started_at: DateTime<Utc>,
    started: Instant,
    method: String,
    url: String,
    host: String,
    request_headers: Vec<Header>,
    request_body: Arc<Mutex<Captured>>,
}

impl Draft {
    fn flow(self, status: Option<u16>, response: Option<Message>, timing: Timing) -> Flow {
        let body = take(&self.request_body);
        Flow {
            id: 0,
            started_at: self.started_at,
            method: self.method,
            url: self.url,
            host: self.host,
            request: Message {
                headers: self.request_headers,
                body,
            },
            status,
            response,
            timing,
            error: None,
            tunnel: None,
        }
    }

    fn failed(self, kind: FailureKind, message: String) -> Flow {
        let total = ms(self.started.elapsed());
        let mut f = self.flow(
            None,
            None,
            Timing {
                total_ms: total,
                ..Default::default()
            },
        );
        f.error = Some(Failure { kind, message });
        f
    }
}

fn take(c: &Arc<Mutex<Captured>>) -> Captured {
    std::mem::take(&mut *c.lock().unwrap_or_else(|e| e.into_inner()))
}

fn headers_of(h: &HeaderMap) -> Vec<Header> {
    h.iter()
        .map(|(n, v)| {
            (
                n.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// Counts an exchange in flight until dropped.
struct InFlight(Arc<Shared>);

impl InFlight {
    fn new(s: &Arc<Shared>) -> InFlight {
        s.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(s.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Hop-by-hop headers, which concern one connection and are not forwarded.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "proxy-connection",
    "keep-alive",
    "proxy-authorization",
    "te",
    "trailer",
    "upgrade",
];

/// An answer of the proxy itself (the upstream gave none).
fn proxy_answer(status: StatusCode, kind: &str, text: String) -> Response<Body> {
    let mut r = Response::new(Body::from(format!("mobilectl proxy: {text}\n")));
    *r.status_mut() = status;
    r.headers_mut().insert(
        "content-type",
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(kind) {
        r.headers_mut().insert("x-mobilectl-proxy-error", v);
    }
    r
}

fn kind_name(k: FailureKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The handler hudsucker clones for every request (and for every request inside an
/// intercepted tunnel, from the clone that saw its `CONNECT`).
#[derive(Clone)]
pub struct Recorder {
    shared: Arc<Shared>,
    tunnel: Option<Arc<TlsWatch>>,
}

impl Recorder {
    pub fn new(shared: Arc<Shared>) -> Recorder {
        Recorder {
            shared,
            tunnel: None,
        }
    }

    async fn forward(&self, req: Request<Body>) -> Response<Body> {
        let started_at = Utc::now();
        let started = Instant::now();
        let uri = req.uri().clone();
        let Some(host) = uri.host().map(str::to_string) else {
            return proxy_answer(
                StatusCode::BAD_REQUEST,
                "not_a_proxy_request",
                "this is an HTTP proxy: send absolute URLs (configure it as the proxy)".into(),
            );
        };
        let https = uri.scheme_str() == Some("https");
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let (mut parts, body) = req.into_parts();
        let draft = Draft {
            started_at,
            started,
            method: parts.method.to_string(),
            url: uri.to_string(),
            host: host.clone(),
            request_headers: headers_of(&parts.headers),
            request_body: Arc::new(Mutex::new(Captured::default())),
        };
        let s = &self.shared;
        if s.is_own(&host, port) {
            s.store.push(draft.failed(
                FailureKind::Blocked,
                format!(
                    "{host}:{port} is the proxy or the mobilectl API, which it does not forward to"
                ),
            ));
            return proxy_answer(
                StatusCode::FORBIDDEN,
                "blocked",
                format!("{host}:{port} is mobilectl itself; not forwarded"),
            );
        }
        let guard = InFlight::new(s);
        for h in HOP_BY_HOP {
            parts.headers.remove(*h);
        }
        parts.version = hudsucker::hyper::Version::HTTP_11;
        let body = Tee::new(body, draft.request_body.clone(), s.body_cap);
        let up = Request::from_parts(parts, Body::from(BoxBody::new(body)));
        let answer = tokio::time::timeout(s.timeout, s.client.request(up)).await;
        let resp = match answer {
            Err(_) => {
                let msg = format!("no answer within {} ms", s.timeout.as_millis());
                s.store
                    .push(draft.failed(FailureKind::Timeout, msg.clone()));
                return proxy_answer(StatusCode::GATEWAY_TIMEOUT, "timeout", msg);
            }
            Ok(Err(e)) => {
                let (kind, msg) = classify(&e);
                s.store.push(draft.failed(kind, msg.clone()));
                return proxy_answer(StatusCode::BAD_GATEWAY, &kind_name(kind), msg);
            }
            Ok(Ok(r)) => r,
        };
        let first_byte = started.elapsed();
        let (connect, tls) = match resp
            .extensions()
            .get::<ConnInfo>()
            .and_then(|c| c.0.first_use())
        {
            Some((c, t)) => (Some(ms(c)), t.map(ms)),
            None => (None, None),
        };
        let (parts, incoming) = resp.into_parts();
        let status = parts.status.as_u16();
        let response_headers = headers_of(&parts.headers);
        let kept = Arc::new(Mutex::new(Captured::default()));
        let store = s.store.clone();
        let kept_at_end = kept.clone();
        let finish = move |end: End| {
            let _guard = guard;
            let timing = Timing {
                connect_ms: connect,
                tls_ms: tls,
                first_byte_ms: Some(ms(first_byte)),
                total_ms: ms(draft.started.elapsed()),
            };
            let error = match end {
                End::Complete => None,
                End::Failed(e) => {
                    let (kind, message) = classify(&e);
                    Some(Failure { kind, message })
                }
                End::Stalled(limit) => Some(Failure {
                    kind: FailureKind::Timeout,
                    message: format!("the response body stopped for {} ms", limit.as_millis()),
                }),
                End::Dropped => Some(Failure {
                    kind: FailureKind::Aborted,
                    message: "the app closed the connection before the response body ended".into(),
                }),
            };
            let response = Message {
                headers: response_headers,
                body: take(&kept_at_end),
            };
            let mut flow = draft.flow(Some(status), Some(response), timing);
            flow.error = error;
            store.push(flow);
        };
        let body = Tee::new(Body::from(incoming), kept, s.body_cap)
            .idle_limit(s.timeout)
            .on_end(finish);
        Response::from_parts(parts, Body::from(BoxBody::new(body)))
    }
}

impl HttpHandler for Recorder {
    async fn handle_request(
        &mut self,
        _ctx: &HttpContext,
        mut req: Request<Body>,
    ) -> RequestOrResponse {
        if req.method() == Method::CONNECT {
            let Some(authority) = req.uri().authority().cloned() else {
                return req.into();
            };
            let host = authority.host().to_string();
            let port = authority.port_u16().unwrap_or(443);
            if self.shared.is_own(&host, port) {
                let draft = connect_draft(authority.as_ref(), &host);
                self.shared.store.push(draft.failed(
                    FailureKind::Blocked,
                    format!("{host}:{port} is the proxy or the mobilectl API, which it does not forward to"),
                ));
                return proxy_answer(StatusCode::FORBIDDEN, "blocked", "not forwarded".into())
                    .into();
            }
            if self.shared.is_passthrough(&host) {
                let upgrade = hudsucker::hyper::upgrade::on(&mut req);
                let draft = connect_draft(authority.as_ref(), &host);
                tokio::spawn(tunnel(self.shared.clone(), draft, upgrade));
                return Response::new(Body::empty()).into();
            }
            self.tunnel = Some(Arc::new(TlsWatch {
                shared: self.shared.clone(),
                draft: Mutex::new(Some(connect_draft(authority.as_ref(), &host))),
                saw_request: AtomicBool::new(false),
            }));
            return req.into();
        }
        if let Some(w) = &self.tunnel {
            w.saw_request.store(true, Ordering::Relaxed);
        }
        let websocket = req
            .headers()
            .get("upgrade")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
        if websocket {
            // hudsucker relays WebSockets itself; they are not recorded.
            return req.into();
        }
        self.forward(req).await.into()
    }
}

fn connect_draft(authority: &str, host: &str) -> Draft {
    Draft {
        started_at: Utc::now(),
        started: Instant::now(),
        method: "CONNECT".into(),
        url: authority.to_string(),
        host: host.to_string(),
        request_headers: Vec::new(),
        request_body: Arc::new(Mutex::new(Captured::default())),
    }
}

/// Watches an intercepted tunnel: when its last user goes (the connection ended) without a
/// single request inside, the app refused the handshake (or never spoke), and that is recorded.
struct TlsWatch {
    shared: Arc<Shared>,
    draft: Mutex<Option<Draft>>,
    saw_request: AtomicBool,
}

impl Drop for TlsWatch {
    fn drop(&mut self) {
        if self.saw_request.load(Ordering::Relaxed) {
            return;
        }
        let Some(draft) = self.draft.lock().ok().and_then(|mut d| d.take()) else {
            return;
        };
        let host = draft.host.clone();
        self.shared.store.push(draft.failed(
            FailureKind::Tls,
            format!(
                "the app closed its tunnel to {host} without a request: it likely refused the \
                 proxy's certificate (trust GET /api/v1/proxy/ca.pem, or pass {host} through)"
            ),
        ));
    }
}

/// Counts the bytes read through it.
struct Counted<T> {
    io: T,
    read: Arc<AtomicU64>,
}

impl<T: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Counted<T> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = std::pin::Pin::new(&mut self.io).poll_read(cx, buf);
        let n = buf.filled().len() - before;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        r
    }
}

impl<T: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Counted<T> {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.io).poll_write(cx, buf)
    }
    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_flush(cx)
    }
    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// A passthrough tunnel: connect to the host, relay both ways until either side closes or the
/// proxy stops, and record it with its byte counts.
async fn tunnel(shared: Arc<Shared>, draft: Draft, upgrade: hudsucker::hyper::upgrade::OnUpgrade) {
    let _guard = InFlight::new(&shared);
    let Ok(upgraded) = upgrade.await else {
        return; // the app left before the tunnel opened: nothing went through
    };
    let uri: Uri = match format!("http://{}/", draft.url).parse() {
        Ok(u) => u,
        Err(e) => {
            shared
                .store
                .push(draft.failed(FailureKind::Connection, e.to_string()));
            return;
        }
    };
    let connect = Instant::now();
    let server = match tower::ServiceExt::oneshot(shared.connector.clone(), uri).await {
        Ok(c) => c,
        Err(e) => {
            let (kind, msg) = classify(&e);
            shared.store.push(draft.failed(kind, msg));
            return;
        }
    };
    let connect_ms = ms(connect.elapsed());
    let (sent, received) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut app = Counted {
        io: TokioIo::new(upgraded),
        read: sent.clone(),
    };
    let mut host = Counted {
        io: TokioIo::new(server),
        read: received.clone(),
    };
    let outcome = tokio::select! {
        r = tokio::io::copy_bidirectional(&mut app, &mut host) => r.err(),
        _ = shared.stopped.cancelled() => None,
    };
    let total_ms = ms(draft.started.elapsed());
    let mut flow = draft.flow(
        Some(200),
        None,
        Timing {
            connect_ms: Some(connect_ms),
            total_ms,
            ..Default::default()
        },
    );
    flow.tunnel = Some(Tunnel {
        bytes_sent: sent.load(Ordering::Relaxed),
        bytes_received: received.load(Ordering::Relaxed),
    });
    if let Some(e) = outcome {
        let (kind, message) = classify(&e);
        flow.error = Some(Failure { kind, message });
    }
    shared.store.push(flow);
}
