//! The tools: one per operation of `crate::api::operations()`, named as the operation, described
//! by its summary, with the compact input schema of [`super::schema`] and, for the default list,
//! the brief one of [`super::brief`]. Also the two mappings
//! around a call: arguments → [`HttpCall`] ([`ToolDef::request`]) and [`ApiAnswer`] → tool
//! result ([`result`]). The only hand-written part is [`PRESENTATION`], a few overrides.

use std::sync::{Arc, LazyLock};

use base64::Engine;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Map, Value};

use super::dispatch::DispatchError;
use super::schema;
use crate::api::call::{http_call, HttpCall, InputKind};
use crate::api::HttpMethod;
use crate::client::ApiAnswer;
use crate::error::{Next, Step};

/// How a tool differs from its operation's defaults.
struct Presentation {
    name: &'static str,
    /// Replaces the summary as the tool's description.
    description: Option<&'static str>,
    /// Query arguments added when the caller does not give them.
    defaults: &'static [(&'static str, &'static str)],
    /// Whether a result carries the answer's JSON as `structuredContent` beside its text.
    structured: bool,
    /// Fields the default list's brief schema leaves to `describe` ([`super::brief`]).
    brief_omits: &'static [&'static str],
    /// Added to the description in the default list: where the omitted fields are told.
    brief_note: Option<&'static str>,
}

/// The overrides: a model reads the compact text tree better than JSON (the snapshot is read
/// as JSON and told as text, see [`result`]), and a screenshot costs far fewer tokens as a
/// JPEG that fits 1024 px.
const PRESENTATION: &[Presentation] = &[
    Presentation {
        name: "snapshot",
        description: Some(
            "Read the screen: a compact text tree of elements with refs e1..eN (format=json for JSON).",
        ),
        // Read as JSON and told as the renderer's text (a short header). Its JSON (every
        // element's bounds and states, ~15 times the text) is not sent along: `format: json`
        // asks for it.
        defaults: &[("format", "json")],
        structured: false,
        brief_omits: &[],
        brief_note: None,
    },
    Presentation {
        name: "screenshot",
        description: Some("The screen as an image (JPEG fit to 1024 px unless told otherwise)."),
        defaults: &[("format", "jpeg"), ("max_size", "1024")],
        structured: true,
        brief_omits: &[],
        brief_note: None,
    },
    Presentation {
        name: "screenshot_annotated",
        description: Some(
            "The screen with each ref's box and tag drawn on it (JPEG fit to 1024 px by default).",
        ),
        defaults: &[("format", "jpeg"), ("max_size", "1024")],
        structured: true,
        brief_omits: &[],
        brief_note: None,
    },
    Presentation {
        name: "expect",
        description: None,
        defaults: &[],
        structured: true,
        // The screenshot comparison's and the audit's fields: the default list shows the
        // element, text and app checks in full.
        brief_omits: &[
            "baseline",
            "mask",
            "mask_status_bar",
            "tolerance",
            "timeout_ms",
            "audit_baseline",
            "fail_on",
        ],
        brief_note: Some(" (`describe` tells screen_matches' and accessible's fields)"),
    },
];

/// One tool and how to call its operation.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// The tool as `tools/list` shows it.
    pub tool: Tool,
    /// The operation's HTTP method.
    pub method: HttpMethod,
    /// The operation's path (`{name}` for path parameters).
    pub path: &'static str,
    /// Whether the arguments travel as query parameters or as the JSON body.
    pub input: InputKind,
    /// Its operation's group in the table (`act`, `network`…): what `mcp --tools` picks by.
    pub group: &'static str,
    defaults: &'static [(&'static str, &'static str)],
    /// Whether its results carry the answer's JSON as `structuredContent`.
    structured: bool,
    /// Whether the default tool list offers it ([`crate::api::Mcp::Core`]).
    pub core: bool,
    /// The tool as the default list shows it: the same, with the brief schema of
    /// [`super::brief`].
    pub brief: Tool,
}

/// Every tool, in the operation table's order.
pub fn tools() -> &'static [ToolDef] {
    static TOOLS: LazyLock<Vec<ToolDef>> = LazyLock::new(build);
    &TOOLS
}

