//! Wire types of the system operations: simulated location and permissions, and what a
//! settings change answers.

// The fields and variants of these wire types are described by the API schema, where
// descriptions are kept short on purpose (token budget).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::device::Device;
pub use crate::device::PermissionAction;

/// Set or clear the simulated location.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LocationRequest {
    pub udid: Option<String>,
    /// Degrees north (negative: south).
    pub latitude: Option<f64>,
    /// Degrees east (negative: west).
    pub longitude: Option<f64>,
    /// Clear the simulated location instead of setting one.
    #[serde(default)]
    pub clear: bool,
}

/// Grant, revoke or reset an app permission.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PermissionRequest {
    pub udid: Option<String>,
    pub bundle_id: String,
    /// Android: `android.permission.CAMERA`…; iOS: `camera`, `photos`, `location`, `contacts`,
    /// `microphone`, `all`… (simctl privacy services).
    pub permission: String,
    pub action: PermissionAction,
}

/// A settings change was applied.
#[derive(Debug, Serialize, ToSchema)]
pub struct SettingDone {
    pub success: bool,
    pub device: Device,
    /// What was done when it is less than asked (e.g. a reset that could only revoke).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
