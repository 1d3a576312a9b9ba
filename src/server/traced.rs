//! Every operation into its run's trace (`crate::runs`), from the HTTP binding
//! (`super::bind`), inside the request's session scope: time, duration, session, device,
//! target, outcome and error code. When an act or verify operation fails about the screen (an
//! element not found, a stale ref, an expectation that did not hold, an app that crashed —
//! not a malformed request), the screen's screenshot and compact tree are saved into the run's
//! artifacts first, within [`CAPTURE_LIMIT`] (the device may be gone), and named in the line.
//! Nothing here fails or changes the request's answer.

use std::future::Future;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::response::Response;
use serde_json::{Map, Value};

use super::AppState;
use crate::api::wire::runs::ArtifactKind;
use crate::error::{ErrorCode, Result};
use crate::runs::{Outcome, TraceLine};

/// Most time the screenshot and tree of a failure may take together.
pub const CAPTURE_LIMIT: Duration = Duration::from_secs(3);

/// Largest answer read back to see whether an act's outcome failed.
const MAX_READ_BACK: usize = 16 * 1024 * 1024;

tokio::task_local! {
    /// The console lines a flow's scripts wrote during the traced operation (`flow_run`,
    /// `flow_test`), for its trace line.
    static CONSOLE: std::sync::Arc<std::sync::Mutex<Vec<String>>>;
}

/// Keeps a script's console `lines` for the trace line of the operation running them (none
/// outside a traced operation: a streamed run's task, whose line was written as it began).
pub fn note_console(lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = CONSOLE.try_with(|c| {
        c.lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(lines.iter().cloned())
    });
}

/// Runs `work` with a console of its own: its output and the lines its scripts wrote.
async fn with_console<T>(work: impl Future<Output = T>) -> (T, Vec<String>) {
    let console = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let out = CONSOLE.scope(console.clone(), work).await;
    let lines = std::mem::take(&mut *console.lock().unwrap_or_else(|p| p.into_inner()));
    (out, lines)
}

/// What the trace says of a request besides its outcome.
pub(super) struct Call {
    pub op: &'static str,
    /// An act or verify operation (tag `act` or `verify`).
    pub act: bool,
    pub udid: Option<String>,
    pub target: Option<Value>,
}

impl Call {
    /// A request with a JSON body: its `udid` and, for an act, its target fields.
    pub fn of_body(op: &'static str, act: bool, body: &Bytes) -> Call {
        let mut call = Call {
            op,
            act,
            udid: None,
            target: None,
        };
        let wanted = act || memchr::memmem::find(body, b"\"udid\"").is_some();
        if !wanted {
            return call;
        }
        let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(body) else {
            return call;
        };
        call.udid = o.get("udid").and_then(Value::as_str).map(str::to_string);
        if act {
            let target: Map<String, Value> = ["ref", "selector", "x", "y", "target"]
                .iter()
                .filter_map(|k| o.get(*k).map(|v| (k.to_string(), v.clone())))
                .collect();
            call.target = (!target.is_empty()).then_some(Value::Object(target));
        }
        call
    }

    /// A request with query parameters: its `udid`.
    pub fn of_query(op: &'static str, query: Option<&str>) -> Call {
        let udid = query.and_then(|q| {
            form_urlencoded::parse(q.as_bytes())
                .find(|(k, _)| k == "udid")
                .map(|(_, v)| v.into_owned())
        });
        Call {
            op,
            act: false,
            udid,
            target: None,
        }
    }
}

/// Runs `work` and traces it (any answer).
pub(super) async fn traced<R>(
    s: &AppState,
    call: Call,
    work: impl Future<Output = Result<R>>,
) -> Result<R> {
    let (time, started) = (chrono::Utc::now(), Instant::now());
    let (r, console) = with_console(work).await;
    let (outcome, code) = match &r {
        Ok(_) => (Outcome::Ok, None),
        Err(e) => (Outcome::Error, Some(e.code)),
    };
    let ended = Ended {
        outcome,
        code: code.map(|c| c.as_str().to_string()),
        screen: code.is_some_and(about_screen),
        console,
    };
    record(s, call, time, started, ended).await;
    r
}

/// Runs an act's or verify's `work` and traces it; an answer whose `success` is false is a
/// failed outcome (its `failure_code` the code).
pub(super) async fn traced_act(
    s: &AppState,
    call: Call,
    work: impl Future<Output = Result<Response>>,
) -> Result<Response> {
    let (time, started) = (chrono::Utc::now(), Instant::now());
    let (r, console) = with_console(work).await;
    let (r, outcome, code, screen) = match r {
        Err(e) => {
            let screen = about_screen(e.code);
            let code = Some(e.code.as_str().to_string());
            (Err(e), Outcome::Error, code, screen)
        }
        Ok(response) => {
            let (response, failed) = read_outcome(response).await;
            match failed {
                Some(code) => (Ok(response), Outcome::Failed, code, true),
                None => (Ok(response), Outcome::Ok, None, false),
            }
        }
    };
    let ended = Ended {
        outcome,
        code,
        screen,
        console,
    };
    record(s, call, time, started, ended).await;
    r
}

