//! The API as data: one table of operations ([`operations`]) from which the OpenAPI document
//! ([`openapi`]), the CLI's requests and the MCP tools are made and to which the server binds
//! its handlers, plus the wire types they share ([`wire`]). Nothing here knows HTTP serving:
//! no router, no server state.
//!
//! An operation is an entry in [`table`]: name, method, path, tag, summary, error codes, and
//! the wire types of its input and output ([`types`]), which give the request and response
//! schemas.

pub mod call;
pub mod errors;
pub mod next;
pub mod openapi;
pub mod operation;
pub mod strict;
pub mod table;
pub mod types;
pub mod wire;

pub use operation::{CliForm, HttpMethod, Input, Mcp, Operation, Output};
pub use table::operations;

/// The operation named `name` (a name from outside: a command line, an MCP call, a flow).
pub fn find(name: &str) -> Option<&'static Operation> {
    crate::error::Op::named(name).map(entry)
}

/// The table's entry of `op`. (The table lists the operations in the order of `Op`, which a
/// test of the server's bindings holds it to.)
pub fn entry(op: crate::error::Op) -> &'static Operation {
    let entry = &operations()[op as usize];
    debug_assert_eq!(entry.op, op, "the table is in the order of `Op`");
    entry
}

/// The OpenAPI document of the whole API.
pub fn openapi() -> utoipa::openapi::OpenApi {
    openapi::document(operations())
}

/// The document as pretty JSON, as checked in at `openapi/openapi.json`.
pub fn openapi_json() -> String {
    let mut s = openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
