//! `mobilectl proxy …`: network capture from the command line — the recording proxy (start,
//! stop, status, its CA), devices pointed at it (attach, detach), and its flows (list or
//! follow, one flow or its raw body, summary, clear).

use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;

use super::commands::name;
use super::plan::Request;

#[derive(Debug, Subcommand)]
pub enum ProxyCommand {
    /// Start the recording proxy on 127.0.0.1.
    Start {
        /// Port (default: the server's --proxy-port; 0: any free one).
        #[arg(long)]
        port: Option<u16>,
        /// Host to tunnel without decrypting, with its subdomains (repeatable).
        #[arg(long = "passthrough", value_name = "HOST")]
        passthrough: Vec<String>,
    },
    /// Stop the proxy (attached devices are detached first).
    Stop,
    /// The proxy's address, CA, flows kept and attached devices.
    Status,
    /// Save the proxy's CA certificate (PEM), to trust it for HTTPS (default: stdout).
    Ca {
        #[arg(short, long, value_name = "FILE")]
        output: Option<String>,
    },
    /// Point the device at the proxy (starts it if needed).
    Attach {
        #[arg(value_name = "UDID")]
        device: Option<String>,
    },
    /// Restore the device's proxy setting.
    Detach {
        #[arg(value_name = "UDID")]
        device: Option<String>,
    },
    /// List recorded exchanges, oldest first (`--follow`: print new ones as they come).
    Flows(FlowsArgs),
    /// One exchange with its headers and bodies (`--body response`: that body's bytes).
    Flow {
        id: u64,
        #[arg(long, value_enum)]
        body: Option<BodyPart>,
        /// Where `--body` goes (default: stdout).
        #[arg(short, long, value_name = "FILE", requires = "body")]
        output: Option<String>,
        /// Show secret header values (a loopback server only).
        #[arg(long)]
        reveal: bool,
    },
    /// Network traffic in brief: hosts, statuses, failures, slowest.
    Summary {
        /// Since a flow id, an RFC 3339 time, or a while ago (`5m`).
        #[arg(long)]
        since: Option<String>,
        #[arg(long)]
        host: Option<String>,
    },
    /// Forget the recorded exchanges.
    Clear,
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

#[derive(Debug, Clone, ValueEnum)]
pub enum BodyPart {
    Request,
    Response,
}

/// The request of a `proxy` command.
pub fn plan(p: ProxyCommand, udid: &Option<String>) -> Request {
    let call = Request::new;
    match p {
        ProxyCommand::Start { port, passthrough } => call(
            "proxy_start",
            json!({ "port": port, "passthrough": (!passthrough.is_empty()).then_some(passthrough) }),
        ),
        ProxyCommand::Stop => call("proxy_stop", json!({})),
        ProxyCommand::Status => call("proxy_status", json!({})),
        ProxyCommand::Ca { output } => {
            let mut r = call("proxy_ca", json!({}));
            r.output = output;
            r
        }
        ProxyCommand::Attach { device } => call(
            "proxy_attach",
            json!({ "udid": device.or_else(|| udid.clone()) }),
        ),
        ProxyCommand::Detach { device } => call(
            "proxy_detach",
            json!({ "udid": device.or_else(|| udid.clone()) }),
        ),
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
                json!({ "id": id, "body": body.as_ref().map(name),
                    "reveal": reveal.then_some(true) }),
            );
            r.output = output;
            r
        }
        ProxyCommand::Summary { since, host } => {
            call("get_flow_summary", json!({ "since": since, "host": host }))
        }
        ProxyCommand::Clear => call("clear_flows", json!({})),
    }
}
