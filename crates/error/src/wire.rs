//! The JSON error envelope (docs/DESIGN.md "Errors"), as it travels: what every failed request
//! answers, made from an [`Error`] (an internal error's details stay in the log).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::{Error, ErrorCode, Next};

/// `{"error": {...}}`: what every failed request answers.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorEnvelope {
    pub error: ErrorBody,
}

/// The body of an error answer.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// Machine-readable code, e.g. `ELEMENT_NOT_FOUND`.
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
    /// Whether the same request may succeed if tried again.
    pub retryable: bool,
    /// What to do next (naming routes when `next` says it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// What to do next as data, when it names operations: `say` with `{0}`, `{1}`… where
    /// each of `steps` goes (`call` an operation with `args`; read the `schema`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<Next>,
    /// Structured context (candidates, observed state, the tool's stderr…).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<Value>,
}

impl From<Error> for ErrorBody {
    /// The body a caller sees: an internal error's details stay in the log.
    fn from(e: Error) -> Self {
        if matches!(e.code, ErrorCode::Internal | ErrorCode::Unknown) {
            tracing::error!(code = e.code.as_str(), message = %e.message, details = ?e.details, "internal error");
            return ErrorBody {
                code: e.code,
                message: "internal error; see the server log".into(),
                retryable: e.code.retryable(),
                hint: Some(
                    "this is a bug in mobilectl; please report it with the server log".into(),
                ),
                next: None,
                details: None,
            };
        }
        if e.code.status() >= 500 {
            tracing::warn!(code = e.code.as_str(), message = %e.message, "refused");
        } else {
            tracing::info!(code = e.code.as_str(), message = %e.message, "refused");
        }
        ErrorBody {
            code: e.code,
            retryable: e.code.retryable(),
            message: e.message,
            hint: e.next.as_deref().map(Next::http).or(e.hint),
            next: e.next.map(|n| *n),
            details: e.details,
        }
    }
}
