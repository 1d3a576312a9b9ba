//! The iOS Simulator backend: `xcrun simctl` for devices, apps, screenshots and system settings;
//! AXe (preferred) or idb for the UI. Taps are in points. Each concern lives in its own module;
//! this one holds the backend type, its simctl runner and the [`DeviceBackend`] wiring.

mod apps;
mod container;
mod devices;
mod features;
mod keys;
mod listapps;
mod logs;
mod proxy;
mod record;
mod scale;
mod screen;
mod system;
mod typing;
mod ui;

pub use devices::parse_simctl_devices;
pub use keys::{hid_usage, ios_key, not_on_ios, IosKey};
pub use listapps::parse_listapps;
pub use proxy::mac_proxy_commands;
pub use scale::{pixels_to_points, points_to_pixels, screen_scale};
pub use typing::is_hid_typeable;
pub use ui::{AxeSelector, UiTool};

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use async_trait::async_trait;

use crate::api::wire::service::{Readiness, ToolCheck};
use crate::backend::doctor;
use crate::backend::{
    command_failed, exec_error, tool_command, validate, AfterShutdown, DeviceBackend, TypedWith,
    UiSource,
};
use crate::device::{
    AppInfo, Device, KeyPress, LaunchOptions, Launched, PermissionAction, Platform, Point,
    StatusBarOverride,
};
use crate::error::Result;
use crate::exec::{Command, Output, Tool, Toolbox};
use crate::logs::{Crash, CrashDetection, DeviceClock, LogRead, LogStream, LogText, ProcessName};
use crate::proxy::attach::{ProxyAttached, ProxyDetached, ProxySetup};
use crate::ui::CoordinateSpace;

/// Time limit of quick simctl queries.
pub const QUICK_TIMEOUT: Duration = Duration::from_secs(20);
/// Time limit of a simulator boot or shutdown.
pub const BOOT_TIMEOUT: Duration = Duration::from_secs(180);

/// Talks to iOS Simulators through `xcrun simctl`, and to their UI through AXe or idb.
#[derive(Debug, Clone)]
pub struct SimctlBackend {
    tools: Toolbox,
    /// The simulators, kept and refreshed in the background (simctl has no device stream).
    listing: crate::backend::polled::PolledListing,
}

impl SimctlBackend {
    /// The registry key of this backend.
    pub const ID: &'static str = "ios";

    /// A backend using the xcrun, AXe and idb of `tools`.
    pub fn new(tools: Toolbox) -> Self {
        SimctlBackend {
            tools,
            listing: Default::default(),
        }
    }

    /// A listing of the simulators, as a future that owns what it needs.
    fn lister(&self) -> futures_util::future::BoxFuture<'static, Result<Vec<Device>>> {
        let this = self.clone();
        Box::pin(async move { this.simulators().await })
    }

    /// `xcrun simctl …`
    pub fn simctl(&self) -> Result<Command> {
        Ok(tool_command(&self.tools, Tool::Xcrun)?.arg("simctl"))
    }

    async fn run(&self, cmd: Command) -> Result<Output> {
        cmd.run().await.map_err(|e| exec_error(Tool::Xcrun, e))
    }

    /// Runs `xcrun simctl ARGS` and fails with the tool's words on a non-zero exit, unless its
    /// stderr says the device is already where we want it (`tolerated`).
    async fn simctl_ok<I, S>(
        &self,
        args: I,
        timeout: Duration,
        what: &str,
        tolerated: &str,
    ) -> Result<Output>
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        let out = self.run(self.simctl()?.args(args).timeout(timeout)).await?;
        if out.success() || (!tolerated.is_empty() && out.stderr_text().contains(tolerated)) {
            Ok(out)
        } else {
            Err(command_failed(Tool::Xcrun, what, &out))
        }
    }

    /// Boots a simulator; booting a booted one is not an error.
    pub async fn simctl_boot(&self, udid: &str) -> Result<()> {
        self.simctl_ok(
            ["boot", udid],
            BOOT_TIMEOUT,
            "simctl boot",
            "current state: Booted",
        )
        .await
        .map(drop)
    }

    /// Shuts a simulator down; shutting down a stopped one is not an error.
    pub async fn simctl_shutdown(&self, udid: &str) -> Result<()> {
        self.simctl_ok(
            ["shutdown", udid],
            BOOT_TIMEOUT,
            "simctl shutdown",
            "current state: Shutdown",
        )
        .await
        .map(drop)
    }
}

