//! Recording a caller's successful act and verify operations as Maestro commands, per
//! session (a session-less caller is one more key). The HTTP binding runs a recorded
//! operation inside [`capturing`]; the controller calls [`note`] where it resolves a target,
//! and the element is turned there, on the screen read it was resolved against, into the most
//! stable selector that matches exactly one element with the runner's own semantics: `id`,
//! then text, then the same with `index`, and a `point` last (flagged with a comment). Typing
//! into a password field records `${PASSWORD}`; a wait becomes `extendedWaitUntil`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;

use mobilectl_error::Op;
use serde_json::Value;

use super::model::Selector;
use super::select;
use super::select::Screen;

/// App operations a recording keeps too, besides every act and verify operation: a session
/// that starts the app replays from the same start.
pub const RECORDED_APP_OPS: &[Op] = &[Op::LaunchApp, Op::TerminateApp, Op::ResetApp, Op::OpenUrl];

/// Most commands one recording keeps.
pub const MAX_RECORDED: usize = 10_000;

tokio::task_local! {
    static CAPTURE: RefCell<Option<Target>>;
}

/// The element an operation acted on, as the recording will name it.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The selector's YAML, in flow form (`{id: "username"}`), or a point.
    pub selector: String,
    /// Only a point matched: the command gets a comment saying so.
    pub point_only: bool,
    /// A password field: text typed into it is recorded as `${PASSWORD}`.
    pub password: bool,
}

/// The recordings in progress, by caller key (a session id, or empty).
#[derive(Debug, Default)]
pub struct Recordings {
    map: Mutex<HashMap<String, Vec<String>>>,
}

impl Recordings {
    /// Starts (or restarts, emptied) the recording of `key`.
    pub fn start(&self, key: &str) {
        if let Ok(mut m) = self.map.lock() {
            m.insert(key.to_string(), vec![]);
        }
    }

    /// Ends the recording of `key`: its commands, or none when none was started.
    pub fn stop(&self, key: &str) -> Option<Vec<String>> {
        self.map.lock().ok()?.remove(key)
    }

    /// Drops the recordings of callers `live` no longer knows (sessions that ended); the
    /// session-less callers' (empty key) stays.
    pub fn retain_live(&self, live: impl Fn(&str) -> bool) {
        if let Ok(mut m) = self.map.lock() {
            m.retain(|k, _| k.is_empty() || live(k));
        }
    }

    /// Whether `key` is being recorded.
    pub fn active(&self, key: &str) -> bool {
        self.map.lock().is_ok_and(|m| m.contains_key(key))
    }

    fn push(&self, key: &str, commands: Vec<String>) {
        if let Ok(mut m) = self.map.lock() {
            if let Some(list) = m.get_mut(key) {
                if list.len() + commands.len() <= MAX_RECORDED {
                    list.extend(commands);
                }
            }
        }
    }

    /// Records operation `op` (its request `body` and JSON `answer`) if it succeeded.
    pub fn record(
        &self,
        key: &str,
        op: &str,
        body: &Value,
        answer: &Value,
        target: Option<Target>,
    ) {
        if answer.get("success") == Some(&Value::Bool(false)) || answer["status"] == "timeout" {
            return;
        }
        let cmds = commands(op, body, answer, target);
        if !cmds.is_empty() {
            self.push(key, cmds);
        }
    }
}

/// Runs `work` with a capture of the target it resolves; the output, and the target.
pub async fn capturing<F: Future>(work: F) -> (F::Output, Option<Target>) {
    CAPTURE
        .scope(RefCell::new(None), async move {
            let out = work.await;
            let target = CAPTURE.with(|c| c.borrow_mut().take());
            (out, target)
        })
        .await
}

/// Called where a target is resolved to element `node` of `screen`: kept when capturing.
pub fn note(screen: &(impl Screen + ?Sized), node: usize) {
    let _ = CAPTURE.try_with(|c| {
        if let Some(t) = target_of(screen, node) {
            *c.borrow_mut() = Some(t);
        }
    });
}

