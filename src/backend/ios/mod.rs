//! The iOS Simulator backend: `xcrun simctl` for devices, apps, screenshots and system settings;
//! AXe (preferred) or idb for the UI; an app's performance read on the Mac, where its process
//! runs; a launch timed to the app's first screen in the UI tree. Taps are in points. Each concern lives in its own module; this one holds the backend
//! type, its simctl runner and its core trait ([`DeviceBackend`]: identity, listing, checks, and
//! which concerns it has).

use crate::backend::Alerts;
use crate::backend::Apps;
use crate::backend::Biometrics;
use crate::backend::Clipboard;
use crate::backend::Erase;
use crate::backend::Files;
use crate::backend::Input;
use crate::backend::Lifecycle;
use crate::backend::Location;
use crate::backend::Logs;
use crate::backend::Media;
use crate::backend::NetworkCapture;
use crate::backend::Notifications;
use crate::backend::Perf;
use crate::backend::Permissions;
use crate::backend::Recording;
use crate::backend::Screen;
use crate::backend::StatusBar;

mod apps;
mod container;
mod devices;
mod features;
mod first_screen;
mod keys;
mod launchctl;
mod listapps;
mod logs;
mod perf;
mod proxy;
mod record;
mod scale;
mod screen;
mod startup;
mod system;
mod typing;
mod ui;

pub use devices::parse_simctl_devices;
pub use keys::{hid_usage, ios_key, not_on_ios, IosKey};
pub use listapps::parse_listapps;
pub use proxy::mac_proxy_commands;
pub use scale::{pixels_to_points, points_to_pixels, screen_scale};
pub use startup::{FIRST_SCREEN_LIMIT, POLL_INTERVAL};
pub use typing::is_hid_typeable;
pub use ui::{AxeSelector, UiTool};

use std::ffi::OsString;
use std::time::Duration;

use async_trait::async_trait;

use crate::api::wire::service::{Readiness, ToolCheck};
use crate::backend::doctor;
use crate::backend::{command_failed, exec_error, tool_command, validate, DeviceBackend};
use crate::device::{Device, Platform};
use crate::error::Result;
use crate::exec::{Command, Output, Tool, Toolbox};
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
    /// How long a launch waits for the app's first screen.
    first_screen_limit: Duration,
}

impl SimctlBackend {
    /// The registry key of this backend.
    pub const ID: &'static str = "ios";

    /// A backend using the xcrun, AXe and idb of `tools`.
    pub fn new(tools: Toolbox) -> Self {
        SimctlBackend {
            tools,
            listing: Default::default(),
            first_screen_limit: FIRST_SCREEN_LIMIT,
        }
    }

    /// The same backend, waiting at most `limit` for a launched app's first screen.
    pub fn with_first_screen_limit(mut self, limit: Duration) -> Self {
        self.first_screen_limit = limit;
        self
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

    fn check_app_id<'a>(&self, bundle_id: &'a str) -> Result<&'a str> {
        validate::ios_bundle_id(bundle_id)
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

    crate::backend::traits::offers!(
        lifecycle: Lifecycle,
        apps: Apps,
        screen: Screen,
        recording: Recording,
        input: Input,
        alerts: Alerts,
        location: Location,
        permissions: Permissions,
        clipboard: Clipboard,
        files: Files,
        notifications: Notifications,
        media: Media,
        biometrics: Biometrics,
        erase: Erase,
        status_bar: StatusBar,
        network_capture: NetworkCapture,
        logs: Logs,
        perf: Perf,
    );
}
