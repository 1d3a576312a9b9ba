//! The MCP server handler: `initialize` answers with the instructions, `tools/list` with the
//! tools the connection offers ([`super::offer`]), `resources/list` and `resources/read` with the guide and the
//! troubleshooting page ([`resources`]), `tools/call` maps the arguments to an API request, sends it through the
//! [`Dispatch`] it was made with, and maps the answer back, telling progress meanwhile when
//! the client asks ([`super::progress`]).

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

use super::dispatch::{Dispatch, DispatchError};
use super::idle::OpenStreams;
use super::offer::{Offer, Offered};
use super::progress::{self, Heard, Reporter};
use super::session::{ConnectionSession, DevicePick};
use super::{catalog, resources, tools};
use crate::api::call::HttpCall;
use crate::client::ApiAnswer;
use crate::error::Op;

/// An MCP server over some way of reaching the API, for one connection: its tool calls run in
/// the connection's own session.
pub struct McpServer<D: Dispatch> {
    session: Arc<ConnectionSession<D>>,
    /// The tools offered (`mcp --tools`); a `/mcp` request's `?tools=` says its own.
    offer: Offer,
    /// `/mcp`'s count of open streams, told which session leases for this connection.
    streams: Option<Arc<OpenStreams>>,
}

impl<D: Dispatch> Clone for McpServer<D> {
    fn clone(&self) -> Self {
        McpServer {
            session: self.session.clone(),
            offer: self.offer.clone(),
            streams: self.streams.clone(),
        }
    }
}

impl<D: Dispatch> McpServer<D> {
    /// A connection whose tool calls go through `dispatch`, in a session that asks for the
    /// device `pick` says, offering the default tools.
    pub fn new(dispatch: Arc<D>, pick: DevicePick) -> Self {
        McpServer {
            session: Arc::new(ConnectionSession::new(dispatch, pick)),
            offer: Offer::default(),
            streams: None,
        }
    }

    /// The same connection over Streamable HTTP: its session gives its lease back when the
    /// MCP session has no request and no stream open for a while ([`super::idle`]).
    pub fn releasing_when_quiet(mut self, streams: Arc<OpenStreams>) -> Self {
        self.streams = Some(streams);
        self
    }

    /// The same connection offering `offer` (`mcp --tools`): every tool, some groups, or the
    /// default list.
    pub fn offering(mut self, offer: Offer) -> Self {
        self.offer = offer;
        self
    }

    /// The connection's session (ended when the connection closes).
    pub fn session(&self) -> &Arc<ConnectionSession<D>> {
        &self.session
    }

    /// What a request offers: over Streamable HTTP the URL's `?tools=`, else the connection's.
    fn offer_of(&self, context: &RequestContext<RoleServer>) -> Result<Offer, ErrorData> {
        match context.extensions.get::<axum::http::request::Parts>() {
            Some(parts) => Offer::from_query(parts.uri.query())
                .map_err(|why| ErrorData::invalid_params(why, None)),
            None => Ok(self.offer.clone()),
        }
    }

    /// Runs one tool call to its result (tool failures are results with `isError`) as the
    /// connection's own offer allows.
    pub async fn call(
        &self,
        name: &str,
        args: Option<&rmcp::model::JsonObject>,
    ) -> Result<rmcp::model::CallToolResult, ErrorData> {
        self.call_offered(&self.offer.clone(), name, args, None)
            .await
    }

    /// Runs one tool call as `offer` allows, telling `progress` (when the client asked for
    /// it) meanwhile.
    async fn call_offered(
        &self,
        offer: &Offer,
        name: &str,
        args: Option<&rmcp::model::JsonObject>,
        progress: Option<Reporter>,
    ) -> Result<rmcp::model::CallToolResult, ErrorData> {
        // With `call` offered every operation is in reach anyway: a tool not in the list is
        // run rather than refused (an agent may know its name from an earlier session).
        let found = offer.find(name).or_else(|| {
            tools::find(name)
                .filter(|_| offer.reaches_all())
                .map(Offered::Operation)
        });
        match found {
            Some(Offered::Operation(def)) => Ok(self.run(def, args, progress).await),
            Some(Offered::Describe) => Ok(catalog::describe(args)),
            Some(Offered::Call) => Ok(match catalog::call_target(args) {
                Ok((def, inner)) => self.run(def, inner.as_ref(), progress).await,
                Err(refused) => refused,
            }),
            None => {
                let why = match tools::find(name) {
                    Some(t) => format!(
                        "the tool `{name}` (group `{}`) is not offered here: this connection \
                         offers {}",
                        t.group,
                        offer.said()
                    ),
                    None => format!("no tool named `{name}`"),
                };
                Err(ErrorData::invalid_params(why, None))
            }
        }
    }

