//! The HTTP binding of the operation table: a handler made into a [`Binding`] by the shape of
//! its input ([`body`], [`query`], [`plain`]), and the router made from the table, each entry
//! with the binding its [`Op`](crate::error::Op) has (`crate::server::routes::binding`, an
//! exhaustive match) ([`router`]). Here are the extractors, strict bodies, the JSON content-type
//! rule, `Server-Timing`, `304 Not Modified`, and the check that an operation answers only the
//! error codes it declares, and the trace line of every operation in its run ([`traced`]).
//! Each binding carries the input and output types of its handler, so
//! a test holds them to the table's (`tests` below).

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Router;
use serde::de::DeserializeOwned;
use utoipa::{IntoParams, ToSchema};

use super::reply::{none_match_hits, Reply};
use super::traced;
use super::{ApiBytes, ApiQuery, AppState};
use crate::api::strict::{Shape, StrictJson};
use crate::api::types::{Body, Params};
use crate::api::wire::sessions::{SESSION_FIELD, SESSION_HEADER};
use crate::api::{HttpMethod, Input, Operation, Output};
use crate::controller::within;
use crate::error::{Error, ErrorCode, Op, Result};

/// Makes the route of an operation from its table entry.
type MakeRoute = Box<dyn FnOnce(&Operation) -> MethodRouter<AppState>>;

/// A handler made ready to serve an operation, with its input and output as its types say.
pub struct Binding {
    /// The input the handler takes, from its argument's type.
    pub input: Input,
    /// The output the handler answers, from its return type.
    pub output: Output,
    route: MakeRoute,
}

/// Every operation as an axum route, each with the binding of its [`Op`] (two operations on one
/// path share it by method).
pub fn router(ops: &[Operation], binding: fn(Op) -> Binding) -> Router<AppState> {
    ops.iter().fold(Router::new(), |r, op| {
        let route = (binding(op.op).route)(op);
        // The route's own limit wins over the router's default (set by an outer layer).
        let route = match op.body_limit {
            Some(n) => route.layer(axum::extract::DefaultBodyLimit::max(n)),
            None => route,
        };
        r.route(op.path, route)
    })
}

fn filter(m: HttpMethod) -> MethodFilter {
    match m {
        HttpMethod::Get => MethodFilter::GET,
        HttpMethod::Post => MethodFilter::POST,
        HttpMethod::Put => MethodFilter::PUT,
        HttpMethod::Delete => MethodFilter::DELETE,
    }
}

/// When set, an operation answering an error code it does not declare panics (the server
/// turns that into a 500), so tests catch a spec that lies. Off in normal use.
static CHECK_DECLARED: AtomicBool = AtomicBool::new(false);

/// Makes undeclared error codes fail loudly (tests).
pub fn check_declared_errors(on: bool) {
    CHECK_DECLARED.store(on, Ordering::Relaxed);
}

fn checked<R>(name: &'static str, declared: &[ErrorCode], r: Result<R>) -> Result<R> {
    if let Err(e) = &r {
        if !declared.contains(&e.code) && !crate::api::errors::ALWAYS.contains(&e.code) {
            tracing::warn!(
                operation = name,
                code = e.code.as_str(),
                "answered an error code the operation does not declare"
            );
            if CHECK_DECLARED.load(Ordering::Relaxed) {
                panic!("operation `{name}` answered undeclared {}", e.code.as_str());
            }
        }
    }
    r
}

/// A handler taking a JSON body of type `I`; unknown fields are refused, naming them.
/// An operation's own part of a request once its input is read: its handler called, and its
/// answer made a response. What every request goes through besides (the session, the trace,
/// recording, `Server-Timing`) is the same code for every operation, compiled once
/// ([`serve_body`], [`serve_query`], [`serve_plain`]), not once per handler's types.
type Call = Box<dyn FnOnce(AppState) -> BoxedReply + Send>;
type BoxedReply = std::pin::Pin<Box<dyn Future<Output = Result<Response>> + Send>>;

