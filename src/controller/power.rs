//! Boot and shutdown, through the backend of the device: a listed device boots by udid or
//! name (an iOS Simulator); a device image boots by name on the backend that starts images
//! (an Android AVD). What shutting down means is the backend's business; it says whether the
//! device stays listed, and a device that leaves the listing stops being the active one.

use std::time::Duration;

use super::reach::Reach;
use super::{resolve_target, DeviceController};
use crate::api::wire::devices::{BootRequest, PlatformTools, PowerResult, ShutdownRequest};
use crate::backend::concern;
use crate::backend::{unsupported, AfterShutdown};
use crate::device::DeviceState;
use crate::error::{Error, ErrorCode, Op, Result, Step};
use serde_json::json;

/// A named device that is not listed, while some backends could not list theirs: the missing
/// tool is the likelier cause, so that is the answer.
fn unlisted(err: Error, tools: &PlatformTools) -> Error {
    let absent: Vec<(&String, _)> = tools.0.iter().filter(|(_, s)| !s.available).collect();
    if err.code != ErrorCode::NoDevice || absent.is_empty() {
        return err;
    }
    let why: Vec<String> = absent
        .iter()
        .map(|(id, s)| format!("{id} ({})", s.reason.as_deref().unwrap_or("unavailable")))
        .collect();
    let hints: Vec<&str> = absent
        .iter()
        .filter_map(|(_, s)| s.hint.as_deref())
        .collect();
    Error::new(
        ErrorCode::ToolMissing,
        format!(
            "{}; some devices cannot be listed here: {}",
            err.message,
            why.join(", ")
        ),
    )
    .with_hint(hints.join("; "))
}

impl DeviceController {
    /// Boots a listed device (`udid`: udid or name) or a device image (`avd`).
    pub async fn boot(&self, req: &BootRequest) -> Result<PowerResult> {
        let wait = req.wait.unwrap_or(true);
        let limit = Duration::from_millis(req.timeout_ms.unwrap_or(180_000).clamp(1_000, 600_000));
        let wait = wait.then_some(limit);
        let udid = match (req.udid.as_deref(), req.avd.as_deref()) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(Error::validation(
                    "name exactly one of `udid` (iOS Simulator) or `avd` (Android emulator)",
                )
                .with_next(
                    "e.g. {0} or {1}",
                    [
                        Step::example_of(Op::Boot, json!({"udid": "iPhone 15"})),
                        Step::example_of(Op::Boot, json!({"avd": "Pixel_7_API_34"})),
                    ],
                ))
            }
            (Some(udid), None) => {
                let list = self.list().await;
                let device = resolve_target(Some(udid), None, &list.devices)
                    .map_err(|e| unlisted(e, &list.tools))?;
                self.check_lease(&device)?;
                self.cap(&device, concern::Lifecycle)?
                    .boot(&device, wait)
                    .await?;
                Some(device.udid)
            }
            (None, Some(image)) => {
                let lifecycle = self
                    .backends
                    .iter()
                    .filter_map(|b| b.lifecycle())
                    .find(|l| l.boots_images())
                    .ok_or_else(|| unsupported("booting from an image", "this server"))?;
                lifecycle.boot_image(image, wait).await?
            }
        };
        let device = match &udid {
            Some(u) => self.find(u).await,
            None => None,
        };
        if let Some(u) = udid.filter(|_| super::sessions::current().is_none()) {
            self.set_active_udid(Some(u));
        }
        Ok(PowerResult {
            state: device.as_ref().map_or(DeviceState::Booting, |d| d.state),
            device,
        })
    }

    /// Shuts down a simulator or an emulator. Physical phones are refused by their backend.
    pub async fn shutdown(&self, req: &ShutdownRequest) -> Result<PowerResult> {
        let on = self.reach(req.udid.as_deref(), Reach::Change).await?;
        let after = on.cap(concern::Lifecycle)?.shutdown(&on.device).await?;
        let device = on.into_device();
        if after == AfterShutdown::Gone && self.active().as_deref() == Some(&device.udid) {
            self.clear_active();
        }
        Ok(PowerResult {
            device: self.find(&device.udid).await,
            state: DeviceState::Shutdown,
        })
    }
}
