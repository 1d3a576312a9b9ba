//! One module per resource; each handler carries its OpenAPI description beside it.

pub mod devices;
pub mod doctor;
pub mod health;

use utoipa_axum::router::OpenApiRouter;

use super::AppState;

/// Every route of the API, with its OpenAPI description.
pub fn all() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(health::router())
        .merge(doctor::router())
        .merge(devices::router())
}
