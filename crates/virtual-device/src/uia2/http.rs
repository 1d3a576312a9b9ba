//! The server's HTTP/1.1 side (hyper): routes with and without the legacy `/wd/hub` prefix,
//! the one session, settings, and the W3C-shaped answers — `{"value": …, "sessionId": …}`
//! (nulls kept, as the server's Gson writes them), errors as `{"value": {"error", "message",
//! "stacktrace"}}` with their W3C status: `unknown command` 404, `invalid session id` 404,
//! `invalid argument` 400, `no such element` 404. Every request is journaled
//! (`{"uia2":"POST /session/ID/actions"}`). What a route does to the device goes through the
//! same state code as `input` and `uiautomator dump` ([`super::actions`], [`super::source`]).

use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{json, Map, Value};
use tokio::net::TcpListener;
use tokio::sync::watch;

use super::{End, Fault};
use crate::Device;

/// The server's version, as `GET /status` reports its build.
const VERSION: &str = "10.6.6";
const VERSION_CODE: u64 = 256;

struct Session {
    id: String,
    capabilities: Value,
}

/// One run of the server: its session and settings live as long as its process.
pub struct Server {
    dev: Arc<Device>,
    ended: watch::Receiver<Option<End>>,
    session: Mutex<Option<Session>>,
    settings: Mutex<Map<String, Value>>,
}

/// The settings `GET /session/:id/appium/settings` lists, with the server's defaults.
fn default_settings() -> Map<String, Value> {
    let v = json!({
        "actionAcknowledgmentTimeout": 3000, "allowInvisibleElements": false,
        "alwaysTraversableViewClasses": "", "ignoreUnimportantViews": false,
        "currentDisplayId": 0, "deferAccessibilityCacheReset": false,
        "disableIdLocatorAutocompletion": false, "elementResponseAttributes": "",
        "enableMultiWindows": false, "enableNotificationListener": true,
        "enableTopmostWindowFromActivePackage": false, "enforceXPath1": false,
        "includeA11yActionsInPageSource": false, "includeExtraRenderingInfo": false,
        "includeExtrasInPageSource": false, "keyInjectionDelay": 0,
        "limitXPathContextScope": true, "mapTestTagToResourceId": false,
        "mjpegBilinearFiltering": false, "mjpegScalingFactor": 50, "mjpegServerFramerate": 10,
        "mjpegServerPort": 7810, "mjpegServerScreenshotQuality": 50, "normalizeTagNames": false,
        "scrollAcknowledgmentTimeout": 200, "serverPort": 6790, "shouldUseCompactResponses": true,
        "shutdownOnPowerDisconnect": true, "simpleBoundsCalculation": false,
        "snapshotMaxDepth": 70, "trackScrollEvents": true,
        "useResourcesForOrientationDetection": false, "waitForIdleTimeout": 10000,
        "waitForSelectorTimeout": 10000, "wakeLockTimeout": 86400000
    });
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

impl Server {
    pub fn new(dev: Arc<Device>, ended: watch::Receiver<Option<End>>) -> Arc<Server> {
        Arc::new(Server {
            dev,
            ended,
            session: Mutex::new(None),
            settings: Mutex::new(default_settings()),
        })
    }

    fn session(&self) -> MutexGuard<'_, Option<Session>> {
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn settings(&self) -> MutexGuard<'_, Map<String, Value>> {
        self.settings.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How long a read waits for the app to be idle (`waitForIdleTimeout`, ms).
    pub fn idle_timeout(&self) -> Duration {
        Duration::from_millis(
            self.settings()
                .get("waitForIdleTimeout")
                .and_then(Value::as_u64)
                .unwrap_or(10_000),
        )
    }

    /// Resolves once the server stopped (its connections are then dropped).
    async fn stopped(&self) {
        let mut rx = self.ended.clone();
        let _ = rx.wait_for(Option::is_some).await;
    }
}

/// Accepts connections until the server is stopped (this task is aborted then).
pub async fn serve(server: Arc<Server>, listener: TcpListener) {
    loop {
        let Ok((sock, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let server = server.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(sock);
            let s = server.clone();
            let svc = hyper::service::service_fn(move |req| handle(s.clone(), req));
            let conn = hyper::server::conn::http1::Builder::new().serve_connection(io, svc);
            tokio::select! {
                _ = conn => {}
                _ = server.stopped() => {}
            }
        });
    }
}

type Answer = Response<Full<Bytes>>;

/// A W3C error: its `error` code, HTTP status, message and exception class.
#[derive(Debug)]
pub struct Failure {
    pub status: StatusCode,
    pub error: &'static str,
    pub message: String,
    pub class: &'static str,
}

impl Failure {
    pub fn invalid_argument(message: impl Into<String>) -> Failure {
        Failure {
            status: StatusCode::BAD_REQUEST,
            error: "invalid argument",
            message: message.into(),
            class: "io.appium.uiautomator2.common.exceptions.InvalidArgumentException",
        }
    }

    fn unknown_command() -> Failure {
        Failure {
            status: StatusCode::NOT_FOUND,
            error: "unknown command",
            message: "The requested resource could not be found, or a request was received using an HTTP method that is not supported by the mapped resource".into(),
            class: "io.appium.uiautomator2.common.exceptions.UnknownCommandException",
        }
    }

    fn invalid_session(message: String) -> Failure {
        Failure {
            status: StatusCode::NOT_FOUND,
            error: "invalid session id",
            message,
            class: "io.appium.uiautomator2.common.exceptions.NoSuchDriverException",
        }
    }

    pub fn no_such_element() -> Failure {
        Failure {
            status: StatusCode::NOT_FOUND,
            error: "no such element",
            message:
                "An element could not be located on the page using the given search parameters"
                    .into(),
            class: "io.appium.uiautomator2.common.exceptions.ElementNotFoundException",
        }
    }
}

fn respond(status: StatusCode, body: Value) -> Answer {
    let mut r = Response::new(Full::new(Bytes::from(body.to_string())));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json; charset=utf-8"),
    );
    h.insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-store"),
    );
    r
}

