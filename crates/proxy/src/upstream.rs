//! Connections to upstream servers, timed: name lookup and TCP connect, then the TLS handshake
//! (rustls; Mozilla's roots plus any the server was given) for `https`. The timing of a new
//! connection travels to the response through hyper-util's connection `extra`, and is
//! reported once (a reused connection costs no connect). Failures are classified for the
//! flow's `error`: refused, DNS, timeout, TLS, broken connection.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::Uri;
use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::TokioIo;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

use super::flow::FailureKind;
use super::guard::{Blocked, Guard};

/// How a connection was made.
#[derive(Debug)]
pub struct ConnTiming {
    /// Name lookup and TCP connect.
    pub connect: Duration,
    /// The TLS handshake; `None` on plain HTTP.
    pub tls: Option<Duration>,
    reported: AtomicBool,
}

impl ConnTiming {
    /// The connect and TLS times the first time they are asked for; `None` afterwards (the
    /// connection is being reused).
    pub fn first_use(&self) -> Option<(Duration, Option<Duration>)> {
        (!self.reported.swap(true, Ordering::Relaxed)).then_some((self.connect, self.tls))
    }
}

/// The connection's timing, in each response's extensions.
#[derive(Debug, Clone)]
pub struct ConnInfo(pub Arc<ConnTiming>);

/// Name lookup failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot resolve {host}: {reason}")]
pub struct DnsFailure {
    host: String,
    reason: String,
}

/// Makes upstream connections for the proxy's client.
#[derive(Clone)]
pub struct Connector {
    tls: tokio_rustls::TlsConnector,
    timeout: Duration,
    /// Which addresses may be connected to (checked after resolution, before connecting).
    guard: Arc<Guard>,
}

impl Connector {
    /// A connector trusting Mozilla's roots and `extra_roots`; `timeout` bounds the connect
    /// and the handshake each; `guard` says which addresses it may connect to.
    pub fn new(
        extra_roots: &[CertificateDer<'static>],
        timeout: Duration,
        guard: Guard,
    ) -> io::Result<Self> {
        let mut roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        for c in extra_roots {
            roots.add(c.clone()).map_err(io::Error::other)?;
        }
        let mut config = rustls::ClientConfig::builder_with_provider(super::ca::provider())
            .with_safe_default_protocol_versions()
            .map_err(io::Error::other)?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Connector {
            tls: tokio_rustls::TlsConnector::from(Arc::new(config)),
            timeout,
            guard: Arc::new(guard),
        })
    }

    /// The rules this connector connects by.
    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    async fn connect(self, uri: Uri) -> io::Result<Conn> {
        let https = uri.scheme_str() == Some("https");
        let host = uri
            .host()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no host in the URL"))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let started = Instant::now();
        let tcp = tokio::time::timeout(self.timeout, tcp_connect(&self.guard, &host, port))
            .await
            .map_err(|_| {
                io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "connecting to {host}:{port} took longer than {:?}",
                        self.timeout
                    ),
                )
            })??;
        let _ = tcp.set_nodelay(true);
        let connect = started.elapsed();
        let (stream, tls) = if https {
            let name = ServerName::try_from(host.clone())
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
            let shake = Instant::now();
            let s = tokio::time::timeout(self.timeout, self.tls.connect(name, tcp))
                .await
                .map_err(|_| {
                    io::Error::new(io::ErrorKind::TimedOut, "the TLS handshake timed out")
                })??;
            (Stream::Tls(Box::new(s)), Some(shake.elapsed()))
        } else {
            (Stream::Plain(tcp), None)
        };
        Ok(Conn {
            io: TokioIo::new(stream),
            info: ConnInfo(Arc::new(ConnTiming {
                connect,
                tls,
                reported: AtomicBool::new(false),
            })),
        })
    }
}

