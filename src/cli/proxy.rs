//! `mobilectl proxy delay|fail`: the two commonest rules in a few words (`add_proxy_rule`).
//! The other `proxy` commands (start, stop, status, ca, attach, detach, flows, flow, summary,
//! clear, mock, rules, unmock, conditions, har) are made from the operation table
//! ([`super::derived`]). A rule's `body_file` is the user's file, read here
//! ([`with_local_body_file`]).

use clap::{Args, Subcommand};
use serde_json::json;

use super::plan::Request;
use crate::client::{exit, ClientError};
use crate::proxy::rules::spec::MAX_BODY;

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

/// A rule's `body_file` (`proxy mock --body-file F`, `call add_proxy_rule body_file=F`) names a
/// file of the CLI's user, relative to the working directory: it is read here and sent as
/// `body_base64`, so the server reads no file for it (and a server elsewhere gets the bytes).
/// With another body given too, the request goes as it is, for the server to refuse.
pub fn with_local_body_file(mut r: Request) -> Result<Request, ClientError> {
    use base64::Engine;
    use std::io::Read;
    let other_body = ["body", "body_json", "body_base64"]
        .iter()
        .any(|f| r.args.contains_key(*f));
    if r.op != "add_proxy_rule" || other_body {
        return Ok(r);
    }
    let Some(path) = r.args.get("body_file").and_then(|v| v.as_str()) else {
        return Ok(r);
    };
    let unreadable = |e: std::io::Error| {
        ClientError::local(exit::FAILED, "IO", format!("cannot read {path}: {e}"), None)
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    if !file.metadata().map_err(unreadable)?.is_file() {
        return Err(ClientError::usage(format!(
            "`{path}` is not a regular file"
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_BODY as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() > MAX_BODY {
        return Err(ClientError::usage(format!(
            "`{path}` is larger than {MAX_BODY} bytes, the most a rule serves"
        )));
    }
    r.args.remove("body_file");
    r.args.insert(
        "body_base64".into(),
        json!(base64::engine::general_purpose::STANDARD.encode(bytes)),
    );
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_file_is_read_by_the_cli_and_sent_as_base64() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("answer.json");
        std::fs::write(&file, br#"{"ok":true}"#).unwrap();
        let path = file.to_str().unwrap();
        let r = with_local_body_file(Request::new(
            "add_proxy_rule",
            json!({"path": "/a", "body_file": path}),
        ))
        .unwrap();
        assert_eq!(
            serde_json::Value::Object(r.args),
            json!({"path": "/a", "body_base64": "eyJvayI6dHJ1ZX0="})
        );
        // Another body too: sent as it is, the server refuses both.
        let both = json!({"body": "x", "body_file": path});
        let r = with_local_body_file(Request::new("add_proxy_rule", both.clone())).unwrap();
        assert_eq!(serde_json::Value::Object(r.args), both);
        // A file that is not there, or a directory, is the CLI's error; nothing is sent.
        let gone = json!({"body_file": dir.path().join("gone").to_str().unwrap()});
        assert_eq!(
            with_local_body_file(Request::new("add_proxy_rule", gone))
                .unwrap_err()
                .code,
            "IO"
        );
        let folder = json!({"body_file": dir.path().to_str().unwrap()});
        assert!(with_local_body_file(Request::new("add_proxy_rule", folder)).is_err());
    }
}