/// Quotes `s` for YAML (double quotes, escaped).
fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// The most stable selector of element `node` of `screen`.
pub fn target_of(screen: &(impl Screen + ?Sized), node: usize) -> Option<Target> {
    let e = (node < screen.count()).then(|| screen.node(node))?;
    let password = e.password;
    let unique = |sel: &Selector| select::pick(screen, sel).is_ok_and(|m| m == vec![node]);
    let mut tries: Vec<(Selector, String)> = vec![];
    if let Some(id) = e.id.filter(|i| !i.is_empty()) {
        let last = id.rsplit('/').next().unwrap_or(id);
        let re = regex::escape(last);
        tries.push((
            Selector {
                id: Some(re.clone()),
                ..Selector::default()
            },
            format!("{{id: {}}}", q(&re)),
        ));
    }
    for t in [e.text, e.desc, e.name].into_iter().flatten() {
        if t.trim().is_empty() || password {
            continue;
        }
        let re = regex::escape(t);
        tries.push((
            Selector {
                text: Some(re.clone()),
                ..Selector::default()
            },
            format!("{{text: {}}}", q(&re)),
        ));
    }
    for (sel, yaml) in &tries {
        if unique(sel) {
            return Some(Target {
                selector: yaml.clone(),
                point_only: false,
                password,
            });
        }
    }
    // The first form with an index among its matches.
    for (sel, yaml) in &tries {
        if let Ok(all) = select::candidates(screen, sel) {
            if let Some(i) = all.iter().position(|n| *n == node) {
                let with = format!("{}, index: {i}}}", yaml.trim_end_matches('}'));
                return Some(Target {
                    selector: with,
                    point_only: false,
                    password,
                });
            }
        }
    }
    let b = e.bounds;
    let (x, y) = ((b.x + b.w / 2.0).round(), (b.y + b.h / 2.0).round());
    Some(Target {
        selector: format!("{{point: \"{x},{y}\"}}"),
        point_only: true,
        password,
    })
}

/// A selector of the request itself (`{"text": …}` / `{"id": …}` / `{"label": …}`).
fn request_selector(sel: &Value) -> Option<String> {
    let text = sel["text"].as_str().or(sel["label"].as_str());
    let contains = sel["contains"] == true;
    let pat = |s: &str| match contains {
        true => format!(".*{}.*", regex::escape(s)),
        false => regex::escape(s),
    };
    let ci = |s: String| match sel["case_insensitive"] == true {
        true => format!("(?i){s}"),
        false => s,
    };
    let mut parts = vec![];
    if let Some(t) = text {
        parts.push(format!("text: {}", q(&ci(pat(t)))));
    }
    if let Some(i) = sel["id"].as_str() {
        parts.push(format!(
            "id: {}",
            q(&regex::escape(i.rsplit('/').next().unwrap_or(i)))
        ));
    }
    if let Some(i) = sel["index"].as_u64() {
        parts.push(format!("index: {i}"));
    }
    (!parts.is_empty()).then(|| format!("{{{}}}", parts.join(", ")))
}

fn tap_line(cmd: &str, t: &Target) -> String {
    match t.point_only {
        true => format!(
            "- {cmd}: {}  # a point: no id or text matched this element alone",
            t.selector
        ),
        false => format!("- {cmd}: {}", t.selector),
    }
}

