//! Wire types of network capture: starting and stopping the recording proxy, pointing devices
//! at it, reading what it recorded (lists, one exchange, the summary, the stream, HAR), and
//! shaping what goes through it (rules, link conditions).

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::device::{Device, Platform};
pub use crate::proxy::conditions::{ConditionsRequest, LinkConditions, Profile};
pub use crate::proxy::flow::{
    BodyView, Failure, FailureKind, FlowDetail, FlowLine, MessageView, Timing, Tunnel,
};
pub use crate::proxy::har::{
    Har, HarContent, HarCreator, HarEntry, HarLog, HarPair, HarPostData, HarRequest, HarResponse,
    HarTimings,
};
pub use crate::proxy::rules::spec::{ActionKind, FailKind, RuleSpec, RuleView};
pub use crate::proxy::store::StoreStats;
pub use crate::proxy::summary::{FlowSummary, HostCount};
pub use crate::proxy::CaInfo;

/// Start the proxy.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProxyStartRequest {
    #[schema(minimum = 0, maximum = 65535)]
    pub port: Option<u16>,
    /// Hosts not decrypted.
    pub passthrough: Option<Vec<String>>,
}

/// Nothing to say.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProxyStopRequest {}

/// The proxy and what it holds.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct ProxyStatus {
    pub running: bool,
    /// Where apps send their requests (`127.0.0.1:PORT`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// Hosts tunnelled without decryption.
    pub passthrough: Vec<String>,
    /// Exchanges under way.
    pub in_flight: usize,
    pub store: StoreStats,
    /// Absent until the CA is first needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca: Option<CaInfo>,
    pub attached: Vec<AttachedDevice>,
    /// Rules requests meet (`GET /api/v1/proxy/rules` lists them).
    pub rules: usize,
    /// The link's conditions, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<LinkConditions>,
    /// Devices a server that stopped without detaching (killed, crashed) left pointing at
    /// its proxy, and this one restored at start or when they were listed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repaired: Vec<RepairedDevice>,
    /// Such devices not restored yet (not listed, or restoring failed): `detach` with the
    /// udid undoes one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<StaleAttachment>,
    /// What the call did when it was less than asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The device to attach or detach (default: the target device).
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProxyDeviceRequest {
    pub udid: Option<String>,
}

/// A device pointed at the proxy.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct ProxyAttachResult {
    pub device: Device,
    /// The proxy the device uses (`127.0.0.1:PORT`; on Android its own loopback, reversed to
    /// the host's).
    pub proxy: String,
    /// It was attached already: nothing was run.
    pub already: bool,
    /// The device's setting before, restored on detach.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    /// The commands run.
    pub done: Vec<String>,
    /// What is left to the user (HTTPS trust, the Mac's proxy settings).
    pub todo: Vec<String>,
}

/// A device no longer pointed at the proxy.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct ProxyDetachResult {
    pub device: Device,
    /// This server had attached it.
    pub was_attached: bool,
    pub done: Vec<String>,
    pub todo: Vec<String>,
}

/// Filters of the flow list and stream.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct FlowsQuery {
    /// A host, or a domain with its subdomains
    pub host: Option<String>,
    /// GET, POST…
    pub method: Option<String>,
    /// 404 or 4xx
    pub status: Option<String>,
    /// Only failed ones (no answer, 4xx, 5xx)
    pub failed: Option<bool>,
    /// In the URL
    pub contains: Option<String>,
    /// Flow id, RFC 3339 time or 5m
    pub since: Option<String>,
    /// At most this many
    pub limit: Option<u32>,
}

/// Recorded exchanges, oldest first.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct FlowList {
    pub flows: Vec<FlowLine>,
    /// Pass as `since` to read on from here.
    pub next_cursor: u64,
    /// Exchanges evicted from the store (since the server started).
    pub evicted: u64,
    /// Some exchanges after `since` were evicted before they could be listed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missed: bool,
}

/// Answer this body's bytes instead of the JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BodyPart {
    /// The request's body.
    Request,
    /// The response's body.
    Response,
}

/// One exchange.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct FlowQuery {
    /// Its id, from list_flows.
    pub id: u64,
    #[param(inline)]
    pub body: Option<BodyPart>,
    /// Show secret header values (loopback server only).
    pub reveal: Option<bool>,
}

/// Window of the summary.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct SummaryQuery {
    pub since: Option<String>,
    pub host: Option<String>,
}

/// What clearing removed.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct Cleared {
    pub cleared: usize,
}

/// A device pointed at the proxy.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AttachedDevice {
    pub udid: String,
    pub platform: Platform,
    pub port: u16,
    pub since: String,
}

/// A device a server that died left pointing at its proxy, restored by this one.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RepairedDevice {
    pub udid: String,
    /// The dead proxy's port it pointed at.
    pub port: u16,
    /// The setting restored (absent: "no proxy").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    pub restored_at: String,
    /// What was done, as the commands run, and what was left alone.
    pub done: Vec<String>,
    pub todo: Vec<String>,
}

/// A device a server that died left pointing at its proxy, not restored yet (it is not
/// listed, or restoring failed); `detach` with its udid undoes it.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StaleAttachment {
    pub udid: String,
    pub port: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    pub since: String,
}

/// The proxy's rules, in evaluation order.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct RuleList {
    pub rules: Vec<RuleView>,
    /// The most rules the proxy holds.
    pub limit: usize,
}

/// One rule, by id.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RuleQuery {
    pub id: u64,
}

/// A HAR to replay as `respond` rules.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesFromHarRequest {
    /// A HAR 1.2 document.
    #[schema(value_type = Object)]
    pub har: serde_json::Value,
    /// Only its entries to this host (and subdomains).
    pub host: Option<String>,
}

/// Rules added.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct RulesAdded {
    pub added: Vec<RuleView>,
    /// Rules the proxy holds now.
    pub total: usize,
}

/// The link's conditions (absent: none).
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct ConditionsState {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<LinkConditions>,
    /// Those replaced or cleared by this call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<LinkConditions>,
}
