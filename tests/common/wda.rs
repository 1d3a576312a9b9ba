//! A fake WebDriverAgent: an HTTP server on a loopback port that replays recorded real WDA
//! answers from `fixtures/ios_wda_source/` (page sources, `/status`, `POST /session`,
//! `/window/size`, `session not created`, JSONWP errors) and records every request it gets, so
//! tests assert what mobilectl sent: how many requests, which session, the W3C action bodies,
//! the coordinates.
//!
//! It keeps WDA's rules that matter to a client: one session at a time (requests under another
//! session id answer `invalid session id`), `POST /session` needs W3C `capabilities`, alert
//! routes answer `no such alert` when none is open. Where no real answer was recorded — the
//! W3C actions, `/wda/keys`, `/wda/pressButton`, the alert and app routes, `/url`,
//! `/wda/keyboard/dismiss`, `/wda/lock`, `/wda/simulatedLocation`, `/wda/screen`, the
//! screenshot, and the W3C bodies of `no such alert`, `invalid session id` and `unknown
//! command` — it answers the shapes WDA's source code builds (`FBResponsePayload.m`,
//! `FBCustomCommands.m`): success is `{"value": null, "sessionId": …}` (the recorded
//! `/wda/homescreen` answer has exactly that shape), errors `{"value": {"error", "message",
//! "traceback"}, "sessionId": …}`. A page source fixture is XML; WDA sends it as the string
//! `value` of its envelope, which is how the fake sends it.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::extract::State;
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use base64::Engine;
use serde_json::{json, Value};

use super::fixture;

pub const STATUS_IOS14: &str = "ios_wda_source/wda_status_real_iphone_ios14.6_tidevice.json";
pub const SESSION_SPRINGBOARD: &str =
    "ios_wda_source/wda_post_session_springboard_fallback_real_iphone_ios13.2.3.json";
pub const SESSION_W3C: &str =
    "ios_wda_source/wda_post_session_w3c_caps_wda5.9_sim_ios15.2_appiumlog_compact.json";
pub const SESSION_NOT_CREATED: &str =
    "ios_wda_source/wda_error_session_not_created_capabilities_mandatory_2020.json";
pub const SETTINGS: &str =
    "ios_wda_source/wda_source_settings_root_iphone17pro_ios26.4_traits_bundleId.xml";
pub const LOCATION_ALERT: &str =
    "ios_wda_source/appium_source_springboard_location_alert_inf_coords_375x667.xml";
pub const LEGACY_TREE: &str = "ios_wda_source/wda_legacy_tree_springboard.json";
pub const WINDOW_375X812: &str = "ios_wda_source/wda_window_size_375x812_appium_log_2020.json";
pub const JSONWP_UNHANDLED: &str =
    "ios_wda_source/wda_legacy_jsonwp_unhandled_endpoint_status1_root_path_2017.json";
pub const JSONWP_FAILED_LAUNCH: &str =
    "ios_wda_source/wda_legacy_jsonwp_failed_to_launch_status13_2017.json";

/// One request the fake got.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub body: Value,
}

impl Seen {
    /// `METHOD /path` with the session id replaced by `:id`.
    pub fn route(&self) -> String {
        let mut parts: Vec<&str> = self.path.split('/').collect();
        if parts.len() > 2 && parts[1] == "session" {
            parts[2] = ":id";
        }
        format!("{} {}", self.method, parts.join("/"))
    }
}

/// A scripted answer for the next request whose path ends with `suffix`.
struct Once {
    method: &'static str,
    suffix: &'static str,
    status: u16,
    body: String,
    delay: Duration,
}

struct FakeState {
    log: Vec<Seen>,
    status: PathBuf,
    session_answer: PathBuf,
    /// The session WDA holds.
    session: Option<String>,
    /// The page source: an XML fixture (sent as `value`) or a JSON answer (sent verbatim).
    source: PathBuf,
    png: Vec<u8>,
    /// `/wda/screen`: the screen `(width, height, scale)`, or `None` for an old WDA without
    /// the route (it answers the recorded JSONWP "Unhandled endpoint").
    screen: Option<(f64, f64, f64)>,
    /// An alert WDA sees (`/alert/text`), with its buttons.
    alert: Option<(String, Vec<String>)>,
    once: VecDeque<Once>,
}

