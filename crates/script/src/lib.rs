//! JavaScript for Maestro flows. [`wire`] is what a worker and its parent say to each other,
//! one JSON object per line; [`engine`] evaluates code with Maestro's globals (`output`,
//! `maestro.platform`, `maestro.copiedText`, `console.log`, `json()`, `http.*`) on Boa, a
//! pure-Rust engine; [`worker`] is the loop a worker process runs over its stdin and stdout.
//!
//! The engine reaches nothing outside itself: no file system, no processes, no sockets. An
//! `http.*` call is a line to the parent, which decides (allowed hosts) and makes the request;
//! the answer comes back on the next line. The parent bounds each evaluation's time (it ends
//! the process); the worker bounds its memory per evaluation through [`worker::MemoryLimit`],
//! which the binary's allocator implements.

// The crate's code never unwraps (tests may: clippy.toml).
#![warn(clippy::unwrap_used)]
// Every public item says what it is (rustdoc).
#![warn(missing_docs)]

pub mod engine;
pub mod wire;
pub mod worker;
