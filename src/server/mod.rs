//! HTTP layer: the application ([`app`]) around the router made from the operation table
//! (`crate::api`) and the handlers bound to it ([`bind`]), the error envelope, replies
//! ([`reply`]), security middleware, Swagger UI, and MCP at `/mcp` (`crate::mcp::http`).
//! Handlers (`routes/`) stay thin: they take their parsed input, call the [`DeviceController`],
//! and shape the answer.

pub mod bind;
pub mod budget;
pub mod demo;
mod error;
pub mod flow_host;
pub mod guarded;
mod limits;
pub mod listen;
pub mod memory;
pub mod reply;
pub mod routes;
pub mod security;
pub mod start;
mod traced;
pub mod w3c;

pub use bind::check_declared_errors;
pub use error::{ApiBytes, ApiJson, ApiQuery};
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
use crate::proxy::{ProxyOptions, ProxyService};

/// Request bodies larger than this are refused with `413 PAYLOAD_TOO_LARGE`.
pub const BODY_LIMIT: usize = 1024 * 1024;

/// Everything a handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// The devices and everything done to them.
    pub controller: Arc<DeviceController>,
    /// The server's behaviour switches.
    pub options: Arc<ServerOptions>,
    /// The recording proxy (network capture), one per server.
    pub proxy: Arc<ProxyService>,
    /// The address the server is bound to (from its security policy, set by [`app`]).
    pub bound: Option<std::net::SocketAddr>,
    /// The builds running now (`build_app`).
    pub builds: Arc<crate::build::Builds>,
}

/// The header that shows the admin token.
pub const ADMIN_HEADER: &str = "mobilectl-admin";

/// Behaviour switches of the server beyond the security policy of its HTTP layer.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// Allow `open-url` with any scheme (`javascript:`, `file:`, `content:`…).
    pub allow_any_url_scheme: bool,
    /// How the recording proxy is set up.
    pub proxy: ProxyOptions,
    /// The directory files are pushed from and pulled into (`--files-root`); `None`: the
    /// server's working directory.
    pub files_root: Option<std::path::PathBuf>,
    /// The folder apps are built under (`--build-root`); `None`: no builds.
    pub build_root: Option<std::path::PathBuf>,
    /// The admin token (`--admin-token`): a request showing it (`Mobilectl-Admin: TOKEN`) sees
    /// and changes what every session made; `None`: no caller can.
    pub admin_token: Option<String>,
    /// The program started as flows' script worker (`PROGRAM __script-worker`); `None`: this
    /// executable (tests that run the server in their own process name the binary).
    pub script_worker: Option<std::path::PathBuf>,
}

impl ServerOptions {
    /// Whether the request's headers show the admin token.
    pub fn is_admin(&self, headers: &axum::http::HeaderMap) -> bool {
        let Some(expected) = self.admin_token.as_deref().filter(|t| !t.is_empty()) else {
            return false;
        };
        headers
            .get(ADMIN_HEADER)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|given| {
                security::constant_time_eq(given.trim().as_bytes(), expected.as_bytes())
            })
    }

    /// The program started as flows' script worker.
    pub fn script_worker(&self) -> std::path::PathBuf {
        self.script_worker
            .clone()
            .or_else(|| std::env::current_exe().ok())
            .unwrap_or_else(|| std::path::PathBuf::from("mobilectl"))
    }

    /// The files root in effect.
    pub fn files_root(&self) -> std::path::PathBuf {
        self.files_root
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| std::path::PathBuf::from("."))
    }
}

impl AppState {
    /// The state of a server over `controller`. Inside a runtime, idle sessions start being
    /// expired as they fall due.
    pub fn new(controller: DeviceController, options: ServerOptions) -> Self {
        let controller = Arc::new(controller);
        let state = AppState {
            controller,
            proxy: Arc::new(ProxyService::new(options.proxy.clone())),
            options: Arc::new(options),
            bound: None,
            builds: Arc::default(),
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            state.controller.spawn_reaper();
            state.spawn_rule_reaper();
        }
        state
    }

    /// Removes the proxy rules of sessions that are no longer live, and lifts the link
    /// conditions one of them set.
    pub fn forget_dead_sessions_rules(&self) -> usize {
        let sessions = self.controller.sessions();
        let live = |id: &str| sessions.get(id).is_ok();
        self.proxy.conditions().forget_sessions(live);
        self.proxy.rules().forget_sessions(live)
    }

