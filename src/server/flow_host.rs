//! The product side of the flows crate's runner: [`FlowHost`], its [`Host`] for one device.
//! Operations are called by their `Op` in-process through the API's router, as the CLI and
//! MCP call them over HTTP; the screen is the controller's read (`ui::Screen`, which selectors
//! read as the crate's [`Screen`]); screenshots and recordings are the controller's; a run's
//! files go into the caller's run (`crate::runs`).

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Request};
use axum::Router;
use mobilectl_flows::host::{Host, R};
use mobilectl_flows::select::{Bounds, Node, Screen};
use serde_json::{json, Value};
use tower::ServiceExt;

use crate::api::call::HttpCall;
use crate::api::wire::runs::ArtifactKind;
use crate::controller::{DeviceController, Snapshot};
use crate::device::{Device, Platform};
use crate::error::Op;

/// Largest answer read from an operation.
const MAX_ANSWER: usize = 8 * 1024 * 1024;

/// The product for a flow run on one device; see the module's doc.
pub struct FlowHost {
    /// The API's router, through which each command calls its operation in-process.
    pub api: Router,
    /// The controller, for what the runner reads or keeps directly (screen, recordings).
    pub controller: Arc<DeviceController>,
    /// The device the flow runs on.
    pub device: Device,
    /// The session whose run keeps the files (none: the server's run).
    pub session: Option<String>,
}

impl Host for FlowHost {
    type Screen = Snapshot;

    fn udid(&self) -> &str {
        &self.device.udid
    }

    fn platform(&self) -> &str {
        match self.device.platform {
            Platform::Android => "android",
            Platform::Ios => "ios",
        }
    }

    async fn call(&self, op: Op, mut args: Value) -> R<Value> {
        let name = op.name();
        let op = crate::api::entry(op);
        args["udid"] = json!(self.device.udid);
        let Value::Object(args) = args else {
            return Err(format!("{name}: the arguments are not an object"));
        };
        let call = crate::api::call::http_call(op.method, op.path, op.input.kind(), args)
            .map_err(|e| format!("{name}: {e}"))?;
        let (status, answer) = self.send(&call).await?;
        let ok = (200..300).contains(&status) && answer.get("success") != Some(&Value::Bool(false));
        if ok {
            return Ok(answer);
        }
        let message = answer["error"]["message"]
            .as_str()
            .or(answer["details"]["message"].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| format!("{name} answered {status}: {answer}"));
        Err(message)
    }

    async fn read(&self, after_op: bool) -> R<Arc<Snapshot>> {
        let read = match after_op {
            true => self.controller.kept_or_snapshot(&self.device).await,
            false => self.controller.snapshot(&self.device).await,
        };
        read.map_err(|e| e.message)
    }

    async fn screenshot(&self) -> R<Vec<u8>> {
        let shot = self.controller.screenshot(Some(&self.device.udid)).await;
        shot.map(|s| s.png).map_err(|e| e.message)
    }

    async fn start_recording(&self, name: &str) -> R<()> {
        let options = crate::device::RecordingOptions::default();
        let udid = Some(self.device.udid.as_str());
        let started = self
            .controller
            .recording_start(udid, &options, None, Some(name));
        started.await.map(|_| ()).map_err(|e| e.message)
    }

    /// The recording is already one of the run's files, named after `name`.
    async fn stop_recording(&self, _name: &str) -> R<()> {
        let stopped = self
            .controller
            .recording_stop(Some(&self.device.udid))
            .await;
        stopped.map(|_| ()).map_err(|e| e.message)
    }

    fn keep(&self, name: &str, bytes: &[u8]) -> R<()> {
        let kind = match name.rsplit_once('.').map(|(_, e)| e) {
            Some("png") => ArtifactKind::Screenshot,
            _ if name.starts_with("tree") => ArtifactKind::Tree,
            _ if name.starts_with("log") => ArtifactKind::Log,
            _ => ArtifactKind::FlowReport,
        };
        let runs = self.controller.runs();
        let saved = runs.save_artifact(self.session.as_deref(), name, kind, bytes);
        saved.map(|_| ()).map_err(|e| e.message)
    }

    fn kept_in(&self) -> PathBuf {
        let runs = self.controller.runs();
        let who = self.session.as_deref().map(|s| (s, None));
        match runs.run_of(who) {
            Ok(run) => run.dir.join("artifacts"),
            Err(_) => runs.cache_dir().to_path_buf(),
        }
    }
}