/// Resolves `host` and connects to those of its addresses `guard` allows, in turn (to the
/// addresses checked: nothing is looked up twice).
pub async fn tcp_connect(guard: &Guard, host: &str, port: u16) -> io::Result<TcpStream> {
    let addrs = guard.resolve(host, port).await.map_err(|e| {
        if e.kind() == io::ErrorKind::PermissionDenied {
            e
        } else {
            io::Error::other(DnsFailure {
                host: host.to_string(),
                reason: e.to_string(),
            })
        }
    })?;
    let mut last = io::Error::other(DnsFailure {
        host: host.to_string(),
        reason: "no address".into(),
    });
    for a in addrs {
        match TcpStream::connect(a).await {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

impl tower::Service<Uri> for Connector {
    type Response = Conn;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Conn>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        Box::pin(self.clone().connect(uri))
    }
}

enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// An upstream connection as hyper uses it.
pub struct Conn {
    io: TokioIo<Stream>,
    info: ConnInfo,
}

impl hyper::rt::Read for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

impl Connection for Conn {
    fn connected(&self) -> Connected {
        Connected::new().extra(self.info.clone())
    }
}

/// What kind of failure an error is, and its words.
pub fn classify(err: &(dyn std::error::Error + 'static)) -> (FailureKind, String) {
    let mut kind = FailureKind::Connection;
    let mut words: Vec<String> = Vec::new();
    let mut next = Some(err);
    while let Some(e) = next {
        let text = e.to_string();
        if !text.is_empty() && !words.iter().any(|w| w.contains(&text)) {
            words.push(text);
        }
        if e.downcast_ref::<Blocked>().is_some() {
            kind = FailureKind::Blocked;
        } else if e.downcast_ref::<DnsFailure>().is_some() {
            kind = FailureKind::Dns;
        } else if e.downcast_ref::<rustls::Error>().is_some() {
            kind = FailureKind::Tls;
        } else if let Some(io) = e.downcast_ref::<io::Error>() {
            match io.kind() {
                io::ErrorKind::ConnectionRefused => kind = FailureKind::Refused,
                io::ErrorKind::TimedOut => kind = FailureKind::Timeout,
                _ => {}
            }
            if let Some(inner) = io.get_ref() {
                if inner.downcast_ref::<rustls::Error>().is_some() {
                    kind = FailureKind::Tls;
                }
                if inner.downcast_ref::<DnsFailure>().is_some() {
                    kind = FailureKind::Dns;
                }
                if inner.downcast_ref::<Blocked>().is_some() {
                    kind = FailureKind::Blocked;
                }
            }
        }
        next = e.source();
    }
    // The innermost words say most; keep the outermost for context.
    let message = match words.as_slice() {
        [] => "the connection failed".to_string(),
        [one] => one.clone(),
        [first, .., last] => format!("{first}: {last}"),
    };
    (kind, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn failures_are_classified() {
        // A port nothing listens on.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let c = Connector::new(
            &[],
            Duration::from_secs(5),
            Guard::new(&[port], None, 0, &[]),
        )
        .unwrap();
        let uri: Uri = format!("http://127.0.0.1:{port}/").parse().unwrap();
        let e = match c.clone().connect(uri).await {
            Err(e) => e,
            Ok(_) => panic!("connected to a closed port"),
        };
        assert_eq!(classify(&e).0, FailureKind::Refused, "{e}");
        let uri: Uri = "http://no-such-host.invalid/".parse().unwrap();
        let e = match c.clone().connect(uri).await {
            Err(e) => e,
            Ok(_) => panic!("resolved .invalid"),
        };
        let (kind, message) = classify(&e);
        assert_eq!(kind, FailureKind::Dns, "{message}");
        assert!(message.contains("no-such-host.invalid"), "{message}");
        // A local port not allowed is refused before any connection.
        let uri: Uri = format!("http://127.1:{}/", port ^ 1).parse().unwrap();
        let e = match c.clone().connect(uri).await {
            Err(e) => e,
            Ok(_) => panic!("connected to a local port not allowed"),
        };
        let (kind, message) = classify(&e);
        assert_eq!(kind, FailureKind::Blocked, "{message}");
        assert!(message.contains("not allowed"), "{message}");
    }

    #[tokio::test]
    async fn a_new_connection_reports_its_timing_once() {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let uri: Uri = format!("http://{}/", l.local_addr().unwrap())
            .parse()
            .unwrap();
        let allow = [l.local_addr().unwrap().port()];
        let conn = Connector::new(
            &[],
            Duration::from_secs(5),
            Guard::new(&allow, None, 0, &[]),
        )
        .unwrap()
        .connect(uri)
        .await
        .unwrap();
        let info = conn.info.clone();
        assert!(info.0.first_use().is_some_and(|(_, tls)| tls.is_none()));
        assert!(info.0.first_use().is_none());
    }
}
