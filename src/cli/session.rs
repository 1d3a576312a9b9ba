//! `mobilectl session start|end`: named sessions across separate CLI processes. `start` asks
//! the server for a session and keeps what it asked for and the secret it answered in the
//! state directory (`sessions/NAME.json`: one small file, readable by its owner only,
//! overwritten, never appended), so `--session NAME` works from any later process of the same
//! user: the CLI sends the secret, since a session's name acts in nothing. A session the server
//! forgot (it restarted, or the session expired) is started again from those defaults. `end`
//! ends it and forgets the file. The other session commands (`sessions`, `session
//! show|info|release`) are made from the table.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{json, Value};

use super::plan::Request;
use crate::api::wire::capabilities;
use crate::api::wire::sessions::CreateSession;
use crate::client::{Client, ClientError};

/// The `session` subcommands.
#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Start a session that leases a device (`session start --name ci-1 --platform ios`).
    Start(StartArgs),
    /// End a session and release its device (default: the `--session` one).
    End {
        /// The session to end (id or name).
        #[arg(value_name = "ID")]
        id: Option<String>,
    },
}

/// Flags of `session start`.
#[derive(Debug, Args)]
pub struct StartArgs {
    /// Its name (default: `--session`). A named session is remembered across commands.
    #[arg(long)]
    name: Option<String>,
    /// Lease a device of this platform.
    #[arg(long, value_parser = super::derived::enum_of::<crate::device::Platform>())]
    platform: Option<String>,
    /// Lease a device whose name contains this (any case).
    #[arg(long)]
    name_contains: Option<String>,
    #[arg(long, value_parser = super::derived::enum_of::<crate::device::DeviceKind>())]
    kind: Option<String>,
    /// Lease a device whose OS version starts with this (`14`, `17.5`).
    #[arg(long)]
    os_version: Option<String>,
    /// The session's default app (bundle id or package).
    #[arg(long)]
    app: Option<String>,
    /// Idle expiry in seconds (default 600), renewed by every command in the session.
    #[arg(long, value_name = "S")]
    ttl_s: Option<u64>,
    /// Wait up to this long for a matching device to be free.
    #[arg(long, value_name = "MS")]
    wait_ms: Option<u64>,
    /// Lease at the first device command instead of now.
    #[arg(long)]
    lazy: bool,
    /// Open it through a Selenium Grid 4 hub (`http://HUB:4444`): later commands of
    /// `--session NAME` go through the hub too.
    #[arg(
        long,
        value_name = "URL",
        env = "MOBILECTL_GRID",
        hide_env_values = true
    )]
    grid: Option<String>,
}

impl SessionCommand {
    /// Names the session `--session` names when the command does not say.
    pub fn default_to(&mut self, session: &Option<String>) {
        match self {
            SessionCommand::Start(a) if a.name.is_none() => a.name = session.clone(),
            SessionCommand::End { id } if id.is_none() => *id = session.clone(),
            _ => {}
        }
    }
}

/// The request of a session command; `udid` (the global `-d`) names the device to lease.
pub fn plan(cmd: SessionCommand, udid: &Option<String>) -> Result<Request, ClientError> {
    match cmd {
        SessionCommand::Start(a) => {
            let wanted = json!({ "platform": a.platform, "name_contains": a.name_contains,
                "kind": a.kind, "os_version": a.os_version });
            let any = wanted
                .as_object()
                .is_some_and(|m| m.values().any(|v| !v.is_null()));
            let mut wanted = wanted;
            if let Some(m) = wanted.as_object_mut() {
                m.retain(|_, v| !v.is_null());
            }
            if any && udid.is_some() {
                return Err(ClientError::usage(
                    "give a device (-d) or a match (--platform, --name-contains, --kind, --os-version), not both",
                ));
            }
            Ok(Request::new(
                "create_session",
                json!({ "name": a.name, "udid": udid, "match": any.then_some(wanted),
                    "app": a.app, "ttl_s": a.ttl_s, "wait_ms": a.wait_ms,
                    "lazy": a.lazy.then_some(true), GRID: a.grid }),
            ))
        }
        SessionCommand::End { id } => {
            let id = id.ok_or_else(|| {
                ClientError::usage("name the session to end (ID, or --session NAME)")
            })?;
            Ok(Request::new("end_session", json!({ "id": id })))
        }
    }
}

