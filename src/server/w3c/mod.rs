//! The W3C WebDriver surface a Selenium Grid 4 relay node speaks (docs/DESIGN.md "Many
//! hosts"): `GET /status` (ready while a device can take commands), `POST /session` (W3C
//! capabilities → a mobilectl session holding a lease, `crate::api::wire::capabilities`), `DELETE
//! /session/{id}` (ends it, releasing the lease), and everything under `/session/{id}/` sent
//! to the API in that session: `/session/{id}/api/v1/…` is `/api/v1/…` with
//! `Mobilectl-Session: id`. The W3C session id is the session's secret (unguessable, answered
//! only to the caller of `POST /session`, never listed), so the whole operation table works through a hub with no second
//! list of routes. Grid forwards only GET, POST and DELETE: under a session, a POST reaches an
//! operation that is a PUT on its own path. Errors of the W3C routes are W3C-shaped
//! (`{"value": {"error", "message", "stacktrace", "data"}}`, our code and hint in `data`);
//! under `/api/v1/` they are the API's envelope. `POST /session` takes what an API body is
//! held to: JSON (`Content-Type: application/json`), at most [`super::BODY_LIMIT`].

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, FromRequest, Path, Request, State};
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, delete, get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use tower::ServiceExt;

use super::AppState;
use crate::api::wire::capabilities::{self, name};
use crate::api::wire::sessions::SESSION_HEADER;
use crate::api::HttpMethod;
use crate::controller::Gone;
use crate::error::Error;

/// What the W3C routes need: the server's state, and the API to send session requests to.
#[derive(Clone)]
struct W3c {
    state: AppState,
    api: Router,
}

/// The W3C routes over `api` (the API router with its state).
pub fn routes(state: AppState, api: Router) -> Router {
    Router::new()
        .route("/status", get(status))
        .route(
            "/session",
            post(new_session).layer(DefaultBodyLimit::max(super::BODY_LIMIT)),
        )
        .route("/session/{id}", delete(delete_session))
        .route("/session/{id}/{*rest}", any(in_session))
        .with_state(W3c { state, api })
}

/// A W3C error answer.
fn w3c_error(status: StatusCode, error: &str, message: String, data: Value) -> Response {
    let body =
        json!({"value": {"error": error, "message": message, "stacktrace": "", "data": data}});
    (status, Json(body)).into_response()
}

/// Our error as the data of a W3C error.
fn data_of(e: &Error) -> Value {
    json!({"code": e.code.as_str(), "hint": e.hint, "details": e.details})
}

/// `GET /status`: ready while some device takes commands.
async fn status(State(w): State<W3c>) -> Response {
    let list = w.state.controller.list().await;
    let ready = list.devices.iter().filter(|d| d.state.is_ready()).count();
    let leased = list.leases.len();
    let message = match ready {
        0 => "no device is ready".to_string(),
        n => format!("{n} device(s) ready, {leased} leased"),
    };
    Json(json!({"value": {
        "ready": ready > 0,
        "message": message,
        "build": {"version": env!("CARGO_PKG_VERSION")},
        "devices": list.devices.iter().map(|d| json!({
            "udid": d.udid, "name": d.name, "platform": d.platform, "state": d.state,
            "leased": list.leases.iter().any(|l| l.udid == d.udid),
        })).collect::<Vec<_>>(),
    }}))
    .into_response()
}

/// Our error as a W3C `invalid argument`, with its status (a body too large: 413; not JSON: 415).
fn invalid_argument(e: Error) -> Response {
    let status = StatusCode::from_u16(e.code.status()).unwrap_or(StatusCode::BAD_REQUEST);
    w3c_error(status, "invalid argument", e.message.clone(), data_of(&e))
}