    /// Rules and conditions of sessions that expired go with them (checked every second while
    /// the state lives).
    fn spawn_rule_reaper(&self) {
        let controller = Arc::downgrade(&self.controller);
        let proxy = Arc::downgrade(&self.proxy);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                let (Some(c), Some(p)) = (controller.upgrade(), proxy.upgrade()) else {
                    return;
                };
                let live = |id: &str| c.sessions().get(id).is_ok();
                p.conditions().forget_sessions(live);
                p.rules().forget_sessions(live);
            }
        });
    }
}

/// How long the server's own clean-up (devices detached from the proxy) may take after
/// SIGINT/SIGTERM before it stops anyway.
pub const CLEANUP_LIMIT: std::time::Duration = std::time::Duration::from_secs(15);

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
pub(crate) fn api(state: AppState) -> Router {
    crate::api::next::install();
    bind::router(crate::api::operations(), routes::binding)
        .fallback(error::route_not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .with_state(state)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(CatchPanicLayer::custom(error::panic_response))
}

/// Where the OpenAPI document is served (and where Swagger UI reads it).
const OPENAPI_PATH: &str = "/openapi.json";

/// `GET /openapi.json`: the document as compact JSON, made at the first request and kept as
/// its bytes (about 0.4 MB). The document itself is not kept: as utoipa's structs it holds
/// some 7 MB of heap, which Swagger UI's own route (given the document) kept for the whole
/// life of the server.
async fn openapi_json() -> axum::response::Response {
    use axum::response::IntoResponse;
    static JSON: std::sync::OnceLock<axum::body::Bytes> = std::sync::OnceLock::new();
    let json = JSON.get_or_init(|| {
        serde_json::to_vec(&crate::api::openapi())
            .unwrap_or_default()
            .into()
    });
    ([(header::CONTENT_TYPE, "application/json")], json.clone()).into_response()
}

/// The whole HTTP application: API routes, MCP at `/mcp`, the W3C routes a Selenium Grid node
/// relays to ([`w3c`]), `/openapi.json`, Swagger UI at `/docs`, the error envelope for unknown
/// routes and methods, and the security layers.
pub fn app(mut state: AppState, policy: SecurityPolicy) -> Router {
    state.bound = policy.bound;
    let api = api(state.clone());
    let mcp = crate::mcp::http::service(api.clone(), BODY_LIMIT, SHUTDOWN.child_token());
    let w3c = w3c::routes(state, api.clone());
    let mut router = api
        .merge(w3c)
        .nest_service(crate::mcp::http::PATH, mcp)
        .route(OPENAPI_PATH, axum::routing::get(openapi_json))
        .merge(SwaggerUi::new("/docs").config(utoipa_swagger_ui::Config::new([OPENAPI_PATH])));
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
    serve_with_cleanup(listener, router, async {}).await
}

/// [`serve`], running `cleanup` (bounded by [`CLEANUP_LIMIT`]) when the signal comes, before
/// open streams are ended and in-flight requests finish.
pub async fn serve_with_cleanup(
    listener: tokio::net::TcpListener,
    router: Router,
    cleanup: impl std::future::Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let shutdown = async move {
        signalled().await;
        if tokio::time::timeout(CLEANUP_LIMIT, cleanup).await.is_err() {
            tracing::warn!("the clean-up before shutdown took too long; stopping anyway");
        }
        // Ends open MCP sessions and event streams so the graceful shutdown does not wait
        // on them.
        SHUTDOWN.cancel();
    };
    listen::serve_with(listener, router, listen::Limits::default(), shutdown).await
}

/// Cancelled when the server stops: long answers (event streams) end with it.
pub fn shutdown_token() -> CancellationToken {
    SHUTDOWN.child_token()
}

/// SIGINT or SIGTERM; on Windows Ctrl-C, Ctrl-Break, the console closing, or the system
/// shutting down (what a service manager sends).
async fn signalled() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let stop = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(windows)]
    let stop = async {
        use tokio::signal::windows;
        let (brk, close, shutdown) = (
            windows::ctrl_break(),
            windows::ctrl_close(),
            windows::ctrl_shutdown(),
        );
        match (brk, close, shutdown) {
            (Ok(mut b), Ok(mut c), Ok(mut s)) => {
                tokio::select! {
                    _ = b.recv() => {},
                    _ = c.recv() => {},
                    _ = s.recv() => {},
                }
            }
            _ => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {},
        _ = stop => {},
    }
}
