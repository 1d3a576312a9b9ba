//! The lease of a Streamable HTTP MCP session that went quiet. A host that closes its
//! connection without `DELETE /mcp` (the official TypeScript SDK's `close()` sends none) leaves
//! its MCP session to rmcp's idle limit (five minutes), and with it the device its connection
//! leased. So `/mcp` counts, per `Mcp-Session-Id`, the requests in flight and the event streams
//! open ([`OpenStreams::track`]: a response body holds its count until hyper drops it, which
//! it does when the stream ends or the client goes away); a session with neither for
//! [`IDLE_LEASE_GRACE`] gives its lease back ([`Lessee::give_back`]). The session itself
//! stays, so the same connection acting again leases the device again when it is free. A host
//! that keeps its `GET` stream open (the official SDKs do while they live) keeps its lease.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::Response;
use futures::future::BoxFuture;

/// How long an HTTP MCP session may have no request in flight and no stream open before the
/// lease of its connection is given back.
pub const IDLE_LEASE_GRACE: Duration = Duration::from_secs(5);

/// The header naming an MCP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// What holds a lease on behalf of an MCP session: its connection's mobilectl session.
pub trait Lessee: Send + Sync + 'static {
    /// Gives the lease back, if one is held; the session goes on.
    fn give_back(self: Arc<Self>) -> BoxFuture<'static, ()>;
}

/// The open requests and streams of each MCP session, and who holds its lease.
pub struct OpenStreams {
    grace: Duration,
    sessions: Mutex<HashMap<Arc<str>, Activity>>,
}

#[derive(Default)]
struct Activity {
    /// Requests in flight and streams open.
    open: usize,
    /// Counts the times `open` fell to 0: a wait for the grace that sees it changed was
    /// interrupted by activity.
    quieted: u64,
    /// The connection's session, once a tool call named it.
    lessee: Option<Weak<dyn Lessee>>,
}

impl OpenStreams {
    /// A count whose quiet sessions give back their lease after `grace`.
    pub fn new(grace: Duration) -> Arc<Self> {
        Arc::new(OpenStreams {
            grace,
            sessions: Mutex::new(HashMap::new()),
        })
    }

    fn sessions(&self) -> MutexGuard<'_, HashMap<Arc<str>, Activity>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Says that the MCP session `id`'s lease is held by `lessee`.
    pub fn bind(&self, id: &str, lessee: Weak<dyn Lessee>) {
        self.sessions().entry(id.into()).or_default().lessee = Some(lessee);
    }

    /// Counts a request or stream of the session `id` open until the answer drops.
    pub fn open(self: &Arc<Self>, id: &str) -> Open {
        let id: Arc<str> = id.into();
        self.sessions().entry(id.clone()).or_default().open += 1;
        Open {
            streams: self.clone(),
            id,
        }
    }

