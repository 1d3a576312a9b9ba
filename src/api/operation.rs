//! What one operation is: its name, method, path, tag, summary, the error codes it can answer,
//! and — taken from the types of its handler, so they cannot disagree — its input and output.
//! The HTTP route, the OpenAPI entry, the CLI request and the MCP tool are all made from this.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use serde::de::DeserializeOwned;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{IntoParams, ToSchema};

use super::reply::{Output, Reply};
use super::strict::{Shape, StrictJson};
use crate::error::{Error, ErrorCode, Result};
use crate::server::{ApiBytes, ApiQuery, AppState};

/// Schemas collected for the document's `components`, by name.
pub type Schemas = Vec<(String, RefOr<Schema>)>;

/// The HTTP methods the API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HttpMethod {
    Get,
    Post,
    Put,
    Delete,
}

impl HttpMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Delete => "DELETE",
        }
    }

    fn filter(self) -> MethodFilter {
        match self {
            HttpMethod::Get => MethodFilter::GET,
            HttpMethod::Post => MethodFilter::POST,
            HttpMethod::Put => MethodFilter::PUT,
            HttpMethod::Delete => MethodFilter::DELETE,
        }
    }
}

/// Where an operation's input comes from.
#[derive(Clone, Copy)]
pub enum Input {
    /// Nothing beyond the path.
    None,
    /// Query parameters (GET).
    Query(fn() -> Vec<Parameter>),
    /// A JSON body; registers its schemas and returns a reference to the body's.
    Body(fn(&mut Schemas) -> RefOr<Schema>),
}

/// One operation of the API.
pub struct Operation {
    /// Unique snake_case name: the OpenAPI `operationId` and the MCP tool's name.
    pub name: &'static str,
    pub method: HttpMethod,
    /// The HTTP path (`{name}` for path parameters).
    pub path: &'static str,
    /// The group it belongs to (`devices`, `act`…).
    pub tag: &'static str,
    /// One line: the OpenAPI summary, the MCP tool's description.
    pub summary: &'static str,
    /// More detail for the OpenAPI description (may be empty).
    pub description: &'static str,
    /// Error codes this operation can answer, beyond the ones every request can.
    pub errors: Vec<ErrorCode>,
    pub input: Input,
    pub output: Output,
    pub(crate) route: MethodRouter<AppState>,
    /// For a body operation: parses a body as the handler would (strictly), without running
    /// anything — how a batch checks all its steps before the first one runs.
    pub(crate) check_body: Option<BodyCheck>,
}

/// Parses a JSON body as an operation's input, answering the refusal its route would give.
pub type BodyCheck = Arc<dyn Fn(&[u8]) -> Result<()> + Send + Sync>;

impl Operation {
    /// Checks `body` as this operation's JSON body; `None` when it takes no body.
    pub fn check_body(&self, body: &[u8]) -> Option<Result<()>> {
        self.check_body.as_ref().map(|check| check(body))
    }
}

/// The first half of an entry: everything but the handler.
pub struct Draft {
    name: &'static str,
    method: HttpMethod,
    path: &'static str,
    tag: &'static str,
    summary: &'static str,
    description: &'static str,
    errors: Vec<ErrorCode>,
}

/// Starts an entry of the table.
pub fn op(
    method: HttpMethod,
    name: &'static str,
    path: &'static str,
    tag: &'static str,
    summary: &'static str,
) -> Draft {
    Draft {
        name,
        method,
        path,
        tag,
        summary,
        description: "",
        errors: Vec::new(),
    }
}

/// When set, an operation answering an error code it does not declare panics (the server
/// turns that into a 500), so tests catch a spec that lies. Off in normal use.
static CHECK_DECLARED: AtomicBool = AtomicBool::new(false);

/// Makes undeclared error codes fail loudly (tests).
pub fn check_declared_errors(on: bool) {
    CHECK_DECLARED.store(on, Ordering::Relaxed);
}

