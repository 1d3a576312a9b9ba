//! `CONNECT` tunnels: the destination checked and answered, then the tunnel's first bytes
//! decide the rest. To a passthrough host it is relayed byte for byte to the address checked,
//! never decrypted, and recorded as one `CONNECT` flow with its byte counts. Otherwise it must
//! speak TLS (a ClientHello starts `16 03`): it is decrypted with a certificate from the
//! proxy's CA and its requests handled by the [`Recorder`] like any other; anything else is
//! refused (recorded as blocked). Protocol switches (WebSocket) are relayed once the upstream
//! agrees, with their byte counts.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::body::Body;
use chrono::Utc;
use hyper::body::Incoming;
use hyper::http::uri::{Authority, Scheme};
use hyper::{Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::io::AsyncReadExt;

use super::flow::{ms, Captured, Failure, FailureKind, Message, Timing, Tunnel};
use super::upstream::classify;

use super::record::{failure_answer, headers_of, proxy_answer, Draft, InFlight, Recorder, Shared};

impl Recorder {
    /// `CONNECT host:port`: refused when the destination is, else answered, then the tunnel
    /// passed through (passthrough hosts) or intercepted when it speaks TLS — anything else
    /// is refused.
    pub(super) async fn connect(&self, mut req: Request<Body>) -> Response<Body> {
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
        if s.conditions.get().is_some_and(|c| c.offline) {
            let msg = "the link is offline (proxy conditions)".to_string();
            let mut flow = draft.failed(FailureKind::Connection, msg.clone());
            flow.mocked = true;
            s.store.push(flow);
            return proxy_answer(StatusCode::BAD_GATEWAY, "offline", msg);
        }
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
                return failure_answer(kind, msg);
            }
        };
        let upgrade = hyper::upgrade::on(&mut req);
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
    upgrade: hyper::upgrade::OnUpgrade,
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
    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
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
    let conn = hyper::server::conn::http1::Builder::new()
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
pub(super) fn relay_upgrade(
    shared: Arc<Shared>,
    guard: InFlight,
    draft: Draft,
    mut resp: Response<Incoming>,
    app: hyper::upgrade::OnUpgrade,
    connect: Option<f64>,
    tls: Option<f64>,
) -> Response<Body> {
    let host_side = hyper::upgrade::on(&mut resp);
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
pub(super) struct TlsWatch {
    pub(super) shared: Arc<Shared>,
    pub(super) draft: Mutex<Option<Draft>>,
    pub(super) saw_request: AtomicBool,
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