/// The file that keeps the named session `name`'s defaults.
fn file(name: &str) -> Option<PathBuf> {
    crate::controller::check_session_name(name).ok()?;
    Some(
        crate::client::autostart::state_dir()
            .join("sessions")
            .join(format!("{name}.json")),
    )
}

/// What the named session `name`'s file keeps, if there is one.
fn kept(name: &str) -> Option<Value> {
    file(name)
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
}

/// What a command sends as its session: the secret kept for the named session `session`, or
/// the value itself (a secret given by hand; a name this user never started is sent as it is,
/// and the server says that a name acts in nothing).
pub fn credential(session: &Option<String>) -> Option<String> {
    let given = session.as_deref()?;
    let secret = kept(given).and_then(|k| k[SECRET].as_str().map(str::to_string));
    Some(secret.unwrap_or_else(|| given.to_string()))
}

/// The key of a kept file that holds the session's secret.
const SECRET: &str = "secret";

/// After a command's answer: a named session started is remembered, one ended is forgotten.
pub fn after(op: &str, args: &serde_json::Map<String, Value>, answer: &Value) {
    match op {
        "create_session" => {
            let Some(path) = args.get("name").and_then(Value::as_str).and_then(file) else {
                return;
            };
            let kept = json!({ "request": args, "id": answer["id"], SECRET: answer[SECRET] });
            if let Err(e) = write_whole(&path, kept.to_string().as_bytes()) {
                eprintln!(
                    "mobilectl: cannot keep the session's secret in {}: {e}",
                    path.display()
                );
            }
        }
        "end_session" => {
            if let Some(path) = args.get("id").and_then(Value::as_str).and_then(file) {
                let _ = std::fs::remove_file(path);
            }
        }
        _ => {}
    }
}