    /// Calls `def`'s operation with `args` and tells its answer; with `progress`, tells how
    /// it goes meanwhile: a flow run's or a suite's steps as they end (through its streamed
    /// twin), any other call's time so far.
    async fn run(
        &self,
        def: &'static tools::ToolDef,
        args: Option<&rmcp::model::JsonObject>,
        progress: Option<Reporter>,
    ) -> rmcp::model::CallToolResult {
        let request = match def.request(args) {
            Ok(r) => r,
            Err(e) => return tools::argument_error(&e),
        };
        let twin = progress::streamed_twin(&def.tool.name);
        let answer = match (progress, twin) {
            (Some(p), Some(twin)) => self.streamed(request, twin, p).await,
            (Some(p), None) => p.around(self.session.send(request)).await,
            (None, _) => self.session.send(request).await,
        };
        match answer {
            Ok(answer) if tools::asks_json(args) => tools::result_as_json(&answer),
            Ok(answer) => tools::result(&def.tool.name, &answer),
            Err(e) => tools::dispatch_error(&e),
        }
    }
}

impl<D: Dispatch> McpServer<D> {
    /// Sends `request` to `twin`, the streamed twin of its operation, telling `progress` of
    /// each step (and each flow of a suite) as it ends; answers what the operation itself
    /// would: the result as its JSON answer, or the error that ended the stream as its error
    /// answer (an answer before the stream started is returned as it came).
    async fn streamed(
        &self,
        mut request: HttpCall,
        twin: Op,
        progress: Reporter,
    ) -> Result<ApiAnswer, DispatchError> {
        request.path = crate::api::entry(twin).path.to_string();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let sent = self.session.send_streamed(request, tx);
        tokio::pin!(sent);
        let mut steps = progress::Steps::of(twin);
        let mut last = None;
        let answer = loop {
            tokio::select! {
                Some(data) = rx.recv() => last = tell(&mut steps, &progress, &data).await.or(last),
                answer = &mut sent => break answer?,
            }
        };
        while let Ok(data) = rx.try_recv() {
            last = tell(&mut steps, &progress, &data).await.or(last);
        }
        if !crate::client::answer::is_event_stream_type(&answer.content_type) {
            return Ok(answer);
        }
        let json = |status: u16, body: Vec<u8>| ApiAnswer {
            status,
            content_type: "application/json".into(),
            headers: answer.headers.clone(),
            body,
        };
        match last {
            Some(Heard::Result(result)) => Ok(json(200, result.to_string().into_bytes())),
            Some(Heard::Error(error)) => {
                let envelope = serde_json::json!({ "error": &error });
                Ok(json(error.code.status(), envelope.to_string().into_bytes()))
            }
            _ => Err(DispatchError {
                code: "SERVER_UNREACHABLE".into(),
                message: format!("the stream of `{}` ended without its result", twin.name()),
                hint: None,
            }),
        }
    }
}

/// Tells the progress an event of a streamed run says; its end (result or error) when it is
/// the last.
async fn tell(steps: &mut progress::Steps, progress: &Reporter, data: &str) -> Option<Heard> {
    match steps.hear(data) {
        Heard::Progress(n, message) => {
            progress.tell(n, message).await;
            None
        }
        Heard::Nothing => None,
        end => Some(end),
    }
}

/// What the server tells an agent at `initialize`.
pub fn config() -> ServerConfig {
    ServerConfig::new(
        ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build(),
    )
    .with_server_info(Implementation::new("mobilectl", env!("CARGO_PKG_VERSION")))
    .with_instructions(super::INSTRUCTIONS)
}

impl<D: Dispatch> ServerHandler for McpServer<D> {
    fn get_info(&self) -> ServerConfig {
        config()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.offer_of(&context)?.list(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(streams) = &self.streams {
            // Streamable HTTP hands the request's head to the handler.
            let id = context
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|p| p.headers.get("mcp-session-id"))
                .and_then(|v| v.to_str().ok());
            if let Some(id) = id {
                let session: std::sync::Weak<ConnectionSession<D>> = Arc::downgrade(&self.session);
                streams.bind(id, session);
            }
        }
        let offer = self.offer_of(&context)?;
        let args = request.arguments.as_ref();
        let progress = context.meta.get_progress_token().map(|token| {
            let what = match args.and_then(|a| a.get("operation")) {
                Some(serde_json::Value::String(op)) if request.name == catalog::CALL => op,
                _ => request.name.as_ref(),
            };
            Reporter::new(context.peer.clone(), token, what, args)
        });
        self.call_offered(&offer, &request.name, args, progress)
            .await
            .map(Into::into)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::read(&request.uri)
            .map(Into::into)
            .ok_or_else(|| {
                ErrorData::resource_not_found(
                    format!(
                        "no resource `{}`; there are {} and {}",
                        request.uri,
                        resources::GUIDE_URI,
                        resources::TROUBLESHOOTING_URI
                    ),
                    None,
                )
            })
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        match self.offer.find(name)? {
            Offered::Operation(t) => Some(t.tool.clone()),
            _ => catalog::tools().into_iter().find(|t| t.name == name),
        }
    }
}
