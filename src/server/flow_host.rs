//! The product side of the flows crate's runner: [`FlowHost`], its [`Host`] for one device.
//! Operations are called by their `Op` in-process through the API's router, as the CLI and
//! MCP call them over HTTP; the screen is the controller's read (a [`Snapshot`], which the
//! crate's selectors read through its `Screen`, implemented by the controller); screenshots and
//! recordings are the controller's; a run's files go into the caller's run (`crate::runs`).

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Request};
use axum::Router;
use mobilectl_flows::host::{Host, Script, ScriptDone, R};
use serde_json::{json, Value};
use tower::ServiceExt;

use crate::api::call::HttpCall;
use crate::api::wire::runs::ArtifactKind;
use crate::controller::{DeviceController, Snapshot};
use crate::device::{Device, Platform};
use crate::error::Op;
use crate::script::scripts::Scripts;

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
    /// The run's JavaScript: its worker, budgets and allowed hosts.
    pub scripts: Scripts,
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

    async fn add_media(&self, name: &str, bytes: &[u8]) -> R<()> {
        // The gallery takes a file: the bytes go to a folder of the server's own, under the
        // media's own file name (its extension tells photo from video).
        let file_name = std::path::Path::new(name)
            .file_name()
            .map(|n| n.to_os_string())
            .ok_or_else(|| format!("`{name}` names no file"))?;
        let dir = tempfile::tempdir().map_err(|e| format!("addMedia: {e}"))?;
        let path = dir.path().join(file_name);
        tokio::fs::write(&path, bytes)
            .await
            .map_err(|e| format!("addMedia: {e}"))?;
        self.controller
            .add_media(Some(&self.device.udid), &path)
            .await
            .map(|_| ())
            .map_err(|e| e.message)
    }

    async fn script(&self, script: Script) -> R<ScriptDone> {
        let done = self.scripts.eval(script, self.platform()).await?;
        crate::server::traced::note_console(&done.console);
        Ok(done)
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mobilectl_flows::run::Runner;

    use super::*;
    use crate::api::Input;

    fn runner() -> Runner<FlowHost> {
        let controller = DeviceController::with_backends(crate::exec::Toolbox::from_env(), vec![]);
        let host = FlowHost {
            api: Router::new(),
            controller: Arc::new(controller),
            device: Device::test_emulator("android"),
            session: None,
            scripts: Scripts::new("mobilectl".into(), Default::default()),
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
        // What each row calls, and with which values, the flows crate's own test of the rows
        // holds; here, that the table takes them.
        assert_eq!(seen.len(), 17, "{seen:?}");
    }
}
