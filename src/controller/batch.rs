//! What a batch needs from the controller: one device held across several operations (the
//! operations re-enter the hold, see [`super::session`]), and a receipt of the whole run: the
//! screen read after it, compared with the latest read before it.

use std::future::Future;
use std::sync::Arc;

use super::reach::Reach;
use super::snapshot::Snapshot;
use super::DeviceController;
use crate::api::wire::batch::Receipt;
use crate::device::Device;
use crate::error::Result;
use crate::ui::diff::diff;

impl DeviceController {
    /// Runs `work` for the device `udid` resolves to (which becomes the active one), holding
    /// its command lock throughout: no other request's command reaches the device meanwhile.
    /// `work` gets the device and the latest read before it began.
    pub async fn holding_device<F, Fut, T>(&self, udid: Option<&str>, work: F) -> Result<T>
    where
        F: FnOnce(Device, Option<Arc<Snapshot>>) -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let (device, session, _) = self.reach(udid, Reach::Act).await?.into_parts();
        let before = session.last();
        session.holding(work(device, before)).await
    }

    /// Reads the screen (under the device's lock, re-entered in a batch) and compares it with
    /// `before`.
    pub async fn receipt(&self, device: &Device, before: Option<Arc<Snapshot>>) -> Result<Receipt> {
        let on = self.on(device.clone(), true).await?;
        let after = self.dump_locked(device, &on.slot).await?;
        Ok(Receipt {
            fingerprint_after: after.screen.fingerprint.clone(),
            snapshot_id: after.id.clone(),
            changes: before.map(|b| diff(&b.screen, &after.screen)),
        })
    }
}