/// The Maestro commands for one successful operation.
pub fn commands(op: &str, body: &Value, answer: &Value, target: Option<Target>) -> Vec<String> {
    let point = || -> Option<Target> {
        let (x, y) = (body["x"].as_f64()?, body["y"].as_f64()?);
        Some(Target {
            selector: format!("{{point: \"{x},{y}\"}}"),
            point_only: true,
            password: false,
        })
    };
    let t = target.or_else(point);
    match op {
        "tap" | "tap_element" => t.map(|t| vec![tap_line("tapOn", &t)]).unwrap_or_default(),
        "long_press" => t
            .map(|t| vec![tap_line("longPressOn", &t)])
            .unwrap_or_default(),
        "type_text" => {
            let mut out: Vec<String> = t.iter().map(|t| tap_line("tapOn", t)).collect();
            let password = t.as_ref().is_some_and(|t| t.password);
            if body["clear"] == true {
                out.push("- eraseText".into());
            }
            let text = body["text"].as_str().unwrap_or_default();
            out.push(match password {
                true => "- inputText: ${PASSWORD}".into(),
                false => format!("- inputText: {}", q(text)),
            });
            if body["submit"] == true {
                out.push("- pressKey: Enter".into());
            }
            out
        }
        "press" => match body["key"].as_str() {
            Some("back") => vec!["- back".into()],
            Some(k) => vec![format!("- pressKey: {}", maestro_key(k))],
            None => vec![],
        },
        "hide_keyboard" => vec!["- hideKeyboard".into()],
        "scroll" => vec!["- scroll".into()],
        "swipe" => match body["direction"].as_str() {
            Some(d) => vec![format!(
                "- swipe: {{direction: {}}}",
                d.to_ascii_uppercase()
            )],
            None => {
                let (f, to) = (&body["from"], &body["to"]);
                match (
                    f["x"].as_f64(),
                    f["y"].as_f64(),
                    to["x"].as_f64(),
                    to["y"].as_f64(),
                ) {
                    (Some(a), Some(b), Some(c), Some(d)) => {
                        vec![format!("- swipe: {{start: \"{a},{b}\", end: \"{c},{d}\"}}")]
                    }
                    _ => vec![],
                }
            }
        },
        "wait" => {
            let Some(sel) = request_selector(&body["selector"]) else {
                return vec![];
            };
            let timeout = body["timeout_ms"].as_u64().unwrap_or(10_000);
            let key = match body["condition"].as_str() {
                Some("gone") | Some("hidden") | Some("not_visible") => "notVisible",
                _ => "visible",
            };
            vec![format!(
                "- extendedWaitUntil: {{{key}: {sel}, timeout: {timeout}}}"
            )]
        }
        "expect" => {
            let Some(sel) = request_selector(&body["selector"]) else {
                return vec![];
            };
            match body["visible"] == false {
                true => vec![format!("- assertNotVisible: {sel}")],
                false => vec![format!("- assertVisible: {sel}")],
            }
        }
        "launch_app" => launch_lines(body),
        "terminate_app" => app_line("stopApp", body),
        "reset_app" => app_line("clearState", body),
        "open_url" => body["url"]
            .as_str()
            .map(|u| vec![format!("- openLink: {}", q(u))])
            .unwrap_or_default(),
        "alert_accept" | "alert_dismiss" => {
            let name = answer["target"]["name"]
                .as_str()
                .or(body["button"].as_str());
            name.map(|n| vec![format!("- tapOn: {{text: {}}}", q(&regex::escape(n)))])
                .unwrap_or_default()
        }
        _ => vec![],
    }
}

/// `- stopApp: "com.x"`, or the bare command for the flow's own app.
fn app_line(command: &str, body: &Value) -> Vec<String> {
    match body["bundle_id"].as_str().filter(|b| !b.is_empty()) {
        Some(b) => vec![format!("- {command}: {}", q(b))],
        None => vec![format!("- {command}")],
    }
}

/// A launch as `launchApp` with its app, `stopApp` (Maestro stops the app first unless told
/// not to), `clearKeychain` and its named values as `arguments`. Raw iOS `arguments` have no
/// Maestro form: a comment says what was left out.
fn launch_lines(body: &Value) -> Vec<String> {
    let mut lines = vec!["- launchApp:".to_string()];
    if let Some(b) = body["bundle_id"].as_str().filter(|b| !b.is_empty()) {
        lines.push(format!("    appId: {}", q(b)));
    }
    if !body["relaunch"].as_bool().unwrap_or(false) {
        lines.push("    stopApp: false".into());
    }
    if body["clear_keychain"].as_bool().unwrap_or(false) {
        lines.push("    clearKeychain: true".into());
    }
    if let Some(extras) = body["extras"].as_object().filter(|e| !e.is_empty()) {
        lines.push("    arguments:".into());
        for (name, value) in extras {
            let value = match value {
                Value::String(t) => q(t),
                other => other.to_string(),
            };
            lines.push(format!("      {}: {value}", q(name)));
        }
    }
    if let Some(argv) = body["arguments"].as_array().filter(|a| !a.is_empty()) {
        lines.insert(
            0,
            format!(
                "# launch arguments {} have no Maestro form; left out",
                Value::Array(argv.clone())
            ),
        );
    }
    lines
}