fn ok(session: Option<&str>, value: Value) -> Answer {
    respond(
        StatusCode::OK,
        json!({"value": value, "sessionId": session}),
    )
}

fn fail(session: Option<&str>, f: Failure) -> Answer {
    let trace = format!(
        "{}: {}\n\tat io.appium.uiautomator2.handler.request.SafeRequestHandler.handle(SafeRequestHandler.java:59)\n\tat io.appium.uiautomator2.server.AppiumServlet.handleRequest(AppiumServlet.java:267)\n\tat io.appium.uiautomator2.server.AppiumServlet.handleHttpRequest(AppiumServlet.java:261)\n\tat io.appium.uiautomator2.http.ServerHandler.channelRead(ServerHandler.java:77)\n",
        f.class, f.message
    );
    respond(
        f.status,
        json!({"value": {"error": f.error, "message": f.message, "stacktrace": trace}, "sessionId": session}),
    )
}

/// A new session id, shaped as the server's (a random UUID).
fn new_session_id() -> String {
    let mut b = [0u8; 16];
    let _ = getrandom::getrandom(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

async fn handle(server: Arc<Server>, req: Request<Incoming>) -> Result<Answer, Infallible> {
    let method = req.method().clone();
    let full = req.uri().path().to_string();
    server.dev.journal.uia2(&format!("{method} {full}"));
    match server.dev.uia2.fault() {
        Fault::Normal => {}
        Fault::Garbage => {
            let mut r = Response::new(Full::new(Bytes::from_static(
                b"<html><body>Internal garbage \x00\xff{{{</body>",
            )));
            r.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                hyper::header::HeaderValue::from_static("application/json; charset=utf-8"),
            );
            return Ok(r);
        }
        Fault::Hang => {
            server.stopped().await;
            std::future::pending::<()>().await;
        }
    }
    let body = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let path = full.strip_prefix("/wd/hub").unwrap_or(&full).to_string();
    let segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    Ok(route(&server, &method, &segs, &body).await)
}

fn parse_body(body: &[u8]) -> Result<Value, Failure> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(Failure::invalid_argument(
            "A JSONObject text must begin with '{' at 1",
        )),
        Err(e) => Err(Failure::invalid_argument(format!(
            "org.json.JSONException: {e}"
        ))),
    }
}

