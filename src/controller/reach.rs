//! The steps every device operation starts with, written once: resolve the device (and, for
//! an action, check the lease and make it the active device), find its backend, take the
//! caller's slot and, for operations that run device commands, hold the device's command
//! lock. A concern the backend lacks is the one `501` naming it ([`OnDevice::cap`]).

use std::sync::Arc;

use super::slot::{DeviceSlot, Hold};
use super::DeviceController;
use crate::backend::{lacking, Concern, DeviceBackend};
use crate::device::Device;
use crate::error::Result;

/// How an operation resolves its device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// A read: the device must take commands; the active device is left alone.
    Read,
    /// An action: the device must take commands and not be leased by another session; a
    /// request that names it makes it the active one.
    Act,
    /// A system change that may find the device not ready (shutdown): as `Act` without
    /// requiring it to take commands.
    Change,
}

/// The device an operation reaches, its backend, the caller's slot, and the device's command
/// lock while it lives (when taken).
pub(crate) struct OnDevice<'a> {
    /// The device.
    pub device: Device,
    /// The backend that drives it.
    pub backend: &'a dyn DeviceBackend,
    /// What the caller keeps about it.
    pub slot: Arc<DeviceSlot>,
    /// The command lock (none: the operation runs no command that needs it).
    hold: Option<Hold>,
}

impl<'a> OnDevice<'a> {
    /// One concern of the backend (`on.cap(concern::Apps)`), or the `501` naming its capability.
    pub fn cap<C: Concern>(&self, concern: C) -> Result<&'a C::Dyn<'a>> {
        concern
            .of(self.backend)
            .ok_or_else(|| lacking(self.backend, &self.device, C::CAPABILITY))
    }

    /// Takes the command lock now, when it was not taken with the device.
    pub async fn hold(&mut self) {
        if self.hold.is_none() {
            self.hold = Some(self.slot.hold().await);
        }
    }

    /// Gives back what the operation keeps beyond the lock: the device.
    pub fn into_device(self) -> Device {
        self.device
    }

    /// The device, the slot and the lock, for an operation that keeps them apart.
    pub fn into_parts(self) -> (Device, Arc<DeviceSlot>, Option<Hold>) {
        (self.device, self.slot, self.hold)
    }
}

impl DeviceController {
    /// Resolves the device of an operation as `reach` says, with its backend and the
    /// caller's slot, without taking the command lock (app operations, which run their own
    /// tools).
    pub(crate) async fn reach(&self, udid: Option<&str>, reach: Reach) -> Result<OnDevice<'_>> {
        let device = match reach {
            Reach::Read => self.resolve_ready(udid).await?,
            Reach::Act => self.resolve_to_act(udid).await?,
            Reach::Change => self.resolve_to_change(udid).await?,
        };
        self.on(device, false).await
    }

    /// [`Self::reach`], then the device's command lock (re-entered inside a batch).
    pub(crate) async fn reach_held(
        &self,
        udid: Option<&str>,
        reach: Reach,
    ) -> Result<OnDevice<'_>> {
        let mut on = self.reach(udid, reach).await?;
        on.hold().await;
        Ok(on)
    }

    /// A device resolved already, with its backend, the caller's slot and (with `hold`) the
    /// command lock.
    pub(crate) async fn on(&self, device: Device, hold: bool) -> Result<OnDevice<'_>> {
        let backend = self.backend(&device)?;
        let slot = self.slot(&device.udid);
        let mut on = OnDevice {
            device,
            backend,
            slot,
            hold: None,
        };
        if hold {
            on.hold().await;
        }
        Ok(on)
    }

    /// One concern of `device`'s backend, or the `501` naming it, for operations that need
    /// neither the slot nor the lock.
    pub(crate) fn cap<C: Concern>(&self, device: &Device, concern: C) -> Result<&C::Dyn<'_>> {
        let backend = self.backend(device)?;
        concern
            .of(backend)
            .ok_or_else(|| lacking(backend, device, C::CAPABILITY))
    }
}
