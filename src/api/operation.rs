//! What one operation is, as plain data: its name, method, path, tag, summary, the error codes
//! it can answer, the shapes of its input and output ([`Input`], [`Output`]), and whether it is
//! an MCP tool ([`Mcp`]) and how the command line writes it ([`CliForm`]). The HTTP binding (`crate::server::bind`), the OpenAPI entry, the CLI
//! request and the MCP tool are all made from this.

use serde::de::DeserializeOwned;
use utoipa::{IntoParams, ToSchema};

use super::types::{Body, Params, WireType};
use crate::error::{ErrorCode, Op};
use crate::render::Renderer;

/// The HTTP methods the API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HttpMethod {
    /// `GET`: reads, changes nothing.
    Get,
    /// `POST`: an action or a creation.
    Post,
    /// `PUT`: replaces a setting or a resource.
    Put,
    /// `DELETE`: removes or stops something.
    Delete,
}

impl HttpMethod {
    /// The method's name as HTTP writes it (`GET`…).
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Delete => "DELETE",
        }
    }
}

/// Where an operation's input comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// Nothing beyond the path.
    None,
    /// Query parameters (GET).
    Query(Params),
    /// A JSON body, checked strictly (unknown fields are refused, naming them).
    Body(Body),
}

/// The content an operation answers with on success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// `application/json` of a schema.
    Json(WireType),
    /// `application/json` by default; `text/plain` with `format=text`.
    JsonOrText(WireType),
    /// `image/png` by default; `image/jpeg` with `format=jpeg`.
    Image,
    /// `text/event-stream`: Server-Sent Events whose `data` is JSON of a schema, one event per
    /// item, until the client goes away. Not an MCP tool (a tool call answers once).
    EventStream(WireType),
    /// `application/json` of a schema by default; with the query parameter `body` set, raw
    /// bytes in their own content type (a recorded request or response body).
    JsonOrBytes(WireType),
    /// A file's bytes, always, in this content type (a certificate).
    File(&'static [&'static str]),
}

impl Output {
    /// The content types of a success, default first.
    pub fn content_types(&self) -> &'static [&'static str] {
        match self {
            Output::Json(_) => &["application/json"],
            Output::JsonOrText(_) => &["application/json", "text/plain"],
            Output::Image => &["image/png", "image/jpeg"],
            Output::EventStream(_) => &["text/event-stream"],
            Output::JsonOrBytes(_) => &["application/json", "*/*"],
            Output::File(types) => types,
        }
    }

    /// The query parameter that turns a [`Output::JsonOrBytes`] answer into raw bytes.
    pub const BYTES_SWITCH: &'static str = "body";
}

/// How an operation is offered to agents over MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mcp {
    /// One tool, named as the operation, in the default tool list: the agent's loop (find a
    /// device, read the screen, act, verify). `mobilectl mcp` offers these by default.
    Core,
    /// One tool, named as the operation, offered with `--tools all` or its group, and reached
    /// through the default list's `call` tool otherwise.
    Tool,
    /// Not a tool: it answers a stream, and a tool call answers once.
    Stream,
    /// Not a tool: each MCP connection is its own session, which the connection creates and
    /// ends itself (its agent sees it with `session_info`).
    Connection,
    /// Not a tool: it takes or answers a whole document for other tools (a HAR), which would
    /// fill a model's context; the HTTP API and the command line serve it.
    Document,
}

/// How the command line writes an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CliForm {
    /// The command as a user writes it, without the leading `mobilectl` (words the
    /// steps of error hints as commands). Plain words then `NAME`s (`[NAME]`: optional)
    /// of input fields make the command by themselves (`crate::cli::derived`), unless a
    /// hand-written command has those words.
    pub usage: &'static str,
    /// A command line that plans to this operation (checked by a test of `crate::cli`).
    pub example: &'static [&'static str],
}

/// One operation of the API.
#[derive(Debug, Clone)]
pub struct Operation {
    /// Which operation it is: its server handler is bound by this key (`crate::server::routes`).
    pub op: Op,
    /// Unique snake_case name: the OpenAPI `operationId` and the MCP tool's name
    /// (`op.name()`).
    pub name: &'static str,
    /// Its HTTP method.
    pub method: HttpMethod,
    /// The HTTP path (`{name}` for path parameters).
    pub path: &'static str,
    /// The group it belongs to (`devices`, `act`…).
    pub tag: &'static str,
    /// One line: the OpenAPI summary, the MCP tool's description.
    pub summary: &'static str,
    /// More detail for the OpenAPI description (may be empty).
    pub description: &'static str,
    /// Error codes this operation can answer, beyond the ones every request can.
    pub errors: Vec<ErrorCode>,
    /// How it takes its arguments: none, query parameters or a JSON body.
    pub input: Input,
    /// What it answers.
    pub output: Output,
    /// How its JSON answer is told as text (what the CLI prints and an MCP result says):
    /// given with its output type in the table, so no answer goes without one. None for
    /// images and files.
    pub told: Option<Renderer>,
    /// Whether and how it is an MCP tool.
    pub mcp: Mcp,
    /// How the command line writes it.
    pub cli: CliForm,
    /// Largest request body it takes, when more than the server's default
    /// (`crate::server::BODY_LIMIT`): an uploaded image.
    pub body_limit: Option<usize>,
}

