//! axum's own rejections (malformed JSON, wrong types, missing content type, body too large)
//! as the product's [`Error`], through the [`ApiJson`], [`ApiQuery`] and [`ApiBytes`]
//! extractors, so a caller never sees a bare-text error; and the answers to unknown routes,
//! wrong methods and panics. [`Error`] itself becomes an HTTP response (the JSON envelope,
//! docs/DESIGN.md "Errors") in one place, `IntoResponse` in `crates/error`.

use axum::extract::rejection::{BytesRejection, JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::api::wire::sessions::SESSION_FIELD;
use crate::error::{Error, ErrorCode, Step};

/// A JSON body axum could not read, as the error the caller gets.
fn json_rejection(rejection: JsonRejection) -> Error {
    if super::budget::is_body_timeout(&rejection) {
        return super::budget::body_timeout_error();
    }
    let text = rejection.body_text();
    match rejection {
        JsonRejection::MissingJsonContentType(_) => {
            Error::new(ErrorCode::UnsupportedMediaType, text)
                .with_hint("send the body as JSON with `Content-Type: application/json`")
        }
        JsonRejection::JsonSyntaxError(_) => Error::bad_request(text)
            .with_hint("the body is not valid JSON; check quotes, commas and braces"),
        JsonRejection::JsonDataError(_) => {
            Error::bad_request(text).with_next("see the request schema in {0}", [Step::Schema])
        }
        other if other.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            Error::new(ErrorCode::PayloadTooLarge, other.body_text())
                .with_hint("request bodies are limited to 1 MiB")
        }
        other => Error::bad_request(other.body_text()),
    }
}

/// A query axum could not read, as the error the caller gets.
fn query_rejection(rejection: QueryRejection) -> Error {
    Error::bad_request(rejection.body_text()).with_next(
        "see the query parameters of this route in {0}",
        [Step::Schema],
    )
}

/// A raw body axum could not read, as the error the caller gets.
fn bytes_rejection(rejection: BytesRejection) -> Error {
    if super::budget::is_body_timeout(&rejection) {
        super::budget::body_timeout_error()
    } else if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        Error::new(ErrorCode::PayloadTooLarge, rejection.body_text())
            .with_hint("request bodies are limited to 1 MiB")
    } else {
        Error::bad_request(rejection.body_text())
    }
}

/// The raw body, whose rejections (too large, unreadable) are answered with the envelope.
#[derive(Debug)]
pub struct ApiBytes(pub axum::body::Bytes);

impl<S: Send + Sync> FromRequest<S> for ApiBytes {
    type Rejection = Error;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, Error> {
        axum::body::Bytes::from_request(req, state)
            .await
            .map(ApiBytes)
            .map_err(bytes_rejection)
    }
}

/// `axum::Json` whose rejections are answered with the error envelope.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = Error;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, Error> {
        axum::Json::<T>::from_request(req, state)
            .await
            .map(|axum::Json(value)| ApiJson(value))
            .map_err(json_rejection)
    }
}

/// The query parameters and the path parameters (`{id}` of the route) of a request, read
/// together as one `T` (without `session`, which names the request's session), with
/// rejections answered with the error envelope. A path parameter
/// wins over a query parameter of the same name. Headers that stand for a parameter (a
/// reconnecting EventSource's `Last-Event-ID` is `last_event_id`) are read as one when the
/// query does not give it.
#[derive(Debug)]
pub struct ApiQuery<T>(pub T);

/// Headers read as query parameters: (header, parameter).
const HEADER_PARAMETERS: &[(&str, &str)] = &[("last-event-id", "last_event_id")];