/// The [`Call`] of handler `f` with `input`.
fn call_of<I, R, F, Fut>(f: F, input: I) -> Call
where
    I: Send + 'static,
    R: Reply,
    F: Fn(AppState, I) -> Fut + Send + 'static,
    Fut: Future<Output = Result<R>> + Send + 'static,
{
    Box::new(move |s: AppState| -> BoxedReply {
        Box::pin(async move { f(s, input).await.map(IntoResponse::into_response) })
    })
}

/// What a route knows of its operation from the table.
struct Route {
    name: &'static str,
    declared: Vec<ErrorCode>,
    /// Whether it takes a session (`Mobilectl-Session`, or `session` in query or body).
    sessions: bool,
    /// An action or a verification: traced as one, and recorded.
    act: bool,
    /// Recorded while a recording runs.
    recordable: bool,
}

impl Route {
    fn of(op: &Operation) -> Arc<Route> {
        let act = matches!(op.tag, "act" | "verify");
        Arc::new(Route {
            name: op.name,
            declared: op.errors.clone(),
            sessions: crate::api::openapi::in_sessions(op),
            act,
            recordable: act || crate::flows::record::RECORDED_APP_OPS.contains(&op.op),
        })
    }
}

/// Reads an operation's JSON body into its input, ready to call.
type ReadBody = Arc<dyn Fn(&Bytes) -> Result<Call> + Send + Sync>;

/// A handler taking a JSON body of type `I`.
pub fn body<I, R, F, Fut>(f: F) -> Binding
where
    I: DeserializeOwned + ToSchema + Send + 'static,
    R: Reply,
    F: Fn(AppState, I) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<R>> + Send + 'static,
{
    let shape = Shape::of::<I>();
    let read: ReadBody = Arc::new(move |body: &Bytes| {
        let input: I = StrictJson::parse(body, &shape)?;
        Ok(call_of(f.clone(), input))
    });
    Binding {
        input: Input::Body(Body::of::<I>()),
        output: R::output(),
        route: Box::new(move |op: &Operation| {
            let route = Route::of(op);
            let handler = move |State(s): State<AppState>,
                                headers: HeaderMap,
                                uri: Uri,
                                ApiBytes(body): ApiBytes| {
                serve_body(s, headers, uri, body, route.clone(), read.clone())
            };
            on(filter(op.method), handler)
        }),
    }
}

/// A request with a JSON body: its media type and strict parse, then its session, trace and
/// (while a recording runs) its record.
async fn serve_body(
    s: AppState,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
    route: Arc<Route>,
    read: ReadBody,
) -> Response {
    timed(async move {
        require_json(&headers)?;
        let (body, in_body) = session_in_body(body)?;
        let call = read(&body)?;
        let key = session_key(&headers, &uri)
            .or(in_body)
            .filter(|_| route.sessions);
        let (name, act) = (route.name, route.act);
        let trace = traced::Call::of_body(name, act, &body);
        let work = async {
            let caller = crate::controller::current_session()
                .map(|c| c.id.clone())
                .unwrap_or_default();
            if !(route.recordable && s.controller.recordings.active(&caller)) {
                return checked(name, &route.declared, call(s.clone()).await);
            }
            let (r, target) = Box::pin(crate::flows::record::capturing(call(s.clone()))).await;
            let response = checked(name, &route.declared, r)?;
            Ok(recorded(&s, &caller, name, &body, target, response).await)
        };
        let work = async {
            match act {
                true => traced::traced_act(&s, trace, work).await,
                false => traced::traced(&s, trace, work).await,
            }
        };
        in_session(&s, key, s.options.is_admin(&headers), work).await
    })
    .await
}

async fn recorded(
    s: &AppState,
    caller: &str,
    name: &str,
    body: &Bytes,
    target: Option<crate::flows::record::Target>,
    response: Response,
) -> Response {
    if !response.status().is_success() {
        return response;
    }
    let (parts, inner) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(inner, 16 * 1024 * 1024).await else {
        return Error::internal("the answer to record could not be read").into_response();
    };
    let request = serde_json::from_slice(body).unwrap_or(serde_json::Value::Null);
    let answer = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
    s.controller
        .recordings
        .record(caller, name, &request, &answer, target);
    Response::from_parts(parts, axum::body::Body::from(bytes))
}