impl Operation {
    /// Not offered as an MCP tool: it moves whole documents (see [`Mcp::Document`]).
    pub fn document(mut self) -> Operation {
        self.mcp = Mcp::Document;
        self
    }

    /// Checks `body` as this operation's JSON body (strictly, as its route would); `None`
    /// when it takes no body. How a batch checks all its steps before the first one runs.
    pub fn check_body(&self, body: &[u8]) -> Option<crate::error::Result<()>> {
        match self.input {
            Input::Body(b) => Some(b.check(body)),
            _ => None,
        }
    }
}

/// An entry of the table before its output is said.
pub struct Draft {
    op: Op,
    method: HttpMethod,
    path: &'static str,
    tag: &'static str,
    summary: &'static str,
    description: &'static str,
    errors: Vec<ErrorCode>,
    input: Input,
    cli: CliForm,
    body_limit: Option<usize>,
}

/// Starts an entry of the table.
pub fn op(
    method: HttpMethod,
    op: Op,
    path: &'static str,
    tag: &'static str,
    summary: &'static str,
) -> Draft {
    Draft {
        op,
        method,
        path,
        tag,
        summary,
        description: "",
        errors: Vec::new(),
        input: Input::None,
        cli: CliForm::default(),
        body_limit: None,
    }
}

impl Draft {
    /// Longer text for the OpenAPI description.
    pub fn describe(mut self, text: &'static str) -> Self {
        self.description = text;
        self
    }

    /// How the command line writes it: its usage and an example that plans to it.
    pub fn cli(mut self, usage: &'static str, example: &'static [&'static str]) -> Self {
        self.cli = CliForm { usage, example };
        self
    }

    /// Adds error codes this operation can answer.
    pub fn errors(mut self, codes: &[ErrorCode]) -> Self {
        for c in codes {
            if !self.errors.contains(c) {
                self.errors.push(*c);
            }
        }
        self
    }

    /// Takes bodies up to `bytes`, more than the server's default limit.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = Some(bytes);
        self
    }

    /// Takes a JSON body of type `I`.
    pub fn body<I: ToSchema + DeserializeOwned + 'static>(mut self) -> Self {
        self.input = Input::Body(Body::of::<I>());
        self
    }

    /// Takes query (and path) parameters of type `I`.
    pub fn query<I: IntoParams + 'static>(mut self) -> Self {
        self.input = Input::Query(Params::of::<I>());
        self
    }

    /// Answers JSON of `T`, told as text by `told`.
    pub fn json<T: ToSchema + 'static>(self, told: Renderer) -> Operation {
        self.answers(Output::Json(WireType::of::<T>()), Some(told))
    }

    /// Answers JSON of `T` (told by `told`), or the server's own text with `format=text`.
    pub fn json_or_text<T: ToSchema + 'static>(self, told: Renderer) -> Operation {
        self.answers(Output::JsonOrText(WireType::of::<T>()), Some(told))
    }

    /// Answers JSON of `T` (told by `told`), or raw bytes with `body=…`.
    pub fn json_or_bytes<T: ToSchema + 'static>(self, told: Renderer) -> Operation {
        self.answers(Output::JsonOrBytes(WireType::of::<T>()), Some(told))
    }

    /// Answers an image.
    pub fn image(self) -> Operation {
        self.answers(Output::Image, None)
    }

    /// Answers a file in one of these content types.
    pub fn file(self, types: &'static [&'static str]) -> Operation {
        self.answers(Output::File(types), None)
    }

    /// Answers Server-Sent Events of `T`, each told by `told` (not an MCP tool).
    pub fn events<T: ToSchema + 'static>(self, told: Renderer) -> Operation {
        self.answers(Output::EventStream(WireType::of::<T>()), Some(told))
    }

    fn answers(self, output: Output, told: Option<Renderer>) -> Operation {
        let mcp = match output {
            Output::EventStream(_) => Mcp::Stream,
            _ => Mcp::Tool,
        };
        Operation {
            op: self.op,
            name: self.op.name(),
            method: self.method,
            path: self.path,
            tag: self.tag,
            summary: self.summary,
            description: self.description,
            errors: self.errors,
            input: self.input,
            output,
            told,
            mcp,
            cli: self.cli,
            body_limit: self.body_limit,
        }
    }
}

impl Operation {
    /// In the default MCP tool list ([`Mcp::Core`]).
    pub fn core(mut self) -> Operation {
        debug_assert_eq!(self.mcp, Mcp::Tool, "{}: only a tool is core", self.name);
        self.mcp = Mcp::Core;
        self
    }

    /// Whether it is an MCP tool: all are but streams, the connection's own session and
    /// whole documents.
    pub fn is_tool(&self) -> bool {
        matches!(self.mcp, Mcp::Core | Mcp::Tool)
    }

    /// Not offered as an MCP tool: the connection manages its own session ([`Mcp::Connection`]).
    pub fn managed_by_connection(mut self) -> Operation {
        self.mcp = Mcp::Connection;
        self
    }
}
