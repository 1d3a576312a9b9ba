//! The MCP server handler: `initialize` answers with the instructions, `tools/list` with the
//! generated tools, `resources/list` and `resources/read` with the guide and the
//! troubleshooting page ([`resources`]), `tools/call` maps the arguments to an API request, sends it through the
//! [`Dispatch`] it was made with, and maps the answer back.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

use super::dispatch::Dispatch;
use super::idle::OpenStreams;
use super::session::{ConnectionSession, DevicePick};
use super::{resources, tools};

/// An MCP server over some way of reaching the API, for one connection: its tool calls run in
/// the connection's own session.
pub struct McpServer<D: Dispatch> {
    session: Arc<ConnectionSession<D>>,
    /// The tool groups offered (`mcp --tools`); none: every tool.
    groups: Option<Arc<[String]>>,
    /// `/mcp`'s count of open streams, told which session leases for this connection.
    streams: Option<Arc<OpenStreams>>,
}

impl<D: Dispatch> Clone for McpServer<D> {
    fn clone(&self) -> Self {
        McpServer {
            session: self.session.clone(),
            groups: self.groups.clone(),
            streams: self.streams.clone(),
        }
    }
}

impl<D: Dispatch> McpServer<D> {
    /// A connection whose tool calls go through `dispatch`, in a session that asks for the
    /// device `pick` says.
    pub fn new(dispatch: Arc<D>, pick: DevicePick) -> Self {
        McpServer {
            session: Arc::new(ConnectionSession::new(dispatch, pick)),
            groups: None,
            streams: None,
        }
    }

    /// The same connection over Streamable HTTP: its session gives its lease back when the
    /// MCP session has no request and no stream open for a while ([`super::idle`]).
    pub fn releasing_when_quiet(mut self, streams: Arc<OpenStreams>) -> Self {
        self.streams = Some(streams);
        self
    }

    /// The same connection offering only the tools of `groups` (the table's tags): a smaller
    /// `tools/list` for an agent that needs, say, only `act`, `inspect` and `verify`.
    pub fn offering(mut self, groups: Vec<String>) -> Self {
        self.groups = Some(groups.into());
        self
    }

    /// The tool named `name`, if this connection offers it.
    fn offered(&self, name: &str) -> Option<&'static tools::ToolDef> {
        tools::find(name).filter(|t| {
            self.groups
                .as_ref()
                .is_none_or(|g| g.iter().any(|g| g == t.group))
        })
    }

    /// The connection's session (ended when the connection closes).
    pub fn session(&self) -> &Arc<ConnectionSession<D>> {
        &self.session
    }

    /// Runs one tool call to its result (tool failures are results with `isError`).
    pub async fn call(
        &self,
        name: &str,
        args: Option<&rmcp::model::JsonObject>,
    ) -> Result<rmcp::model::CallToolResult, ErrorData> {
        let Some(def) = self.offered(name) else {
            let why = match (&self.groups, tools::find(name)) {
                (Some(groups), Some(t)) => format!(
                    "the tool `{name}` (group `{}`) is not offered here: this connection offers \
                     the groups {}",
                    t.group,
                    groups.join(", ")
                ),
                _ => format!("no tool named `{name}`"),
            };
            return Err(ErrorData::invalid_params(why, None));
        };
        let request = match def.request(args) {
            Ok(r) => r,
            Err(e) => return Ok(tools::argument_error(&e)),
        };
        Ok(match self.session.send(request).await {
            Ok(answer) if tools::asks_json(args) => tools::result_as_json(&answer),
            Ok(answer) => tools::result(name, &answer),
            Err(e) => tools::dispatch_error(&e),
        })
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
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            tools::tools()
                .iter()
                .filter(|t| self.offered(&t.tool.name).is_some())
                .map(|t| t.tool.clone())
                .collect(),
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
        self.call(&request.name, request.arguments.as_ref())
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
        self.offered(name).map(|t| t.tool.clone())
    }
}
