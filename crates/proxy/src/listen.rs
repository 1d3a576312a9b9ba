//! The proxy's listener: each connection an app opens is served as HTTP/1.1 (headers' case
//! kept, upgrades allowed: `CONNECT` and protocol switches), and each of its requests answered
//! by the [`Recorder`]. Once stopped it accepts no more, asks open connections to close after
//! the request they are in, and returns when they have.

use std::convert::Infallible;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::body::Body;
use super::record::Recorder;

/// After a failed `accept` (out of file descriptors, say), how long until the next: the
/// failure would repeat at once, in a busy loop.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Serves `listener` until `stop` is cancelled and the connections open then have closed.
pub(crate) async fn serve(listener: TcpListener, recorder: Recorder, stop: CancellationToken) {
    let connections = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = stop.cancelled() => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!(error = %e, "the recording proxy cannot accept a connection");
                tokio::select! {
                    () = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                    () = stop.cancelled() => break,
                }
            }
        };
        let recorder = recorder.clone();
        let service = service_fn(move |req: Request<Incoming>| {
            let recorder = recorder.clone();
            async move { Ok::<_, Infallible>(recorder.handle(req.map(Body::from)).await) }
        });
        let conn = http1::Builder::new()
            .preserve_header_case(true)
            .title_case_headers(true)
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades();
        let stop = stop.clone();
        connections.spawn(async move {
            let mut conn = std::pin::pin!(conn);
            let ended = tokio::select! {
                ended = conn.as_mut() => ended,
                () = stop.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(e) = ended {
                tracing::debug!(error = %e, "a connection to the recording proxy ended");
            }
        });
    }
    connections.close();
    connections.wait().await;
}
