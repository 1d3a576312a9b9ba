//! The JSON error envelope of DESIGN.md, and the one place where [`Error`] becomes an HTTP
//! response. axum's own rejections (malformed JSON, wrong types, missing content type, body too
//! large) come here too, through the [`ApiJson`] and [`ApiQuery`] extractors, so a caller never
//! sees a bare-text error.

use axum::extract::rejection::{BytesRejection, JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::error::{Error, ErrorCode};

/// `{"error": {...}}`: what every failed request answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorEnvelope {
    pub error: ErrorBody,
}

/// The body of an error answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// Machine-readable code, e.g. `ELEMENT_NOT_FOUND`.
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
    /// Whether the same request may succeed if tried again.
    pub retryable: bool,
    /// What to do next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Structured context (candidates, observed state, the tool's stderr…).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<Value>,
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = if matches!(self.code, ErrorCode::Internal | ErrorCode::Unknown) {
            // Internal details stay in the log.
            tracing::error!(code = self.code.as_str(), message = %self.message, details = ?self.details, "internal error");
            ErrorBody {
                code: self.code,
                message: "internal error; see the server log".into(),
                retryable: self.code.retryable(),
                hint: Some(
                    "this is a bug in mobilectl; please report it with the server log".into(),
                ),
                details: None,
            }
        } else {
            let status = self.code.status();
            if status >= 500 {
                tracing::warn!(code = self.code.as_str(), message = %self.message, "refused");
            } else {
                tracing::info!(code = self.code.as_str(), message = %self.message, "refused");
            }
            ErrorBody {
                code: self.code,
                retryable: self.code.retryable(),
                message: self.message,
                hint: self.hint,
                details: self.details,
            }
        };
        (status, axum::Json(ErrorEnvelope { error: body })).into_response()
    }
}

impl From<JsonRejection> for Error {
    fn from(rejection: JsonRejection) -> Self {
        let text = rejection.body_text();
        match rejection {
            JsonRejection::MissingJsonContentType(_) => {
                Error::new(ErrorCode::UnsupportedMediaType, text)
                    .with_hint("send the body as JSON with `Content-Type: application/json`")
            }
            JsonRejection::JsonSyntaxError(_) => Error::bad_request(text)
                .with_hint("the body is not valid JSON; check quotes, commas and braces"),
            JsonRejection::JsonDataError(_) => Error::bad_request(text)
                .with_hint("see the request schema in GET /openapi.json or /docs"),
            other if other.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                Error::new(ErrorCode::PayloadTooLarge, other.body_text())
                    .with_hint("request bodies are limited to 1 MiB")
            }
            other => Error::bad_request(other.body_text()),
        }
    }
}

impl From<QueryRejection> for Error {
    fn from(rejection: QueryRejection) -> Self {
        Error::bad_request(rejection.body_text())
            .with_hint("see the query parameters of this route in GET /openapi.json or /docs")
    }
}

impl From<BytesRejection> for Error {
    fn from(rejection: BytesRejection) -> Self {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Error::new(ErrorCode::PayloadTooLarge, rejection.body_text())
                .with_hint("request bodies are limited to 1 MiB")
        } else {
            Error::bad_request(rejection.body_text())
        }
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
            .map_err(Error::from)
    }
}

/// `axum::Json` whose rejections are answered with the error envelope.
#[derive(Debug, FromRequest)]
#[from_request(via(axum::Json), rejection(Error))]
pub struct ApiJson<T>(pub T);

/// `axum::extract::Query` whose rejections are answered with the error envelope.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(Error))]
pub struct ApiQuery<T>(pub T);

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
