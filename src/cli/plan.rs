//! Turns a client command into a [`Request`]: the NAME of an operation of the API table plus
//! its arguments, checked before any connection (so a usage error never starts a server).
//! Method, path, and whether the arguments travel as query or JSON body come from the table
//! ([`crate::api::find`]) in [`Request::http`]; no route is written here.

use serde_json::{json, Map, Value};

use super::commands::*;
use super::target::{self, Target};
use crate::client::{exit, ClientError};

/// One operation to call, with its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The operation's name in the API table.
    pub op: &'static str,
    /// Its arguments by field name: path parameters, then query parameters or body fields.
    pub args: Map<String, Value>,
    /// For an image answer: the file to write (`-` for stdout; default `screenshot.EXT`).
    pub output: Option<String>,
}

impl Request {
    pub(super) fn new(op: &'static str, fields: Value) -> Request {
        let mut args = match fields {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        args.retain(|_, v| !v.is_null());
        Request {
            op,
            args,
            output: None,
        }
    }

    /// The same request on the chosen device: `udid` added unless already given.
    fn on(mut self, udid: &Option<String>) -> Request {
        if let Some(u) = udid {
            self.args.entry("udid").or_insert_with(|| json!(u));
        }
        self
    }

    /// The HTTP form of this request, from the operation table.
    pub fn http(&self) -> Result<Http, ClientError> {
        use crate::api::Output;
        let op = crate::api::find(self.op).ok_or_else(|| {
            ClientError::local(
                exit::FAILED,
                "CLIENT",
                format!("this mobilectl has no operation `{}`", self.op),
                None,
            )
        })?;
        let call =
            crate::api::call::http_call(op.method, op.path, op.input.kind(), self.args.clone())
                .map_err(|e| match e {
                    crate::api::call::ArgumentError::MissingPathParameter(_) => {
                        ClientError::usage(e.to_string())
                    }
                    crate::api::call::ArgumentError::TakesNone(_) => ClientError::local(
                        exit::FAILED,
                        "CLIENT",
                        format!("`{}` {e}", op.name),
                        None,
                    ),
                })?;
        let answer = match op.output {
            Output::Image | Output::File(_) => AnswerKind::Binary,
            Output::JsonOrBytes(_) if self.args.contains_key(Output::BYTES_SWITCH) => {
                AnswerKind::Binary
            }
            Output::EventStream(_) => AnswerKind::Stream,
            Output::JsonOrText(_) if self.args.get("format") == Some(&json!("text")) => {
                AnswerKind::Text
            }
            Output::Json(_) | Output::JsonOrText(_) | Output::JsonOrBytes(_) => AnswerKind::Json,
        };
        Ok(Http {
            method: op.method,
            path: call.path,
            query: call.query,
            body: call.body,
            answer,
        })
    }
}

/// A request as HTTP.
#[derive(Debug, PartialEq)]
pub struct Http {
    /// The operation's HTTP method.
    pub method: crate::api::HttpMethod,
    /// The path with its parameters filled in.
    pub path: String,
    /// The query parameters (name, value).
    pub query: Vec<(String, String)>,
    /// The JSON body, for operations that take one.
    pub body: Option<Value>,
    /// What a successful answer is, which decides how it is printed.
    pub answer: AnswerKind,
}

/// What a successful answer is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AnswerKind {
    /// A JSON answer, rendered as text (or printed as is with `--json`).
    Json,
    /// A `text/plain` answer (`format=text`), printed as it is.
    Text,
    /// Bytes to save (an image, a recorded body).
    Binary,
    /// Server-Sent Events, printed as they come.
    Stream,
}

/// What a command got back, for [`super::output`].
pub enum Answer {
    /// Operation `op`'s JSON answer.
    Json {
        /// The operation's name.
        op: &'static str,
        /// The server's reply.
        reply: crate::client::Reply,
    },
    /// A `text/plain` answer.
    Text(crate::client::Reply),
    /// A file was written.
    Saved(Value),
    /// A stream was printed as it came; the exit code its verdict gave.
    Streamed(i32),
}

impl ObserveArgs {
    /// `observe` and, when given, `settle_ms`.
    fn fields(&self) -> Value {
        let mut f = json!({ "observe": self.observe, "settle_ms": self.settle_ms });
        if self.measure {
            f["measure"] = json!(true);
        }
        f
    }
}