fn maestro_key(k: &str) -> String {
    match k {
        "enter" => "Enter".into(),
        "delete" => "Backspace".into(),
        "home" => "Home".into(),
        "tab" => "Tab".into(),
        other => other
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            })
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// The recording as a flow file.
pub fn yaml(app_id: Option<&str>, commands: &[String]) -> String {
    let mut out = String::new();
    match app_id {
        Some(a) => out += &format!("appId: {}\n", q(a)),
        None => out += "# recorded by mobilectl\n{}\n",
    }
    out += "---\n";
    for c in commands {
        out += c;
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_operations_become_maestro_app_commands() {
        let launch = serde_json::json!({
            "bundle_id": "com.x",
            "extras": {"user": "ada", "n": 3, "ratio": 1.5, "on": true},
            "clear_keychain": true,
        });
        let lines = commands("launch_app", &launch, &Value::Null, None).join("\n");
        let flow = super::super::parse::parse_flow(
            "r.yaml",
            &yaml(None, std::slice::from_ref(&lines)),
            &super::super::parse::NoFiles,
        );
        assert!(flow.refusals.is_empty(), "{lines}\n{:?}", flow.refusals);
        let super::super::model::Command::LaunchApp {
            app_id,
            stop_app,
            clear_keychain,
            arguments,
            ..
        } = &flow.flow.steps[0].command
        else {
            panic!("{lines}");
        };
        assert_eq!(app_id.as_deref(), Some("com.x"));
        assert!(!stop_app && *clear_keychain, "{lines}");
        use crate::launch::LaunchValue::*;
        assert_eq!(
            arguments,
            &[
                ("n".to_string(), Int(3)),
                ("on".to_string(), Bool(true)),
                ("ratio".to_string(), Number(1.5)),
                ("user".to_string(), Text("ada".into())),
            ]
        );
        assert_eq!(
            commands(
                "terminate_app",
                &serde_json::json!({"bundle_id": "com.x"}),
                &Value::Null,
                None
            ),
            ["- stopApp: \"com.x\""]
        );
        assert_eq!(
            commands("reset_app", &serde_json::json!({}), &Value::Null, None),
            ["- clearState"]
        );
        assert_eq!(
            commands(
                "open_url",
                &serde_json::json!({"url": "https://a.b/?q=1"}),
                &Value::Null,
                None
            ),
            ["- openLink: \"https://a.b/?q=1\""]
        );
        let argv = commands(
            "launch_app",
            &serde_json::json!({"arguments": ["-x"]}),
            &Value::Null,
            None,
        );
        assert!(
            argv[0].starts_with("# launch arguments [\"-x\"]"),
            "{argv:?}"
        );
    }

    #[test]
    fn the_recordings_of_ended_sessions_are_dropped() {
        let r = Recordings::default();
        for key in ["", "ses-live", "ses-gone"] {
            r.start(key);
        }
        r.retain_live(|k| k == "ses-live");
        assert!(r.active("") && r.active("ses-live") && !r.active("ses-gone"));
    }
    use serde_json::json;

    #[test]
    fn operations_become_commands_that_parse() {
        let t = Target {
            selector: "{id: \"username\"}".into(),
            point_only: false,
            password: false,
        };
        let pw = Target {
            selector: "{id: \"password\"}".into(),
            point_only: false,
            password: true,
        };
        let pt = Target {
            selector: "{point: \"10,20\"}".into(),
            point_only: true,
            password: false,
        };
        let mut cmds = vec![];
        cmds.extend(commands(
            "type_text",
            &json!({"ref": "e1", "text": "al\"ice"}),
            &json!({"success": true}),
            Some(t.clone()),
        ));
        cmds.extend(commands(
            "type_text",
            &json!({"ref": "e2", "text": "secret"}),
            &json!({"success": true}),
            Some(pw),
        ));
        cmds.extend(commands(
            "tap",
            &json!({"ref": "e3"}),
            &json!({"success": true}),
            Some(pt),
        ));
        cmds.extend(commands(
            "wait",
            &json!({"selector": {"text": "Allow"}, "condition": "visible", "timeout_ms": 5000}),
            &json!({"status": "success"}),
            None,
        ));
        cmds.extend(commands("press", &json!({"key": "back"}), &json!({}), None));
        cmds.extend(commands(
            "expect",
            &json!({"selector": {"id": "list"}}),
            &json!({}),
            None,
        ));
        let y = yaml(Some("com.x"), &cmds);
        assert!(!y.contains("secret"), "{y}");
        assert!(y.contains("- inputText: ${PASSWORD}"), "{y}");
        assert!(y.contains("# a point"), "{y}");
        assert!(
            y.contains("- extendedWaitUntil: {visible: {text: \"Allow\"}, timeout: 5000}"),
            "{y}"
        );
        let p = super::super::parse::parse_flow("r.yaml", &y, &super::super::parse::NoFiles);
        assert!(p.refusals.is_empty(), "{y}\n{:?}", p.refusals);
        assert_eq!(p.flow.steps.len(), 8, "{y}");
    }
}

/// A batch body (`{"steps": [{"op", "body"}…]}`) as a Maestro flow. A step that targets a ref
/// has no screen to name its element by here, so it becomes a comment saying so.
pub fn export_batch(batch: &Value, app_id: Option<&str>) -> Result<String, String> {
    let steps = batch["steps"]
        .as_array()
        .ok_or("a batch body has `steps`: [{\"op\": …, \"body\": {…}}…]")?;
    let mut out = vec![];
    for (i, step) in steps.iter().enumerate() {
        let op = step["op"]
            .as_str()
            .ok_or_else(|| format!("step {i} has no `op`"))?;
        let body = &step["body"];
        if let Some(r) = body["ref"].as_str() {
            out.push(format!("# step {i} ({op}) targets the ref {r}: a ref names an element only on its screen; record the session instead"));
            continue;
        }
        let target = body["selector"].is_object().then(|| {
            let selector = request_selector(&body["selector"]).unwrap_or_default();
            Target {
                selector,
                point_only: false,
                password: false,
            }
        });
        let cmds = commands(op, body, &Value::Null, target);
        if cmds.is_empty() {
            out.push(format!("# step {i} ({op}) has no Maestro command"));
        }
        out.extend(cmds);
    }
    Ok(yaml(app_id, &out))
}

#[cfg(test)]
mod export_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_batch_exports_to_a_flow_that_parses() {
        let batch = json!({"steps": [
            {"op": "tap", "body": {"selector": {"text": "LOG IN"}}},
            {"op": "type_text", "body": {"selector": {"id": "username"}, "text": "bob", "submit": true}},
            {"op": "tap", "body": {"ref": "e3"}},
            {"op": "wait", "body": {"selector": {"text": "Allow"}, "condition": "visible", "timeout_ms": 5000}},
            {"op": "press", "body": {"key": "back"}},
        ]});
        let y = export_batch(&batch, Some("com.x")).expect("export");
        assert!(y.contains("- tapOn: {text: \"LOG IN\"}"), "{y}");
        assert!(
            y.contains("- tapOn: {id: \"username\"}\n- inputText: \"bob\"\n- pressKey: Enter"),
            "{y}"
        );
        assert!(y.contains("# step 2 (tap) targets the ref e3"), "{y}");
        let p = super::super::parse::parse_flow("x.yaml", &y, &super::super::parse::NoFiles);
        assert!(p.refusals.is_empty(), "{y}\n{:?}", p.refusals);
        assert_eq!(p.flow.steps.len(), 6, "{y}");
        assert!(export_batch(&json!({}), None).is_err());
    }
}
