//! The `mobilectl` command line: `serve` runs the server; `openapi` prints the spec; the client
//! commands call the server over HTTP only.

pub mod serve;

use clap::{Parser, Subcommand};

/// Inspect and drive phones — iOS Simulators and Android devices — over a local HTTP API.
#[derive(Debug, Parser)]
#[command(name = "mobilectl", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server (Swagger UI at /docs).
    Serve(serve::ServeArgs),
    /// Print the OpenAPI document (the checked-in openapi/openapi.json).
    Openapi,
    /// Run a virtual Android device that the real adb connects to (tests, demos).
    VirtualDevice(crate::virtual_device::VirtualDeviceArgs),
}

/// Runs the parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Openapi => {
            print!("{}", crate::server::openapi_json());
            0
        }
        Command::VirtualDevice(args) => crate::virtual_device::run_cli(args),
    }
}