impl FlowHost {
    /// Sends one request to the router; its status and JSON answer (a text answer as a
    /// JSON string).
    async fn send(&self, call: &HttpCall) -> R<(u16, Value)> {
        let mut builder = Request::builder()
            .method(call.method.as_str())
            .uri(call.uri())
            .header(header::HOST, "localhost");
        if call.body.is_some() {
            builder = builder.header(header::CONTENT_TYPE, "application/json");
        }
        let req = builder
            .body(
                call.body
                    .as_ref()
                    .map(|b| Body::from(b.to_string()))
                    .unwrap_or_else(Body::empty),
            )
            .map_err(|e| e.to_string())?;
        let Ok(resp) = Box::pin(self.api.clone().oneshot(req)).await;
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), MAX_ANSWER)
            .await
            .unwrap_or_default();
        let value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        Ok((status, value))
    }
}

/// The canonical tree as selectors read it.
impl Screen for crate::ui::Screen {
    fn count(&self) -> usize {
        self.elements.len()
    }

    fn node(&self, i: usize) -> Node<'_> {
        let e = &self.elements[i];
        let b = e.bounds;
        Node {
            text: e.text.as_deref(),
            name: e.name.as_deref(),
            desc: e.desc.as_deref(),
            id: e.id.as_deref(),
            bounds: Bounds {
                x: b.x,
                y: b.y,
                w: b.w,
                h: b.h,
            },
            enabled: e.states.enabled,
            checked: e.states.checked,
            focused: e.states.focused,
            selected: e.states.selected,
            password: e.states.password,
        }
    }

    fn size(&self) -> (f64, f64) {
        (self.screen.w, self.screen.h)
    }

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// A snapshot is read by its screen.
impl Screen for Snapshot {
    fn count(&self) -> usize {
        self.screen.count()
    }

