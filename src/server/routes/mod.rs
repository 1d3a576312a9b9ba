//! The handlers, one module per resource. Each is a plain async function of the state and its
//! input; the operation table (`crate::api`) binds it to its method, path, input and output.

pub mod actions;
pub mod alerts;
pub mod apps;
pub mod batch;
pub mod connect;
pub mod devices;
pub mod logs;
pub mod proxy;
pub mod screenshot;
pub mod service;
pub mod simulator;
pub mod system;
pub mod ui;
pub mod verify;
