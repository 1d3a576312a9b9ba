//! Booting and shutting devices down ([`crate::device::Capability::Lifecycle`]), and
//! reaching devices over the network ([`crate::device::Capability::Connect`]).

use std::time::Duration;

use async_trait::async_trait;

use super::AfterShutdown;
use crate::device::Device;
use crate::error::Result;

/// Booting a listed device or an image, and shutting down.
#[async_trait]
pub trait Lifecycle: Send + Sync {
    /// Boots a listed device (`POST /device/boot` with `udid`).
    async fn boot(&self, device: &Device, wait: Option<Duration>) -> Result<()>;
    /// Whether this backend starts devices from an image that is not listed yet (an Android
    /// AVD: `POST /device/boot` with `avd`).
    fn boots_images(&self) -> bool {
        false
    }
    /// Starts a device from an image; with `wait`, returns its udid once it has booted.
    /// Asked only of a backend that [`Self::boots_images`].
    async fn boot_image(&self, _image: &str, _wait: Option<Duration>) -> Result<Option<String>> {
        Err(super::unsupported("booting from an image", "this backend"))
    }
    /// Shuts a device down.
    async fn shutdown(&self, device: &Device) -> Result<AfterShutdown>;
}

/// Devices reached over the network on an explicit request (`adb connect`).
#[async_trait]
pub trait Connect: Send + Sync {
    /// Connects to a device over the network: the serial it is listed under and whether it
    /// was connected already.
    async fn connect(&self, host: &str, port: u16) -> Result<(String, bool)>;
    /// Tries to bring back a device a request names that the listing no longer shows (adb
    /// forgets devices reached over TCP when its server restarts). `true` when it is back.
    async fn reconnect(&self, udid: &str) -> Result<bool>;
}
