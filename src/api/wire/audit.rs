//! Wire types of the accessibility audit (`POST /api/v1/device/ui/audit`): the request and the
//! answer, which is the audit of [`crate::audit`] with the read it was made on.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::audit::{Audit, Severity};
use crate::device::Device;
use crate::error::{Error, Result};

/// Audit the screen now.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditRequest {
    pub udid: Option<String>,
    /// Android dpi for sizes in dp (default: the device's `wm density`).
    pub density: Option<f64>,
    /// A saved audit (an earlier answer): report only findings new against it.
    #[schema(value_type = Option<Object>)]
    pub baseline: Option<serde_json::Value>,
    /// Answer `fails: true` when a (new) finding is at or above it.
    pub fail_on: Option<Severity>,
    /// Also answer the screen with the findings drawn (`image`, base64 PNG).
    #[serde(default)]
    pub annotate: bool,
}

/// The baseline an audit was compared with.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditBaseline {
    /// Findings the baseline had.
    pub known: usize,
    /// Findings now that it also had (not reported).
    pub unchanged: usize,
}

/// The audit of the screen now.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditResult {
    pub snapshot_id: String,
    pub device: Device,
    #[serde(flatten)]
    pub audit: Audit,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<AuditBaseline>,
    /// With `fail_on`: a finding is at or above it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fails: Option<bool>,
    /// With `annotate`: base64 PNG.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

/// A saved audit (an earlier answer, as JSON), or why it is not one.
pub fn saved_audit(v: &serde_json::Value, field: &str) -> Result<Audit> {
    serde_json::from_value::<Audit>(v.clone()).map_err(|e| {
        Error::validation(format!("`{field}` is not a saved audit: {e}"))
            .with_hint("send the JSON an earlier audit answered (its `findings` with their `key`s)")
    })
}
