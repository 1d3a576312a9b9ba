//! mobilectl: a local HTTP server (and thin CLI) that lets AI agents, test scripts and people
//! inspect and drive phones — iOS Simulators, Android devices and emulators.
//!
//! The layers, top to bottom (see docs/DESIGN.md "Layers and walls"):
//! - [`api`]: the operation table and wire types; routes, OpenAPI, CLI and MCP derive from it.
//! - [`server`]: axum router, one error envelope, security middleware, OpenAPI.
//! - [`controller`]: target-device resolution, per-device state and serialisation, over the
//!   registry of backends.
//! - [`backend`]: the `DeviceBackend` trait and its registry; adb (Android), simctl + AXe/idb
//!   (iOS Simulator).
//! - [`device`]: the vocabulary of devices every layer shares (device, platform, state, apps,
//!   points, keys).
//! - [`error`]: the one error type and its table of codes (the crate `mobilectl-error`).
//! - [`exec`]: the runners through which every external command and device request goes.
//! - [`proxy`]: network capture, a recording HTTP(S) proxy the devices are pointed at (the crate
//!   `mobilectl-proxy`, which names nothing of this one).
//! - [`flows`]: Maestro flows, their language and runner (the crate `mobilectl-flows`, which
//!   names nothing of this one: the server gives its runner a host, `server::flow_host`).
//! - [`script`]: flows' JavaScript, evaluated in a worker process (the crate
//!   `mobilectl-script`), its HTTP requests made by the server to allowed hosts only.
//! - [`ui`]: the platform-free canonical UI tree (pure code, no I/O).
//! - [`image`]: screenshot scaling, encoding, annotation.
//! - [`logs`]: device logs without I/O: parsers, the bounded ring, filters, crash detection.
//! - [`perf`]: an app's performance in platform-free terms (memory, CPU, frames, start-up) and
//!   the arithmetic platforms share (pure code, no I/O).
//! - [`media`]: MP4 facts and joining a recording's segments.
//! - [`build`]: building apps from source (Gradle, `xcodebuild`); their output is read by the
//!   crate `mobilectl-build` (pure code, no I/O).
//! - [`client`]: the HTTP client the CLI and the MCP stdio bridge share (autostart, exit codes).
//! - [`cli`]: the thin command line that calls the server over HTTP (and, with the `demo` feature,
//!   starts the virtual Android device of `crates/virtual-device` for `serve --demo`).
//! - [`render`]: answers as compact text, one renderer per operation (the CLI's output, MCP's
//!   tool results).
//! - [`mcp`]: the API's operations as MCP tools, on stdio (`mobilectl mcp`) and at `/mcp`.

// The product's code never unwraps (tests may: clippy.toml).
#![warn(clippy::unwrap_used)]
// Every public item says what it is (rustdoc).
#![warn(missing_docs)]

pub mod api;
pub mod audit;
pub mod backend;
pub mod build;
pub mod cli;
pub mod client;
pub mod controller;
pub mod device;
pub use mobilectl_error as error;
pub mod exec;
pub use mobilectl_flows as flows;
pub mod host_dirs;
pub mod image;
pub mod logs;
pub mod mcp;
pub mod media;
pub mod perf;
pub use mobilectl_proxy as proxy;
pub mod render;
pub mod runs;
pub mod script;
pub mod server;
pub mod ui;
pub mod web;

/// Version of the HTTP API contract; clients refuse a server with another one.
pub const API_PROTOCOL_VERSION: u32 = 1;
