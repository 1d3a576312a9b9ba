//! The JSON error envelope (docs/DESIGN.md "Errors"), as it travels: what every failed request
//! answers.
//! The server makes it from an [`crate::error::Error`] (`crate::server::error`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::error::ErrorCode;

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
    /// What to do next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Structured context (candidates, observed state, the tool's stderr…).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<Value>,
}