/// `POST /session`: the first `firstMatch` entry a device satisfies becomes a mobilectl session
/// leasing that device. The body is JSON, at most [`super::BODY_LIMIT`] (read after the type
/// is checked).
async fn new_session(State(w): State<W3c>, req: Request) -> Response {
    if let Err(e) = super::bind::require_json(req.headers()) {
        return invalid_argument(e);
    }
    let body = match super::ApiBytes::from_request(req, &()).await {
        Ok(super::ApiBytes(b)) => b,
        Err(e) => return invalid_argument(e),
    };
    let parsed: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return w3c_error(
                StatusCode::BAD_REQUEST,
                "invalid argument",
                format!("the body is not JSON: {e}"),
                Value::Null,
            )
        }
    };
    let requests = match capabilities::requests(&parsed) {
        Ok(r) => r,
        Err(e) => {
            return w3c_error(
                StatusCode::BAD_REQUEST,
                "invalid argument",
                e.0,
                Value::Null,
            )
        }
    };
    let mut last = None;
    for req in &requests {
        match w.state.controller.create_session(req).await {
            Ok(info) => {
                let device = info.device.as_ref();
                let caps = json!({
                    name::PLATFORM: device.map(|d| d.platform),
                    name::KIND: device.map(|d| d.kind),
                    name::UDID: info.udid,
                    name::DEVICE_NAME: device.map(|d| d.name.clone()),
                    name::PLATFORM_VERSION: device.and_then(|d| d.os_version.clone()),
                    name::SESSION: info.id,
                    name::TTL_S: info.ttl_s,
                });
                // The W3C session id is the bearer value of everything under
                // `/session/{id}/`: the session's secret, never listed.
                let Some(secret) = info.secret else {
                    return w3c_error(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "session not created",
                        "the session was made without a secret".into(),
                        Value::Null,
                    );
                };
                return Json(json!({"value": {"sessionId": secret, "capabilities": caps}}))
                    .into_response();
            }
            Err(e) => last = Some(e),
        }
    }
    let e = last.unwrap_or_else(|| Error::internal("no capabilities to try"));
    w3c_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "session not created",
        e.message.clone(),
        data_of(&e),
    )
}

/// `DELETE /session/{id}`: ends the session whose secret `id` is, releasing its lease.
async fn delete_session(State(w): State<W3c>, Path(id): Path<String>) -> Response {
    let ended = w
        .state
        .controller
        .sessions()
        .get_by_secret(&id)
        .and_then(|s| w.state.controller.end_session(&s, Gone::Ended));
    match ended {
        Ok(_) => Json(json!({"value": null})).into_response(),
        Err(e) => w3c_error(
            StatusCode::NOT_FOUND,
            "invalid session id",
            e.message.clone(),
            data_of(&e),
        ),
    }
}

/// Anything under `/session/{id}/`: `api/v1/…` and `health` go to the API in the session;
/// the rest is not a command of this server.
async fn in_session(
    State(w): State<W3c>,
    Path((id, rest)): Path<(String, String)>,
    req: Request,
) -> Response {
    if !(rest.starts_with("api/v1/") || rest == "health") {
        return w3c_error(
            StatusCode::NOT_FOUND,
            "unknown command",
            format!("`/session/{id}/{rest}` is not a command of mobilectl"),
            json!({"hint": "send the API under the session: /session/{id}/api/v1/… (GET /openapi.json lists the operations)"}),
        );
    }
    let (mut parts, body) = req.into_parts();
    let path = format!("/{rest}");
    let uri = match parts.uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.clone(),
    };
    let Ok(uri) = uri.parse::<Uri>() else {
        return Error::bad_request("the path cannot be read").into_response();
    };
    if parts.method == Method::POST && only_put(&path) {
        parts.method = Method::PUT;
    }
    parts.uri = uri;
    match id.parse() {
        Ok(v) => {
            parts.headers.insert(SESSION_HEADER, v);
        }
        Err(_) => return Error::bad_request("the session id cannot be read").into_response(),
    }
    parts.headers.remove(header::EXPECT);
    // A fresh request: the outer route's path parameters (`id`, `rest`) are not the inner
    // operation's.
    parts.extensions = axum::http::Extensions::new();
    let forwarded = Request::from_parts(parts, Body::new(body));
    match w.api.oneshot(forwarded).await {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

/// Whether `path` names an operation that only PUT reaches (Grid forwards no PUT).
fn only_put(path: &str) -> bool {
    let ops = crate::api::operations();
    let on_path = |m: HttpMethod| ops.iter().any(|o| o.method == m && o.path == path);
    on_path(HttpMethod::Put) && !on_path(HttpMethod::Post)
}