/// How a traced operation ended: its outcome and code, whether that is about the screen, and
/// its scripts' console lines.
struct Ended {
    outcome: Outcome,
    code: Option<String>,
    screen: bool,
    console: Vec<String>,
}

/// The response as it was, and `Some(failure code)` when its JSON says `success: false`.
async fn read_outcome(response: Response) -> (Response, Option<Option<String>>) {
    let json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !json || !response.status().is_success() {
        return (response, None);
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_READ_BACK).await else {
        return (
            axum::response::IntoResponse::into_response(crate::error::Error::internal(
                "an answer could not be read back",
            )),
            None,
        );
    };
    let failed = memchr::memmem::find(&bytes, b"\"success\":false")
        .and_then(|_| serde_json::from_slice::<Value>(&bytes).ok())
        .filter(|v| v.get("success") == Some(&Value::Bool(false)))
        .map(|v| {
            ["failure_code", "code", "status"]
                .iter()
                .find_map(|k| v.get(*k).and_then(Value::as_str).map(str::to_string))
        });
    (
        Response::from_parts(parts, axum::body::Body::from(bytes)),
        failed,
    )
}

/// Whether an error is about the screen (so a screenshot and tree say why). `NO_ALERT` is
/// not: nothing to answer is an answer about the screen already.
fn about_screen(code: ErrorCode) -> bool {
    use ErrorCode::*;
    matches!(
        code,
        ElementNotFound
            | AmbiguousTarget
            | StaleReference
            | ElementNotInteractable
            | ElementObscured
            | AlertBlocking
            | ElementVisible
            | TextMismatch
            | NoFocusedField
            | ElementNotEditable
            | AppCrashed
            | AppNotResponding
            | NavigationNoChange
            | Timeout
    )
}

async fn record(
    s: &AppState,
    call: Call,
    time: chrono::DateTime<chrono::Utc>,
    started: Instant,
    ended: Ended,
) {
    let Ended {
        outcome,
        code,
        screen,
        console,
    } = ended;
    let duration_ms = started.elapsed().as_millis() as u64;
    let session = crate::controller::current_session();
    // The device named, else the session's, else (session-less) the active one.
    let udid = call.udid.clone().or_else(|| match &session {
        Some(x) => x.device(),
        None => s.controller.active(),
    });
    // A step of a batch or a flow (the task holds the device) is left to it: the batch's own
    // failure is captured, and a flow saves its failed step's screen itself.
    let capture_it =
        call.act && outcome != Outcome::Ok && screen && !crate::controller::inside_hold();
    let artifacts = match capture_it {
        true => {
            capture(
                s,
                call.op,
                udid.as_deref(),
                session.as_ref().map(|x| x.id.as_str()),
            )
            .await
        }
        false => Vec::new(),
    };
    let line = TraceLine {
        time: crate::runs::live::rfc3339(time),
        op: call.op,
        duration_ms,
        session: session.as_ref().map(|x| x.id.clone()),
        udid,
        target: call.target,
        outcome,
        code,
        artifacts,
        console,
        act: call.act,
    };
    let who = session.as_ref().map(|x| (x.id.as_str(), x.name.as_deref()));
    s.controller.runs().trace(who, &line);
}

/// The screen's screenshot and compact tree, saved as artifacts of the caller's run within
/// [`CAPTURE_LIMIT`]; their names (none when the device cannot be read in time).
async fn capture(s: &AppState, op: &str, udid: Option<&str>, session: Option<&str>) -> Vec<String> {
    let mut names = Vec::new();
    let read = async {
        let shot = s.controller.screenshot(udid).await.ok();
        let tree = s.controller.current(udid).await.ok();
        (shot, tree)
    };
    let Ok((shot, tree)) = tokio::time::timeout(CAPTURE_LIMIT, read).await else {
        tracing::debug!(op, "the failure's screen could not be read in time");
        return names;
    };
    let runs = s.controller.runs();
    if let Some(shot) = shot {
        if let Ok(a) = runs.save_artifact(
            session,
            &format!("failure-{op}.png"),
            ArtifactKind::Screenshot,
            &shot.png,
        ) {
            names.push(a.name);
        }
    }
    if let Some(snap) = tree {
        let text = snap
            .view(&crate::ui::ViewOptions::default())
            .tree_text
            .clone();
        if let Ok(a) = runs.save_artifact(
            session,
            &format!("failure-{op}.txt"),
            ArtifactKind::Tree,
            text.as_bytes(),
        ) {
            names.push(a.name);
        }
    }
    names
}
