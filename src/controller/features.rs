//! Device features beyond the screen: the clipboard, the screen's orientation and Android
//! intents. Each resolves the device as the other operations do (changes make a named
//! device the active one, reads do not), checks the request before anything reaches the
//! device, runs under the device's command lock, and marks the kept snapshot stale after a
//! change that can move the screen (rotation, intents).

use crate::device::{
    check_intent, Device, IntentOutcome, IntentParts, Orientation, OrientationRead,
};
use crate::error::{Error, ErrorCode, Result};

use super::DeviceController;

/// Longest clipboard text accepted.
pub const MAX_CLIPBOARD: usize = 64 * 1024;

/// The screen's orientation as answered.
#[derive(Debug, Clone, PartialEq)]
pub struct OrientationNow {
    pub device: Device,
    pub orientation: Orientation,
    pub auto_rotate: Option<bool>,
}

impl DeviceController {
    /// The clipboard's text.
    pub async fn clipboard_get(&self, udid: Option<&str>) -> Result<(Device, String)> {
        let device = self.resolve_ready(udid).await?;
        let session = self.slot(&device.udid);
        let _commands = session.hold().await;
        let text = self.backend(&device)?.get_clipboard(&device).await?;
        Ok((device, text))
    }

    /// Puts text on the clipboard.
    pub async fn clipboard_set(&self, udid: Option<&str>, text: &str) -> Result<Device> {
        if text.len() > MAX_CLIPBOARD {
            return Err(Error::validation(format!(
                "`text` is {} bytes; the clipboard takes at most {MAX_CLIPBOARD}",
                text.len()
            )));
        }
        if text.contains('\0') {
            return Err(Error::validation("`text` contains a NUL character"));
        }
        let device = self.resolve_to_act(udid).await?;
        let session = self.slot(&device.udid);
        let _commands = session.hold().await;
        self.backend(&device)?.set_clipboard(&device, text).await?;
        Ok(device)
    }

    /// The screen's orientation: as the device reports it, else the rotation of a UI dump
    /// (the kept snapshot when no action ran since).
    pub async fn orientation_get(&self, udid: Option<&str>) -> Result<OrientationNow> {
        let device = self.resolve_ready(udid).await?;
        let session = self.slot(&device.udid);
        let _commands = session.hold().await;
        let OrientationRead {
            orientation,
            auto_rotate,
        } = self.backend(&device)?.get_orientation(&device).await?;
        let orientation = match orientation {
            Some(o) => o,
            None => {
                let snapshot = self.fresh_or_dump_locked(&device, &session).await?;
                snapshot
                    .screen
                    .rotation
                    .and_then(Orientation::from_android_rotation)
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::CommandFailed,
                            "the UI dump does not state the screen's rotation",
                        )
                        .with_hint("retry; the device's uiautomator should write rotation=\"0..3\"")
                    })?
            }
        };
        Ok(OrientationNow {
            device,
            orientation,
            auto_rotate,
        })
    }

    /// Holds the screen in `to`, or (`None`) gives the rotation back to the sensor.
    pub async fn orientation_set(
        &self,
        udid: Option<&str>,
        to: Option<Orientation>,
    ) -> Result<Device> {
        let device = self.resolve_to_act(udid).await?;
        let session = self.slot(&device.udid);
        let _commands = session.hold().await;
        let result = self.backend(&device)?.set_orientation(&device, to).await;
        session.touch();
        result.map(|()| device)
    }

    /// Drives the simulated biometric sensor.
    pub async fn biometric(
        &self,
        udid: Option<&str>,
        action: crate::device::BiometricAction,
        kind: crate::device::BiometricKind,
        finger: Option<u8>,
    ) -> Result<Device> {
        let device = self.resolve_to_act(udid).await?;
        let session = self.slot(&device.udid);
        let _commands = session.hold().await;
        self.backend(&device)?
            .biometric(&device, action, kind, finger)
            .await?;
        session.touch();
        Ok(device)
    }

    /// Starts an activity with an intent, or broadcasts it.
    pub async fn intent(
        &self,
        udid: Option<&str>,
        parts: &IntentParts<'_>,
    ) -> Result<(Device, IntentOutcome)> {
        let spec = check_intent(parts)?;
        let device = self.resolve_to_act(udid).await?;
        let session = self.slot(&device.udid);
        let _commands = session.hold().await;
        let result = self.backend(&device)?.send_intent(&device, &spec).await;
        session.touch();
        result.map(|outcome| (device, outcome))
    }
}