#[async_trait]
impl DeviceBackend for SimctlBackend {
    fn id(&self) -> &'static str {
        Self::ID
    }
    fn platform(&self) -> Platform {
        Platform::Ios
    }
    fn coordinate_space(&self) -> CoordinateSpace {
        CoordinateSpace::Points
    }

    async fn list_devices(&self) -> Result<Vec<Device>> {
        self.listing.list(|| self.lister()).await
    }
    fn devices_generation(&self) -> Option<u64> {
        self.listing.generation(|| self.lister())
    }
    /// `simctl boot` returns once the simulator has booted.
    async fn boot(&self, device: &Device, _wait: Option<Duration>) -> Result<()> {
        let booted = self.simctl_boot(&device.udid).await;
        self.listing.forget();
        booted
    }
    async fn shutdown(&self, device: &Device) -> Result<AfterShutdown> {
        let done = self.simctl_shutdown(&device.udid).await;
        self.listing.forget();
        done?;
        Ok(AfterShutdown::Listed)
    }

    fn check_app_id<'a>(&self, bundle_id: &'a str) -> Result<&'a str> {
        validate::ios_bundle_id(bundle_id)
    }
    fn check_app_package(&self, path: &Path, meta: &std::fs::Metadata) -> Result<()> {
        apps::check_app_folder(path, meta)
    }

    /// simctl is needed at all; AXe or idb for the UI.
    async fn readiness(&self, tools: &[ToolCheck]) -> Readiness {
        let found = |t: Tool| doctor::found(tools, t);
        match (found(Tool::Xcrun), found(Tool::Axe) || found(Tool::Idb)) {
            (true, true) => Readiness::Ready,
            (true, false) => Readiness::Degraded,
            (false, _) => Readiness::Blocked,
        }
    }

    async fn install_app(&self, device: &Device, path: &Path) -> Result<()> {
        self.install(&device.udid, path).await
    }
    async fn launch_app(&self, d: &Device, bundle_id: &str, o: &LaunchOptions) -> Result<Launched> {
        self.launch(&d.udid, bundle_id, o).await
    }
    async fn terminate_app(&self, device: &Device, bundle_id: &str) -> Result<()> {
        self.terminate(&device.udid, bundle_id).await
    }
    async fn reset_app(&self, _device: &Device, bundle_id: &str) -> Result<()> {
        Err(apps::reset_unsupported(bundle_id))
    }
    async fn reset_keychain(&self, device: &Device) -> Result<()> {
        self.keychain_reset(&device.udid).await
    }
    async fn list_apps(&self, device: &Device) -> Result<Vec<AppInfo>> {
        self.listapps(&device.udid).await
    }
    async fn open_url(&self, device: &Device, url: &str) -> Result<()> {
        self.openurl(&device.udid, url).await
    }

    async fn screenshot_png(&self, device: &Device) -> Result<Vec<u8>> {
        self.screenshot(&device.udid).await
    }
    async fn start_recording(
        &self,
        device: &Device,
        options: &crate::device::RecordingOptions,
        dest: &Path,
    ) -> Result<Box<dyn crate::device::ScreenRecorder>> {
        self.record_start(device, options, dest).await
    }
    async fn dump_ui(&self, device: &Device) -> Result<UiSource> {
        self.describe_ui(&device.udid).await
    }

    async fn tap(&self, device: &Device, at: Point) -> Result<()> {
        self.ui_tap(&device.udid, at).await
    }
    async fn long_press(&self, device: &Device, at: Point, duration_ms: u64) -> Result<()> {
        self.ui_long_press(&device.udid, at, duration_ms).await
    }
    async fn swipe(&self, d: &Device, from: Point, to: Point, duration_ms: u64) -> Result<()> {
        self.ui_swipe(&d.udid, from, to, duration_ms).await
    }
    async fn type_text(&self, device: &Device, text: &str) -> Result<TypedWith> {
        self.ui_type(&device.udid, text).await
    }
    async fn press_key(&self, device: &Device, key: KeyPress) -> Result<()> {
        self.ui_key(&device.udid, key).await
    }
    async fn hide_keyboard(&self, _device: &Device) -> Result<()> {
        Err(keys::hide_keyboard_unsupported())
    }

    async fn set_location(&self, device: &Device, latitude: f64, longitude: f64) -> Result<()> {
        self.location_set(&device.udid, latitude, longitude).await
    }
    async fn clear_location(&self, device: &Device) -> Result<()> {
        self.location_clear(&device.udid).await
    }
    async fn permission(
        &self,
        device: &Device,
        bundle_id: &str,
        permission: &str,
        action: PermissionAction,
    ) -> Result<Option<String>> {
        self.privacy(&device.udid, bundle_id, permission, action)
            .await
            .map(|()| None)
    }

    async fn get_clipboard(&self, device: &Device) -> Result<String> {
        self.pasteboard_get(&device.udid).await
    }

    async fn set_clipboard(&self, device: &Device, text: &str) -> Result<()> {
        self.pasteboard_set(&device.udid, text).await
    }

    async fn post_notification(
        &self,
        device: &Device,
        n: &crate::device::NotificationPost,
    ) -> Result<()> {
        self.push(&device.udid, n).await
    }

    async fn push_file(
        &self,
        device: &Device,
        local: &std::path::Path,
        device_path: &str,
        bundle_id: Option<&str>,
    ) -> Result<()> {
        self.container_push(&device.udid, bundle_id, local, device_path)
            .await
    }

    async fn pull_file(
        &self,
        device: &Device,
        device_path: &str,
        bundle_id: Option<&str>,
        local: &std::path::Path,
        max: u64,
    ) -> Result<u64> {
        self.container_pull(&device.udid, bundle_id, device_path, local, max)
            .await
    }

    async fn add_media(&self, device: &Device, local: &std::path::Path) -> Result<String> {
        self.addmedia(&device.udid, local).await
    }

    async fn biometric(
        &self,
        device: &Device,
        action: crate::device::BiometricAction,
        kind: crate::device::BiometricKind,
        _finger: Option<u8>,
    ) -> Result<()> {
        self.biometric_sim(&device.udid, action, kind).await
    }

    async fn erase(&self, device: &Device) -> Result<()> {
        self.erase_device(device).await
    }
    async fn status_bar(&self, device: &Device, values: Option<&StatusBarOverride>) -> Result<()> {
        self.status_bar_set(&device.udid, values).await
    }
    async fn attach_proxy(&self, device: &Device, setup: &ProxySetup) -> Result<ProxyAttached> {
        self.proxy_attach(device, setup).await
    }
    async fn detach_proxy(&self, device: &Device, a: &ProxyAttached) -> Result<ProxyDetached> {
        self.proxy_detach(device, a).await
    }
    fn crash_detection(&self) -> CrashDetection {
        CrashDetection::Reports
    }
    fn log_handle(&self) -> Option<std::sync::Arc<dyn DeviceBackend>> {
        Some(std::sync::Arc::new(self.clone()))
    }
    async fn log_clock(&self, _device: &Device) -> Result<DeviceClock> {
        Ok(logs::clock())
    }
    async fn log_processes(&self, device: &Device) -> Result<Vec<ProcessName>> {
        self.logs_processes(device).await
    }
    async fn log_read(&self, device: &Device, read: &LogRead) -> Result<LogText> {
        self.logs_read(device, read).await
    }
    async fn log_stream(&self, device: &Device, read: &LogRead) -> Result<LogStream> {
        self.logs_stream(device, read).await
    }
    async fn crash_reports(&self, device: &Device, since_ms: Option<i64>) -> Result<Vec<Crash>> {
        self.logs_crash_reports(device, since_ms).await
    }
}