    /// One of the session's requests or streams ended: when it was the last, its lease is
    /// given back after the grace unless another opens meanwhile.
    fn closed(self: &Arc<Self>, id: Arc<str>) {
        let quieted = {
            let mut sessions = self.sessions();
            let Some(activity) = sessions.get_mut(&id) else {
                return;
            };
            activity.open = activity.open.saturating_sub(1);
            if activity.open > 0 {
                return;
            }
            activity.quieted += 1;
            activity.quieted
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        rt.spawn(self.clone().after_grace(id, quieted));
    }

    /// After the grace: if the session stayed quiet, forgets it and gives its lease back.
    async fn after_grace(self: Arc<Self>, id: Arc<str>, quieted: u64) {
        tokio::time::sleep(self.grace).await;
        let lessee = {
            let mut sessions = self.sessions();
            match sessions.get(&id) {
                Some(a) if a.open == 0 && a.quieted == quieted => {}
                _ => return,
            }
            sessions.remove(&id).and_then(|a| a.lessee)
        };
        if let Some(lessee) = lessee.and_then(|l| l.upgrade()) {
            tracing::debug!(mcp_session = %id, "MCP session quiet: its lease is given back");
            lessee.give_back().await;
        }
    }

    /// How many sessions are counted (for tests).
    #[cfg(test)]
    fn counted(&self) -> usize {
        self.sessions().len()
    }

    /// The middleware counting `/mcp`'s requests and streams: each successful answer of a
    /// session (the `initialize` answer names its new one) holds a count until its body drops.
    /// `DELETE`, which ends the session, is not counted.
    pub async fn track(self: Arc<Self>, req: Request, next: Next) -> Response {
        let deleting = req.method() == Method::DELETE;
        let asked = session_id(req.headers());
        let response = next.run(req).await;
        if deleting || !response.status().is_success() {
            return response;
        }
        let Some(id) = asked.or_else(|| session_id(response.headers())) else {
            return response;
        };
        let open = self.open(&id);
        response.map(|body| crate::server::guarded::holding(body, open))
    }
}

/// The MCP session a request or answer names.
fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// A request or stream counted open while this lives.
pub struct Open {
    streams: Arc<OpenStreams>,
    id: Arc<str>,
}

impl Drop for Open {
    fn drop(&mut self) {
        self.streams.closed(self.id.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const GRACE: Duration = IDLE_LEASE_GRACE;
    const MS: Duration = Duration::from_millis(1);

    /// Counts the times it gave its lease back.
    #[derive(Default)]
    struct Holder(AtomicUsize);

    impl Lessee for Holder {
        fn give_back(self: Arc<Self>) -> BoxFuture<'static, ()> {
            Box::pin(async move {
                self.0.fetch_add(1, Ordering::SeqCst);
            })
        }
    }

    impl Holder {
        fn given_back(&self) -> usize {
            self.0.load(Ordering::SeqCst)
        }
    }

    fn bound(streams: &OpenStreams, id: &str) -> Arc<Holder> {
        let holder = Arc::new(Holder::default());
        let weak: Weak<Holder> = Arc::downgrade(&holder);
        streams.bind(id, weak);
        holder
    }

    /// Lets the spawned waits that are due run.
    async fn pass(d: Duration) {
        tokio::time::sleep(d).await;
        for _ in 0..4 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_quiet_for_the_grace_gives_its_lease_back_once() {
        let streams = OpenStreams::new(GRACE);
        let call = streams.open("s1");
        let holder = bound(&streams, "s1");
        drop(call);
        pass(GRACE - MS).await;
        assert_eq!(holder.given_back(), 0, "still within the grace");
        pass(2 * MS).await;
        assert_eq!(holder.given_back(), 1);
        assert_eq!(streams.counted(), 0, "a quiet session is forgotten");
        pass(GRACE * 3).await;
        assert_eq!(holder.given_back(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn an_open_stream_keeps_the_lease_however_long() {
        let streams = OpenStreams::new(GRACE);
        let get = streams.open("s1");
        let holder = bound(&streams, "s1");
        drop(streams.open("s1"));
        pass(GRACE * 20).await;
        assert_eq!(holder.given_back(), 0, "the GET stream is open");
        drop(get);
        pass(GRACE + MS).await;
        assert_eq!(holder.given_back(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_within_the_grace_starts_it_again() {
        let streams = OpenStreams::new(GRACE);
        let holder = bound(&streams, "s1");
        drop(streams.open("s1"));
        pass(GRACE / 2).await;
        drop(streams.open("s1"));
        pass(GRACE / 2 + MS).await;
        assert_eq!(holder.given_back(), 0, "the second request renewed it");
        pass(GRACE / 2).await;
        assert_eq!(holder.given_back(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn sessions_are_counted_apart_and_a_gone_connection_is_only_forgotten() {
        let streams = OpenStreams::new(GRACE);
        let busy = streams.open("busy");
        let busy_holder = bound(&streams, "busy");
        let quiet_holder = bound(&streams, "quiet");
        drop(streams.open("quiet"));
        let gone = bound(&streams, "gone");
        drop(streams.open("gone"));
        drop(gone);
        pass(GRACE + MS).await;
        assert_eq!(quiet_holder.given_back(), 1);
        assert_eq!(busy_holder.given_back(), 0);
        assert_eq!(streams.counted(), 1, "only the busy one is left");
        drop(busy);
    }
}
