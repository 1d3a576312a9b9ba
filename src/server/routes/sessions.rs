//! Sessions and leases: start, list, show and end sessions, and a caller's own session
//! (`session_info`, `release_device`, the MCP tools of a connection's session).

use axum::Json;

use crate::api::wire::sessions::*;
use crate::controller::{current_session, Gone};
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::server::AppState;

/// Starts a session and leases its device (now, or at its first device operation if lazy).
pub async fn create(s: AppState, body: CreateSession) -> Result<Json<SessionInfo>> {
    Ok(Json(s.controller.create_session(&body).await?))
}

/// The live sessions, oldest first.
pub async fn list(s: AppState) -> Result<Json<SessionList>> {
    let mut sessions = Vec::new();
    for session in s.controller.sessions().list() {
        sessions.push(s.controller.session_info(&session).await);
    }
    Ok(Json(SessionList { sessions }))
}

/// One session, by id or name (what listings show; its secret is never answered here).
pub async fn get(s: AppState, q: SessionPath) -> Result<Json<SessionInfo>> {
    let session = named(&s, &q.id)?;
    Ok(Json(s.controller.session_info(&session).await))
}

/// Ends a session; its lease is released. Only its holder may: the path is its secret, or
/// the request is in it (`Mobilectl-Session: SECRET`).
pub async fn end(s: AppState, q: SessionPath) -> Result<Json<SessionEnded>> {
    let sessions = s.controller.sessions();
    let session = match sessions.get_by_secret(&q.id) {
        Ok(held) => held,
        Err(_) => {
            let session = named(&s, &q.id)?;
            if current_session().is_none_or(|mine| mine.id != session.id) {
                return Err(not_yours(&session));
            }
            session
        }
    };
    let ended = s.controller.end_session(&session, Gone::Ended)?;
    s.forget_dead_sessions_rules();
    Ok(Json(ended))
}

/// The live session a label (id or name) or a secret names.
fn named(s: &AppState, key: &str) -> Result<std::sync::Arc<crate::controller::Session>> {
    let sessions = s.controller.sessions();
    sessions.get_by_secret(key).or_else(|_| sessions.get(key))
}

/// The refusal to end another caller's session.
fn not_yours(session: &crate::controller::Session) -> Error {
    Error::new(
        ErrorCode::SessionForbidden,
        format!("session `{}` is not this request's to end", session.label()),
    )
    .with_hint("only its holder ends a session: send the request in it (`Mobilectl-Session: SECRET`, the secret its creation answered)")
    .with_details(serde_json::json!({ "session": session.id, "name": session.name }))
}

/// The session the request is in.
pub async fn mine(s: AppState) -> Result<Json<SessionInfo>> {
    let session = current_session().ok_or_else(no_session)?;
    Ok(Json(s.controller.session_info(&session).await))
}

/// Gives back the lease of the request's session.
pub async fn release(s: AppState) -> Result<Json<SessionEnded>> {
    let session = current_session().ok_or_else(no_session)?;
    let released = s.controller.sessions().release(&session);
    s.controller.let_go_of_released();
    Ok(Json(SessionEnded {
        id: session.id.clone(),
        released,
    }))
}

fn no_session() -> Error {
    Error::new(ErrorCode::SessionNotFound, "this request is in no session")
        .with_next("send `Mobilectl-Session: SECRET`, the secret {0} answered; each MCP connection has its own", [Step::call(Op::CreateSession)])
}
