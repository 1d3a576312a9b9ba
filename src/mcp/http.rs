//! `/mcp`: the tools over MCP's Streamable HTTP transport, mounted inside the HTTP server
//! (behind its Host / Origin / token checks, which is why rmcp's own Host and Origin checks
//! are off here: the server's policy, with its `--allow-host` / `--allow-origin`, decides).
//! Tool calls go to the API router in-process ([`InProcess`]).

use std::sync::Arc;

use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::dispatch::InProcess;
use super::server::McpServer;

/// The path the service is mounted at.
pub const PATH: &str = "/mcp";

/// The Streamable HTTP service answering MCP over `api` (the API router with its state).
/// Cancelling `shutdown` ends the open sessions and their streams, so a graceful shutdown of
/// the HTTP server does not wait for clients that keep a stream open.
pub fn service(
    api: Router,
    shutdown: CancellationToken,
) -> StreamableHttpService<McpServer<InProcess>, LocalSessionManager> {
    let dispatch = Arc::new(InProcess::new(api));
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(crate::server::BODY_LIMIT)
        .with_cancellation_token(shutdown);
    StreamableHttpService::new(
        move || Ok(McpServer::new(dispatch.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}