impl<T: serde::de::DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = Error;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Error> {
        let path = axum::extract::RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|e| Error::bad_request(e.body_text()))?;
        // Parameters that are not in the query string: the path's, then headers'.
        let mut path: Vec<(String, String)> = path
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let query = parts.uri.query().unwrap_or("");
        for (header, name) in HEADER_PARAMETERS {
            let given = form_urlencoded::parse(query.as_bytes()).any(|(k, _)| k == *name);
            if let Some(v) = parts.headers.get(*header).and_then(|v| v.to_str().ok()) {
                if !given {
                    path.push((name.to_string(), v.to_string()));
                }
            }
        }
        let session = form_urlencoded::parse(query.as_bytes()).any(|(k, _)| k == SESSION_FIELD);
        if path.is_empty() && !session {
            let q = axum::extract::Query::<T>::try_from_uri(&parts.uri).map_err(query_rejection)?;
            return Ok(ApiQuery(q.0));
        }
        let mut merged = form_urlencoded::Serializer::new(String::new());
        for (k, v) in form_urlencoded::parse(query.as_bytes()) {
            // The session parameter is the binding's (`crate::server::bind`), not the handler's.
            if k != SESSION_FIELD && !path.iter().any(|(name, _)| *name == k) {
                merged.append_pair(&k, &v);
            }
        }
        merged.extend_pairs(&path);
        let uri: axum::http::Uri = format!("/?{}", merged.finish())
            .parse()
            .map_err(|_| Error::bad_request("the path or query cannot be read"))?;
        let q = axum::extract::Query::<T>::try_from_uri(&uri).map_err(query_rejection)?;
        Ok(ApiQuery(q.0))
    }
}

/// The 404 answer for a path that matches no route.
pub async fn route_not_found(uri: axum::http::Uri) -> Error {
    Error::new(
        ErrorCode::RouteNotFound,
        format!("no route for {}", uri.path()),
    )
    .with_hint("routes are listed at GET /openapi.json and in Swagger UI at /docs")
}

/// The 405 answer for a known path with the wrong method.
pub async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> Error {
    Error::new(
        ErrorCode::MethodNotAllowed,
        format!("{method} is not allowed on {}", uri.path()),
    )
    .with_hint("check the method of this route in GET /openapi.json or /docs")
}

/// A panic inside a handler becomes an internal error, never a dropped connection.
pub fn panic_response(_panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    Error::internal("a request handler panicked").into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::routing::get;
    use axum::Router;
    use serde_json::Value;
    use tower::ServiceExt;

    #[derive(Debug, serde::Deserialize)]
    struct ItemQuery {
        id: String,
        limit: Option<u32>,
    }

    async fn answer(uri: &str) -> (u16, Value) {
        let app = Router::new()
            .route(
                "/items/{id}",
                get(|ApiQuery(q): ApiQuery<ItemQuery>| async move {
                    axum::Json(serde_json::json!({"id": q.id, "limit": q.limit}))
                }),
            )
            .route(
                "/items",
                get(|ApiQuery(q): ApiQuery<ItemQuery>| async move {
                    axum::Json(serde_json::json!({"id": q.id, "limit": q.limit}))
                }),
            );
        let resp = app
            .oneshot(axum::http::Request::get(uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), 1 << 16)
            .await
            .unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn path_and_query_parameters_are_read_as_one_input() {
        let (status, v) = answer("/items/a%20b%2Fc?limit=3").await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v, serde_json::json!({"id": "a b/c", "limit": 3}));
        // The path wins over a query parameter of the same name.
        let (_, v) = answer("/items/x?id=y").await;
        assert_eq!(v["id"], "x");
        // Without path parameters the query alone is read.
        let (_, v) = answer("/items?id=q").await;
        assert_eq!(v["id"], "q");
    }

    #[tokio::test]
    async fn a_bad_query_is_the_envelope() {
        let (status, v) = answer("/items/x?limit=many").await;
        assert_eq!(status, 400);
        assert_eq!(v["error"]["code"], "BAD_REQUEST", "{v}");
        let (status, v) = answer("/items").await;
        assert_eq!(status, 400);
        assert!(
            v["error"]["message"].as_str().unwrap().contains("id"),
            "{v}"
        );
    }
}