/// The fields of `a` and `b` in one object (`b` wins).
fn merged(a: Value, b: Value) -> Value {
    let mut m = match a {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    if let Value::Object(more) = b {
        m.extend(more);
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

/// Sends a planned request.
pub async fn execute(
    c: &crate::client::Client,
    req: Request,
    json: bool,
) -> Result<Answer, ClientError> {
    use crate::api::HttpMethod;
    let h = req.http()?;
    let query: Vec<(&str, String)> = h
        .query
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    match (h.answer, h.method) {
        (AnswerKind::Binary, _) => save_bytes(c, &h.path, &query, req.output).await,
        (AnswerKind::Stream, _) => {
            let mut verdict = crate::client::exit::OK;
            let streamed = c
                .stream(&h.path, &query, h.body.as_ref(), |data| {
                    if let Some(code) = super::output::event(req.op, data, json) {
                        verdict = code;
                    }
                })
                .await;
            super::output::end_progress();
            streamed?;
            Ok(Answer::Streamed(verdict))
        }
        (kind, HttpMethod::Get) => {
            let r = c.get(&h.path, &query).await?;
            Ok(match kind {
                AnswerKind::Text => {
                    super::repl::remember_refs(req.op, || r.raw.clone());
                    Answer::Text(r)
                }
                _ if req.op == "debug_bundle" && req.output.is_some() => {
                    save_bundle(r, req.output.as_deref().unwrap_or("."))?
                }
                _ => Answer::Json {
                    op: req.op,
                    reply: r,
                },
            })
        }
        (_, m) => {
            let method =
                reqwest::Method::from_bytes(m.as_str().as_bytes()).unwrap_or(reqwest::Method::POST);
            let body = h.body.unwrap_or_else(|| json!({}));
            let op = req.op;
            let reply = c.call(method, &h.path, &body).await?;
            match (op, req.output.as_deref()) {
                ("screenshot_diff", Some(path)) => save_diff_image(reply, path),
                _ => Ok(Answer::Json { op, reply }),
            }
        }
    }
}

/// `boot UDID` (a simulator) or `boot --avd NAME` (an emulator).
fn plan_boot(
    device: Option<String>,
    avd: Option<String>,
    no_wait: bool,
    timeout_ms: Option<u64>,
    udid: &Option<String>,
) -> Result<Request, ClientError> {
    // The device flag names a simulator to boot, never alongside an emulator.
    let u = device.or_else(|| if avd.is_none() { udid.clone() } else { None });
    if u.is_none() && avd.is_none() {
        return Err(ClientError::usage(
            "give a simulator UDID or name, or --avd NAME",
        ));
    }
    Ok(Request::new(
        "boot",
        json!({"udid": u, "avd": avd, "wait": no_wait.then_some(false),
            "timeout_ms": timeout_ms}),
    ))
}

/// `connect HOST:PORT`: an Android device over TCP (a bracketed IPv6 host too).
fn plan_connect(address: &str) -> Result<Request, ClientError> {
    let (host, port) = address
        .rsplit_once(':')
        .and_then(|(h, p)| Some((h, p.parse::<u16>().ok()?)))
        .filter(|(h, _)| !h.is_empty() && (!h.contains(':') || h.starts_with('[')))
        .ok_or_else(|| {
            ClientError::usage(format!(
                "`{address}`: give HOST:PORT (e.g. 192.168.1.20:5555, [fd00::7]:5555)"
            ))
        })?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Ok(Request::new(
        "connect_device",
        json!({ "host": host, "port": port }),
    ))
}

/// `swipe FROM TO` (two points) or `swipe TARGET --direction DIR`.
fn plan_swipe(
    from: &str,
    to: Option<&str>,
    direction: Option<String>,
    duration_ms: Option<u64>,
    m: &ModifierArgs,
    o: &ObserveArgs,
) -> Result<Request, ClientError> {
    let base = merged(
        json!({ "duration_ms": duration_ms, "direction": direction }),
        o.fields(),
    );
    let b = match (to, direction) {
        (Some(to), None) => {
            let (fx, fy) = target::parse_point_arg(from).map_err(ClientError::usage)?;
            let (tx, ty) = target::parse_point_arg(to).map_err(ClientError::usage)?;
            let mut b = base;
            b["from"] = json!({"x": fx, "y": fy});
            b["to"] = json!({"x": tx, "y": ty});
            b
        }
        (None, Some(_)) => {
            let tg = target::parse(from, m.get()).map_err(ClientError::usage)?;
            with_target(Some(tg), base)
        }
        _ => {
            return Err(ClientError::usage(
                "give FROM TO (two points), or TARGET --direction DIR",
            ))
        }
    };
    Ok(Request::new("swipe", b))
}

/// `tap-element LABEL`, `--id` and `--type`: at least one of them.
fn plan_tap_element(
    label: Option<String>,
    id: Option<String>,
    element_type: Option<String>,
    contains: bool,
    index: Option<u32>,
    o: &ObserveArgs,
) -> Result<Request, ClientError> {
    if label.is_none() && id.is_none() && element_type.is_none() {
        return Err(ClientError::usage(
            "give a LABEL, --id IDENTIFIER and/or --type ROLE",
        ));
    }
    Ok(Request::new(
        "tap_element",
        merged(
            json!({ "label": label, "identifier": id, "element_type": element_type,
                "contains": contains.then_some(true), "index": index }),
            o.fields(),
        ),
    ))
}

/// Turns a client command into its request, checking its arguments.
pub fn plan(
    cmd: ClientCommand,
    udid: &Option<String>,
    json_out: bool,
) -> Result<Request, ClientError> {
    let usage = |m: String| ClientError::usage(m);
    let call = Request::new;
    Ok(match cmd {
        ClientCommand::Use { device: u, clear } => {
            if u.is_none() && !clear {
                return Err(ClientError::usage(
                    "give a UDID, or --clear to forget the active device",
                ));
            }
            // `udid: null` (forget) is meaningful here, so it is kept.
            let mut r = call("set_active_device", json!({}));
            r.args.insert("udid".into(), json!(u));
            r
        }
        ClientCommand::Boot {
            device,
            avd,
            no_wait,
            timeout_ms,
        } => plan_boot(device, avd, no_wait, timeout_ms, udid)?,
        ClientCommand::Connect { address } => plan_connect(&address)?,
        ClientCommand::App(AppCommand::Build(b)) => super::build::plan(b, json_out).on(udid),
        ClientCommand::App(a) => plan_app(a).on(udid),
        ClientCommand::Proxy(p) => super::proxy::plan(p),
        ClientCommand::Session(s) => super::session::plan(s, udid)?,
        ClientCommand::Flow(f) => super::flow::plan(f, udid, json_out)?,
        // The JSON, told by the snapshot's renderer as MCP tells it (`--json`: the JSON);
        // `--format text` asks for the server's own text, whose header also names the device
        // and the fingerprint.
        ClientCommand::Audit(a) => call("audit", super::audit::body(&a).map_err(usage)?).on(udid),
        ClientCommand::Snapshot(s) => call(
            "snapshot",
            json!({ "format": s.format.as_deref().filter(|_| !json_out).unwrap_or("json"),
                "interactive_only": s.interactive_only.then_some(true) }),
        )
        .on(udid),
        ClientCommand::Tap(t) => {
            let tg = target::parse_one(&t.target, t.m.get()).map_err(usage)?;
            call("tap", with_target(Some(tg), t.o.fields())).on(udid)
        }
        ClientCommand::TapElement {
            label,
            id,
            element_type,
            contains,
            index,
            o,
        } => plan_tap_element(label, id, element_type, contains, index, &o)?.on(udid),
        ClientCommand::LongPress { t, duration_ms } => {
            let tg = target::parse_one(&t.target, t.m.get()).map_err(usage)?;
            let b = merged(json!({ "duration_ms": duration_ms }), t.o.fields());
            call("long_press", with_target(Some(tg), b)).on(udid)
        }
        ClientCommand::Swipe {
            from,
            to,
            direction,
            duration_ms,
            m,
            o,
        } => plan_swipe(&from, to.as_deref(), direction, duration_ms, &m, &o)?.on(udid),
        ClientCommand::Scroll {
            target: t,
            direction,
            m,
            o,
        } => {
            let tg = target::parse_opt(&t, m.get()).map_err(usage)?;
            let b = merged(json!({ "direction": direction }), o.fields());
            call("scroll", with_target(tg, b)).on(udid)
        }
        ClientCommand::ScrollTo {
            selector,
            direction,
            max_scrolls,
            m,
        } => {
            let s = target::parse_selector(&selector, m.get()).map_err(usage)?;
            let b = json!({ "selector": s.to_json(), "max_scrolls": max_scrolls,
                "direction": direction });
            call("scroll_to", b).on(udid)
        }
        ClientCommand::Type {
            words,
            clear,
            submit,
            no_verify,
            measure,
            m,
        } => {
            let (text, tg) = target::text_and_target(&words, m.get()).map_err(usage)?;
            let mut b = json!({ "text": text, "clear": clear, "submit": submit,
                "verify": !no_verify });
            if measure {
                b["measure"] = json!(true);
            }
            call("type_text", with_target(tg, b)).on(udid)
        }
        ClientCommand::Press { key, o } => {
            let b = match key.parse::<u32>() {
                Ok(code) => json!({ "keycode": code }),
                Err(_) => json!({ "key": key.to_ascii_lowercase() }),
            };
            let b = merged(b, o.fields());
            call("press", b).on(udid)
        }
        ClientCommand::Batch(b) => call("batch", super::batch::body(b)?).on(udid),
        ClientCommand::Wait {
            selector,
            condition,
            text,
            timeout_ms,
            poll_interval_ms,
            m,
        } => {
            let s = target::parse_selector(&selector, m.get()).map_err(usage)?;
            let b = json!({ "selector": s.to_json(), "condition": condition,
                "text": text, "timeout_ms": timeout_ms, "poll_interval_ms": poll_interval_ms });
            call("wait", b).on(udid)
        }
        ClientCommand::Expect(e) => call("expect", expectation(e)?).on(udid),
        ClientCommand::Screenshot(ScreenshotArgs {
            command: Some(ScreenshotCommand::Diff(d)),
            ..
        }) => plan_diff(d)?.on(udid),
        ClientCommand::Screenshot(s) => plan_screenshot(s).on(udid),
        ClientCommand::DebugBundle {
            output,
            since,
            lines,
        } => {
            let mut r = call("debug_bundle", json!({ "since": since, "lines": lines })).on(udid);
            r.output = output;
            r
        }
        ClientCommand::Alert(AlertCommand::Button { label }) => {
            call("alert_accept", json!({ "button": label })).on(udid)
        }
        ClientCommand::Call(a) => super::call::plan(a, udid)?,
    })
}

fn plan_app(a: AppCommand) -> Request {
    match a {
        AppCommand::Build(b) => super::build::plan(b, false),
        AppCommand::Launch {
            bundle_id,
            relaunch,
            activity,
            extras,
            clear_keychain,
            repeat,
            cold,
            warm,
            measure,
            arguments,
        } => {
            let extras: Map<String, Value> = extras
                .into_iter()
                .map(|(k, v)| (k, json!(crate::device::LaunchValue::from_plain(&v))))
                .collect();
            Request::new(
                "launch_app",
                json!({ "bundle_id": bundle_id, "relaunch": relaunch, "activity": activity,
                    "extras": (!extras.is_empty()).then_some(extras),
                    "clear_keychain": clear_keychain.then_some(true), "repeat": repeat,
                    "cold": cold.then_some(true).or(warm.then_some(false)),
                    "measure": measure.then_some(true),
                    "arguments": (!arguments.is_empty()).then_some(arguments) }),
            )
        }
    }
}

fn expectation(e: ExpectCommand) -> Result<Value, ClientError> {
    let sel = |args: &[String], m: ModifierArgs| {
        target::parse_selector(args, m.get())
            .map(|s| s.to_json())
            .map_err(ClientError::usage)
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
        ExpectCommand::Accessible { baseline, fail_on } => {
            let baseline = baseline
                .as_deref()
                .map(super::audit::read_baseline)
                .transpose()
                .map_err(|e| ClientError::local(1, "IO", e, None))?;
            json!({ "kind": "accessible", "audit_baseline": baseline, "fail_on": fail_on })
        }
        ExpectCommand::Matches(a) => merged(
            a.baseline.fields()?,
            json!({ "kind": "screen_matches", "tolerance": a.tolerance,
                "timeout_ms": a.timeout_ms }),
        ),
    })
}

/// A screenshot (plain or annotated) to a file. Only the flags given are sent, so a server
/// without the image options still answers the plain form.
fn plan_screenshot(s: ScreenshotArgs) -> Request {
    let op = if s.annotate {
        "screenshot_annotated"
    } else {
        "screenshot"
    };
    let mut r = Request::new(
        op,
        json!({ "format": s.format, "scale": s.scale,
            "quality": s.quality, "max_size": s.max_size,
            "interactive_only": s.interactive_only.then_some(true),
            "grid": s.grid.then_some(true) }),
    );
    r.output = s.output;
    r
}

/// `screenshot diff`: the baseline file read here and sent as base64 (so the server needs no
/// access to it), masks parsed from `X,Y,WIDTH,HEIGHT`, and `save` when the outlined image is
/// to be written (`-o`).
fn plan_diff(d: DiffArgs) -> Result<Request, ClientError> {
    let mut r = Request::new(
        "screenshot_diff",
        merged(
            d.baseline.fields()?,
            json!({ "channel_threshold": d.channel_threshold,
                "save": d.output.is_some().then_some(true) }),
        ),
    );
    r.output = d.output;
    Ok(r)
}

impl BaselineArgs {
    /// `baseline`, `mask` and `mask_status_bar` of a diff or of `expect matches`.
    fn fields(&self) -> Result<Value, ClientError> {
        Ok(json!({
            "baseline": baseline_json(self.file.as_deref(), self.artifact.as_deref())?,
            "mask": masks_json(&self.mask)?,
            "mask_status_bar": self.with_status_bar.then_some(false),
        }))
    }
}

/// The `baseline` of a diff or of `expect matches`: a local PNG file as base64, a run
/// artifact (`RUN/NAME`), else `previous`.
fn baseline_json(file: Option<&str>, artifact: Option<&str>) -> Result<Value, ClientError> {
    use base64::Engine;
    let usage = ClientError::usage;
    Ok(match (file, artifact) {
        (Some(path), _) => {
            let bytes = std::fs::read(path).map_err(|e| {
                ClientError::local(1, "IO", format!("cannot read {path}: {e}"), None)
            })?;
            json!({ "png": base64::engine::general_purpose::STANDARD.encode(bytes) })
        }
        (None, Some(a)) => {
            let (run, name) = a
                .split_once('/')
                .filter(|(r, n)| !r.is_empty() && !n.is_empty())
                .ok_or_else(|| usage(format!("--artifact takes RUN/NAME, got `{a}`")))?;
            json!({ "artifact": { "run": run, "name": name } })
        }
        (None, None) => json!({ "previous": true }),
    })
}

/// `--mask X,Y,WIDTH,HEIGHT` flags as rectangles (`null` when none).
fn masks_json(flags: &[String]) -> Result<Value, ClientError> {
    let usage = ClientError::usage;
    let mut masks = Vec::new();
    for m in flags {
        let v: Vec<f64> = m
            .split(',')
            .map(|p| p.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| usage(format!("--mask takes X,Y,WIDTH,HEIGHT, got `{m}`")))?;
        let [x, y, width, height] = v[..] else {
            return Err(usage(format!("--mask takes X,Y,WIDTH,HEIGHT, got `{m}`")));
        };
        masks.push(json!({ "x": x, "y": y, "width": width, "height": height }));
    }
    Ok(json!((!masks.is_empty()).then_some(masks)))
}

/// Writes a diff's outlined image to `path`; the answer printed says where instead of
/// carrying the base64.
fn save_diff_image(mut r: crate::client::Reply, path: &str) -> Result<Answer, ClientError> {
    use base64::Engine;
    let io = |what: String| ClientError::local(1, "IO", what, None);
    if let Some(b64) = r.value["image"]["base64"].as_str() {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| io(format!("the diff's image is not base64: {e}")))?;
        std::fs::write(path, bytes).map_err(|e| io(format!("cannot write {path}: {e}")))?;
        r.value["image"] = json!({ "file": path });
        if let Ok(mut raw) = serde_json::from_str::<Value>(&r.raw) {
            raw["image"] = json!({ "file": path });
            r.raw = raw.to_string();
        }
    }
    Ok(Answer::Json {
        op: "screenshot_diff",
        reply: r,
    })
}

/// Writes a debug bundle to `dir`: `screenshot.jpg` (when there is one) and `bundle.json`
/// (the answer, its screenshot replaced by the file's name). The answer printed says where.
fn save_bundle(mut r: crate::client::Reply, dir: &str) -> Result<Answer, ClientError> {
    use base64::Engine;
    let io = |what: String| ClientError::local(1, "IO", what, None);
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir)
        .map_err(|e| io(format!("cannot create {}: {e}", dir.display())))?;
    let mut saved = Vec::new();
    let mut bundle = r.value.clone();
    if let Some(b64) = bundle["screenshot"]["base64"].as_str() {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| io(format!("the bundle's screenshot is not base64: {e}")))?;
        let path = dir.join("screenshot.jpg");
        std::fs::write(&path, bytes)
            .map_err(|e| io(format!("cannot write {}: {e}", path.display())))?;
        bundle["screenshot"]["base64"] = json!(null);
        bundle["screenshot"]["file"] = json!("screenshot.jpg");
        saved.push(path.display().to_string());
    }
    let path = dir.join("bundle.json");
    let text = serde_json::to_string_pretty(&bundle).unwrap_or_default();
    std::fs::write(&path, text).map_err(|e| io(format!("cannot write {}: {e}", path.display())))?;
    saved.push(path.display().to_string());
    r.value["saved"] = json!(saved);
    // With --json, what was written (the screenshot's bytes are in the file, not on stdout).
    r.raw = json!({ "saved": saved }).to_string();
    Ok(Answer::Json {
        op: "debug_bundle",
        reply: r,
    })
}

