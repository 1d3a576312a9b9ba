//! `/mcp`: the tools over MCP's Streamable HTTP transport, mounted inside the HTTP server
//! (behind its Host / Origin / token checks, which is why rmcp's own Host and Origin checks
//! are off here: the server's policy, with its `--allow-host` / `--allow-origin`, decides).
//! Tool calls go to the API router in-process ([`InProcess`]). `DELETE` of a session that is
//! not open (ended, or never given) answers `404`, as the MCP specification says (rmcp itself
//! answers `202` to any). A session with no request in flight and no stream open for
//! [`super::idle::IDLE_LEASE_GRACE`] gives its connection's lease back ([`super::idle`]).

use std::sync::Arc;

use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::dispatch::InProcess;
use super::idle::{OpenStreams, IDLE_LEASE_GRACE};
use super::server::McpServer;
use super::session::DevicePick;

/// The path the service is mounted at.
pub const PATH: &str = "/mcp";

/// The Streamable HTTP service answering MCP over `api` (the API router with its state), with
/// request bodies up to `body_limit` bytes (the server's own limit). Cancelling `shutdown`
/// ends the open sessions and their streams, so a graceful shutdown of the HTTP server does
/// not wait for clients that keep a stream open.
pub fn service(api: Router, body_limit: usize, shutdown: CancellationToken) -> Router {
    let dispatch = Arc::new(InProcess::new(api));
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(body_limit)
        .with_cancellation_token(shutdown);
    let sessions = Arc::new(LocalSessionManager::default());
    let open = sessions.clone();
    let streams = OpenStreams::new(IDLE_LEASE_GRACE);
    let counted = streams.clone();
    let mcp: StreamableHttpService<McpServer<InProcess>, LocalSessionManager> =
        StreamableHttpService::new(
            move || {
                Ok(McpServer::new(dispatch.clone(), DevicePick::default())
                    .releasing_when_quiet(streams.clone()))
            },
            sessions,
            config,
        );
    Router::new()
        .fallback_service(mcp)
        .layer(axum::middleware::from_fn(
            move |req: Request, next: Next| counted.clone().track(req, next),
        ))
        .layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let open = open.clone();
                async move { unknown_session_deleted(&open, req, next).await }
            },
        ))
}

/// `DELETE` naming a session that is not open: `404`; anything else goes on.
async fn unknown_session_deleted(
    sessions: &LocalSessionManager,
    req: Request,
    next: Next,
) -> Response {
    if req.method() == Method::DELETE {
        let id = req
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(Arc::<str>::from);
        if let Some(id) = id {
            if !sessions.has_session(&id).await.unwrap_or(false) {
                return (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response();
            }
        }
    }
    next.run(req).await
}