fn checked<R>(name: &'static str, declared: &Arc<Vec<ErrorCode>>, r: Result<R>) -> Result<R> {
    if let Err(e) = &r {
        if !declared.contains(&e.code) && !super::errors::ALWAYS.contains(&e.code) {
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

impl Draft {
    /// Longer text for the OpenAPI description.
    pub fn describe(mut self, text: &'static str) -> Self {
        self.description = text;
        self
    }

    /// Adds error codes this operation can answer.
    pub fn errors(mut self, codes: &[ErrorCode]) -> Self {
        for c in codes {
            if !self.errors.contains(c) {
                self.errors.push(*c);
            }
        }
        self
    }

    fn finish(self, input: Input, output: Output, route: MethodRouter<AppState>) -> Operation {
        self.finish_checked(input, output, route, None)
    }

    fn finish_checked(
        self,
        input: Input,
        output: Output,
        route: MethodRouter<AppState>,
        check_body: Option<BodyCheck>,
    ) -> Operation {
        Operation {
            name: self.name,
            method: self.method,
            path: self.path,
            tag: self.tag,
            summary: self.summary,
            description: self.description,
            errors: self.errors,
            input,
            output,
            route,
            check_body,
        }
    }

    /// A handler taking a JSON body of type `I`; unknown fields are refused, naming them.
    pub fn body<I, R, F, Fut>(self, f: F) -> Operation
    where
        I: DeserializeOwned + ToSchema + Send + 'static,
        R: Reply,
        F: Fn(AppState, I) -> Fut + Clone + Send + Sync + 'static,
        Fut: Future<Output = Result<R>> + Send + 'static,
    {
        let shape = Arc::new(Shape::of::<I>());
        let check_shape = shape.clone();
        let check: BodyCheck =
            Arc::new(move |body: &[u8]| StrictJson::parse::<I>(body, &check_shape).map(drop));
        let declared = Arc::new(self.errors.clone());
        let name = self.name;
        let handler =
            move |State(s): State<AppState>, headers: HeaderMap, ApiBytes(body): ApiBytes| {
                let f = f.clone();
                let shape = shape.clone();
                let declared = declared.clone();
                timed(async move {
                    require_json(&headers)?;
                    let input: I = StrictJson::parse(&body, &shape)?;
                    checked(name, &declared, f(s, input).await)
                })
            };
        let route = on(self.method.filter(), handler);
        self.finish_checked(
            Input::Body(body_schema::<I>),
            R::output(),
            route,
            Some(check),
        )
    }

    /// A handler taking query parameters of type `I`.
    pub fn query<I, R, F, Fut>(self, f: F) -> Operation
    where
        I: DeserializeOwned + IntoParams + Send + 'static,
        R: Reply,
        F: Fn(AppState, I) -> Fut + Clone + Send + Sync + 'static,
        Fut: Future<Output = Result<R>> + Send + 'static,
    {
        let declared = Arc::new(self.errors.clone());
        let name = self.name;
        let handler =
            move |State(s): State<AppState>, headers: HeaderMap, ApiQuery(q): ApiQuery<I>| {
                let f = f.clone();
                let declared = declared.clone();
                timed(async move {
                    let response = checked(name, &declared, f(s, q).await)?.into_response();
                    Ok::<_, Error>(not_modified(&headers, response))
                })
            };
        let route = on(self.method.filter(), handler);
        self.finish(Input::Query(query_params::<I>), R::output(), route)
    }

    /// A handler without input.
    pub fn plain<R, F, Fut>(self, f: F) -> Operation
    where
        R: Reply,
        F: Fn(AppState) -> Fut + Clone + Send + Sync + 'static,
        Fut: Future<Output = Result<R>> + Send + 'static,
    {
        let declared = Arc::new(self.errors.clone());
        let name = self.name;
        let handler = move |State(s): State<AppState>| {
            let f = f.clone();
            let declared = declared.clone();
            timed(async move { checked(name, &declared, f(s).await) })
        };
        let route = on(self.method.filter(), handler);
        self.finish(Input::None, R::output(), route)
    }
}

/// Runs a handler and says where its time went in `Server-Timing` (device commands, parsing,
/// encoding, total), on successes and errors alike.
async fn timed<R: IntoResponse>(work: impl Future<Output = Result<R>>) -> Response {
    let started = std::time::Instant::now();
    let (result, stages) = crate::exec::timing::scope(work).await;
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
            (Ok(inm), Ok(tag)) => super::reply::none_match_hits(inm, tag),
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
fn require_json(headers: &HeaderMap) -> Result<()> {
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

/// Registers `T` and what it references; returns a reference to `T`.
pub fn schema_ref<T: ToSchema>(schemas: &mut Schemas) -> RefOr<Schema> {
    T::schemas(schemas);
    let name = T::name().to_string();
    if !schemas.iter().any(|(n, _)| *n == name) {
        schemas.push((name.clone(), T::schema()));
    }
    RefOr::Ref(utoipa::openapi::Ref::from_schema_name(name))
}

fn body_schema<T: ToSchema>(schemas: &mut Schemas) -> RefOr<Schema> {
    schema_ref::<T>(schemas)
}

fn query_params<T: IntoParams>() -> Vec<Parameter> {
    T::into_params(|| Some(ParameterIn::Query))
}
