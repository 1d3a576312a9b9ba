//! `GET /health`: liveness, version and the API protocol version (no token needed).

use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::server::AppState;

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

/// Liveness and versions.
#[utoipa::path(get, path = "/health", tag = "service",
    responses((status = 200, description = "The server is up", body = Health)))]
pub async fn health() -> Json<Health> {
    Json(Health {
        status: "ok".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        api_protocol_version: crate::API_PROTOCOL_VERSION,
    })
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(health))
}
