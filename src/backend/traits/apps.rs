//! Apps and URLs ([`crate::device::Capability::Apps`]).

use std::path::Path;

use async_trait::async_trait;

use crate::device::{AppInfo, Device, LaunchOptions, Launched};
use crate::error::Result;

/// Installing, launching, stopping, resetting and listing apps; opening URLs.
#[async_trait]
pub trait Apps: Send + Sync {
    /// Checks that `path` (an existing file or folder, not a link) has the package form this
    /// backend installs (`.apk`, `.app`).
    fn check_app_package(&self, _path: &Path, _meta: &std::fs::Metadata) -> Result<()> {
        Ok(())
    }
    /// Installs the app package at `path` (checked by [`Self::check_app_package`]).
    async fn install_app(&self, device: &Device, path: &Path) -> Result<()>;
    /// Launches an app with the options asked for (checked by [`Self::check_launch`]).
    async fn launch_app(
        &self,
        device: &Device,
        bundle_id: &str,
        opts: &LaunchOptions,
    ) -> Result<Launched>;
    /// Stops the app if it runs.
    async fn terminate_app(&self, device: &Device, bundle_id: &str) -> Result<()>;
    /// Clears the app's data, as if it were newly installed.
    async fn reset_app(&self, device: &Device, bundle_id: &str) -> Result<()>;
    /// Empties the device's whole keychain (every app's saved passwords and tokens).
    async fn reset_keychain(&self, device: &Device) -> Result<()>;
    /// The apps installed on the device.
    async fn list_apps(&self, device: &Device) -> Result<Vec<AppInfo>>;
    /// Opens a URL or deep link (checked by the controller) with the app that handles it.
    async fn open_url(&self, device: &Device, url: &str) -> Result<()>;
}
