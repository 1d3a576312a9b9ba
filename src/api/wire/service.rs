//! Wire types of the service operations.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use crate::backend::doctor::DoctorReport;

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
