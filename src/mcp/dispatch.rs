//! The one seam between MCP tools and the API: a [`Dispatch`] sends an [`HttpCall`] and
//! returns the [`ApiAnswer`] as the API gave it, or, for an operation answering Server-Sent
//! Events, hands each event's data on as it comes ([`Dispatch::send_streamed`]). Two
//! implementations: [`HttpDispatch`] (stdio mode, a client of the HTTP server like the CLI,
//! with the same autostart) and [`InProcess`] (`/mcp` inside the server, calling the API
//! router directly).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, Request};
use axum::Router;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::Mutex;
use tower::ServiceExt;

use crate::api::call::HttpCall;
use crate::client::{ApiAnswer, Client, ClientError, ConnectOptions};

/// How long one tool call may take end to end (the longest operation, `wait`, stops at 120 s).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(180);

/// How long `request` may take end to end: [`CALL_TIMEOUT`], or longer for a call that gives
/// a longer limit of its own (`timeout_ms`) or runs longer by default (a build, 30 min), with
/// a minute to spare for its answer.
pub fn time_limit(request: &HttpCall) -> Duration {
    let own = request
        .body
        .as_ref()
        .and_then(|b| b.get("timeout_ms"))
        .and_then(serde_json::Value::as_u64)
        .map(Duration::from_millis);
    let build =
        crate::api::find(crate::error::Op::BuildApp.name()).is_some_and(|o| o.path == request.path);
    let own = match (own, build) {
        (None, true) => Some(crate::build::DEFAULT_TIMEOUT),
        (own, _) => own,
    };
    match own {
        Some(t) if t + Duration::from_secs(60) > CALL_TIMEOUT => t + Duration::from_secs(60),
        _ => CALL_TIMEOUT,
    }
}

/// Answers larger than this are refused (a full-size PNG screenshot is a few MB).
const MAX_ANSWER: usize = 64 * 1024 * 1024;

/// No answer could be had: the server is unreachable, not mobilectl, the call timed out…
#[derive(Debug, Clone)]
pub struct DispatchError {
    /// An error code of the product's table, or the client's own (`SERVER_UNREACHABLE`…).
    pub code: String,
    /// What went wrong.
    pub message: String,
    /// What to do next.
    pub hint: Option<String>,
}

/// Sends API requests somewhere.
pub trait Dispatch: Send + Sync + 'static {
    /// Sends one request and returns the API's answer as it came.
    fn send(
        &self,
        request: HttpCall,
    ) -> impl Future<Output = Result<ApiAnswer, DispatchError>> + Send;

    /// Sends one request whose answer is a stream of Server-Sent Events: each event's `data`
    /// goes to `events` as it comes, and the answer (its body empty) is returned when the
    /// stream ends. An answer that is not a stream (an error before the stream started) is
    /// returned whole, as [`Dispatch::send`] returns it.
    fn send_streamed(
        &self,
        request: HttpCall,
        events: UnboundedSender<String>,
    ) -> impl Future<Output = Result<ApiAnswer, DispatchError>> + Send;
}

/// Calls the HTTP server at `MOBILECTL_URL` / `--url`, starting a local one when allowed and
/// none answers. Connects on the first call (so `tools/list` works with no server), and again
/// after the server stopped answering.
pub struct HttpDispatch {
    options: ConnectOptions,
    client: Mutex<Option<Arc<Client>>>,
}

impl HttpDispatch {
    /// A dispatch to the server `options` name; nothing connects before the first call.
    pub fn new(options: ConnectOptions) -> Self {
        HttpDispatch {
            options,
            client: Mutex::new(None),
        }
    }

    async fn client(&self) -> Result<Arc<Client>, DispatchError> {
        let mut slot = self.client.lock().await;
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let c = Arc::new(Client::connect(&self.options).await.map_err(from_client)?);
        *slot = Some(c.clone());
        Ok(c)
    }

    async fn forget(&self) {
        *self.client.lock().await = None;
    }
}

