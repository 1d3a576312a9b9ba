//! Screenshots with the geometry that maps them to tap coordinates, from the backend's
//! coordinate space: with pixels (Android) a screenshot is in the unit taps use; with points
//! (iOS) it is in pixels while taps use points, so the factor comes from the snapshot's screen
//! width. The annotated form reads the UI and the screen under one command lock, so the refs
//! drawn are the refs the API acts on. Every screenshot taken is kept in the caller's slot
//! (the latest, and the latest before an action): a diff's `previous` baseline.

use std::sync::Arc;

use super::reach::Reach;
use super::snapshot::Snapshot;
use super::DeviceController;
use crate::backend::concern;
use crate::device::Device;
use crate::error::Result;
use crate::ui::CoordinateSpace;

/// A device screenshot and what it takes to map its pixels to taps.
pub struct Shot {
    /// The screen as PNG, as the device gave it.
    pub png: Vec<u8>,
    /// The device it was taken on.
    pub device: Device,
    /// The unit of taps on this device.
    pub coordinate_space: CoordinateSpace,
    /// Screenshot pixels per tap unit (pixels: 1; points: the screen's scale factor), when known.
    pub px_per_tap: Option<f64>,
    /// The snapshot the geometry (and, when annotating, the refs) come from.
    pub snapshot: Option<Arc<Snapshot>>,
}

fn px_per_tap(space: CoordinateSpace, png: &[u8], snapshot: Option<&Snapshot>) -> Option<f64> {
    match space {
        CoordinateSpace::Pixels => Some(1.0),
        CoordinateSpace::Points => {
            let (w, _) = crate::image::png_dimensions(png)?;
            let pts = snapshot?.screen.screen.w;
            (pts > 0.0).then(|| f64::from(w) / pts)
        }
    }
}

impl DeviceController {
    /// The screen as PNG, with the kept snapshot's geometry (a device tapped in points reads
    /// the UI once when no snapshot is kept, to learn the point size; when it cannot, as on iOS
    /// without AXe or idb, the geometry is unknown).
    pub async fn screenshot(&self, udid: Option<&str>) -> Result<Shot> {
        let on = self.reach_held(udid, Reach::Read).await?;
        let (device, session) = (&on.device, &on.slot);
        let space = on.backend.coordinate_space();
        let screen = on.cap(concern::Screen)?;
        let png = screen.screenshot_png(device).await?;
        session.keep_shot(std::sync::Arc::new(png.clone()));
        // A device that says its scale spares the UI read.
        let scale = match (session.last(), space) {
            (None, CoordinateSpace::Points) => {
                screen.screen_geometry(device).await.and_then(|g| g.scale)
            }
            _ => None,
        };
        let snapshot = match (session.last(), space) {
            (Some(s), _) => Some(s),
            (None, CoordinateSpace::Points) if scale.is_some() => None,
            // Learning the point size needs a UI read; a screenshot does not.
            (None, CoordinateSpace::Points) => self.dump_locked(device, session).await.ok(),
            (None, CoordinateSpace::Pixels) => None,
        };
        Ok(Shot {
            px_per_tap: scale.or_else(|| px_per_tap(space, &png, snapshot.as_deref())),
            coordinate_space: space,
            png,
            device: on.into_device(),
            snapshot,
        })
    }

    /// What an audit reads (and Apple's own audit of the same screen where WebDriverAgent runs
    /// it): a new snapshot and a screenshot back to back under the device's
    /// command lock, and the screen's density when the backend can tell it (Android).
    pub async fn audit_shot(
        &self,
        udid: Option<&str>,
    ) -> Result<(Shot, Option<f64>, PlatformAudit)> {
        let on = self.reach_held(udid, Reach::Read).await?;
        let snapshot = self.dump_locked(&on.device, &on.slot).await?;
        let screen = on.cap(concern::Screen)?;
        let png = screen.screenshot_png(&on.device).await?;
        let density = screen.density(&on.device).await;
        let platform = screen.platform_audit(&on.device).await;
        on.slot.keep_shot(std::sync::Arc::new(png.clone()));
        let space = on.backend.coordinate_space();
        Ok((
            Shot {
                px_per_tap: px_per_tap(space, &png, Some(&snapshot)),
                coordinate_space: space,
                png,
                device: on.into_device(),
                snapshot: Some(snapshot),
            },
            density,
            platform,
        ))
    }

    /// A new snapshot and a screenshot taken back to back under the device's command lock.
    pub async fn annotated_shot(&self, udid: Option<&str>) -> Result<Shot> {
        let on = self.reach_held(udid, Reach::Read).await?;
        let snapshot = self.dump_locked(&on.device, &on.slot).await?;
        let screen = on.cap(concern::Screen)?;
        let png = screen.screenshot_png(&on.device).await?;
        on.slot.keep_shot(std::sync::Arc::new(png.clone()));
        let space = on.backend.coordinate_space();
        Ok(Shot {
            px_per_tap: px_per_tap(space, &png, Some(&snapshot)),
            coordinate_space: space,
            png,
            device: on.into_device(),
            snapshot: Some(snapshot),
        })
    }
}

/// The platform's own audit of the screen: `None` where there is none, else its issues (or why
/// it could not run).
pub type PlatformAudit = Option<Result<serde_json::Value>>;
