//! Device features beyond the screen: the clipboard, the screen's orientation, Android
//! intents and airplane mode. Each resolves the device as the other operations do (changes make a named
//! device the active one, reads do not), checks the request before anything reaches the
//! device, runs under the device's command lock, and marks the kept snapshot stale after a
//! change that can move the screen (rotation, intents).

use crate::backend::concern;
use crate::device::{
    check_intent, Device, IntentOutcome, IntentParts, Orientation, OrientationRead,
};
use crate::error::{Error, ErrorCode, Result};

use super::reach::Reach;
use super::DeviceController;

/// Longest clipboard text accepted.
pub const MAX_CLIPBOARD: usize = 64 * 1024;

/// Airplane mode after a change.
#[derive(Debug, Clone, PartialEq)]
pub struct AirplaneNow {
    pub device: Device,
    /// Whether it is on, read back after the change.
    pub enabled: bool,
    /// What the device may not have done (an old Android's radios not told).
    pub note: Option<String>,
}

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
        let on = self.reach_held(udid, Reach::Read).await?;
        let clipboard = on.cap(concern::Clipboard)?;
        let text = clipboard.get_clipboard(&on.device).await?;
        Ok((on.into_device(), text))
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
        let on = self.reach_held(udid, Reach::Act).await?;
        let clipboard = on.cap(concern::Clipboard)?;
        clipboard.set_clipboard(&on.device, text).await?;
        Ok(on.into_device())
    }

    /// The screen's orientation: as the device reports it, else the rotation of a UI dump
    /// (the kept snapshot when no action ran since).
    pub async fn orientation_get(&self, udid: Option<&str>) -> Result<OrientationNow> {
        let on = self.reach_held(udid, Reach::Read).await?;
        let OrientationRead {
            orientation,
            auto_rotate,
        } = on
            .cap(concern::ScreenOrientation)?
            .get_orientation(&on.device)
            .await?;
        let orientation = match orientation {
            Some(o) => o,
            None => {
                let snapshot = self.fresh_or_dump_locked(&on.device, &on.slot).await?;
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
            device: on.into_device(),
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
        let on = self.reach_held(udid, Reach::Act).await?;
        let orientation = on.cap(concern::ScreenOrientation)?;
        let result = orientation.set_orientation(&on.device, to).await;
        on.slot.touch();
        result.map(|()| on.into_device())
    }

    /// Drives the simulated biometric sensor.
    pub async fn biometric(
        &self,
        udid: Option<&str>,
        action: crate::device::BiometricAction,
        kind: crate::device::BiometricKind,
        finger: Option<u8>,
    ) -> Result<Device> {
        let on = self.reach_held(udid, Reach::Act).await?;
        on.cap(concern::Biometrics)?
            .biometric(&on.device, action, kind, finger)
            .await?;
        on.slot.touch();
        Ok(on.into_device())
    }

    /// Turns airplane mode on or off (`enabled`), or (`None`) the other way from how it is,
    /// then reads it back: the answer is the mode the device reports after the change.
    pub async fn airplane_mode(
        &self,
        udid: Option<&str>,
        enabled: Option<bool>,
    ) -> Result<AirplaneNow> {
        let on = self.reach_held(udid, Reach::Act).await?;
        let air = on.cap(concern::AirplaneMode)?;
        let want = match enabled {
            Some(e) => e,
            None => !air.airplane_mode(&on.device).await?,
        };
        let note = air.set_airplane_mode(&on.device, want).await;
        // The status bar shows the change: the kept snapshot is stale.
        on.slot.touch();
        let note = note?;
        let now = air.airplane_mode(&on.device).await?;
        if now != want {
            let say = |on: bool| if on { "on" } else { "off" };
            return Err(Error::new(
                ErrorCode::CommandFailed,
                format!(
                    "airplane mode is still {} on `{}` after turning it {}",
                    say(now),
                    on.device.udid,
                    say(want)
                ),
            )
            .with_hint("switch it in the device's Quick Settings; some builds let only the system change it"));
        }
        Ok(AirplaneNow {
            device: on.into_device(),
            enabled: now,
            note,
        })
    }

    /// Starts an activity with an intent, or broadcasts it.
    pub async fn intent(
        &self,
        udid: Option<&str>,
        parts: &IntentParts<'_>,
    ) -> Result<(Device, IntentOutcome)> {
        let spec = check_intent(parts)?;
        let on = self.reach_held(udid, Reach::Act).await?;
        let intents = on.cap(concern::Intents)?;
        let result = intents.send_intent(&on.device, &spec).await;
        on.slot.touch();
        result.map(|outcome| (on.into_device(), outcome))
    }
}
