//! The recording handler hudsucker calls for every request it receives (plain HTTP, and HTTPS
//! it decrypted with the proxy's CA): it forwards the request itself with a timed client, tees
//! both bodies ([`super::tee`]), and stores the exchange when the response body has ended —
//! or the failure when there was no answer (refused, DNS, TLS, timeout, blocked).
//!
//! Every request is answered here (hudsucker only listens and parses), and every upstream
//! connection goes through the [`Connector`], whose [`super::guard`] refuses this host's own
//! services: a refused request is answered `403` and recorded with `error.kind: blocked` and
//! the reason.
//!
//! `CONNECT` is checked the same way, then answered; the tunnel's first bytes decide the rest.
//! To a passthrough host it is relayed byte for byte to the address checked, never decrypted,
//! and recorded as one `CONNECT` flow with its byte counts. Otherwise it must speak TLS (a
//! ClientHello starts `16 03`), which is decrypted with a certificate from the proxy's CA and
//! its requests handled as above; anything else is refused (recorded as blocked). A tunnel
//! that was intercepted but carried no request (the app refused the proxy's certificate) is
//! recorded as a TLS failure when its connection ends. Protocol switches (WebSocket) are
//! relayed once the upstream agrees, and recorded with their byte counts.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use http_body_util::combinators::BoxBody;
use hudsucker::hyper::body::Incoming;
use hudsucker::hyper::header::{HeaderMap, HeaderValue};
use hudsucker::hyper::http::uri::{Authority, Scheme};
use hudsucker::hyper::{Method, Request, Response, StatusCode, Uri};
use hudsucker::{Body, HttpContext, HttpHandler, RequestOrResponse};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use super::ca::LeafIssuer;
use super::flow::{ms, Captured, Failure, FailureKind, Flow, Header, Message, Timing, Tunnel};
use super::store::FlowStore;
use super::tee::{End, Tee};
use super::upstream::{classify, ConnInfo, Connector};

/// What every request handled by one running proxy shares.
pub struct Shared {
    pub store: Arc<FlowStore>,
    client: Client<Connector, Body>,
    connector: Connector,
    /// The certificates shown to apps in intercepted tunnels.
    issuer: Arc<LeafIssuer>,
    pub passthrough: Vec<String>,
    pub body_cap: usize,
    pub timeout: Duration,
    pub in_flight: AtomicUsize,
    /// Cancelled when the proxy stops: ends the tunnels.
    pub stopped: CancellationToken,
}

