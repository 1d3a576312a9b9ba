//! `mobilectl proxy flows|flow`: the recorded flows, listed or followed, and one flow or its
//! raw body. The other `proxy` commands (start, stop, status, ca, attach, detach, summary,
//! clear) are made from the operation table ([`super::derived`]).

use clap::{Args, Subcommand};
use serde_json::json;

use super::plan::Request;

#[derive(Debug, Subcommand)]
pub enum ProxyCommand {
    /// List recorded exchanges, oldest first (`--follow`: print new ones as they come).
    Flows(FlowsArgs),
    /// One exchange with its headers and bodies (`--body response`: that body's bytes).
    Flow {
        id: u64,
        #[arg(long, value_parser = super::derived::values("get_flow", "body"))]
        body: Option<String>,
        /// Where `--body` goes (default: stdout).
        #[arg(short, long, value_name = "FILE", requires = "body")]
        output: Option<String>,
        /// Show secret header values (a loopback server only).
        #[arg(long)]
        reveal: bool,
    },
}

#[derive(Debug, Args)]
pub struct FlowsArgs {
    /// A host, or a domain with its subdomains.
    #[arg(long)]
    host: Option<String>,
    #[arg(long)]
    method: Option<String>,
    /// `404`, or a class: `4xx`.
    #[arg(long)]
    status: Option<String>,
    /// Only failed exchanges (no answer, 4xx, 5xx).
    #[arg(long)]
    failed: bool,
    /// Text in the URL.
    #[arg(long)]
    contains: Option<String>,
    /// After a flow id, since an RFC 3339 time, or a while ago (`5m`).
    #[arg(long)]
    since: Option<String>,
    /// At most this many (with --follow: then stop).
    #[arg(long)]
    limit: Option<u32>,
    /// Print new exchanges as they are recorded, until interrupted.
    #[arg(short, long)]
    follow: bool,
}

/// The request of a `proxy` command.
pub fn plan(p: ProxyCommand) -> Request {
    let call = Request::new;
    match p {
        ProxyCommand::Flows(a) => call(
            if a.follow {
                "stream_flows"
            } else {
                "list_flows"
            },
            json!({ "host": a.host, "method": a.method, "status": a.status,
                "failed": a.failed.then_some(true), "contains": a.contains, "since": a.since,
                "limit": a.limit }),
        ),
        ProxyCommand::Flow {
            id,
            body,
            output,
            reveal,
        } => {
            let mut r = call(
                "get_flow",
                json!({ "id": id, "body": body,
                    "reveal": reveal.then_some(true) }),
            );
            r.output = output;
            r
        }
    }
}
