//! One module per resource; each handler carries its OpenAPI description beside it.

pub mod actions;
pub mod alerts;
pub mod apps;
pub mod devices;
pub mod doctor;
pub mod health;
pub mod screenshot;
pub mod simulator;
pub mod system;
pub mod ui;
pub mod verify;

use utoipa_axum::router::OpenApiRouter;

use super::AppState;

/// Every route of the API, with its OpenAPI description.
pub fn all() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(health::router())
        .merge(doctor::router())
        .merge(devices::router())
        .merge(apps::router())
        .merge(screenshot::router())
        .merge(system::router())
        .merge(ui::router())
        .merge(actions::router())
        .merge(alerts::router())
        .merge(verify::router())
        .merge(simulator::router())
}
