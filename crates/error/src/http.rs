//! The one place where an [`Error`] becomes an HTTP answer: the status from the table, the
//! envelope as the body, and `Retry-After` on `503 BUSY`. Here rather than in the server
//! because Rust lets only the crate of the type or of the trait implement `IntoResponse` for it.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::{Error, ErrorBody, ErrorCode, ErrorEnvelope};

/// Seconds a refused client is told to wait (`Retry-After`).
pub const RETRY_AFTER_S: u64 = 1;

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = ErrorBody::from(self);
        let busy = body.code == ErrorCode::Busy;
        let mut response = (status, axum::Json(ErrorEnvelope { error: body })).into_response();
        if busy {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_S));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_is_the_tables_and_busy_says_when_to_retry() {
        let busy = Error::new(ErrorCode::Busy, "full").into_response();
        assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(busy.headers()[header::RETRY_AFTER], "1");
        let missing = Error::new(ErrorCode::NoDevice, "none").into_response();
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert!(missing.headers().get(header::RETRY_AFTER).is_none());
        assert_eq!(missing.headers()[header::CONTENT_TYPE], "application/json");
    }
}
