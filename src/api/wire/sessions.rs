//! Sessions and leases on the wire: creating a session (its device request, defaults, TTL and
//! wait), a session as answered, the lease a device listing shows, and ending a session.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::api::wire::build::BuildDefaults;
use crate::device::{Device, DeviceKind, Platform};

/// The header that puts a request in a session: the secret its creation answered.
pub const SESSION_HEADER: &str = "mobilectl-session";

/// The query parameter or body field that does the same where a header cannot be set.
pub const SESSION_FIELD: &str = "session";

/// How every session secret begins.
pub const SECRET_PREFIX: &str = "mss-";

/// The detail (`true`) that marks a session error as being about the session the request was
/// sent in, not one it named in its path: a client keeping a session starts a new one on it.
pub const REQUEST_SESSION: &str = "request_session";

/// Which devices a session will take: every field given must hold.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceMatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// Part of the device's name, any case (`pixel`, `iPhone 15`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<DeviceKind>,
    /// The start of the OS version (`14`, `iOS 17`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_version: Option<String>,
}

/// A new session: a name, which device it leases, its defaults, how long it lives idle, and how
/// long to wait for a matching device to become free.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    /// A label shown in listings and leases instead of the id (it acts in nothing; the
    /// secret does): 1–64 letters, digits, `.`, `_` or `-`, unique among live sessions.
    #[serde(default)]
    pub name: Option<String>,
    /// Lease this device (udid or name).
    #[serde(default)]
    pub udid: Option<String>,
    /// Lease the first free ready device that matches.
    #[serde(default, rename = "match")]
    pub r#match: Option<DeviceMatch>,
    /// The default app (bundle id / package) of the session's app operations.
    #[serde(default)]
    pub app: Option<String>,
    /// Idle expiry in seconds, renewed by every request in the session: 1–86400, default 600.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 86400)]
    pub ttl_s: Option<u64>,
    /// Wait up to this long for a matching device to become free (first come, first served):
    /// 0–600000 ms, default 0.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 600000)]
    pub wait_ms: Option<u64>,
    /// Lease when the session's first device operation runs instead of now (each MCP
    /// connection's session does so).
    #[serde(default)]
    pub lazy: bool,
    /// What `app build` falls back on in this session (each build updates it).
    #[serde(default)]
    pub build: Option<BuildDefaults>,
}

/// A session as the server keeps it.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionInfo {
    /// `ses-` and 16 hex digits: names the session in listings and leases (acts in nothing).
    pub id: String,
    /// What puts a request in the session (`Mobilectl-Session: SECRET`), renews or ends it:
    /// answered once, to its creator, and never listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The leased device, when it holds one (a lazy session leases at its first device
    /// operation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<Device>,
    /// The leased device's udid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub udid: Option<String>,
    /// What the session asked for.
    #[serde(skip_serializing_if = "Option::is_none", rename = "match")]
    pub r#match: Option<DeviceMatch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    pub ttl_s: u64,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339: when it expires unless used again.
    pub expires_at: String,
    pub expires_in_ms: u64,
    /// Requests it has made.
    pub requests: u64,
    /// It is queued for a device to become free (its `POST /api/v1/sessions` has not answered).
    pub waiting: bool,
    /// What `app build` falls back on in this session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<BuildDefaults>,
}

/// The live sessions.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionList {
    pub sessions: Vec<SessionInfo>,
}

/// Who holds a device, and until when.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Lease {
    pub udid: String,
    /// The holding session's id.
    pub session: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// RFC 3339: when the lease ends unless the session is used again.
    pub expires_at: String,
    pub expires_in_ms: u64,
}

/// A session ended, or a lease given back.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionEnded {
    pub id: String,
    /// The device whose lease was released.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub released: Option<String>,
}

/// A session named in the path.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct SessionPath {
    /// The session's id or name (or its secret).
    pub id: String,
}
