//! The API as data: one table of operations ([`operations`]) from which the HTTP router
//! ([`router`]), the OpenAPI document ([`openapi`]), the CLI's requests and the MCP tools are
//! made, plus the wire types they share ([`wire`]).
//!
//! An operation is an entry in [`table`]: name, method, path, tag, summary, error codes, and a
//! handler whose input and output types give the request and response schemas.

pub mod call;
pub mod errors;
pub mod openapi;
pub mod operation;
pub mod reply;
pub mod strict;
pub mod table;
pub mod wire;

pub use operation::{check_declared_errors, HttpMethod, Input, Operation};
pub use reply::Output;
pub use table::operations;

use axum::Router;

use crate::server::AppState;

/// The operation named `name`.
pub fn find(name: &str) -> Option<Operation> {
    operations().into_iter().find(|o| o.name == name)
}

/// Every operation as an axum route (two operations on one path share it by method).
pub fn router() -> Router<AppState> {
    operations()
        .into_iter()
        .fold(Router::new(), |r, op| r.route(op.path, op.route))
}

/// The OpenAPI document of the whole API.
pub fn openapi() -> utoipa::openapi::OpenApi {
    openapi::document(&operations())
}

/// The document as pretty JSON, as checked in at `openapi/openapi.json`.
pub fn openapi_json() -> String {
    let mut s = openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
