//! Turns a client command into its one HTTP request (checked before any connection, so a
//! usage error never starts a server), and sends it.

use reqwest::Method;
use serde_json::{json, Map, Value};

use super::client::{CliError, Client, Reply};
use super::commands::*;
use super::target::{self, Target};

/// The HTTP request a command turns into, built before any connection (so usage errors
/// never start a server).
#[derive(Debug, PartialEq)]
pub enum Request {
    /// GET answering JSON (`text: false`) or text.
    Get {
        path: String,
        query: Vec<(&'static str, String)>,
        text: bool,
    },
    /// A JSON body sent with POST or PUT.
    Call {
        method: Method,
        path: String,
        body: Value,
    },
    /// GET of an image, saved to `output`.
    Image {
        path: String,
        query: Vec<(&'static str, String)>,
        output: Option<String>,
    },
}

fn get(path: String, query: Vec<(&'static str, String)>) -> Result<Request, CliError> {
    Ok(Request::Get {
        path,
        query,
        text: false,
    })
}

fn post(path: String, body: Value) -> Result<Request, CliError> {
    Ok(Request::Call {
        method: Method::POST,
        path,
        body,
    })
}

/// What a command got back, for [`super::output`].
pub enum Answer {
    Json(Reply),
    Text(Reply),
    /// A file was written.
    Saved(Value),
}

/// Builds the body of a device route: the given fields plus `udid` when chosen.
fn body(udid: &Option<String>, fields: Value) -> Value {
    let mut m = match fields {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    m.retain(|_, v| !v.is_null());
    if let Some(u) = udid {
        m.entry("udid").or_insert_with(|| json!(u));
    }
    Value::Object(m)
}

fn with_target(t: Option<Target>, fields: Value) -> Value {
    let mut m = match fields {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    if let Some(t) = t {
        m.extend(t.fields());
    }
    Value::Object(m)
}

fn udid_query(udid: &Option<String>) -> Vec<(&'static str, String)> {
    udid.iter().map(|u| ("udid", u.clone())).collect()
}

const API: &str = "/api/v1/device";

/// Sends a planned request.
pub async fn execute(c: &Client, req: Request) -> Result<Answer, CliError> {
    match req {
        Request::Get { path, query, text } => {
            let r = c.get(&path, &query).await?;
            Ok(if text {
                Answer::Text(r)
            } else {
                Answer::Json(r)
            })
        }
        Request::Call { method, path, body } => {
            c.call(method, &path, &body).await.map(Answer::Json)
        }
        Request::Image {
            path,
            query,
            output,
        } => save_image(c, &path, &query, output).await,
    }
}

/// Turns a client command into its request, checking its arguments.
pub fn plan(
    cmd: ClientCommand,
    udid: &Option<String>,
    json_out: bool,
) -> Result<Request, CliError> {
    let usage = |m: String| CliError::usage(m);
    match cmd {
        ClientCommand::Devices => get(format!("{API}/list"), vec![]),
        ClientCommand::Use { device: u, clear } => {
            if u.is_none() && !clear {
                return Err(CliError::usage(
                    "give a UDID, or --clear to forget the active device",
                ));
            }
            Ok(Request::Call {
                method: Method::PUT,
                path: format!("{API}/active"),
                body: json!({ "udid": u }),
            })
        }
        ClientCommand::Doctor => get("/api/v1/doctor".into(), vec![]),
        ClientCommand::Boot {
            device: u,
            avd,
            no_wait,
            timeout_ms,
        } => {
            let u = u.or_else(|| if avd.is_none() { udid.clone() } else { None });
            if u.is_none() && avd.is_none() {
                return Err(CliError::usage(
                    "give a simulator UDID or name, or --avd NAME",
                ));
            }
            let b = json!({"udid": u, "avd": avd, "wait": no_wait.then_some(false),
                "timeout_ms": timeout_ms});
            post(format!("{API}/boot"), body(&None, b))
        }
        ClientCommand::Shutdown { device: u } => {
            let u = u.or_else(|| udid.clone());
            post(format!("{API}/shutdown"), body(&u, json!({})))
        }
        ClientCommand::App(a) => Ok(plan_app(a, udid)),
        ClientCommand::Open { url } => {
            post(format!("{API}/open-url"), body(udid, json!({ "url": url })))
        }
        ClientCommand::Snapshot(s) => {
            let mut q = udid_query(udid);
            let json = json_out || s.format == Some(super::offline::DumpFormat::Json);
            q.push(("format", if json { "json" } else { "text" }.into()));
            if s.interactive_only {
                q.push(("interactive_only", "true".into()));
            }
            Ok(Request::Get {
                path: format!("{API}/ui"),
                query: q,
                text: !json,
            })
        }
        ClientCommand::Summary => get(format!("{API}/screen-summary"), udid_query(udid)),
        ClientCommand::Find { query, limit } => {
            let mut q = udid_query(udid);
            q.push(("query", query));
            if let Some(l) = limit {
                q.push(("limit", l.to_string()));
            }
            get(format!("{API}/ui/find"), q)
        }
        ClientCommand::Tap(t) => {
            let tg = target::parse_one(&t.target, t.m.get()).map_err(usage)?;
            let b = with_target(Some(tg), json!({ "observe": t.observe }));
            post(format!("{API}/ui/tap"), body(udid, b))
        }
        ClientCommand::LongPress { t, duration_ms } => {
            let tg = target::parse_one(&t.target, t.m.get()).map_err(usage)?;
            let b = json!({ "observe": t.observe, "duration_ms": duration_ms });
            post(
                format!("{API}/ui/long-press"),
                body(udid, with_target(Some(tg), b)),
            )
        }
        ClientCommand::Swipe {
            from,
            to,
            direction,
            duration_ms,
            m,
            observe,
        } => {
            let base = json!({ "observe": observe, "duration_ms": duration_ms,
                "direction": direction.as_ref().map(name) });
            let b = match (&to, direction) {
                (Some(to), None) => {
                    let (fx, fy) = target::parse_point_arg(&from).map_err(usage)?;
                    let (tx, ty) = target::parse_point_arg(to).map_err(usage)?;
                    let mut b = base;
                    b["from"] = json!({"x": fx, "y": fy});
                    b["to"] = json!({"x": tx, "y": ty});
                    b
                }
                (None, Some(_)) => {
                    let tg = target::parse(&from, m.get()).map_err(usage)?;
                    with_target(Some(tg), base)
                }
                _ => {
                    return Err(CliError::usage(
                        "give FROM TO (two points), or TARGET --direction DIR",
                    ))
                }
            };
            post(format!("{API}/ui/swipe"), body(udid, b))
        }
        ClientCommand::Scroll {
            target: t,
            direction,
            m,
            observe,
        } => {
            let tg = target::parse_opt(&t, m.get()).map_err(usage)?;
            let b = json!({ "observe": observe, "direction": direction.as_ref().map(name) });
            post(format!("{API}/ui/scroll"), body(udid, with_target(tg, b)))
        }
        ClientCommand::ScrollTo {
            selector,
            direction,
            max_scrolls,
            m,
        } => {
            let s = target::parse_selector(&selector, m.get()).map_err(usage)?;
            let b = json!({ "selector": s.to_json(), "max_scrolls": max_scrolls,
                "direction": direction.as_ref().map(name) });
            post(format!("{API}/ui/scroll-to"), body(udid, b))
        }
        ClientCommand::Type {
            text,
            target: t,
            clear,
            submit,
            no_verify,
            m,
        } => {
            let tg = target::parse_opt(&t, m.get()).map_err(usage)?;
            let b = json!({ "text": text, "clear": clear, "submit": submit,
                "verify": !no_verify });
            post(format!("{API}/ui/type"), body(udid, with_target(tg, b)))
        }
        ClientCommand::Press { key, observe } => {
            let b = match key.parse::<u32>() {
                Ok(code) => json!({ "keycode": code, "observe": observe }),
                Err(_) => json!({ "key": key.to_ascii_lowercase(), "observe": observe }),
            };
            post(format!("{API}/ui/press"), body(udid, b))
        }
        ClientCommand::Wait {
            selector,
            condition,
            text,
            timeout_ms,
            poll_interval_ms,
            m,
        } => {
            let s = target::parse_selector(&selector, m.get()).map_err(usage)?;
            let b = json!({ "selector": s.to_json(), "condition": name(&condition),
                "text": text, "timeout_ms": timeout_ms, "poll_interval_ms": poll_interval_ms });
            post(format!("{API}/ui/wait"), body(udid, b))
        }
        ClientCommand::Expect(e) => {
            let b = expectation(e)?;
            post(format!("{API}/ui/expect"), body(udid, b))
        }
        ClientCommand::Screenshot(s) => Ok(plan_screenshot(s, udid)),
        ClientCommand::Alert(a) => {
            let (path, button) = match a {
                AlertCommand::Accept => ("accept", None),
                AlertCommand::Dismiss => ("dismiss", None),
                AlertCommand::Button { label } => ("accept", Some(label)),
            };
            let b = json!({ "button": button });
            post(format!("{API}/alert/{path}"), body(udid, b))
        }
        ClientCommand::Location { lat, lon, clear } => {
            let b = if clear {
                json!({ "clear": true })
            } else {
                json!({ "latitude": lat, "longitude": lon })
            };
            post(format!("{API}/location"), body(udid, b))
        }
        ClientCommand::Permission {
            action,
            bundle_id,
            permission,
        } => {
            let b = json!({ "action": name(&action), "bundle_id": bundle_id,
                "permission": permission });
            post(format!("{API}/permission"), body(udid, b))
        }
    }
}

fn plan_app(a: AppCommand, udid: &Option<String>) -> Request {
    let (path, b) = match a {
        AppCommand::List => {
            return Request::Get {
                path: format!("{API}/app/list"),
                query: udid_query(udid),
                text: false,
            }
        }
        AppCommand::Install { path } => ("install", json!({ "path": path })),
        AppCommand::Launch {
            bundle_id,
            relaunch,
            activity,
            arguments,
        } => (
            "launch",
            json!({ "bundle_id": bundle_id, "relaunch": relaunch, "activity": activity,
                "arguments": (!arguments.is_empty()).then_some(arguments) }),
        ),
        AppCommand::Terminate { bundle_id } => ("terminate", json!({ "bundle_id": bundle_id })),
        AppCommand::Reset { bundle_id } => ("reset", json!({ "bundle_id": bundle_id })),
    };
    Request::Call {
        method: Method::POST,
        path: format!("{API}/app/{path}"),
        body: body(udid, b),
    }
}

fn expectation(e: ExpectCommand) -> Result<Value, CliError> {
    let sel = |args: &[String], m: ModifierArgs| {
        target::parse_selector(args, m.get())
            .map(|s| s.to_json())
            .map_err(CliError::usage)
    };
    Ok(match e {
        ExpectCommand::Visible { selector, m } => {
            json!({ "kind": "element_visible", "selector": sel(&selector, m)? })
        }
        ExpectCommand::NotVisible { selector, m } => {
            json!({ "kind": "element_not_visible", "selector": sel(&selector, m)? })
        }
        ExpectCommand::Text { selector, text, m } => {
            json!({ "kind": "element_has_text", "selector": sel(&[selector], m)?, "text": text })
        }
        ExpectCommand::App { bundle_id } => json!({ "kind": "foreground_app", "app": bundle_id }),
        ExpectCommand::Activity { activity } => {
            json!({ "kind": "foreground_activity", "activity": activity })
        }
        ExpectCommand::Screen { fingerprint } => {
            json!({ "kind": "screen", "fingerprint": fingerprint })
        }
    })
}

/// `GET /screenshot` (or `/screenshot/annotated`) to a file. Only the flags given are sent,
/// so a server without the image options still answers the plain form.
fn plan_screenshot(s: ScreenshotArgs, udid: &Option<String>) -> Request {
    let mut q = udid_query(udid);
    if let Some(f) = s.format {
        q.push(("format", name(&f)));
    }
    for (k, v) in [
        ("scale", s.scale.map(|v| v.to_string())),
        ("quality", s.quality.map(|v| v.to_string())),
        ("max_size", s.max_size.map(|v| v.to_string())),
    ] {
        if let Some(v) = v {
            q.push((k, v));
        }
    }
    if s.interactive_only {
        q.push(("interactive_only", "true".into()));
    }
    if s.grid {
        q.push(("grid", "true".into()));
    }
    let path = if s.annotate {
        format!("{API}/screenshot/annotated")
    } else {
        format!("{API}/screenshot")
    };
    Request::Image {
        path,
        query: q,
        output: s.output,
    }
}

async fn save_image(
    c: &Client,
    path: &str,
    query: &[(&'static str, String)],
    output: Option<String>,
) -> Result<Answer, CliError> {
    let (bytes, ctype) = c.get_bytes(path, query).await?;
    let ext = if ctype.contains("jpeg") { "jpg" } else { "png" };
    let out = output.unwrap_or_else(|| format!("screenshot.{ext}"));
    if out == "-" {
        use std::io::Write;
        std::io::stdout()
            .write_all(&bytes)
            .map_err(|e| CliError::local(1, "IO", e.to_string(), None))?;
    } else {
        std::fs::write(&out, &bytes)
            .map_err(|e| CliError::local(1, "IO", format!("cannot write {out}: {e}"), None))?;
    }
    Ok(Answer::Saved(
        json!({ "path": out, "bytes": bytes.len(), "content_type": ctype }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn plan_of(args: &[&str]) -> Result<Request, CliError> {
        let cli = Cli::try_parse_from(std::iter::once("mobilectl").chain(args.iter().copied()))
            .expect("parses");
        let Command::Client(cmd) = cli.command else {
            panic!("not a client command")
        };
        plan(cmd, &cli.global.udid, cli.global.json)
    }

    fn body_of(args: &[&str]) -> (String, Value) {
        match plan_of(args).unwrap() {
            Request::Call { path, body, .. } => (path, body),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn action_bodies() {
        assert_eq!(
            body_of(&["type", "hi there", "@e3", "--clear", "-d", "emu"]),
            (
                "/api/v1/device/ui/type".into(),
                json!({"text": "hi there", "ref": "e3", "clear": true, "submit": false,
                       "verify": true, "udid": "emu"})
            )
        );
        assert_eq!(
            body_of(&["swipe", "1,2", "3,4"]).1,
            json!({"from": {"x": 1.0, "y": 2.0}, "to": {"x": 3.0, "y": 4.0}, "observe": false})
        );
        assert_eq!(
            body_of(&["swipe", "id:list", "--direction", "up"]).1,
            json!({"selector": {"id": "list"}, "direction": "up", "observe": false})
        );
        assert_eq!(
            body_of(&["press", "4"]).1,
            json!({"keycode": 4, "observe": false})
        );
        assert_eq!(
            body_of(&["expect", "text", "id:title", "Inbox"]).1,
            json!({"kind": "element_has_text", "selector": {"id": "title"}, "text": "Inbox"})
        );
        assert_eq!(
            body_of(&["wait", "text:Allow", "--condition", "not_exists"]).1,
            json!({"selector": {"text": "Allow"}, "condition": "not_exists"})
        );
        assert_eq!(
            body_of(&["alert", "button", "Later"]),
            (
                "/api/v1/device/alert/accept".into(),
                json!({"button": "Later"})
            )
        );
        assert_eq!(
            body_of(&["location", "48.85", "-2.35"]).1,
            json!({"latitude": 48.85, "longitude": -2.35})
        );
        // The device flag does not name the emulator to boot.
        assert_eq!(
            body_of(&["boot", "--avd", "Pixel", "-d", "x"]).1,
            json!({"avd": "Pixel"})
        );
    }

    #[test]
    fn gets_and_usage_errors() {
        assert_eq!(
            plan_of(&["snapshot", "-i"]).unwrap(),
            Request::Get {
                path: "/api/v1/device/ui".into(),
                query: vec![
                    ("format", "text".into()),
                    ("interactive_only", "true".into())
                ],
                text: true,
            }
        );
        assert!(matches!(
            plan_of(&["--json", "snapshot"]).unwrap(),
            Request::Get { text: false, .. }
        ));
        for bad in [
            &["tap", "@e1", "1,2"][..],
            &["tap"],
            &["wait", "@e1"],
            &["swipe", "1,2"],
            &["use"],
        ] {
            assert_eq!(plan_of(bad).unwrap_err().exit, 2, "{bad:?}");
        }
    }
}
