//! An on-device helper ([`crate::device::Capability::Helper`]): a program installed on the
//! device once that reads and acts faster than the one-shot tools (Android: Appium's
//! UiAutomator2 server, see `crate::backend::android::resident`).

use std::path::PathBuf;

use async_trait::async_trait;

use crate::api::wire::devices::HelperInstalled;
use crate::device::Device;
use crate::error::Result;

/// Installing the helper, and where it stands.
#[async_trait]
pub trait DeviceHelper: Send + Sync {
    /// Installs the helper on `device`: from `given` (files on this machine, already checked
    /// to be inside the files root), else from where it is usually installed on this
    /// machine. Nothing is installed when a file is not the helper's.
    async fn install_helper(&self, device: &Device, given: &[PathBuf]) -> Result<HelperInstalled>;
}