/// A handler taking query (and path) parameters of type `I`.
pub fn query<I, R, F, Fut>(f: F) -> Binding
where
    I: DeserializeOwned + IntoParams + Send + 'static,
    R: Reply,
    F: Fn(AppState, I) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<R>> + Send + 'static,
{
    Binding {
        input: Input::Query(Params::of::<I>()),
        output: R::output(),
        route: Box::new(move |op: &Operation| {
            let route = Route::of(op);
            let handler = move |State(s): State<AppState>,
                                headers: HeaderMap,
                                uri: Uri,
                                ApiQuery(q): ApiQuery<I>| {
                serve_query(s, headers, uri, route.clone(), call_of(f.clone(), q))
            };
            on(filter(op.method), handler)
        }),
    }
}

/// A request with query (and path) parameters, already read: its session and trace, and a
/// `304 Not Modified` when the caller has the answer.
async fn serve_query(
    s: AppState,
    headers: HeaderMap,
    uri: Uri,
    route: Arc<Route>,
    call: Call,
) -> Response {
    timed(async move {
        let key = session_key(&headers, &uri).filter(|_| route.sessions);
        let trace = traced::Call::of_query(route.name, uri.query());
        let work = traced::traced(&s, trace, async {
            checked(route.name, &route.declared, call(s.clone()).await)
        });
        let admin = s.options.is_admin(&headers);
        let response = in_session(&s, key, admin, work).await?;
        Ok::<_, Error>(not_modified(&headers, response))
    })
    .await
}

/// Calls a handler without input.
type Run = Arc<dyn Fn(AppState) -> BoxedReply + Send + Sync>;

/// A handler without input.
pub fn plain<R, F, Fut>(f: F) -> Binding
where
    R: Reply,
    F: Fn(AppState) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<R>> + Send + 'static,
{
    let run: Run = Arc::new(move |s: AppState| -> BoxedReply {
        let answer = f(s);
        Box::pin(async move { answer.await.map(IntoResponse::into_response) })
    });
    Binding {
        input: Input::None,
        output: R::output(),
        route: Box::new(move |op: &Operation| {
            let route = Route::of(op);
            let handler = move |State(s): State<AppState>, headers: HeaderMap, uri: Uri| {
                serve_plain(s, headers, uri, route.clone(), run.clone())
            };
            on(filter(op.method), handler)
        }),
    }
}

/// A request without input: its session and trace.
async fn serve_plain(
    s: AppState,
    headers: HeaderMap,
    uri: Uri,
    route: Arc<Route>,
    run: Run,
) -> Response {
    timed(async move {
        let key = session_key(&headers, &uri).filter(|_| route.sessions);
        let trace = traced::Call::of_query(route.name, uri.query());
        let work = traced::traced(&s, trace, async {
            checked(route.name, &route.declared, run(s.clone()).await)
        });
        in_session(&s, key, s.options.is_admin(&headers), work).await
    })
    .await
}

/// The session a request names: the `Mobilectl-Session` header, else the `session` query
/// parameter.
fn session_key(headers: &HeaderMap, uri: &Uri) -> Option<String> {
    if let Some(v) = headers.get(SESSION_HEADER) {
        return v.to_str().ok().map(|s| s.trim().to_string());
    }
    form_urlencoded::parse(uri.query()?.as_bytes())
        .find(|(k, _)| k == SESSION_FIELD)
        .map(|(_, v)| v.into_owned())
}

/// Takes a `session` field (a string) out of a JSON object body: the body without it, and it.
fn session_in_body(body: Bytes) -> Result<(Bytes, Option<String>)> {
    let needle = format!("\"{SESSION_FIELD}\"");
    if memchr::memmem::find(&body, needle.as_bytes()).is_none() {
        return Ok((body, None));
    }
    let Ok(serde_json::Value::Object(mut object)) = serde_json::from_slice(&body) else {
        // Not an object: the strict parse says what is wrong with it.
        return Ok((body, None));
    };
    match object.remove(SESSION_FIELD) {
        Some(serde_json::Value::String(key)) => {
            let rest = serde_json::to_vec(&object).map_err(|e| Error::internal(e.to_string()))?;
            Ok((Bytes::from(rest), Some(key)))
        }
        Some(_) => Err(
            Error::validation("`session` must be a string: the session's secret")
                .with_hint("or send the header `Mobilectl-Session: SECRET`"),
        ),
        None => Ok((body, None)),
    }
}

