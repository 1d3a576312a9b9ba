//! Who is calling: the session a request runs in, if any, as a task-local set around the
//! handler by the HTTP binding (`crate::server::bind`). The controller reads it where it
//! resolves a request's device and keeps its snapshots, so no handler passes it along.

use std::future::Future;
use std::sync::Arc;

use super::registry::Session;

tokio::task_local! {
    static CALLER: Option<Arc<Session>>;
}

/// Runs `work` as a request of `session` (none: a session-less caller).
pub async fn within<F: Future>(session: Option<Arc<Session>>, work: F) -> F::Output {
    CALLER.scope(session, work).await
}

/// The session of the running request, if it is in one.
pub fn current() -> Option<Arc<Session>> {
    CALLER.try_with(Clone::clone).ok().flatten()
}

/// The key of the running request's own screen memory: its session id, or empty.
pub fn key() -> String {
    CALLER
        .try_with(|c| c.as_ref().map(|s| s.id.clone()))
        .ok()
        .flatten()
        .unwrap_or_default()
}
