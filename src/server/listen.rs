//! Accepting connections with limits a local server needs against slow, idle or numerous
//! clients (hyper directly, since `axum::serve` exposes no such settings):
//! - a client must send its request headers within [`Limits::header_read_timeout`] (also
//!   while a kept-alive connection waits for its next request), else the connection closes;
//! - at most [`Limits::max_connections`] connections are served at once; more wait in the
//!   kernel's backlog until one closes;
//! - an `accept` error (out of file descriptors: `EMFILE`) is logged and retried after a
//!   pause: the accept loop never dies;
//! - on SIGINT/SIGTERM, listening stops and in-flight requests finish.

use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// Connection limits of the server.
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_connections: usize,
    pub header_read_timeout: Duration,
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
            header_read_timeout: Duration::from_secs(10),
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
    let permits = std::sync::Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_buf_size(limits.max_header_bytes.max(8192))
        .max_headers(1000);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = &mut shutdown => break,
        };
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
        let service = router
            .clone()
            .map_request(|r: hyper::Request<Incoming>| r.map(axum::body::Body::new));
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
