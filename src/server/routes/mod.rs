//! The handlers, one module per resource. Each is a plain async function of the state and its
//! input, bound by name to its operation of the table (`crate::api`) in its module's
//! `bindings()`; [`bindings`] collects them all.

pub mod actions;
pub mod alerts;
pub mod apps;
pub mod batch;
pub mod connect;
pub mod devices;
pub mod features;
pub mod flows;
pub mod logs;
pub mod proxy;
pub mod proxy_rules;
pub mod recording;
pub mod runs;
pub mod screenshot;
pub mod service;
pub mod sessions;
pub mod simulator;
pub mod system;
pub mod ui;
pub mod verify;

use super::bind::Binding;

/// Every handler, bound to its operation.
pub fn bindings() -> Vec<Binding> {
    [
        service::bindings(),
        devices::bindings(),
        sessions::bindings(),
        connect::bindings(),
        simulator::bindings(),
        apps::bindings(),
        ui::bindings(),
        screenshot::bindings(),
        recording::bindings(),
        actions::bindings(),
        batch::bindings(),
        flows::bindings(),
        verify::bindings(),
        alerts::bindings(),
        system::bindings(),
        features::bindings(),
        proxy::bindings(),
        proxy_rules::bindings(),
        logs::bindings(),
        runs::bindings(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