/// Writes `bytes` as the whole of `path` (a sibling file renamed over it), readable and
/// writable by its owner only: it holds a session's secret.
fn write_whole(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("json.tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(tmp, path)
}

/// When `e` says the named session `name` is gone from the server and its defaults are kept,
/// starts it again from them; whether it did (then the command may be sent again).
pub async fn restart_if_gone(c: &Client, name: &str, e: &ClientError) -> bool {
    if !crate::client::says_session_gone(&e.code, &e.details()) {
        return false;
    }
    let Some(kept) = kept(name) else {
        return false;
    };
    let body = kept["request"].clone();
    match c
        .call(reqwest::Method::POST, "/api/v1/sessions", &body)
        .await
    {
        Ok(reply) => {
            if let Some(args) = body.as_object() {
                after("create_session", args, &reply.value);
            }
            eprintln!(
                "mobilectl: session `{name}` was gone from the server; started it again ({})",
                reply.value["id"].as_str().unwrap_or("")
            );
            true
        }
        Err(_) => false,
    }
}

/// The argument of `session start` that names a Grid hub (taken out before the request).
const GRID: &str = "grid";

/// The hub a command goes through: the one `session start --grid` names, or the one the named
/// session it runs in was started through.
pub fn grid_of(req: &Request, session: &Option<String>) -> Option<String> {
    if req.op == "create_session" {
        return req
            .args
            .get(GRID)
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    kept(session.as_deref()?)?[GRID]
        .as_str()
        .map(str::to_string)
}

/// With `session start --grid HUB`, a named session is a Grid session: it is opened through
/// the hub (its options as capabilities) and its W3C id (the session's secret) kept with the
/// defaults and the hub; every later command of `--session NAME` goes under
/// `HUB/session/{id}`; `session end` deletes it.
pub async fn through_grid(
    hub: &str,
    mut req: Request,
    g: &super::GlobalArgs,
) -> Result<super::plan::Answer, ClientError> {
    req.args.remove(GRID);
    use super::plan::{execute, Answer};
    let name = g.session.clone();
    let kept = || -> Result<Value, ClientError> {
        let name = name.as_deref().ok_or_else(|| {
            ClientError::usage("--grid runs in a named session: give --session NAME (made with `session start --name NAME`)")
        })?;
        kept(name)
            .filter(|v| v[GRID].is_string())
            .ok_or_else(|| {
                ClientError::usage(format!(
                    "no Grid session named `{name}` here: start it with `mobilectl session start --grid {hub} --name {name}`"
                ))
            })
    };
    let client_at = |base: String| {
        let opts = crate::client::ConnectOptions {
            url: base,
            token: g.token.clone(),
            autostart: false,
            session: None,
        };
        async move { Client::connect(&opts).await }
    };
    match req.op {
        "create_session" => {
            let a = &req.args;
            let wanted: CreateSession = serde_json::from_value(Value::Object(a.clone()))
                .map_err(|e| ClientError::usage(format!("the session's options: {e}")))?;
            if wanted.lazy {
                return Err(ClientError::usage(
                    "`--lazy` does not go with --grid: a Grid session holds its device from the start",
                ));
            }
            let caps = capabilities::of(&wanted);
            let (id, base) = crate::client::grid::open(hub, &caps).await?;
            let reply = client_at(base).await?.get("/api/v1/session", &[]).await?;
            if let Some(path) = a.get("name").and_then(Value::as_str).and_then(file) {
                let kept = json!({ "request": a, "id": id, GRID: hub });
                let _ = write_whole(&path, kept.to_string().as_bytes());
            }
            Ok(Answer::Json { op: req.op, reply })
        }
        "end_session" => {
            let kept = kept()?;
            let id = kept["id"].as_str().unwrap_or_default().to_string();
            let base = format!("{}/session/{id}", hub.trim_end_matches('/'));
            let info = client_at(base).await?.get("/api/v1/session", &[]).await?;
            crate::client::grid::close(hub, &id).await;
            after("end_session", &req.args, &Value::Null);
            let value = json!({ "id": id, "released": info.value["udid"] });
            Ok(Answer::Json {
                op: req.op,
                reply: crate::client::Reply {
                    raw: value.to_string(),
                    value,
                    timing_ms: None,
                },
            })
        }
        _ => {
            let kept = kept()?;
            let id = kept["id"].as_str().unwrap_or_default();
            let c = client_at(format!("{}/session/{id}", hub.trim_end_matches('/'))).await?;
            execute(&c, req, g.json).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_asks_for_a_match_or_a_device_not_both() {
        let start = |platform: Option<&str>| {
            SessionCommand::Start(StartArgs {
                name: Some("ci".into()),
                platform: platform.map(str::to_string),
                name_contains: None,
                kind: None,
                os_version: None,
                app: None,
                ttl_s: Some(60),
                wait_ms: None,
                lazy: false,
                grid: None,
            })
        };
        let r = plan(start(Some("ios")), &None).unwrap();
        assert_eq!(r.args["match"], json!({"platform": "ios"}));
        assert_eq!(r.args["ttl_s"], json!(60));
        assert!(!r.args.contains_key("udid"));
        let r = plan(start(None), &Some("emulator-5554".into())).unwrap();
        assert_eq!(r.args["udid"], json!("emulator-5554"));
        assert!(!r.args.contains_key("match"));
        assert!(plan(start(Some("ios")), &Some("x".into())).is_err());
    }

    #[test]
    fn end_defaults_to_the_session_of_the_command_line() {
        let mut end = SessionCommand::End { id: None };
        end.default_to(&Some("ci".into()));
        assert_eq!(plan(end, &None).unwrap().args["id"], json!("ci"));
        assert!(plan(SessionCommand::End { id: None }, &None).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_kept_secret_is_readable_by_its_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions").join("ci.json");
        write_whole(&path, b"{}").unwrap();
        // Written again over a file that others could read: the new one is still private.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_whole(&path, br#"{"secret":"mss-x"}"#).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read(&path).unwrap(), br#"{"secret":"mss-x"}"#);
    }

    #[test]
    fn only_session_names_become_file_names() {
        assert!(file("../etc/passwd").is_none());
        assert!(file("ci-1").is_some_and(|p| p.ends_with("sessions/ci-1.json")));
    }
}