/// The fake server; dropping it stops it.
pub struct FakeWda {
    pub addr: SocketAddr,
    state: Arc<Mutex<FakeState>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

fn read(rel: &str) -> PathBuf {
    fixture(rel)
}

fn w3c_error(status: StatusCode, error: &str, message: &str, session: &Option<String>) -> Response {
    let body = json!({
        "value": {"error": error, "message": message, "traceback": ""},
        "sessionId": session,
    });
    (
        status,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn ok(value: Value, session: &Option<String>) -> Response {
    let body = json!({ "value": value, "sessionId": session });
    (
        StatusCode::OK,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn file(path: &PathBuf) -> Response {
    (
        StatusCode::OK,
        [("content-type", "application/json")],
        std::fs::read(path).unwrap(),
    )
        .into_response()
}

async fn handle(State(state): State<Arc<Mutex<FakeState>>>, req: Request<Body>) -> Response {
    let method = req.method().as_str().to_string();
    let path = req.uri().path().to_string();
    let query = req.uri().query().map(str::to_string);
    let bytes = to_bytes(req.into_body(), 64 << 20)
        .await
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let scripted = {
        let mut s = state.lock().unwrap();
        s.log.push(Seen {
            method: method.clone(),
            path: path.clone(),
            query: query.clone(),
            body: body.clone(),
        });
        let at = s
            .once
            .iter()
            .position(|o| o.method == method && path.ends_with(o.suffix));
        at.and_then(|i| s.once.remove(i))
    };
    if let Some(o) = scripted {
        tokio::time::sleep(o.delay).await;
        if o.status != 0 {
            return (
                StatusCode::from_u16(o.status).unwrap(),
                [("content-type", "application/json")],
                o.body,
            )
                .into_response();
        }
    }
    let mut s = state.lock().unwrap();
    let session = s.session.clone();
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match (method.as_str(), segments.as_slice()) {
        ("GET", ["status"]) => file(&s.status),
        ("POST", ["session"]) => {
            if !body["capabilities"].is_object() {
                return (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    [("content-type", "application/json")],
                    std::fs::read(read(SESSION_NOT_CREATED)).unwrap(),
                )
                    .into_response();
            }
            let answer: Value =
                serde_json::from_slice(&std::fs::read(&s.session_answer).unwrap()).unwrap();
            s.session = answer["value"]["sessionId"].as_str().map(str::to_string);
            file(&s.session_answer)
        }
        ("GET", ["source"]) => {
            let text = std::fs::read_to_string(&s.source).unwrap();
            if text.trim_start().starts_with('<') {
                ok(Value::String(text), &session)
            } else {
                file(&s.source)
            }
        }
        ("GET", ["screenshot"]) => ok(
            Value::String(base64::engine::general_purpose::STANDARD.encode(&s.png)),
            &session,
        ),
        ("GET", ["wda", "screen"]) => match s.screen {
            Some((w, h, scale)) => ok(
                json!({"screenSize": {"width": w, "height": h},
                       "statusBarSize": {"width": w, "height": 54}, "scale": scale}),
                &session,
            ),
            None => file(&read(JSONWP_UNHANDLED)),
        },
        ("GET", ["window", "size"]) => file(&read(WINDOW_375X812)),
        (_, ["session", id, rest @ ..]) => {
            if session.as_deref() != Some(*id) {
                return w3c_error(
                    StatusCode::NOT_FOUND,
                    "invalid session id",
                    "Session does not exist",
                    &session,
                );
            }
            match (method.as_str(), rest) {
                ("GET", ["alert", "text"]) => match &s.alert {
                    Some((text, _)) => ok(json!(text), &session),
                    None => w3c_error(StatusCode::NOT_FOUND, "no such alert", "", &session),
                },
                ("GET", ["wda", "alert", "buttons"]) => match &s.alert {
                    Some((_, buttons)) => ok(json!(buttons), &session),
                    None => w3c_error(StatusCode::NOT_FOUND, "no such alert", "", &session),
                },
                ("POST", ["alert", "accept" | "dismiss"]) => match s.alert.take() {
                    Some(_) => ok(Value::Null, &session),
                    None => w3c_error(StatusCode::NOT_FOUND, "no such alert", "", &session),
                },
                ("POST", ["wda", "apps", "terminate"]) => ok(json!(true), &session),
                // No recorded answers of these two: WDA's envelope (as recorded for the other
                // commands) around the value's documented form (an orientation name, the
                // pasteboard base64-encoded), empty or upright.
                ("GET", ["orientation"]) => ok(json!("PORTRAIT"), &session),
                ("POST", ["wda", "getPasteboard"]) => ok(json!(""), &session),
                ("POST", ["actions"])
                | ("POST", ["wda", "keys" | "pressButton" | "lock" | "performIoHidEvent"])
                | ("POST", ["wda", "apps", "launch"])
                | ("POST", ["wda", "keyboard", "dismiss"])
                | ("POST", ["wda", "setPasteboard"])
                | ("POST", ["orientation"])
                | ("POST" | "DELETE", ["wda", "simulatedLocation"])
                | ("POST", ["url"]) => ok(Value::Null, &session),
                _ => w3c_error(
                    StatusCode::NOT_FOUND,
                    "unknown command",
                    &format!("Unhandled endpoint: {path}"),
                    &session,
                ),
            }
        }
        _ => w3c_error(
            StatusCode::NOT_FOUND,
            "unknown command",
            &format!("Unhandled endpoint: {path}"),
            &session,
        ),
    }
}

/// Asserts that the error envelope's `field` (`message`, `hint`) contains `text`.
pub fn says(body: &Value, field: &str, text: &str) {
    let got = body["error"][field].as_str().unwrap_or_default();
    assert!(
        got.contains(text),
        "{field} {got:?} lacks {text:?} in {body}"
    );
}

impl FakeWda {
    /// A WDA on a free port showing `source`, answering `/status` with `status`; its screen
    /// is 402×874 points at scale 3 (the iPhone 17 Pro of the Settings fixture).
    pub async fn start(source: &str, status: &str) -> FakeWda {
        let state = Arc::new(Mutex::new(FakeState {
            log: Vec::new(),
            status: read(status),
            session_answer: read(SESSION_SPRINGBOARD),
            session: None,
            source: read(source),
            png: super::blank_png(1206, 2622),
            screen: Some((402.0, 874.0, 3.0)),
            alert: None,
            once: VecDeque::new(),
        }));
        let mut fake = FakeWda {
            addr: "127.0.0.1:0".parse().unwrap(),
            state,
            stop: None,
            task: None,
        };
        fake.serve().await;
        fake
    }

    async fn serve(&mut self) {
        let listener = tokio::net::TcpListener::bind(self.addr).await.unwrap();
        self.addr = listener.local_addr().unwrap();
        let app = Router::new()
            .fallback(handle)
            .with_state(self.state.clone());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        self.stop = Some(tx);
        self.task = Some(tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await
                .unwrap();
        }));
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// WDA goes down: the port refuses connections.
    pub async fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
    }

    /// WDA comes back on the same port (having forgotten its session, as a restarted WDA does).
    pub async fn restart(&mut self) {
        self.state.lock().unwrap().session = None;
        self.serve().await;
    }

    /// Every request so far.
    pub fn log(&self) -> Vec<Seen> {
        self.state.lock().unwrap().log.clone()
    }

    /// The requests since the `n`th, as `METHOD /route`.
    pub fn routes_since(&self, n: usize) -> Vec<String> {
        self.log()[n..].iter().map(Seen::route).collect()
    }

    pub fn show(&self, source: &str) {
        self.state.lock().unwrap().source = read(source);
    }

    pub fn session_answer(&self, rel: &str) {
        self.state.lock().unwrap().session_answer = read(rel);
    }

    pub fn screen(&self, screen: Option<(f64, f64, f64)>) {
        self.state.lock().unwrap().screen = screen;
    }

    pub fn alert(&self, text: &str, buttons: &[&str]) {
        self.state.lock().unwrap().alert = Some((
            text.to_string(),
            buttons.iter().map(|b| b.to_string()).collect(),
        ));
    }

    /// WDA forgets its session (another client replaced it, or it restarted).
    pub fn forget_session(&self) {
        self.state.lock().unwrap().session = None;
    }

    /// The next `method` request whose path ends with `suffix` gets `status` and `body`.
    pub fn once(&self, method: &'static str, suffix: &'static str, status: u16, body: &str) {
        self.state.lock().unwrap().once.push_back(Once {
            method,
            suffix,
            status,
            body: body.to_string(),
            delay: Duration::ZERO,
        });
    }

    /// The next such request gets the recorded answer `rel` (with `status`).
    pub fn once_fixture(&self, method: &'static str, suffix: &'static str, status: u16, rel: &str) {
        let body = std::fs::read_to_string(read(rel)).unwrap();
        self.once(method, suffix, status, &body);
    }

    /// The next such request is answered normally, after `delay`.
    pub fn delay_once(&self, method: &'static str, suffix: &'static str, delay: Duration) {
        self.state.lock().unwrap().once.push_back(Once {
            method,
            suffix,
            status: 0,
            body: String::new(),
            delay,
        });
    }
}

impl Drop for FakeWda {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}