/// Writes a binary answer to `output`: a file, or `-` for stdout. An image goes to
/// `screenshot.png`/`.jpg` by default, other bytes to stdout.
async fn save_bytes(
    c: &crate::client::Client,
    path: &str,
    query: &[(&str, String)],
    output: Option<String>,
) -> Result<Answer, ClientError> {
    let (bytes, ctype) = c.get_bytes(path, query).await?;
    let default = match ctype.as_str() {
        t if t.starts_with("image/jpeg") => "screenshot.jpg",
        t if t.starts_with("image/") => "screenshot.png",
        _ => "-",
    };
    let out = output.unwrap_or_else(|| default.to_string());
    if out == "-" {
        use std::io::Write;
        std::io::stdout()
            .write_all(&bytes)
            .map_err(|e| ClientError::local(1, "IO", e.to_string(), None))?;
    } else {
        std::fs::write(&out, &bytes)
            .map_err(|e| ClientError::local(1, "IO", format!("cannot write {out}: {e}"), None))?;
    }
    Ok(Answer::Saved(
        json!({ "path": out, "bytes": bytes.len(), "content_type": ctype }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::HttpMethod;
    use crate::cli::Command;
    use std::collections::BTreeSet;

    fn plan_of(args: &[&str]) -> Result<Request, ClientError> {
        let parsed =
            crate::cli::parse_from(std::iter::once("mobilectl").chain(args.iter().copied()))
                .unwrap_or_else(|e| panic!("{args:?} does not parse: {e}"));
        let cli = match parsed {
            crate::cli::Parsed::Cli(cli) => *cli,
            crate::cli::Parsed::Derived(_, r) => return Ok(r),
        };
        let Command::Client(cmd) = cli.command else {
            panic!("not a client command")
        };
        plan(cmd, &cli.global.udid, cli.global.json)
    }

    fn http_of(args: &[&str]) -> Http {
        plan_of(args).unwrap().http().unwrap()
    }

    fn body_of(args: &[&str]) -> (String, Value) {
        let h = http_of(args);
        (
            h.path,
            h.body.unwrap_or_else(|| panic!("{args:?}: no body")),
        )
    }

    #[test]
    fn screenshot_diff_reads_the_baseline_here_and_parses_masks() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("base.png");
        std::fs::write(&png, b"\x89PNG\r\n\x1a\n").unwrap();
        let out = dir.path().join("d.png");
        let (path, body) = body_of(&[
            "screenshot",
            "diff",
            "--baseline",
            png.to_str().unwrap(),
            "--mask",
            "0,0,1080,84",
            "--with-status-bar",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(path, "/api/v1/device/screenshot/diff");
        assert_eq!(
            body,
            json!({ "baseline": { "png": "iVBORw0KGgo=" },
                "mask": [{ "x": 0.0, "y": 0.0, "width": 1080.0, "height": 84.0 }],
                "mask_status_bar": false, "save": true })
        );
        let (_, body) = body_of(&["screenshot", "diff", "--baseline-previous"]);
        assert_eq!(body, json!({ "baseline": { "previous": true } }));
        let (_, body) = body_of(&["screenshot", "diff", "--artifact", "r1/home.png"]);
        assert_eq!(
            body,
            json!({ "baseline": { "artifact": { "run": "r1", "name": "home.png" } } })
        );
        for bad in [
            &["screenshot", "diff", "--previous", "--mask", "1,2,3"][..],
            &["screenshot", "diff", "--artifact", "r1"],
            &["screenshot", "diff", "--baseline", "/nonexistent/x.png"],
        ] {
            assert!(plan_of(bad).is_err(), "{bad:?}");
        }
        // A baseline is required, and one only.
        for bad in [
            &["screenshot", "diff"][..],
            &["screenshot", "diff", "--previous", "--artifact", "r/n"],
        ] {
            let line = std::iter::once("mobilectl").chain(bad.iter().copied());
            assert!(crate::cli::parse_from(line).is_err(), "{bad:?}");
        }
        let (_, body) = body_of(&[
            "expect",
            "matches",
            "--previous",
            "--tolerance",
            "0.01",
            "--timeout-ms",
            "2000",
        ]);
        assert_eq!(
            body,
            json!({ "kind": "screen_matches", "baseline": { "previous": true },
                "tolerance": 0.01, "timeout_ms": 2000 })
        );
        // The plain screenshot still takes its flags.
        let r = plan_of(&["screenshot", "--scale", "0.5"]).unwrap();
        assert_eq!(r.op, "screenshot");
    }

    #[test]
    fn launch_extras_are_typed() {
        let r = plan_of(&[
            "app",
            "launch",
            "com.x",
            "--extra",
            "user=ada",
            "--extra",
            "n=3",
            "--extra",
            "on=true",
            "--extra",
            "ratio=1.5",
            "--extra",
            "v=1.2.3",
            "--clear-keychain",
        ])
        .unwrap();
        assert_eq!(
            r.args["extras"],
            json!({"user": "ada", "n": 3, "on": true, "ratio": 1.5, "v": "1.2.3"})
        );
        assert_eq!(r.args["clear_keychain"], true);
        assert!(plan_of(&["app", "launch", "com.x"])
            .unwrap()
            .args
            .get("extras")
            .is_none());
    }

    #[test]
    fn every_operation_has_a_command() {
        let mut planned = BTreeSet::new();
        for op in crate::api::operations() {
            let example = op.cli.example;
            let r = plan_of(example)
                .unwrap_or_else(|e| panic!("{}: {example:?}: {}", op.name, e.message));
            assert_eq!(r.op, op.name, "{example:?} plans another operation");
            // Its HTTP form comes out of the table.
            r.http()
                .unwrap_or_else(|e| panic!("{example:?}: {}", e.message));
            assert!(planned.insert(r.op), "{} listed twice", r.op);
        }
        let table: BTreeSet<&str> = crate::api::operations().iter().map(|o| o.name).collect();
        assert_eq!(
            planned, table,
            "operations without a CLI form (or forms without an op)"
        );
    }

    #[test]
    fn method_path_and_placement_come_from_the_table() {
        let h = http_of(&["tap", "@e3", "-d", "emu"]);
        assert_eq!(h.method, HttpMethod::Post);
        assert_eq!(h.path, "/api/v1/device/ui/tap");
        assert_eq!(
            h.body,
            Some(json!({"ref": "e3", "observe": false, "udid": "emu"}))
        );
        assert!(h.query.is_empty());

        let h = http_of(&["find", "log in", "--limit", "3", "-d", "emu"]);
        assert_eq!(
            (h.method, h.path.as_str()),
            (HttpMethod::Get, "/api/v1/device/ui/find")
        );
        let mut q = h.query.clone();
        q.sort();
        assert_eq!(
            q,
            vec![
                ("limit".to_string(), "3".to_string()),
                ("query".into(), "log in".into()),
                ("udid".into(), "emu".into())
            ]
        );
        assert_eq!(h.body, None);

        let h = http_of(&["use", "--clear"]);
        assert_eq!(
            (h.method, h.path.as_str()),
            (HttpMethod::Put, "/api/v1/device/active")
        );
        assert_eq!(h.body, Some(json!({"udid": null})));

        let h = http_of(&["active", "-d", "ignored"]);
        assert_eq!(
            (h.method, h.path.as_str()),
            (HttpMethod::Get, "/api/v1/device/active")
        );
        assert_eq!((h.query.len(), h.body), (0, None));

        // The snapshot's renderer tells the JSON, as over MCP; the server's text on request.
        assert_eq!(http_of(&["snapshot"]).answer, AnswerKind::Json);
        assert_eq!(http_of(&["--json", "snapshot"]).answer, AnswerKind::Json);
        let text = http_of(&["snapshot", "--format", "text"]);
        assert_eq!(text.answer, AnswerKind::Text);
        let shot = plan_of(&["screenshot", "--annotate", "--grid", "-o", "a.png"]).unwrap();
        assert_eq!(shot.output.as_deref(), Some("a.png"));
        let h = shot.http().unwrap();
        assert_eq!(h.path, "/api/v1/device/screenshot/annotated");
        assert_eq!(
            (h.answer, h.query),
            (AnswerKind::Binary, vec![("grid".into(), "true".into())])
        );
    }

    #[test]
    fn no_route_is_written_in_the_planner() {
        let src = include_str!("plan.rs");
        let code = &src[..src.find("#[cfg(test)]").unwrap()];
        assert!(!code.contains("/api/"), "a route is spelled out in plan.rs");
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
        // Target first reads the same.
        assert_eq!(
            body_of(&["type", "@e5", "user@example.com"]).1,
            json!({"text": "user@example.com", "ref": "e5", "clear": false, "submit": false,
                   "verify": true})
        );
        assert_eq!(
            body_of(&["type", "e5", "e6"]).1["text"],
            "e5",
            "two ref-like words: text first"
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
            body_of(&["alert", "dismiss", "--button", "Never"]),
            (
                "/api/v1/device/alert/dismiss".into(),
                json!({"button": "Never"})
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
        assert_eq!(
            body_of(&[
                "tap-element",
                "LOG IN",
                "--type",
                "button",
                "--contains",
                "--index",
                "1"
            ]),
            (
                "/api/v1/device/ui/tap-element".into(),
                json!({"label": "LOG IN", "element_type": "button", "contains": true,
                       "index": 1, "observe": false})
            )
        );
        assert_eq!(
            body_of(&["wait-for-change", "abc", "--timeout-ms", "500"]).1,
            json!({"fingerprint": "abc", "timeout_ms": 500})
        );
        assert_eq!(
            body_of(&["erase", "-d", "sim"]),
            ("/api/v1/device/erase".into(), json!({"udid": "sim"}))
        );
        assert_eq!(
            body_of(&[
                "status-bar",
                "--time",
                "9:41",
                "--data-network",
                "5g+",
                "--battery-level",
                "100"
            ])
            .1,
            json!({"time": "9:41", "data_network": "5g+", "battery_level": 100})
        );
        assert_eq!(
            body_of(&["status-bar", "--clear"]).1,
            json!({"clear": true})
        );
        assert_eq!(body_of(&["hide-keyboard"]).1, json!({}));
        // The URL to open is not taken for the server's --url.
        let parsed = crate::cli::parse_from(["mobilectl", "open", "https://example.com"]);
        let Ok(crate::cli::Parsed::Derived(g, r)) = parsed else {
            panic!("open is made from the table")
        };
        assert_eq!(g.url, "http://127.0.0.1:9100");
        assert_eq!(r.args["url"], "https://example.com");
        // A negative coordinate is a number, not a flag.
        assert_eq!(
            body_of(&["location", "-33.86", "151.21"]).1,
            json!({"latitude": -33.86, "longitude": 151.21})
        );
        assert_eq!(body_of(&["location", "--clear"]).1, json!({"clear": true}));
    }

    #[test]
    fn usage_errors() {
        assert!(matches!(
            plan_of(&["--json", "snapshot"]).unwrap().args.get("format"),
            Some(Value::String(f)) if f == "json"
        ));
        for bad in [
            &["tap", "@e1", "1,2"][..],
            &["tap"],
            &["wait", "@e1"],
            &["swipe", "1,2"],
            &["use"],
            &["type", "hello", "world"],
            &["tap-element"],
        ] {
            assert_eq!(plan_of(bad).unwrap_err().exit, 2, "{bad:?}");
        }
        // Values the server would refuse are refused by the parser, listing the good ones.
        // (An empty `status-bar`, or `--clear` with values, the server refuses: 400, exit 2.)
        for bad in [
            &["tap-element", "--type", "buton"][..],
            &["status-bar", "--data-network", "6g"],
            &["type", "a", "b", "c"],
            &["location", "north", "1"],
        ] {
            let args = std::iter::once("mobilectl").chain(bad.iter().copied());
            let e = crate::cli::parse_from(args).err();
            // Refused for its value, not for want of the command.
            let kind = e.as_ref().map(clap::Error::kind);
            assert!(
                kind.is_some() && kind != Some(clap::error::ErrorKind::InvalidSubcommand),
                "{bad:?}: {kind:?}"
            );
        }
    }
}
