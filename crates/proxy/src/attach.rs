//! What pointing a device at the proxy takes and leaves behind, between the controller (which
//! keeps the bookkeeping) and the backends (which know each platform's steps).

use std::path::PathBuf;

use serde::Serialize;
use utoipa::ToSchema;

/// What a backend needs to point a device at the proxy.
#[derive(Debug, Clone)]
pub struct ProxySetup {
    /// The proxy's port on the host's loopback.
    pub port: u16,
    /// The CA certificate (PEM) on the host, for the steps that install it.
    pub ca_file: PathBuf,
}

/// What attaching did, and what detaching restores.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ProxyAttached {
    /// The proxy's port the device now uses.
    pub port: u16,
    /// The device's proxy setting before (Android `http_proxy`); absent when it had none or
    /// it is not known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    /// What was done, as the commands run.
    pub done: Vec<String>,
    /// What is left to the user (trusting the CA for HTTPS, the Mac's proxy settings…).
    pub todo: Vec<String>,
}

/// What detaching did.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct ProxyDetached {
    /// What was done, as the commands run.
    pub done: Vec<String>,
    /// What is left to the user (the Mac's proxy settings, the CA still trusted…).
    pub todo: Vec<String>,
}
