//! The types that travel over the wire: request bodies and queries, and the answers that are
//! not the controller's own types (those are re-exported here, so the server, the CLI and MCP
//! import every wire type from one place).

pub mod act;
pub mod apps;
pub mod batch;
pub mod devices;
pub mod error;
pub mod inspect;
pub mod logs;
pub mod proxy;
pub mod service;
pub mod system;
pub mod verify;
