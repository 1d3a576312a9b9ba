//! Reading the screen and recording it ([`crate::device::Capability::Screen`],
//! [`crate::device::Capability::Recording`]).

use std::path::Path;

use async_trait::async_trait;

use super::{ScreenGeometry, UiSource};
use crate::device::{Device, RecordingOptions, ScreenRecorder};
use crate::error::Result;

/// Screenshots, the UI tree and the screen's geometry.
#[async_trait]
pub trait Screen: Send + Sync {
    /// The screen as PNG bytes, at the device's native resolution.
    async fn screenshot_png(&self, device: &Device) -> Result<Vec<u8>>;
    /// The native UI dump.
    async fn dump_ui(&self, device: &Device) -> Result<UiSource>;
    /// The screen as the device reports it (WebDriverAgent's `/wda/screen`), for a backend
    /// that can ask: used when a dump does not give the screen's size, and for the geometry
    /// of a screenshot taken before any snapshot. The default: unknown.
    async fn screen_geometry(&self, _device: &Device) -> Option<ScreenGeometry> {
        None
    }
    /// The screen's density in dots per inch (Android's `wm density`), for sizes in dp. The
    /// default: unknown (iOS trees are in points already).
    async fn density(&self, _device: &Device) -> Option<f64> {
        None
    }
    /// The platform's own accessibility audit (Apple's, through WebDriverAgent): its issues
    /// as the platform answers them. The default: none (`None`).
    async fn platform_audit(&self, _device: &Device) -> Option<Result<serde_json::Value>> {
        None
    }
}

/// Screen recordings.
#[async_trait]
pub trait Recording: Send + Sync {
    /// Starts recording the screen into the MP4 `dest` on the host; the file is complete
    /// once the returned recorder finishes (see `crate::controller::recording`).
    async fn start_recording(
        &self,
        device: &Device,
        options: &RecordingOptions,
        dest: &Path,
    ) -> Result<Box<dyn ScreenRecorder>>;
}
