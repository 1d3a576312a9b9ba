//! Sessions and leases: start, list, show and end sessions, and a caller's own session
//! (`session_info`, `release_device`, the MCP tools of a connection's session).

use axum::Json;

use crate::api::wire::sessions::*;
use crate::controller::{current_session, Gone};
use crate::error::{Error, ErrorCode, Result};
use crate::server::bind::{self, Binding};
use crate::server::AppState;

/// This module's handlers, bound to their operations by name.
pub fn bindings() -> Vec<Binding> {
    vec![
        bind::body("create_session", create),
        bind::plain("list_sessions", list),
        bind::query("get_session", get),
        bind::query("end_session", end),
        bind::plain("session_info", mine),
        bind::plain("release_device", release),
    ]
}

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

/// One session, by id or name.
pub async fn get(s: AppState, q: SessionPath) -> Result<Json<SessionInfo>> {
    let session = s.controller.sessions().get(&q.id)?;
    Ok(Json(s.controller.session_info(&session).await))
}

/// Ends a session; its lease is released.
pub async fn end(s: AppState, q: SessionPath) -> Result<Json<SessionEnded>> {
    let ended = s.controller.end_session(&q.id, Gone::Ended)?;
    s.forget_dead_sessions_rules();
    Ok(Json(ended))
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
    Ok(Json(SessionEnded {
        id: session.id.clone(),
        released,
    }))
}

fn no_session() -> Error {
    Error::new(ErrorCode::SessionNotFound, "this request is in no session")
        .with_hint("send `Mobilectl-Session: ID` (POST /api/v1/sessions starts one); each MCP connection has its own")
}
