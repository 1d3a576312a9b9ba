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
use super::session::{ConnectionSession, DevicePick};
use super::{resources, tools};

/// An MCP server over some way of reaching the API, for one connection: its tool calls run in
/// the connection's own session.
pub struct McpServer<D: Dispatch> {
    session: Arc<ConnectionSession<D>>,
}

impl<D: Dispatch> Clone for McpServer<D> {
    fn clone(&self) -> Self {
        McpServer {
            session: self.session.clone(),
        }
    }
}

impl<D: Dispatch> McpServer<D> {
    /// A connection whose tool calls go through `dispatch`, in a session that asks for the
    /// device `pick` says.
    pub fn new(dispatch: Arc<D>, pick: DevicePick) -> Self {
        McpServer {
            session: Arc::new(ConnectionSession::new(dispatch, pick)),
        }
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
        let Some(def) = tools::find(name) else {
            return Err(ErrorData::invalid_params(
                format!("no tool named `{name}`"),
                None,
            ));
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
            tools::tools().iter().map(|t| t.tool.clone()).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
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
        tools::find(name).map(|t| t.tool.clone())
    }
}
