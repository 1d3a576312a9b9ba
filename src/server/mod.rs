//! HTTP layer: the application ([`app`]) around the operation table's router (`crate::api`),
//! the error envelope, security middleware, Swagger UI, and MCP at `/mcp` (`crate::mcp::http`).
//! Handlers (`routes/`) stay thin: they take their parsed input, call the [`DeviceController`],
//! and shape the answer.

mod error;
mod limits;
pub mod listen;
pub mod routes;
pub mod security;

pub use error::{ApiBytes, ApiJson, ApiQuery, ErrorBody, ErrorEnvelope};
pub use security::SecurityPolicy;

use std::sync::{Arc, LazyLock};

use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderName, HeaderValue, Method};
use axum::Router;
use tokio_util::sync::CancellationToken;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::trace::TraceLayer;
use utoipa_swagger_ui::SwaggerUi;

use crate::controller::DeviceController;

/// Request bodies larger than this are refused with `413 PAYLOAD_TOO_LARGE`.
pub const BODY_LIMIT: usize = 1024 * 1024;

/// Everything a handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub controller: Arc<DeviceController>,
    pub options: Arc<ServerOptions>,
}

/// Behaviour switches of the server that are not about security.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// Allow `open-url` with any scheme (`javascript:`, `file:`, `content:`…).
    pub allow_any_url_scheme: bool,
}

impl AppState {
    pub fn new(controller: DeviceController, options: ServerOptions) -> Self {
        AppState {
            controller: Arc::new(controller),
            options: Arc::new(options),
        }
    }
}

/// Cancelled when [`serve`] is told to stop: ends open MCP sessions so that in-flight requests
/// can finish and the graceful shutdown does not wait on streams kept open by clients.
static SHUTDOWN: LazyLock<CancellationToken> = LazyLock::new(CancellationToken::new);

/// Cancelled when the server is told to stop: long answers (log streams) end with it, so that
/// the graceful shutdown does not wait for their clients.
pub(crate) fn shutting_down() -> CancellationToken {
    SHUTDOWN.child_token()
}

/// The API alone: the operation table's routes with their state, the error envelope for
/// unknown routes and methods, the body limit. What `/mcp` calls in-process.
fn api(state: AppState) -> Router {
    crate::api::router()
        .fallback(error::route_not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .with_state(state)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(CatchPanicLayer::custom(error::panic_response))
}

/// The whole HTTP application: API routes, MCP at `/mcp`, `/openapi.json`, Swagger UI at
/// `/docs`, the error envelope for unknown routes and methods, and the security layers.
pub fn app(state: AppState, policy: SecurityPolicy) -> Router {
    let api = api(state);
    let mcp = crate::mcp::http::service(api.clone(), SHUTDOWN.child_token());
    let mut router = api
        .nest_service(crate::mcp::http::PATH, mcp)
        .merge(SwaggerUi::new("/docs").url("/openapi.json", crate::api::openapi()));
    if !policy.allow_origins.is_empty() {
        let origins: Vec<HeaderValue> = policy
            .allow_origins
            .iter()
            .filter_map(|o| HeaderValue::from_str(o.trim_end_matches('/')).ok())
            .collect();
        router = router.layer(
            CorsLayer::new()
                .allow_origin(AllowOrigin::list(origins))
                .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE])
                .allow_headers([
                    header::CONTENT_TYPE,
                    header::AUTHORIZATION,
                    HeaderName::from_static("mcp-session-id"),
                    HeaderName::from_static("mcp-protocol-version"),
                    HeaderName::from_static("last-event-id"),
                ])
                .expose_headers([HeaderName::from_static("mcp-session-id")]),
        );
    }
    router
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(policy),
            security::enforce,
        ))
        .layer(CatchPanicLayer::custom(error::panic_response))
        .layer(axum::middleware::from_fn(limits::envelope_everything))
        // Failures are logged where they are answered (at a level fitting the code), not as
        // ERROR for every deliberate 501/503.
        .layer(
            TraceLayer::new_for_http().on_failure(
                tower_http::trace::DefaultOnFailure::new().level(tracing::Level::DEBUG),
            ),
        )
}

/// Runs the server until SIGINT or SIGTERM, then lets in-flight requests finish.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    listen::serve_with(
        listener,
        router,
        listen::Limits::default(),
        shutdown_signal(),
    )
    .await
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    // Ends open MCP sessions so the graceful shutdown does not wait on their streams.
    SHUTDOWN.cancel();
}
