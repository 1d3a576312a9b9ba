//! The device's system features, one small trait each: location, permissions, clipboard,
//! orientation, files, notifications and the shade, the gallery, biometrics, intents,
//! erasing, the status bar and airplane mode (see `crate::controller::features`).

use std::path::Path;

use async_trait::async_trait;

use crate::device::{
    BiometricAction, BiometricKind, Device, IntentOutcome, IntentSpec, NotificationPost,
    Orientation as Turn, OrientationRead, PermissionAction, StatusBarOverride,
};
use crate::error::Result;

/// The simulated GPS position.
#[async_trait]
pub trait Location: Send + Sync {
    /// Sets the simulated GPS position, in degrees.
    async fn set_location(&self, device: &Device, latitude: f64, longitude: f64) -> Result<()>;
    /// Stops simulating the position.
    async fn clear_location(&self, device: &Device) -> Result<()>;
}

/// App permissions.
#[async_trait]
pub trait Permissions: Send + Sync {
    /// Changes a permission; answers a note when less than asked could be done.
    async fn permission(
        &self,
        device: &Device,
        bundle_id: &str,
        permission: &str,
        action: PermissionAction,
    ) -> Result<Option<String>>;
}

/// The clipboard.
#[async_trait]
pub trait Clipboard: Send + Sync {
    /// The clipboard's text.
    async fn get_clipboard(&self, device: &Device) -> Result<String>;
    /// Puts text on the clipboard.
    async fn set_clipboard(&self, device: &Device, text: &str) -> Result<()>;
}

/// The screen's orientation.
#[async_trait]
pub trait ScreenOrientation: Send + Sync {
    /// The orientation as the device reports it (`orientation: None`: read the screen).
    async fn get_orientation(&self, device: &Device) -> Result<OrientationRead>;
    /// Holds the screen in an orientation (`Some`), or gives it back to the sensor (`None`).
    async fn set_orientation(&self, device: &Device, to: Option<Turn>) -> Result<()>;
}

/// Files on the device.
#[async_trait]
pub trait Files: Send + Sync {
    /// Copies the (checked) local file `local` to `device_path` (in the data container of
    /// the app `bundle_id` where the platform keeps files per app).
    async fn push_file(
        &self,
        device: &Device,
        local: &Path,
        device_path: &str,
        bundle_id: Option<&str>,
    ) -> Result<()>;
    /// Copies `device_path` to the (checked) local path `local`, refusing more than `max`
    /// bytes; answers the bytes copied.
    async fn pull_file(
        &self,
        device: &Device,
        device_path: &str,
        bundle_id: Option<&str>,
        local: &Path,
        max: u64,
    ) -> Result<u64>;
}

/// Posting notifications.
#[async_trait]
pub trait Notifications: Send + Sync {
    /// Posts a notification (Android as the shell; iOS Simulator an APNs push to an app).
    async fn post_notification(&self, device: &Device, n: &NotificationPost) -> Result<()>;
}

/// The notification shade.
#[async_trait]
pub trait NotificationShade: Send + Sync {
    /// Opens (`true`) or closes the notification shade.
    async fn notification_shade(&self, device: &Device, open: bool) -> Result<()>;
}

/// The gallery.
#[async_trait]
pub trait Media: Send + Sync {
    /// Adds the (checked) photo or video `local` to the gallery; answers where it went.
    async fn add_media(&self, device: &Device, local: &Path) -> Result<String>;
}

/// The simulated biometric sensor (simulators and emulators only).
#[async_trait]
pub trait Biometrics: Send + Sync {
    /// Drives the simulated sensor.
    async fn biometric(
        &self,
        device: &Device,
        action: BiometricAction,
        kind: BiometricKind,
        finger: Option<u8>,
    ) -> Result<()>;
}

/// Android intents.
#[async_trait]
pub trait Intents: Send + Sync {
    /// Starts an activity with an intent, or broadcasts it.
    async fn send_intent(&self, device: &Device, intent: &IntentSpec) -> Result<IntentOutcome>;
}

/// Erasing the device.
#[async_trait]
pub trait Erase: Send + Sync {
    /// Wipes the device's content and settings (iOS Simulator `simctl erase`).
    async fn erase(&self, device: &Device) -> Result<()>;
}

/// The status bar.
#[async_trait]
pub trait StatusBar: Send + Sync {
    /// Overrides the status bar (`Some`) or restores it (`None`).
    async fn status_bar(&self, device: &Device, values: Option<&StatusBarOverride>) -> Result<()>;
}

/// Airplane mode.
#[async_trait]
pub trait AirplaneMode: Send + Sync {
    /// Whether airplane mode is on.
    async fn airplane_mode(&self, device: &Device) -> Result<bool>;
    /// Turns airplane mode on (`true`) or off; answers a note when the device may not have
    /// followed all the way (an old Android's radios not told).
    async fn set_airplane_mode(&self, device: &Device, enabled: bool) -> Result<Option<String>>;
}