impl Shared {
    /// `connector` connects upstream (and says which destinations may be reached).
    pub fn new(
        store: Arc<FlowStore>,
        connector: Connector,
        issuer: Arc<LeafIssuer>,
        passthrough: Vec<String>,
        body_cap: usize,
        timeout: Duration,
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
            issuer,
            passthrough,
            body_cap,
            timeout,
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

    /// Handles one request the app sent: a `CONNECT`, or a request to forward.
    async fn handle(&self, req: Request<Body>) -> Response<Body> {
        if req.method() == Method::CONNECT {
            return self.connect(req).await;
        }
        self.forward(req).await
    }

    /// Handles one request inside an intercepted tunnel.
    async fn handle_inner(&self, req: Request<Body>) -> Response<Body> {
        if let Some(w) = &self.tunnel {
            w.saw_request.store(true, Ordering::Relaxed);
        }
        if req.method() == Method::CONNECT {
            return proxy_answer(
                StatusCode::METHOD_NOT_ALLOWED,
                "bad_request",
                "CONNECT inside a tunnel".into(),
            );
        }
        self.forward(req).await
    }

    async fn forward(&self, mut req: Request<Body>) -> Response<Body> {
        // A protocol switch (WebSocket…) is relayed once the upstream agrees to it.
        let app_upgrade = req
            .headers()
            .contains_key("upgrade")
            .then(|| hudsucker::hyper::upgrade::on(&mut req));
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
        let guard = InFlight::new(s);
        for h in HOP_BY_HOP {
            if app_upgrade.is_some() && matches!(*h, "connection" | "upgrade") {
                continue;
            }
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
                let status = if kind == FailureKind::Blocked {
                    StatusCode::FORBIDDEN
                } else {
                    StatusCode::BAD_GATEWAY
                };
                return proxy_answer(status, &kind_name(kind), msg);
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
        if resp.status() == StatusCode::SWITCHING_PROTOCOLS {
            if let Some(app) = app_upgrade {
                return relay_upgrade(s.clone(), guard, draft, resp, app, connect, tls);
            }
        }
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
        req: Request<Body>,
    ) -> RequestOrResponse {
        // Every request is answered here: hudsucker's own forwarding (and its raw tunnels)
        // would reach destinations the guard has not seen.
        self.handle(req).await.into()
    }
}

impl Recorder {
    /// `CONNECT host:port`: refused when the destination is, else answered, then the tunnel
    /// passed through (passthrough hosts) or intercepted when it speaks TLS — anything else
    /// is refused.
    async fn connect(&self, mut req: Request<Body>) -> Response<Body> {
        let Some(authority) = req.uri().authority().cloned() else {
            return proxy_answer(
                StatusCode::BAD_REQUEST,
                "not_a_proxy_request",
                "CONNECT takes host:port".into(),
            );
        };
        let host = authority.host().to_string();
        let port = authority.port_u16().unwrap_or(443);
        let draft = connect_draft(authority.as_ref(), &host);
        let s = &self.shared;
        let addrs = match s.connector.guard().resolve(&host, port).await {
            Ok(a) if !a.is_empty() => a,
            Ok(_) => {
                let msg = format!("cannot resolve {host}: no address");
                s.store.push(draft.failed(FailureKind::Dns, msg.clone()));
                return proxy_answer(StatusCode::BAD_GATEWAY, "dns", msg);
            }
            Err(e) => {
                let (kind, msg) = classify(&e);
                let kind = if kind == FailureKind::Blocked {
                    kind
                } else {
                    FailureKind::Dns
                };
                s.store.push(draft.failed(kind, msg.clone()));
                let status = if kind == FailureKind::Blocked {
                    StatusCode::FORBIDDEN
                } else {
                    StatusCode::BAD_GATEWAY
                };
                return proxy_answer(status, &kind_name(kind), msg);
            }
        };
        let upgrade = hudsucker::hyper::upgrade::on(&mut req);
        let passthrough = s.is_passthrough(&host);
        tokio::spawn(opened(
            s.clone(),
            draft,
            upgrade,
            authority,
            addrs,
            passthrough,
        ));
        Response::new(Body::empty())
    }
}

/// A TLS record (a ClientHello) starts with these bytes.
const TLS_START: [u8; 2] = [0x16, 0x03];

/// A `CONNECT` tunnel the app opened: its first bytes decide what it is.
async fn opened(
    shared: Arc<Shared>,
    draft: Draft,
    upgrade: hudsucker::hyper::upgrade::OnUpgrade,
    authority: Authority,
    addrs: Vec<SocketAddr>,
    passthrough: bool,
) {
    let _guard = InFlight::new(&shared);
    let Ok(upgraded) = upgrade.await else {
        return; // the app left before the tunnel opened: nothing went through
    };
    let mut io = TokioIo::new(upgraded);
    let mut first = [0u8; 2];
    let mut n = 0;
    let _ = tokio::time::timeout(shared.timeout, async {
        while n < first.len() {
            match io.read(&mut first[n..]).await {
                Ok(0) | Err(_) => break,
                Ok(k) => n += k,
            }
        }
    })
    .await;
    let io = Prefixed {
        prefix: first[..n].to_vec(),
        at: 0,
        io,
    };
    if passthrough {
        return tunnel(&shared, draft, io, &addrs).await;
    }
    if first[..n] != TLS_START {
        let what = if n == 0 {
            "nothing".to_string()
        } else {
            format!("{:02x?}", &first[..n])
        };
        let msg = format!(
            "the tunnel to {} did not start with TLS (it sent {what}): only TLS is tunnelled, \
             except to passthrough hosts",
            draft.url
        );
        shared.store.push(draft.failed(FailureKind::Blocked, msg));
        return;
    }
    let host = draft.host.clone();
    let watch = Arc::new(TlsWatch {
        shared: shared.clone(),
        draft: Mutex::new(Some(draft)),
        saw_request: AtomicBool::new(false),
    });
    let accept = tokio_rustls::LazyConfigAcceptor::new(rustls::server::Acceptor::default(), io);
    let Ok(Ok(start)) = tokio::time::timeout(shared.timeout, accept).await else {
        return; // not a ClientHello after all: the watch records the failure
    };
    let name = start
        .client_hello()
        .server_name()
        .map(str::to_string)
        .unwrap_or(host);
    let config = match shared.issuer.server_config(&name) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(host = %name, error = %e, "cannot issue a certificate");
            return;
        }
    };
    let Ok(Ok(tls)) = tokio::time::timeout(shared.timeout, start.into_stream(config)).await else {
        return; // the app refused the proxy's certificate: the watch records it
    };
    let recorder = Recorder {
        shared: shared.clone(),
        tunnel: Some(watch),
    };
    let service = hudsucker::hyper::service::service_fn(move |req: Request<Incoming>| {
        let r = recorder.clone();
        let authority = authority.clone();
        async move {
            let (mut parts, body) = req.into_parts();
            let mut uri = parts.uri.into_parts();
            uri.scheme = Some(Scheme::HTTPS);
            uri.authority = Some(authority);
            let answer = match Uri::from_parts(uri) {
                Ok(u) => {
                    parts.uri = u;
                    r.handle_inner(Request::from_parts(parts, Body::from(body)))
                        .await
                }
                Err(e) => proxy_answer(StatusCode::BAD_REQUEST, "bad_request", e.to_string()),
            };
            Ok::<_, std::convert::Infallible>(answer)
        }
    });
    let conn = hudsucker::hyper::server::conn::http1::Builder::new()
        .preserve_header_case(true)
        .title_case_headers(true)
        .serve_connection(TokioIo::new(tls), service)
        .with_upgrades();
    tokio::select! {
        _ = conn => {}
        _ = shared.stopped.cancelled() => {}
    }
}

