//! Screenshots with the geometry that maps them to tap coordinates: Android screenshots are in
//! the pixels taps use; iOS screenshots are in pixels while taps use points, so the factor
//! comes from the snapshot's screen width. The annotated form reads the UI and the screen under
//! one command lock, so the refs drawn are the refs the API acts on.

use std::sync::Arc;

use super::snapshot::Snapshot;
use super::DeviceController;
use crate::backend::{Device, Platform};
use crate::error::Result;

/// A device screenshot and what it takes to map its pixels to taps.
pub struct Shot {
    pub png: Vec<u8>,
    pub device: Device,
    /// Screenshot pixels per tap unit (Android 1; iOS the screen's scale factor), when known.
    pub px_per_tap: Option<f64>,
    /// The snapshot the geometry (and, when annotating, the refs) come from.
    pub snapshot: Option<Arc<Snapshot>>,
}

fn png_width(png: &[u8]) -> Option<u32> {
    crate::backend::ios::png_dimensions(png).map(|(w, _)| w)
}

fn px_per_tap(device: &Device, png: &[u8], snapshot: Option<&Snapshot>) -> Option<f64> {
    match device.platform {
        Platform::Android => Some(1.0),
        Platform::Ios => {
            let w = png_width(png)?;
            let pts = snapshot?.screen.screen.w;
            (pts > 0.0).then(|| f64::from(w) / pts)
        }
    }
}

impl DeviceController {
    /// The screen as PNG, with the kept snapshot's geometry (iOS reads the UI once when no
    /// snapshot is kept, to learn the point size; without AXe or idb the geometry is unknown).
    pub async fn screenshot(&self, udid: Option<&str>) -> Result<Shot> {
        let device = self.resolve_ready(udid).await?;
        let session = self.session(&device.udid);
        let _commands = session.commands.lock().await;
        let png = self.backend(&device).screenshot_png(&device).await?;
        let snapshot = match (session.last(), device.platform) {
            (Some(s), _) => Some(s),
            // Learning the point size needs a UI tool; a screenshot does not.
            (None, Platform::Ios) => self.dump_locked(&device, &session).await.ok(),
            (None, Platform::Android) => None,
        };
        Ok(Shot {
            px_per_tap: px_per_tap(&device, &png, snapshot.as_deref()),
            png,
            device,
            snapshot,
        })
    }

    /// A new snapshot and a screenshot taken back to back under the device's command lock.
    pub async fn annotated_shot(&self, udid: Option<&str>) -> Result<Shot> {
        let device = self.resolve_ready(udid).await?;
        let session = self.session(&device.udid);
        let _commands = session.commands.lock().await;
        let snapshot = self.dump_locked(&device, &session).await?;
        let png = self.backend(&device).screenshot_png(&device).await?;
        Ok(Shot {
            px_per_tap: px_per_tap(&device, &png, Some(&snapshot)),
            png,
            device,
            snapshot: Some(snapshot),
        })
    }
}
