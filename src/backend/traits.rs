//! The platform-free contract every backend implements. The controller resolves a device, picks
//! its backend by platform, and calls these. Operations a backend does not support keep the
//! default body, which answers `501 UNSUPPORTED_ON_PLATFORM` with a hint.

use std::path::Path;

use async_trait::async_trait;

use super::types::{
    AppInfo, Key, LaunchOptions, Launched, PermissionAction, Point, StatusBarOverride,
};
use super::{Device, Platform};
use crate::error::{Error, ErrorCode, Result};
use crate::logs::{Crash, CrashDetection, DeviceClock, LogRead, LogStream, LogText, ProcessName};

/// The native UI dump of a device, before parsing into the canonical tree.
#[derive(Debug, Clone)]
pub struct UiSource {
    /// The dump as the tool printed it (uiautomator XML, AXe JSON, idb JSON…).
    pub text: String,
    /// Which tool produced it (`uiautomator`, `axe`, `idb`).
    pub tool: &'static str,
    /// The foreground app or activity, when the backend learnt it in the same round trip.
    pub foreground: Option<String>,
}

/// A key press: a named key or a raw platform key code (Android `KEYCODE_*` number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPress {
    Named(Key),
    Code(u32),
}

/// How text was typed, reported back to the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedWith(pub &'static str);

/// What `type` does on the device, as one job: tap the field, empty it, type, press Enter.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeJob<'a> {
    pub tap: Option<Point>,
    /// Delete this many characters (cursor moved to the end first) before typing.
    pub clear_chars: Option<usize>,
    pub text: &'a str,
    pub submit: bool,
}

/// The answer for an operation a platform or device kind cannot do.
pub fn unsupported(what: &str, platform: Platform) -> Error {
    let name = match platform {
        Platform::Android => "Android",
        Platform::Ios => "iOS",
    };
    Error::new(
        ErrorCode::UnsupportedOnPlatform,
        format!("{what} is not supported on {name}"),
    )
    .with_hint("see GET /api/v1/doctor and the route's description for what each platform offers")
}

#[async_trait]
pub trait DeviceBackend: Send + Sync {
    fn platform(&self) -> Platform;

    // --- apps -----------------------------------------------------------------------------
    async fn install_app(&self, _device: &Device, _path: &Path) -> Result<()> {
        Err(unsupported("installing apps", self.platform()))
    }
    async fn launch_app(
        &self,
        _device: &Device,
        _bundle_id: &str,
        _opts: &LaunchOptions,
    ) -> Result<Launched> {
        Err(unsupported("launching apps", self.platform()))
    }
    async fn terminate_app(&self, _device: &Device, _bundle_id: &str) -> Result<()> {
        Err(unsupported("terminating apps", self.platform()))
    }
    async fn reset_app(&self, _device: &Device, _bundle_id: &str) -> Result<()> {
        Err(unsupported("resetting app data", self.platform()))
    }
    async fn list_apps(&self, _device: &Device) -> Result<Vec<AppInfo>> {
        Err(unsupported("listing apps", self.platform()))
    }
    async fn open_url(&self, _device: &Device, _url: &str) -> Result<()> {
        Err(unsupported("opening URLs", self.platform()))
    }

    // --- screen ---------------------------------------------------------------------------
    /// The screen as PNG bytes, at the device's native resolution.
    async fn screenshot_png(&self, _device: &Device) -> Result<Vec<u8>> {
        Err(unsupported("screenshots", self.platform()))
    }
    /// The native UI dump.
    async fn dump_ui(&self, _device: &Device) -> Result<UiSource> {
        Err(unsupported("reading the UI", self.platform()))
    }

