//! Pointing a device at the recording proxy ([`crate::device::Capability::NetworkCapture`],
//! see `crate::proxy`).

use async_trait::async_trait;

use crate::device::Device;
use crate::error::Result;
use crate::proxy::attach::{ProxyAttached, ProxyDetached, ProxySetup};

/// Attaching the device to the recording proxy and detaching it.
#[async_trait]
pub trait NetworkCapture: Send + Sync {
    /// The device's proxy setting now, as attach would remember it (`None`: none, or not a
    /// notion of this platform). Read before attaching, so that it is persisted before the
    /// device changes.
    async fn read_proxy_setting(
        &self,
        _device: &Device,
        _setup: &ProxySetup,
    ) -> Result<Option<String>> {
        Ok(None)
    }
    /// Points the device at the recording proxy on the host's loopback port.
    async fn attach_proxy(&self, device: &Device, setup: &ProxySetup) -> Result<ProxyAttached>;
    /// Undoes [`Self::attach_proxy`] (`attached.previous` is restored where the platform
    /// has such a setting).
    async fn detach_proxy(
        &self,
        device: &Device,
        attached: &ProxyAttached,
    ) -> Result<ProxyDetached>;
}