async fn route(server: &Arc<Server>, method: &Method, segs: &[&str], body: &[u8]) -> Answer {
    let get = method == Method::GET;
    let post = method == Method::POST;
    match segs {
        ["status"] if get => ok(
            None,
            json!({"ready": true, "message": "UiAutomator2 Server is ready to accept commands",
                   "build": {"version": VERSION, "versionCode": VERSION_CODE}}),
        ),
        ["session"] if post => new_session(server, body),
        ["sessions"] if get => {
            let list = match server.session().as_ref() {
                Some(s) => json!([{"sessionId": s.id, "capabilities": s.capabilities, "id": s.id}]),
                None => json!([]),
            };
            ok(None, list)
        }
        ["session", id, rest @ ..] => {
            let id = id.to_string();
            let known = server.session().as_ref().is_some_and(|s| s.id == id);
            let is_delete = method == Method::DELETE && rest.is_empty();
            let routed = is_delete
                || matches!(
                    (get, post, rest),
                    (true, _, [] | ["source"] | ["appium", "settings"])
                        | (
                            _,
                            true,
                            ["actions"]
                                | ["keys"]
                                | ["back"]
                                | ["appium", "settings" | "reset_ax_cache"]
                                | ["appium", "device", "press_keycode" | "long_press_keycode"]
                        )
                );
            if !routed {
                return fail(None, Failure::unknown_command());
            }
            if !known {
                let message = if is_delete {
                    format!("The session {id} cannot be found")
                } else {
                    format!("The session identified by {id} is not known")
                };
                return fail(Some(&id), Failure::invalid_session(message));
            }
            if is_delete {
                return delete_session(server, &id);
            }
            match session_command(server, get, rest, body).await {
                Ok(v) => ok(Some(&id), v),
                Err(f) => fail(Some(&id), f),
            }
        }
        _ => fail(None, Failure::unknown_command()),
    }
}

fn new_session(server: &Server, body: &[u8]) -> Answer {
    let caps = match parse_body(body) {
        Ok(v) => v.get("capabilities").cloned().unwrap_or(Value::Null),
        Err(f) => return fail(None, f),
    };
    if !caps.is_object() {
        // The server wraps this in `session not created` (500).
        return fail(
            None,
            Failure {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                error: "session not created",
                message: "io.appium.uiautomator2.common.exceptions.InvalidArgumentException: 'capabilities' are mandatory for session creation".into(),
                class: "io.appium.uiautomator2.common.exceptions.SessionNotCreatedException",
            },
        );
    }
    let id = new_session_id();
    // One session at a time: a new one replaces the old, with settings back to defaults.
    *server.settings() = default_settings();
    *server.session() = Some(Session {
        id: id.clone(),
        capabilities: caps.clone(),
    });
    ok(Some(&id), json!({"sessionId": id, "capabilities": caps}))
}

fn delete_session(server: &Server, id: &str) -> Answer {
    *server.session() = None;
    // The server stops itself 15 ms after answering (a handler posted on the main looper).
    let dev = server.dev.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(15)).await;
        super::stop(&dev, End::Finished, "instrumentation finished");
    });
    ok(Some(id), Value::Null)
}

async fn session_command(
    server: &Arc<Server>,
    get: bool,
    rest: &[&str],
    body: &[u8],
) -> Result<Value, Failure> {
    match (get, rest) {
        (true, []) => Ok(json!({"lastScrollData": null})),
        (true, ["appium", "settings"]) => Ok(Value::Object(server.settings().clone())),
        (true, ["source"]) => {
            let (dev, limit) = (server.dev.clone(), server.idle_timeout());
            blocking(move || super::source::page_source(&dev, limit)).await
        }
        (false, ["appium", "settings"]) => {
            let v = parse_body(body)?;
            let Some(new) = v.get("settings").and_then(Value::as_object) else {
                return Err(Failure::invalid_argument("'settings' are mandatory"));
            };
            let mut settings = server.settings();
            for (k, val) in new {
                // Unknown settings are skipped, as the server does.
                if let Some(slot) = settings.get_mut(k) {
                    *slot = val.clone();
                }
            }
            Ok(Value::Null)
        }
        (false, ["appium", "reset_ax_cache"]) => Ok(Value::Null),
        (false, ["back"]) => {
            let dev = server.dev.clone();
            blocking(move || super::actions::keyevent(&dev, 4, false)).await
        }
        (false, ["appium", "device", which]) => {
            let v = parse_body(body)?;
            let Some(code) = v.get("keycode").and_then(Value::as_i64) else {
                return Err(Failure::invalid_argument("'keycode' is a required field"));
            };
            let long = *which == "long_press_keycode";
            let dev = server.dev.clone();
            blocking(move || super::actions::keyevent(&dev, code, long)).await
        }
        (false, ["keys"]) => {
            let v = parse_body(body)?;
            let dev = server.dev.clone();
            blocking(move || super::actions::send_keys(&dev, &v)).await
        }
        (false, ["actions"]) => {
            let v = parse_body(body)?;
            let dev = server.dev.clone();
            blocking(move || super::actions::perform(&dev, &v)).await
        }
        _ => Err(Failure::unknown_command()),
    }
}

/// Runs device work that may wait (the app's idleness, its API calls) off the runtime.
async fn blocking(
    f: impl FnOnce() -> Result<Value, Failure> + Send + 'static,
) -> Result<Value, Failure> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => Err(Failure {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            error: "unknown error",
            message: e.to_string(),
            class: "java.lang.RuntimeException",
        }),
    }
}