/// Runs `work` in the session whose secret `key` is (renewing it; an unknown or expired one,
/// or a session's id or name sent instead, is refused before anything runs), or as a
/// session-less request.
/// A request showing the admin token runs as the admin ([`crate::controller::as_admin`]).
async fn in_session<R>(
    s: &AppState,
    key: Option<String>,
    admin: bool,
    work: impl Future<Output = Result<R>> + Send,
) -> Result<R> {
    // The work waits on the heap: this wrapper adds little to every operation's future (a
    // flow's steps nest operations, and a debug build's stack is the limit).
    let work = Box::pin(work);
    let entered = match &key {
        Some(key) => Some(s.controller.sessions().enter(key)?),
        None => None,
    };
    // Without a session of its own, a request keeps its task's caller (a flow's steps run in
    // the flow's session).
    let work: std::pin::Pin<Box<dyn Future<Output = Result<R>> + Send + '_>> = match &entered {
        Some(e) => Box::pin(within(Some(e.session.clone()), work)),
        None => work,
    };
    if admin {
        crate::controller::as_admin(work).await
    } else {
        work.await
    }
}

/// Runs a handler and says where its time went in `Server-Timing` (device commands, parsing,
/// encoding, total), on successes and errors alike.
async fn timed<R: IntoResponse>(work: impl Future<Output = Result<R>>) -> Response {
    let started = std::time::Instant::now();
    let (result, stages) = crate::exec::timing::scope(work).await;
    // An operation called from inside another (a flow's steps) counts in the caller's too.
    for (stage, took) in &stages {
        crate::exec::timing::record(stage, *took);
    }
    let mut response = result.into_response();
    let value = crate::exec::timing::header(&stages, started.elapsed());
    if let Ok(v) = axum::http::HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(axum::http::HeaderName::from_static("server-timing"), v);
    }
    response
}

/// `304 Not Modified` (with the tag, without the body) when the request's `If-None-Match`
/// names the answer's `ETag`; else the answer.
fn not_modified(request: &HeaderMap, response: Response) -> Response {
    let tag = response.headers().get(header::ETAG).cloned();
    let hit = match (request.get(header::IF_NONE_MATCH), &tag) {
        (Some(inm), Some(tag)) => match (inm.to_str(), tag.to_str()) {
            (Ok(inm), Ok(tag)) => none_match_hits(inm, tag),
            _ => false,
        },
        _ => false,
    };
    if !hit || !response.status().is_success() {
        return response;
    }
    let mut r = StatusCode::NOT_MODIFIED.into_response();
    if let Some(tag) = tag {
        r.headers_mut().insert(header::ETAG, tag);
    }
    r
}

/// A body must be declared JSON: a plain HTML form or a "simple" cross-site request cannot
/// send that content type, so a web page cannot make the server act.
pub(super) fn require_json(headers: &HeaderMap) -> Result<()> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| {
            let mime = mime.trim().to_ascii_lowercase();
            mime == "application/json" || mime.ends_with("+json")
        });
    if json {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::UnsupportedMediaType,
        "this operation takes a JSON body: send `Content-Type: application/json`",
    )
    .with_hint("send a JSON body (`{}` when there is nothing to say) with that header"))
}

#[cfg(test)]
mod tests {
    use crate::api::operations;
    use crate::error::Op;

    #[test]
    fn every_operation_has_one_entry_and_a_binding_that_agrees_with_it() {
        let ops = operations();
        let keys: Vec<Op> = ops.iter().map(|o| o.op).collect();
        assert_eq!(
            keys,
            Op::ALL,
            "one entry per operation, in the order of `Op`"
        );
        for op in ops {
            let b = super::super::routes::binding(op.op);
            assert_eq!(b.input, op.input, "`{}`: the handler's input", op.name);
            assert_eq!(b.output, op.output, "`{}`: the handler's output", op.name);
        }
    }
}
