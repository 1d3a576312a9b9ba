//! Accepting connections with limits a local server needs against slow, idle or numerous
//! clients (hyper directly, since `axum::serve` exposes no such settings):
//! - a client must send its request headers within [`Limits::header_read_timeout`] (also
//!   while a kept-alive connection waits for its next request), else the connection closes;
//!   and its body without long pauses ([`Limits::body`], see [`super::budget`]), else it is
//!   answered `408 REQUEST_TIMEOUT` and the connection closes;
//! - at most [`Limits::max_connections`] connections are served at once. A connection beyond
//!   them gets one answer and is closed: `GET /health` is answered as usual, anything else
//!   `503 BUSY` with `Retry-After` ([`Limits::overflow_connections`] of those at once; past
//!   them a connection is closed at once, never left waiting in silence);
//! - event streams hold a budget of their own ([`Limits::max_streams`]), so followers cannot
//!   take every connection;
//! - an `accept` error (out of file descriptors: `EMFILE`) is logged and retried after a
//!   pause: the accept loop never dies;
//! - on SIGINT/SIGTERM, listening stops and in-flight requests finish.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

use super::budget::{busy_answer, BodyLimits, DeadlineBody, StreamBudget};

/// Connection limits of the server.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Connections served at once.
    pub max_connections: usize,
    /// Connections beyond those that are answered `503 BUSY` (or `/health`) at once.
    pub overflow_connections: usize,
    /// Event streams open at once (they hold connections for as long as they are followed).
    pub max_streams: usize,
    /// Time to send a request's headers, and to start the next one on a kept-alive connection.
    pub header_read_timeout: Duration,
    /// Time to send a request's body.
    pub body: BodyLimits,
    /// Larger than any legitimate request's headers, so the server (not hyper) answers
    /// oversized ones with the error envelope (see [`super::limits`]).
    pub max_header_bytes: usize,
    /// How long in-flight requests may take to finish after a shutdown signal.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 256,
            overflow_connections: 32,
            max_streams: 64,
            header_read_timeout: Duration::from_secs(10),
            body: BodyLimits {
                idle: Duration::from_secs(10),
                total: Duration::from_secs(60),
            },
            max_header_bytes: 256 * 1024,
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes.
pub async fn serve_with(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let overflow = Arc::new(Semaphore::new(limits.overflow_connections));
    let streams = StreamBudget::new(limits.max_streams);
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_buf_size(limits.max_header_bytes.max(8192))
        .max_headers(1000);
    // One request, then the connection closes; a client that sends nothing is cut early.
    let mut busy_builder = hyper::server::conn::http1::Builder::new();
    busy_builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout.min(Duration::from_secs(2)))
        .keep_alive(false);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // EMFILE/ENFILE and friends: wait for descriptors to come back.
                    tracing::warn!(error = %e, "accept failed; retrying shortly");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let body_limits = limits.body;
        let budget = streams.clone();
        let service = router
            .clone()
            .map_request(move |r: hyper::Request<Incoming>| {
                super::memory::note_request();
                // A request without a body (most GETs) needs no deadline, nor its timer.
                r.map(|b| {
                    if hyper::body::Body::is_end_stream(&b) {
                        axum::body::Body::new(b)
                    } else {
                        axum::body::Body::new(DeadlineBody::new(b, body_limits))
                    }
                })
            })
            .map_response(move |r| budget.admit(r));
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            // Full: one answer (health, or busy), or none at all past the overflow.
            let Ok(permit) = overflow.clone().try_acquire_owned() else {
                tracing::debug!(%peer, "closed at once: every connection slot is taken");
                continue;
            };
            let max = limits.max_connections;
            let answer = tower::service_fn(move |r: hyper::Request<Incoming>| {
                let service = service.clone();
                async move {
                    if r.uri().path() == "/health" {
                        service.oneshot(r).await
                    } else {
                        Ok(busy_answer(max))
                    }
                }
            });
            let conn = busy_builder
                .serve_connection(TokioIo::new(stream), TowerToHyperService::new(answer));
            tokio::spawn(async move {
                let _ = conn.await;
                drop(permit);
            });
            continue;
        };
        let conn =
            builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    tracing::info!("shutting down: finishing in-flight requests");
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(limits.shutdown_grace) => {
            tracing::warn!("in-flight requests did not finish in time; closing");
        }
    }
    Ok(())
}