/// The groups of the tools (the table's tags), each once, in the table's order. Read from the
/// table, not the built tools: every command line asks for them (`mcp --tools` names its
/// choices), and building the tools' schemas costs a process start far more.
pub fn groups() -> Vec<&'static str> {
    let mut groups: Vec<&'static str> = Vec::new();
    for op in crate::api::operations().iter().filter(|op| is_tool(op)) {
        if !groups.contains(&op.tag) {
            groups.push(op.tag);
        }
    }
    groups
}

/// The tool named `name`.
pub fn find(name: &str) -> Option<&'static ToolDef> {
    tools().iter().find(|t| t.tool.name == name)
}

fn build() -> Vec<ToolDef> {
    let doc = serde_json::to_value(crate::api::openapi()).unwrap_or(Value::Null);
    let components = doc["components"]["schemas"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    crate::api::operations()
        .iter()
        .filter(|op| is_tool(op))
        .map(|op| {
            let p = PRESENTATION.iter().find(|p| p.name == op.name);
            let description = p
                .and_then(|p| p.description)
                .unwrap_or(op.summary)
                .to_string();
            let input_schema: JsonObject = schema::input_schema(op, &components);
            let omits = p.map_or(&[][..], |p| p.brief_omits);
            let brief_schema = super::brief::brief(&input_schema, omits);
            let mut tool = Tool::new(op.name, description.clone(), Arc::new(input_schema));
            if op.method == HttpMethod::Get {
                tool.annotations = Some(ToolAnnotations::new().read_only(true));
            }
            let mut brief = tool.clone();
            brief.input_schema = Arc::new(brief_schema);
            if let Some(note) = p.and_then(|p| p.brief_note) {
                brief.description = Some(format!("{description}{note}").into());
            }
            ToolDef {
                tool,
                method: op.method,
                path: op.path,
                input: op.input.kind(),
                group: op.tag,
                defaults: p.map_or(&[][..], |p| p.defaults),
                structured: p.is_none_or(|p| p.structured),
                core: op.mcp == crate::api::Mcp::Core,
                brief,
            }
        })
        .collect()
}

/// Whether an operation is offered as a tool: all are but streams, which never end while a
/// tool call answers once (their non-streaming siblings serve agents), the connection's own
/// session and whole documents.
pub fn is_tool(op: &crate::api::Operation) -> bool {
    op.is_tool()
}

/// Arguments that cannot make a request.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgError(pub String);

impl ToolDef {
    /// The names of the arguments the tool takes.
    fn argument_names(&self) -> Vec<&str> {
        self.tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// The API request for a call with `args`: path parameters substituted, the rest as query
    /// parameters or as the JSON body, per the operation.
    pub fn request(&self, args: Option<&JsonObject>) -> Result<HttpCall, ArgError> {
        let mut args = args.cloned().unwrap_or_default();
        let path_params: Vec<&str> = self
            .path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect();
        let known = self.argument_names();
        let mut unknown: Vec<&str> = args
            .keys()
            .map(String::as_str)
            .filter(|k| !known.contains(k) && !path_params.contains(k))
            .collect();
        if !unknown.is_empty() {
            unknown.sort();
            let takes = if known.is_empty() {
                "no arguments".to_string()
            } else {
                known.join(", ")
            };
            return Err(ArgError(format!(
                "unknown argument(s) {}; {} takes: {takes}",
                unknown.join(", "),
                self.tool.name
            )));
        }
        if self.input == InputKind::Query {
            for (k, v) in self.defaults {
                args.entry(k.to_string()).or_insert(json!(v));
            }
        }
        http_call(self.method, self.path, self.input, args).map_err(|e| ArgError(e.to_string()))
    }
}

/// The tool result for operation `op`'s answer: images as image content, text as text, JSON
/// as the operation's text (`crate::render`, what the CLI prints: one line per action, then
/// what changed) with the JSON itself as `structuredContent`, errors as `isError` text
/// `CODE: message hint: …`.
pub fn result(op: &str, answer: &ApiAnswer) -> CallToolResult {
    respond(Some(op), answer)
}

/// Whether a call's arguments ask for JSON (`format: json`): then a JSON answer is the text
/// content as it is, not the operation's rendering.
pub fn asks_json(args: Option<&JsonObject>) -> bool {
    args.and_then(|a| a.get("format")).and_then(Value::as_str) == Some("json")
}

/// The tool result for an answer told as compact JSON text (and `structuredContent`).
pub fn result_as_json(answer: &ApiAnswer) -> CallToolResult {
    respond(None, answer)
}

fn respond(op: Option<&str>, answer: &ApiAnswer) -> CallToolResult {
    if !(200..300).contains(&answer.status) {
        return CallToolResult::error(vec![ContentBlock::text(error_text(answer))]);
    }
    let ctype = answer.content_type.split(';').next().unwrap_or("").trim();
    if ctype.starts_with("image/") {
        let data = base64::engine::general_purpose::STANDARD.encode(&answer.body);
        let mut content = vec![ContentBlock::image(data, ctype)];
        let geometry = image_geometry(&answer.headers);
        if !geometry.is_empty() {
            content.push(ContentBlock::text(Value::Object(geometry).to_string()));
        }
        return CallToolResult::success(content);
    }
    let text = String::from_utf8_lossy(&answer.body);
    if ctype == "application/json" {
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            let said = match op.and_then(crate::render::renderer) {
                Some(render) => crate::render::in_voice(step_words, || render(&v)),
                None => v.to_string(),
            };
            let mut r = CallToolResult::success(vec![ContentBlock::text(said)]);
            let structured = op.and_then(find).is_none_or(|t| t.structured);
            if v.is_object() && structured {
                r.structured_content = Some(v);
            }
            return r;
        }
    }
    CallToolResult::success(vec![ContentBlock::text(text.into_owned())])
}

/// A screenshot's `x-*` headers as JSON: `{"original_size": "1080x2400", "scale": "0.42",
/// "tap_per_image_pixel": "2.34", …}`.
fn image_geometry(headers: &[(String, String)]) -> Map<String, Value> {
    headers
        .iter()
        .filter(|(name, _)| name != "x-request-id")
        .map(|(name, v)| {
            let key = name.trim_start_matches("x-").replace('-', "_");
            (key, json!(v))
        })
        .collect()
}

/// `CODE: message hint: …` from the error envelope, with a line under it per candidate it
/// names, or the status and body when there is none.
pub fn error_text(answer: &ApiAnswer) -> String {
    let raw = String::from_utf8_lossy(&answer.body);
    let v: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
    let e = &v["error"];
    match e["code"].as_str() {
        Some(code) => {
            let mut s = format!("{code}: {}", e["message"].as_str().unwrap_or(""));
            let next = serde_json::from_value::<Next>(e["next"].clone()).ok();
            match (next, e["hint"].as_str()) {
                (Some(n), _) => s.push_str(&format!(" hint: {}", n.render(step_words))),
                (None, Some(h)) => s.push_str(&format!(" hint: {h}")),
                (None, None) => {}
            }
            if e["retryable"] == json!(true) {
                s.push_str(" (retryable)");
            }
            for line in crate::render::errors::candidates(&e["details"]) {
                s.push_str(&format!("\n  {line}"));
            }
            s
        }
        None => format!("HTTP_{}: {}", answer.status, raw.trim()),
    }
}

/// A step in MCP terms: an operation by its tool when the default list offers it, else as
/// `call` with its name (an operation no tool reaches, as a session the connection manages
/// itself, by its route); a field or an example as the tool's arguments write it
/// (`` `contains: true` ``, `{"ref": "e12"}`); the schema as `describe`.
pub fn step_words(step: &Step) -> String {
    match step {
        Step::Call { op, args } => {
            let with = |v: Value| format!(" with {v}");
            let args_said = if args.is_empty() {
                String::new()
            } else {
                with(Value::Object(args.clone()))
            };
            if super::offer::Offer::default().find(op).is_some() {
                format!("`{op}`{args_said}")
            } else if crate::api::find(op).is_some_and(|o| o.is_tool()) {
                let mut call = json!({"operation": op});
                if !args.is_empty() {
                    call["arguments"] = Value::Object(args.clone());
                }
                format!("`{}`{}", super::catalog::CALL, with(call))
            } else {
                crate::api::next::route(op, args).unwrap_or_else(|| format!("`{op}`"))
            }
        }
        Step::Schema => format!("`{}`", super::catalog::DESCRIBE),
        other => crate::error::next::json_words(other).unwrap_or_default(),
    }
}

/// The tool result when no answer could be had.
pub fn dispatch_error(e: &DispatchError) -> CallToolResult {
    let mut s = format!("{}: {}", e.code, e.message);
    if let Some(h) = &e.hint {
        s.push_str(&format!(" hint: {h}"));
    }
    CallToolResult::error(vec![ContentBlock::text(s)])
}

/// The tool result for arguments that cannot make a request.
pub fn argument_error(e: &ArgError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "VALIDATION_FAILED: {} hint: see the tool's input schema",
        e.0
    ))])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap()
    }

    fn answer(status: u16, ctype: &str, body: &[u8]) -> ApiAnswer {
        ApiAnswer {
            status,
            content_type: ctype.into(),
            headers: Vec::new(),
            body: body.to_vec(),
        }
    }

    #[test]
    fn one_tool_per_operation_named_and_described_by_it() {
        let ops: Vec<_> = crate::api::operations()
            .iter()
            .filter(|o| is_tool(o))
            .collect();
        assert_eq!(tools().len(), ops.len());
        for (t, op) in tools().iter().zip(&ops) {
            assert_eq!(t.tool.name, op.name);
            assert_eq!(t.path, op.path);
            let d = t.tool.description.as_deref().unwrap_or("");
            assert!(!d.is_empty() && !d.contains('\n'), "{}: {d}", op.name);
        }
        assert_eq!(
            find("tap").unwrap().tool.description.as_deref(),
            Some(crate::api::entry(crate::error::Op::Tap).summary)
        );
    }

    #[test]
    fn brief_omissions_name_real_fields() {
        for p in PRESENTATION {
            let t = find(p.name).unwrap_or_else(|| panic!("no tool {}", p.name));
            let props = t.tool.input_schema["properties"].as_object().unwrap();
            for f in p.brief_omits {
                assert!(props.contains_key(*f), "{}: no field {f}", p.name);
                assert!(t.brief.input_schema["properties"].get(*f).is_none());
            }
        }
    }

    #[test]
    fn body_tools_send_their_arguments_as_json() {
        let tap = find("tap").unwrap();
        let req = tap.request(Some(&args(json!({"ref": "e3"})))).unwrap();
        assert_eq!(
            req,
            HttpCall {
                method: HttpMethod::Post,
                path: "/api/v1/device/ui/tap".into(),
                query: vec![],
                body: Some(json!({"ref": "e3"})),
                session: None,
            }
        );
        let empty = find("hide_keyboard").unwrap().request(None).unwrap();
        assert_eq!(empty.body, Some(json!({})));
        let put = find("set_active_device")
            .unwrap()
            .request(Some(&args(json!({"udid": null}))))
            .unwrap();
        assert_eq!(put.method, HttpMethod::Put);
        assert_eq!(put.body, Some(json!({"udid": null})));
    }

    #[test]
    fn query_tools_send_query_parameters_with_their_defaults() {
        let snap = find("snapshot").unwrap();
        let req = snap
            .request(Some(&args(
                json!({"interactive_only": true, "udid": "emu-1"}),
            )))
            .unwrap();
        assert_eq!(req.method, HttpMethod::Get);
        assert_eq!(req.body, None);
        let mut q = req.query.clone();
        q.sort();
        assert_eq!(
            q,
            [
                ("format".to_string(), "json".to_string()),
                ("interactive_only".into(), "true".into()),
                ("udid".into(), "emu-1".into()),
            ]
        );
        // The caller's choice wins over a default.
        let text_snap = snap
            .request(Some(&args(json!({"format": "text"}))))
            .unwrap();
        assert_eq!(text_snap.query, [("format".into(), "text".into())]);
        assert!(asks_json(Some(&args(json!({"format": "json"})))));
        assert!(!asks_json(None));

        let shot = find("screenshot").unwrap().request(None).unwrap();
        let mut q = shot.query.clone();
        q.sort();
        assert_eq!(
            q,
            [
                ("format".to_string(), "jpeg".to_string()),
                ("max_size".into(), "1024".into())
            ]
        );
        let scaled = find("screenshot")
            .unwrap()
            .request(Some(&args(json!({"max_size": 512, "quality": null}))))
            .unwrap();
        assert!(scaled.query.contains(&("max_size".into(), "512".into())));
        assert!(!scaled.query.iter().any(|(k, _)| k == "quality"));
    }

    #[test]
    fn unknown_arguments_are_refused_naming_them() {
        let err = find("tap")
            .unwrap()
            .request(Some(&args(json!({"reff": "e1"}))))
            .unwrap_err();
        assert!(err.0.contains("reff"), "{err:?}");
        assert!(err.0.contains("ref,") || err.0.contains("ref"), "{err:?}");
        let err = find("health")
            .unwrap()
            .request(Some(&args(json!({"x": 1}))))
            .unwrap_err();
        assert!(err.0.contains("no arguments"), "{err:?}");
    }

    #[test]
    fn answers_become_content() {
        let json_answer = answer(200, "application/json", br#"{ "success": true }"#);
        // Asked for JSON (`format: json`), the text is the JSON itself.
        let r = result_as_json(&json_answer);
        assert_eq!(r.is_error, Some(false));
        assert_eq!(r.content[0].as_text().unwrap().text, r#"{"success":true}"#);
        assert_eq!(r.structured_content, Some(json!({"success": true})));
        // One with a renderer says what the CLI prints, the JSON beside it.
        let tap = answer(
            200,
            "application/json",
            br#"{"action_type": "tap", "success": true, "target": {"ref": "e4"},
                 "changes": {"appeared": ["button \"Allow\" [e1]"]}}"#,
        );
        let r = result("tap", &tap);
        assert_eq!(
            r.content[0].as_text().unwrap().text,
            "tap e4 ok\n+ button \"Allow\" [e1]"
        );
        assert_eq!(r.structured_content.unwrap()["action_type"], "tap");
        // The snapshot is told as its tree under a short header, without its large JSON.
        let snap = answer(
            200,
            "application/json",
            br#"{"snapshot_id": "s1", "activity": "a/.B", "screen": {"w": 10, "h": 20},
                 "tree_text": "button \"OK\" [e1]\n", "elements": []}"#,
        );
        let r = result("snapshot", &snap);
        assert_eq!(
            r.content[0].as_text().unwrap().text,
            "# s1 a/.B 10x20 px\nbutton \"OK\" [e1]\n"
        );
        assert_eq!(r.structured_content, None);

        let text = result(
            "snapshot",
            &answer(200, "text/plain; charset=utf-8", b"[e1] textbox"),
        );
        assert_eq!(text.content[0].as_text().unwrap().text, "[e1] textbox");

        let mut img = answer(200, "image/jpeg", &[0xff, 0xd8, 0xff]);
        img.headers = vec![("x-scale".into(), "0.5".into())];
        let r = result("screenshot", &img);
        let image = r.content[0].as_image().unwrap();
        assert_eq!(image.mime_type, "image/jpeg");
        assert_eq!(image.data, "/9j/");
        assert_eq!(r.content[1].as_text().unwrap().text, r#"{"scale":"0.5"}"#);
    }

    #[test]
    fn errors_carry_code_message_and_hint() {
        let body = br#"{"error":{"code":"STALE_REFERENCE","message":"e3 is from an old snapshot","retryable":false,"hint":"take a new snapshot"}}"#;
        let r = result("tap", &answer(409, "application/json", body));
        assert_eq!(r.is_error, Some(true));
        assert_eq!(
            r.content[0].as_text().unwrap().text,
            "STALE_REFERENCE: e3 is from an old snapshot hint: take a new snapshot"
        );
        let ambiguous = br#"{"error":{"code":"AMBIGUOUS_TARGET","message":"2 elements match the selector","retryable":false,"hint":"act on one candidate's ref","details":{"candidates":[{"ref":"e3","role":"button","name":"Order #1001"},{"ref":"e7","role":"button","name":"Order #1005"}]}}}"#;
        let r = result("tap", &answer(409, "application/json", ambiguous));
        assert_eq!(
            r.content[0].as_text().unwrap().text,
            "AMBIGUOUS_TARGET: 2 elements match the selector hint: act on one candidate's ref\n  \
             @e3 button \"Order #1001\"\n  @e7 button \"Order #1005\""
        );
        // `next` is worded in tools; the HTTP hint beside it is not read.
        let stale = br#"{"error":{"code":"STALE_REFERENCE","message":"e3 is gone","retryable":false,"hint":"read the screen again with GET /api/v1/device/ui and use its refs","next":{"say":"read the screen again with {0} and use its refs","steps":[{"kind":"call","op":"snapshot"}]}}}"#;
        assert_eq!(
            result("tap", &answer(409, "application/json", stale)).content[0]
                .as_text()
                .unwrap()
                .text,
            "STALE_REFERENCE: e3 is gone hint: read the screen again with `snapshot` and use its refs"
        );
        // A hint without `next` is shown as written, routes and all.
        let plain = br#"{"error":{"code":"ROUTE_NOT_FOUND","message":"no route","retryable":false,"hint":"routes are listed at GET /openapi.json"}}"#;
        assert_eq!(
            result("tap", &answer(404, "application/json", plain)).content[0]
                .as_text()
                .unwrap()
                .text,
            "ROUTE_NOT_FOUND: no route hint: routes are listed at GET /openapi.json"
        );
        let bare = result("tap", &answer(502, "text/plain", b"bad gateway"));
        assert_eq!(bare.is_error, Some(true));
        assert_eq!(
            bare.content[0].as_text().unwrap().text,
            "HTTP_502: bad gateway"
        );
    }

    #[test]
    fn steps_are_worded_as_tools() {
        use crate::error::{Op, Step};
        // A tool of the default list, by its name (arguments as JSON).
        assert_eq!(step_words(&Step::call(Op::Snapshot)), "`snapshot`");
        assert_eq!(
            step_words(&Step::call_with(Op::AlertAccept, json!({"button": "OK"}))),
            "`alert_accept` with {\"button\":\"OK\"}"
        );
        // An operation outside the default list, through `call`.
        assert!(super::super::offer::Offer::default()
            .find("list_recordings")
            .is_none());
        assert_eq!(
            step_words(&Step::call(Op::ListRecordings)),
            "`call` with {\"operation\":\"list_recordings\"}"
        );
        // One no tool reaches (the connection keeps its own session): its route.
        assert_eq!(
            step_words(&Step::call(Op::CreateSession)),
            "POST /api/v1/sessions"
        );
        assert_eq!(step_words(&Step::Schema), "`describe`");
        // A field and an example as the tool's arguments write them.
        assert_eq!(
            step_words(&Step::field_is("contains", true)),
            "`contains: true`"
        );
        assert_eq!(step_words(&Step::field("udid")), "`udid`");
        assert_eq!(
            step_words(&Step::example(json!({"selector": {"text": "Sign in"}}))),
            r#"{"selector": {"text": "Sign in"}}"#
        );
        assert_eq!(
            step_words(&Step::example_of(Op::Boot, json!({"avd": "Pixel_7"}))),
            r#"{"avd": "Pixel_7"}"#
        );
    }

    #[test]
    fn an_answer_names_its_calls_as_tools() {
        let crashed = json!({"action_type": "tap", "success": false, "target": {"ref": "e3"},
            "failure_code": "APP_CRASHED", "details": {"crash": {"id": "c0123"}}});
        let r = result(
            "tap",
            &answer(200, "application/json", crashed.to_string().as_bytes()),
        );
        let said = &r.content[0].as_text().unwrap().text;
        let offered = super::super::offer::Offer::default()
            .find("get_crash")
            .is_some();
        let call = if offered {
            "`get_crash` with {\"id\":\"c0123\"}"
        } else {
            "`call` with {\"arguments\":{\"id\":\"c0123\"},\"operation\":\"get_crash\"}"
        };
        assert_eq!(*said, format!("tap e3 FAILED APP_CRASHED ({call})"));
    }
}
