//! Who is calling: the session a request runs in, if any, and whether it showed the server's
//! admin token, as task-locals set around the handler by the HTTP binding
//! (`crate::server::bind`). The controller reads them where it resolves a request's device,
//! keeps its snapshots and decides what the caller may see ([`may_see`]), so no handler
//! passes them along.

use std::future::Future;
use std::sync::Arc;

use super::registry::Session;

tokio::task_local! {
    static CALLER: Option<Arc<Session>>;
    static ADMIN: bool;
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

/// Runs `work` as a request that showed the server's admin token: it sees and changes what
/// every session made.
pub async fn as_admin<F: Future>(work: F) -> F::Output {
    ADMIN.scope(true, work).await
}

/// Whether the running request showed the server's admin token.
pub fn is_admin() -> bool {
    ADMIN.try_with(|a| *a).unwrap_or(false)
}

/// Whether the running request may see (and change) a thing made by the session `owner`
/// (`None`: made outside any session): what a session makes belongs to it, a session-less
/// caller sees the session-less things, and an admin sees all.
pub fn may_see(owner: Option<&str>) -> bool {
    if is_admin() {
        return true;
    }
    let mine = CALLER
        .try_with(|c| c.as_ref().map(|s| s.id.clone()))
        .ok()
        .flatten();
    owner == mine.as_deref()
}
