//! Every answer is the error envelope, whatever produced it: requests with an oversized URI or
//! headers are refused here with `414 URI_TOO_LONG` / `431 HEADERS_TOO_LARGE` (hyper's own
//! limits are set far above these, see [`super::listen`]), and an error that a layer or a
//! nested service answered without a JSON body (Swagger UI's 404 for an unknown file under
//! `/docs/`, a bare status) is given the envelope for its status.

use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::{Error, ErrorCode};

/// Longest path + query read (browsers and proxies stop near this too).
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// Most header bytes (names and values) read.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

pub async fn envelope_everything(request: Request, next: Next) -> Response {
    let uri_len = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if uri_len > MAX_URI_BYTES {
        return Error::new(
            ErrorCode::UriTooLong,
            format!("the URI is {uri_len} bytes; at most {MAX_URI_BYTES} are read"),
        )
        .with_hint("send long values in a JSON body instead of the query")
        .into_response();
    }
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum();
    if header_bytes > MAX_HEADER_BYTES {
        return Error::new(
            ErrorCode::HeadersTooLarge,
            format!("the headers are {header_bytes} bytes; at most {MAX_HEADER_BYTES} are read"),
        )
        .with_hint("send fewer or smaller headers")
        .into_response();
    }
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if status.as_u16() < 400 || is_json {
        return response;
    }
    let (code, hint) = match status {
        StatusCode::NOT_FOUND => (
            ErrorCode::RouteNotFound,
            "routes are listed at GET /openapi.json and in Swagger UI at /docs",
        ),
        StatusCode::METHOD_NOT_ALLOWED => (
            ErrorCode::MethodNotAllowed,
            "check the method of this route in GET /openapi.json or /docs",
        ),
        StatusCode::PAYLOAD_TOO_LARGE => (
            ErrorCode::PayloadTooLarge,
            "request bodies are limited to 1 MiB",
        ),
        StatusCode::URI_TOO_LONG => (ErrorCode::UriTooLong, "shorten the URI"),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
            (ErrorCode::HeadersTooLarge, "send fewer or smaller headers")
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => (
            ErrorCode::UnsupportedMediaType,
            "send `Content-Type: application/json`",
        ),
        s if s.is_client_error() => (ErrorCode::BadRequest, "see GET /openapi.json or /docs"),
        _ => (
            ErrorCode::Internal,
            "this is a bug in mobilectl; please report it with the server log",
        ),
    };
    let mut e = Error::new(
        code,
        format!(
            "{} {}",
            status.as_u16(),
            status.canonical_reason().unwrap_or("error")
        ),
    )
    .with_hint(hint)
    .into_response();
    *e.status_mut() = status;
    if code == ErrorCode::RouteNotFound {
        e = Error::new(code, format!("no route for {path}"))
            .with_hint(hint)
            .into_response();
    }
    e
}
