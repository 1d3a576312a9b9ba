//! Wire types of the service operations: health, and the doctor's report.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::device::Tool;

/// The server is up.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Health {
    /// Always `ok`.
    pub status: String,
    /// mobilectl's version.
    pub version: String,
    /// Version of the HTTP API contract; clients refuse a server with another one.
    pub api_protocol_version: u32,
}

/// One tool's check.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ToolCheck {
    pub tool: Tool,
    pub found: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// First line of the tool's own version output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What to do when it is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remediation: Option<String>,
}

/// A check a backend makes of its own: an endpoint it reaches (a WebDriverAgent URL), a tool
/// beyond the common list (devicectl), a device that tool sees.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BackendCheck {
    /// The backend that made it (`wda`).
    pub backend: String,
    /// What was checked (`WebDriverAgent`, `devicectl`, a device's name).
    pub name: String,
    /// Where: a URL, a command, a udid.
    pub target: String,
    /// Reachable, found, or usable.
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The session an endpoint holds now, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// What else the check learnt (the OS, whether the phone is locked…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What to do when it is not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remediation: Option<String>,
}

/// How usable something is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Readiness {
    /// Everything needed is there.
    Ready,
    /// Usable, with some features missing.
    Degraded,
    /// Not usable at all.
    Blocked,
}

/// The doctor's answer.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DoctorReport {
    /// `ready`: every backend whose base tool exists is fully usable; `degraded`: some
    /// features of one are missing; `blocked`: no backend can drive anything.
    pub overall: Readiness,
    /// Each backend's readiness, by its id (`android`, `ios`).
    #[serde(flatten)]
    pub backends: BTreeMap<String, Readiness>,
    pub tools: Vec<ToolCheck>,
    /// The backends' own checks (WebDriverAgent endpoints, devicectl and its devices).
    pub checks: Vec<BackendCheck>,
    /// What each backend offers, by its id.
    pub capabilities: BTreeMap<String, Vec<crate::device::Capability>>,
    /// The live sessions and their leases.
    pub sessions: Vec<crate::api::wire::sessions::SessionInfo>,
}
