//! `mobilectl proxy delay|fail`: the two commonest rules in a few words (`add_proxy_rule`).
//! The other `proxy` commands (start, stop, status, ca, attach, detach, flows, flow, summary,
//! clear, mock, rules, unmock, conditions, har) are made from the operation table
//! ([`super::derived`]).

use clap::{Args, Subcommand};
use serde_json::json;

use super::plan::Request;

/// The `proxy` subcommands with a grammar of their own.
#[derive(Debug, Subcommand)]
pub enum ProxyCommand {
    /// Delay matching requests by MS milliseconds before they go on (a `delay` rule).
    Delay {
        /// The delay, in milliseconds.
        ms: u64,
        /// Delay the answer's first byte instead.
        #[arg(long)]
        first_byte: bool,
        /// Which requests it delays.
        #[command(flatten)]
        m: MatchArgs,
    },
    /// Fail matching requests: reset, timeout, 502, 503, 504 or cut (a `fail` rule).
    Fail {
        /// How they fail.
        #[arg(value_parser = super::derived::values("add_proxy_rule", "fail"))]
        how: String,
        /// Which requests fail.
        #[command(flatten)]
        m: MatchArgs,
    },
}

/// What a rule made by `proxy delay|fail` matches (every one given must hold).
#[derive(Debug, Args)]
pub struct MatchArgs {
    #[arg(long)]
    method: Option<String>,
    /// A host, or `*.example.com`.
    #[arg(long)]
    host: Option<String>,
    /// A path prefix.
    #[arg(long)]
    path: Option<String>,
    #[arg(long)]
    path_glob: Option<String>,
    #[arg(long)]
    path_regex: Option<String>,
    /// `name` or `name: value`.
    #[arg(long)]
    header: Option<String>,
    /// Act on the Nth match only.
    #[arg(long)]
    nth: Option<u64>,
    /// Act at most this many times.
    #[arg(long)]
    times: Option<u64>,
}

impl MatchArgs {
    fn rule(self, mut fields: serde_json::Value) -> serde_json::Value {
        let m = json!({ "method": self.method, "host": self.host, "path": self.path,
            "path_glob": self.path_glob, "path_regex": self.path_regex, "header": self.header,
            "nth": self.nth, "times": self.times });
        if let (Some(out), Some(m)) = (fields.as_object_mut(), m.as_object()) {
            for (k, v) in m {
                if !v.is_null() {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        fields
    }
}

/// The request of a `proxy` command.
pub fn plan(p: ProxyCommand) -> Request {
    let call = Request::new;
    match p {
        ProxyCommand::Delay { ms, first_byte, m } => {
            let delay = if first_byte {
                json!({ "action": "delay", "first_byte_delay_ms": ms })
            } else {
                json!({ "action": "delay", "delay_ms": ms })
            };
            call("add_proxy_rule", m.rule(delay))
        }
        ProxyCommand::Fail { how, m } => call(
            "add_proxy_rule",
            m.rule(json!({ "action": "fail", "fail": how })),
        ),
    }
}