/// The response to a protocol switch goes to the app, and both connections are relayed
/// byte for byte until either side closes; recorded then with the byte counts.
fn relay_upgrade(
    shared: Arc<Shared>,
    guard: InFlight,
    draft: Draft,
    mut resp: Response<Incoming>,
    app: hudsucker::hyper::upgrade::OnUpgrade,
    connect: Option<f64>,
    tls: Option<f64>,
) -> Response<Body> {
    let host_side = hudsucker::hyper::upgrade::on(&mut resp);
    let (parts, _) = resp.into_parts();
    let headers = headers_of(&parts.headers);
    tokio::spawn(async move {
        let _guard = guard;
        let first_byte = Some(ms(draft.started.elapsed()));
        let (Ok(app), Ok(host)) = tokio::join!(app, host_side) else {
            let msg = "the protocol switch did not complete on both sides".to_string();
            shared.store.push(draft.failed(FailureKind::Aborted, msg));
            return;
        };
        let (sent, received) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let mut app = Counted {
            io: TokioIo::new(app),
            read: sent.clone(),
        };
        let mut host = Counted {
            io: TokioIo::new(host),
            read: received.clone(),
        };
        let outcome = tokio::select! {
            r = tokio::io::copy_bidirectional(&mut app, &mut host) => r.err(),
            _ = shared.stopped.cancelled() => None,
        };
        let timing = Timing {
            connect_ms: connect,
            tls_ms: tls,
            first_byte_ms: first_byte,
            total_ms: ms(draft.started.elapsed()),
        };
        let response = Message {
            headers,
            body: Captured::default(),
        };
        let mut flow = draft.flow(Some(101), Some(response), timing);
        flow.tunnel = Some(Tunnel {
            bytes_sent: sent.load(Ordering::Relaxed),
            bytes_received: received.load(Ordering::Relaxed),
        });
        if let Some(e) = outcome {
            let (kind, message) = classify(&e);
            flow.error = Some(Failure { kind, message });
        }
        shared.store.push(flow);
    });
    Response::from_parts(parts, Body::empty())
}

/// The bytes read ahead of a stream, then the stream.
struct Prefixed<T> {
    prefix: Vec<u8>,
    at: usize,
    io: T,
}

impl<T: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Prefixed<T> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = &mut *self;
        if this.at < this.prefix.len() {
            let n = buf.remaining().min(this.prefix.len() - this.at);
            buf.put_slice(&this.prefix[this.at..this.at + n]);
            this.at += n;
            return std::task::Poll::Ready(Ok(()));
        }
        std::pin::Pin::new(&mut this.io).poll_read(cx, buf)
    }
}

impl<T: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Prefixed<T> {
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

/// A passthrough tunnel: connect to the host's checked addresses, relay both ways until
/// either side closes or the proxy stops, and record it with its byte counts.
async fn tunnel<T>(shared: &Arc<Shared>, draft: Draft, app: T, addrs: &[SocketAddr])
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let connect = Instant::now();
    let mut last = None;
    let mut server = None;
    for a in addrs {
        match tokio::time::timeout(shared.timeout, tokio::net::TcpStream::connect(a)).await {
            Ok(Ok(c)) => {
                server = Some(c);
                break;
            }
            Ok(Err(e)) => last = Some(e),
            Err(_) => {
                last = Some(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("connecting to {a} timed out"),
                ))
            }
        }
    }
    let Some(server) = server else {
        let e = last.unwrap_or_else(|| std::io::Error::other("no address"));
        let (kind, msg) = classify(&e);
        shared.store.push(draft.failed(kind, msg));
        return;
    };
    let connect_ms = ms(connect.elapsed());
    let (sent, received) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut app = Counted {
        io: app,
        read: sent.clone(),
    };
    let mut host = Counted {
        io: server,
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