    fn node(&self, i: usize) -> Node<'_> {
        self.screen.node(i)
    }

    fn size(&self) -> (f64, f64) {
        self.screen.size()
    }

    fn fingerprint(&self) -> &str {
        &self.screen.fingerprint
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mobilectl_flows::model::Selector;
    use mobilectl_flows::run::Runner;
    use mobilectl_flows::select::{candidates, pick};

    use super::*;
    use crate::api::Input;

    fn runner() -> Runner<FlowHost> {
        let controller = DeviceController::with_backends(crate::exec::Toolbox::from_env(), vec![]);
        let host = FlowHost {
            api: Router::new(),
            controller: Arc::new(controller),
            device: Device::test_emulator("android"),
            session: None,
        };
        let env = vec![("USER".into(), "alice".into())];
        let mut r = Runner::new(host, env, Duration::from_secs(60));
        r.app_id = Some("com.example.app".into());
        r
    }

    /// Every row's arguments (with the device) are a body its operation takes: a renamed field
    /// fails here, not in a user's run (a renamed operation does not compile).
    #[test]
    fn each_row_is_an_operation_of_the_table_with_arguments_it_takes() {
        let flow = "appId: com.example.app\n---\n\
            - launchApp:\n    clearState: true\n    permissions: { notifications: allow, camera: deny }\n    arguments:\n      user: ${USER}\n      n: 3\n\
            - stopApp\n- killApp\n- clearState\n- inputText: hi ${USER}\n\
            - eraseText: 3\n- pressKey: Enter\n- back\n- hideKeyboard\n- scroll\n\
            - openLink: https://example.com\n- setLocation: { latitude: 48.85, longitude: 2.35 }\n";
        let parsed = mobilectl_flows::load::parse_text(flow, &[("USER".into(), "alice".into())]);
        assert!(parsed.refusals.is_empty(), "{:?}", parsed.refusals);
        let r = runner();
        let mut seen = Vec::new();
        for step in &parsed.flow.steps {
            let calls = r
                .operation_calls(&step.command)
                .unwrap_or_else(|e| panic!("{}: {e}", step.name))
                .unwrap_or_else(|| panic!("{} is not a row", step.name));
            assert!(!calls.is_empty(), "{}", step.name);
            for c in calls {
                let Input::Body(body) = crate::api::entry(c.op).input else {
                    panic!("{:?} takes no body", c.op)
                };
                let mut args = c.args.clone();
                args["udid"] = json!("emulator-5554");
                body.check(args.to_string().as_bytes())
                    .unwrap_or_else(|e| panic!("{:?}: {args}: {}", c.op, e.message));
                seen.push((c.op, c.args));
            }
        }
        let ops: Vec<Op> = seen.iter().map(|(op, _)| *op).collect();
        assert_eq!(
            ops[..4],
            [
                Op::ResetApp,
                Op::SetPermission,
                Op::SetPermission,
                Op::LaunchApp
            ]
        );
        let launch = &seen[3].1;
        assert_eq!(launch["bundle_id"], "com.example.app");
        assert_eq!(launch["relaunch"], true);
        assert_eq!(launch["extras"], json!({"user": "alice", "n": 3}));
        assert!(seen.contains(&(Op::TypeText, json!({"text": "hi alice"}))));
        assert_eq!(
            ops.iter().filter(|o| **o == Op::Press).count(),
            3 + 1 + 1,
            "eraseText: 3, Enter, back"
        );
        assert!(seen.contains(&(Op::Press, json!({"key": "enter"}))));
        assert!(seen.contains(&(
            Op::SetLocation,
            json!({"latitude": 48.85, "longitude": 2.35})
        )));
    }

    fn screen(path: &str) -> crate::ui::Screen {
        let text =
            std::fs::read_to_string(format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR")))
                .expect("fixture");
        let tree = crate::ui::parse::parse_any(&text).expect("dump");
        crate::ui::analyze_owned(tree, None, &Default::default())
    }

    fn sel(text: Option<&str>, id: Option<&str>) -> Selector {
        Selector {
            text: text.map(Into::into),
            id: id.map(Into::into),
            ..Selector::default()
        }
    }

    #[test]
    fn maestro_semantics_on_a_real_uiautomator_dump() {
        let s = screen("android_uiautomator/fdroid_app_list.xml");
        let count = |sel: &Selector| candidates(&s, sel).expect("regex").len();
        let cases: &[(Selector, usize)] = &[
            // Whole match: a prefix alone matches nothing; a regex spanning it does.
            (sel(Some("Send usage data"), None), 1),
            (sel(Some("Send usage"), None), 0),
            (sel(Some("Send usage.*"), None), 1),
            (sel(Some("(?i)send USAGE data"), None), 1),
            (sel(Some("Force old .*"), None), 2),
            // id: whole, or its last segment.
            (sel(None, Some("org.fdroid.fdroid:id/switchWidget")), 7),
            (sel(None, Some("switchWidget")), 7),
            (sel(None, Some("switch")), 0),
        ];
        for (sel, want) in cases {
            assert_eq!(count(sel), *want, "{}", sel.describe());
        }
        // index: the n-th match in reading order; out of range matches nothing.
        let force = sel(Some("Force old .*"), None);
        let all = candidates(&s, &force).expect("regex");
        let second = Selector {
            index: Some("1".into()),
            ..force.clone()
        };
        assert_eq!(pick(&s, &second).expect("pick"), vec![all[1]]);
        let tenth = Selector {
            index: Some("9".into()),
            ..force.clone()
        };
        assert!(pick(&s, &tenth).expect("pick").is_empty());
        // below: the second "Force old" is below the first.
        let below = Selector {
            below: Some(Box::new(sel(Some("Force old index format"), None))),
            ..force
        };
        assert_eq!(pick(&s, &below).expect("pick"), vec![all[1]]);
        // A bad regex is an error, not a panic.
        assert!(candidates(&s, &sel(Some("("), None)).is_err());
    }

    #[test]
    fn maestro_semantics_on_a_real_axe_tree() {
        let s = screen(
            "ios_axe/axe_describe_ui_contacts_search_subtree_ios18.5_axe1.8_reformatted.json",
        );
        let count = |sel: &Selector| candidates(&s, sel).expect("regex").len();
        let cases: &[(Selector, usize)] = &[
            // text: the accessibility label (the image's "Search"), whole.
            (sel(Some("Dictate"), None), 1),
            (sel(Some("Dict"), None), 0),
            (sel(Some("Dict.*"), None), 1),
            (sel(Some("(?i)dictate"), None), 1),
            // id: the accessibility identifier, whole.
            (sel(None, Some("magnifyingglass")), 1),
            (sel(None, Some("magnifying.*")), 1),
            (sel(None, Some("magnifying")), 0),
            (sel(Some("Nothing like it"), None), 0),
        ];
        for (sel, want) in cases {
            assert_eq!(count(sel), *want, "{}", sel.describe());
        }
        // Relations in points: the dictation button is right of the magnifying glass.
        let right = Selector {
            right_of: Some(Box::new(sel(None, Some("magnifyingglass")))),
            ..sel(None, Some("Dictate"))
        };
        assert_eq!(pick(&s, &right).expect("pick").len(), 1);
        let left = Selector {
            left_of: Some(Box::new(sel(None, Some("magnifyingglass")))),
            ..sel(None, Some("Dictate"))
        };
        assert!(pick(&s, &left).expect("pick").is_empty());
    }
}