fn from_client(e: ClientError) -> DispatchError {
    DispatchError {
        code: e.code,
        message: e.message,
        hint: e.hint,
    }
}

impl Dispatch for HttpDispatch {
    async fn send(&self, request: HttpCall) -> Result<ApiAnswer, DispatchError> {
        let client = self.client().await?;
        match client.send_call(&request, time_limit(&request)).await {
            Ok(answer) => Ok(answer),
            Err(e) => {
                // Reconnect (and autostart) on the next call.
                self.forget().await;
                Err(from_client(e))
            }
        }
    }

    async fn send_streamed(
        &self,
        request: HttpCall,
        events: UnboundedSender<String>,
    ) -> Result<ApiAnswer, DispatchError> {
        let client = self.client().await?;
        let tell = |data: &str| {
            let _ = events.send(data.to_string());
        };
        match client.send_call_streamed(&request, tell).await {
            Ok(answer) => Ok(answer),
            Err(e) => {
                self.forget().await;
                Err(from_client(e))
            }
        }
    }
}

/// Calls the API router of this very server, without a socket. The request has already
/// passed the server's security checks on its way to `/mcp`.
#[derive(Clone)]
pub struct InProcess {
    router: Router,
}

impl InProcess {
    /// A dispatch into `router`, the API with its state.
    pub fn new(router: Router) -> Self {
        InProcess { router }
    }
}

impl InProcess {
    /// Sends `request` to the router; its answer's head, within the request's time limit.
    async fn answer(&self, request: &HttpCall) -> Result<axum::response::Response, DispatchError> {
        let mut builder = Request::builder()
            .method(request.method.as_str())
            .uri(request.uri())
            .header(header::HOST, "localhost");
        if let Some(s) = &request.session {
            builder = builder.header(crate::api::wire::sessions::SESSION_HEADER, s.as_str());
        }
        let req = match &request.body {
            Some(b) => builder
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(b.to_string())),
            None => builder.body(Body::empty()),
        }
        .map_err(|e| internal(format!("cannot build the request: {e}")))?;
        let limit = time_limit(request);
        let call = self.router.clone().oneshot(req);
        match tokio::time::timeout(limit, call).await {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(never)) => match never {},
            Err(_) => Err(DispatchError {
                code: "TIMEOUT".into(),
                message: format!("no answer within {} s", limit.as_secs()),
                hint: None,
            }),
        }
    }
}

/// A failure of this server itself.
fn internal(message: String) -> DispatchError {
    DispatchError {
        code: "INTERNAL".into(),
        message,
        hint: None,
    }
}

/// A whole answer of the router, its body read (up to [`MAX_ANSWER`]).
async fn whole(resp: axum::response::Response) -> Result<ApiAnswer, DispatchError> {
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = axum::body::to_bytes(resp.into_body(), MAX_ANSWER)
        .await
        .map_err(|e| internal(format!("cannot read the answer: {e}")))?;
    Ok(ApiAnswer::from_parts(status, &headers, body.to_vec()))
}

impl Dispatch for InProcess {
    async fn send(&self, request: HttpCall) -> Result<ApiAnswer, DispatchError> {
        whole(self.answer(&request).await?).await
    }

    async fn send_streamed(
        &self,
        request: HttpCall,
        events: UnboundedSender<String>,
    ) -> Result<ApiAnswer, DispatchError> {
        use futures_util::StreamExt;
        let resp = self.answer(&request).await?;
        let headers = resp.headers().clone();
        if !resp.status().is_success() || !crate::client::answer::is_event_stream(&headers) {
            return whole(resp).await;
        }
        let status = resp.status().as_u16();
        let mut body = resp.into_body().into_data_stream();
        let mut split = crate::client::sse::SseSplitter::default();
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| internal(format!("the stream broke: {e}")))?;
            for data in split.push(&chunk) {
                let _ = events.send(data);
            }
        }
        Ok(ApiAnswer::from_parts(status, &headers, Vec::new()))
    }
}
