//! The types that travel over the wire: request bodies and queries, and the answers. They are
//! defined here and the controller and the backends produce them (`crate::controller` and
//! `crate::backend` import them from here, never the other way round). Besides its own, a wire
//! module names the shared vocabularies (`crate::device`, `crate::ui`, `crate::error`), the log
//! vocabulary (`crate::logs`: levels, crash kinds) and the recording proxy's flow views
//! (`crate::proxy`), so the server, the CLI and MCP import every wire type from one place.

pub mod act;
pub mod apps;
pub mod audit;
pub mod batch;
pub mod build;
pub mod capabilities;
pub mod devices;
pub mod diff;
pub mod error;
pub mod features;
pub mod flows;
pub mod inspect;
pub mod logs;
pub mod perf;
pub mod proxy;
pub mod recording;
pub mod runs;
pub mod service;
pub mod sessions;
pub mod system;
pub mod verify;