    // --- input (coordinates in the platform's tap space) ----------------------------------
    async fn tap(&self, _device: &Device, _at: Point) -> Result<()> {
        Err(unsupported("tapping", self.platform()))
    }
    async fn long_press(&self, _device: &Device, _at: Point, _duration_ms: u64) -> Result<()> {
        Err(unsupported("long presses", self.platform()))
    }
    async fn swipe(
        &self,
        _device: &Device,
        _from: Point,
        _to: Point,
        _duration_ms: u64,
    ) -> Result<()> {
        Err(unsupported("swiping", self.platform()))
    }
    /// Types into the focused field; says which method was used.
    async fn type_text(&self, _device: &Device, _text: &str) -> Result<TypedWith> {
        Err(unsupported("typing", self.platform()))
    }
    async fn press_key(&self, _device: &Device, _key: KeyPress) -> Result<()> {
        Err(unsupported("pressing keys", self.platform()))
    }
    /// Runs a typing job. A backend that can tell whether the text is typable at all checks
    /// that before the first step, so a refusal never leaves the field tapped or emptied; the
    /// default runs the steps one by one.
    async fn type_job(&self, device: &Device, job: &TypeJob<'_>) -> Result<TypedWith> {
        if let Some(at) = job.tap {
            self.tap(device, at).await?;
        }
        if let Some(n) = job.clear_chars {
            self.clear_field(device, n).await?;
        }
        let with = if job.text.is_empty() {
            TypedWith("none")
        } else {
            self.type_text(device, job.text).await?
        };
        if job.submit {
            self.press_key(device, KeyPress::Named(Key::Enter)).await?;
        }
        Ok(with)
    }
    /// Deletes `chars` characters before the cursor of the focused field (after moving the
    /// cursor to the end where the platform can).
    async fn clear_field(&self, device: &Device, chars: usize) -> Result<()> {
        for _ in 0..chars {
            self.press_key(device, KeyPress::Named(Key::Delete)).await?;
        }
        Ok(())
    }
    async fn hide_keyboard(&self, _device: &Device) -> Result<()> {
        Err(unsupported("hiding the keyboard", self.platform()))
    }

    // --- system ---------------------------------------------------------------------------
    async fn set_location(&self, _device: &Device, _latitude: f64, _longitude: f64) -> Result<()> {
        Err(unsupported("setting the location", self.platform()))
    }
    async fn clear_location(&self, _device: &Device) -> Result<()> {
        Err(unsupported("clearing the location", self.platform()))
    }
    /// Changes a permission; answers a note when less than asked could be done.
    async fn permission(
        &self,
        _device: &Device,
        _bundle_id: &str,
        _permission: &str,
        _action: PermissionAction,
    ) -> Result<Option<String>> {
        Err(unsupported("changing permissions", self.platform()))
    }

    // --- simulator housekeeping -------------------------------------------------------------
    /// Wipes the device's content and settings (iOS Simulator `simctl erase`).
    async fn erase(&self, _device: &Device) -> Result<()> {
        Err(unsupported("erasing the device", self.platform()))
    }
    /// Overrides the status bar (`Some`) or restores it (`None`).
    async fn status_bar(
        &self,
        _device: &Device,
        _values: Option<&StatusBarOverride>,
    ) -> Result<()> {
        Err(unsupported("overriding the status bar", self.platform()))
    }

    // --- logs (see crate::controller's log supervisor) ---------------------------------
    /// Where this platform's crashes and ANRs are found.
    fn crash_detection(&self) -> CrashDetection {
        CrashDetection::None
    }
    /// A handle the log supervisor keeps while it runs (it outlives any one request).
    fn log_handle(&self) -> Option<std::sync::Arc<dyn DeviceBackend>> {
        None
    }
    /// The device's clock, for reading its log's times.
    async fn log_clock(&self, device: &Device) -> Result<DeviceClock> {
        Err(unsupported_logs(device))
    }
    /// The device's processes (pid → name) or apps (executable → bundle id).
    async fn log_processes(&self, device: &Device) -> Result<Vec<ProcessName>> {
        Err(unsupported_logs(device))
    }
    /// A one-off read of the device's log (its history, or its newest lines).
    async fn log_read(&self, device: &Device, _read: &LogRead) -> Result<LogText> {
        Err(unsupported_logs(device))
    }
    /// Starts the device's live log stream (from `after_ms` when given).
    async fn log_stream(&self, device: &Device, _read: &LogRead) -> Result<LogStream> {
        Err(unsupported_logs(device))
    }
    /// Crash reports kept outside the log (iOS), made at or after `since_ms` (host time).
    async fn crash_reports(&self, _device: &Device, _since_ms: Option<i64>) -> Result<Vec<Crash>> {
        Ok(Vec::new())
    }
}

/// The answer for logs where they cannot be read (physical iPhones, for now).
pub fn unsupported_logs(device: &Device) -> Error {
    let what = match (device.platform, device.kind) {
        (Platform::Ios, super::DeviceKind::Device) => "a physical iPhone",
        (Platform::Ios, _) => "this iOS device",
        (Platform::Android, _) => "this Android device",
    };
    Error::new(
        ErrorCode::UnsupportedOnPlatform,
        format!("the logs of `{}` ({what}) cannot be read", device.udid),
    )
    .with_hint(
        "logs are read from Android devices (adb logcat) and iOS Simulators (simctl log stream); \
         physical iPhones are not supported yet: use Console.app or `idevicesyslog`",
    )
}
