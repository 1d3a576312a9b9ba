//! The Android backend: everything mobilectl does to a phone goes through the `adb` client
//! (which talks to the adb server, which talks to the device). One adb round trip per operation
//! where possible. Taps are in pixels; emulators boot from AVDs (`emulator`) and stop with
//! `adb emu kill`; devices reached over TCP are connected on an explicit request, and
//! reconnected when the adb server forgot one it listed before (see `connect`).

mod act;
mod apps;
pub mod connect;
mod devices;
mod emulator;
mod features;
mod files;
pub mod input;
mod logs;
mod proxy;
pub mod record;
pub mod screen;
pub mod shell;
mod track;

pub use devices::parse_devices_l;

use std::time::Duration;

use async_trait::async_trait;

use super::doctor;
use super::{exec_error, tool_command, validate, DeviceBackend};
use super::{
    Alerts, Apps, Biometrics, Clipboard, Connect, Files, Input, Intents, Lifecycle, Location, Logs,
    Media, NetworkCapture, NotificationShade, Notifications, Permissions, Recording, Screen,
    ScreenOrientation,
};
use crate::api::wire::service::{Readiness, ToolCheck};
use crate::device::{Device, LaunchOptions, Platform};
use crate::error::{Error, ErrorCode, Result};
use crate::exec::{Command, Tool, Toolbox};
use crate::ui::CoordinateSpace;

/// Time limit of quick adb queries (listing, getprop).
pub const QUICK_TIMEOUT: Duration = Duration::from_secs(10);

/// Talks to Android devices through one adb client binary and one adb server.
#[derive(Debug, Clone)]
pub struct AdbBackend {
    tools: Toolbox,
    /// The adb server's port (`adb -P`); `None` means adb's default (5037 or
    /// `ANDROID_ADB_SERVER_PORT`).
    server_port: Option<u16>,
    /// Upper bound of every adb command's time limit (tests, impatient setups).
    max_command_time: Option<Duration>,
    /// Properties of the devices listed online, read once when a device (re)appears.
    props: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, devices::Props>>>,
    /// The adb server's device list, followed live once a listing started the server.
    tracker: track::DeviceTracker,
    /// Log buffers each device has, once one was found missing (see `logs`).
    log_buffers:
        std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<&'static str>>>>,
    /// Network serials the adb server listed in this server's life: the only ones reconnected.
    seen: std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    /// Where `adb connect` may go (loopback, and what `--adb-connect-allow` adds).
    connect_policy: connect::ConnectPolicy,
    /// Length of one `screenrecord` file of a recording (see [`record`]).
    record_segment: Duration,
}

impl AdbBackend {
    /// The registry key of this backend.
    pub const ID: &'static str = "android";

    /// A backend using the adb of `tools`, talking to the adb server on `server_port` (none:
    /// adb's default), every command's time limit capped at `max_command_time` when given.
    pub fn new(
        tools: Toolbox,
        server_port: Option<u16>,
        max_command_time: Option<Duration>,
    ) -> Self {
        AdbBackend {
            tools,
            server_port,
            max_command_time,
            props: Default::default(),
            tracker: Default::default(),
            log_buffers: Default::default(),
            seen: Default::default(),
            connect_policy: Default::default(),
            record_segment: record::SEGMENT_LIMIT,
        }
    }

    /// The same backend, recording the screen in files of `segment` (tests: shorter than
    /// the 180 s most devices allow, to exercise chaining).
    pub fn with_record_segment(mut self, segment: Duration) -> Self {
        self.record_segment = segment;
        self
    }

    /// The same backend, letting `adb connect` reach the blocks of `policy` besides loopback.
    pub fn with_connect_policy(mut self, policy: connect::ConnectPolicy) -> Self {
        self.connect_policy = policy;
        self
    }

    /// The external tools this backend runs (adb among them).
    pub fn tools(&self) -> &Toolbox {
        &self.tools
    }

    /// An `adb` command addressed to our adb server (no device chosen yet).
    pub fn adb(&self) -> Result<Command> {
        let cmd = tool_command(&self.tools, Tool::Adb)?;
        Ok(match self.server_port {
            Some(port) => cmd.args(["-P".to_string(), port.to_string()]),
            None => cmd,
        })
    }

    /// An `adb -s SERIAL` command.
    pub fn adb_for(&self, serial: &str) -> Result<Command> {
        Ok(self.adb()?.args(["-s", serial]))
    }

    /// Runs a prepared adb command.
    pub async fn run(&self, cmd: Command) -> Result<crate::exec::Output> {
        cmd.cap_timeout(self.max_command_time)
            .run()
            .await
            .map_err(|e| exec_error(Tool::Adb, e))
    }
}

#[async_trait]
impl DeviceBackend for AdbBackend {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn platform(&self) -> Platform {
        Platform::Android
    }

    fn coordinate_space(&self) -> CoordinateSpace {
        CoordinateSpace::Pixels
    }

    /// Changes whenever adb's device list does, while the adb server's device stream is
    /// followed (see `track`).
    fn devices_generation(&self) -> Option<u64> {
        self.tracker.generation()
    }

    async fn list_devices(&self) -> Result<Vec<Device>> {
        self.devices().await
    }

    fn check_launch(&self, opts: &LaunchOptions) -> Result<()> {
        if !opts.arguments.is_empty() {
            return Err(Error::validation(
                "`arguments` are iOS launch arguments; an Android app takes named `extras` (intent extras)",
            )
            .with_hint(r#"send {"extras": {"user": "ada", "onboarded": true}}"#));
        }
        match &opts.activity {
            Some(activity) => validate::android_activity(activity).map(drop),
            None => Ok(()),
        }
    }

    fn check_app_id<'a>(&self, bundle_id: &'a str) -> Result<&'a str> {
        validate::android_package(bundle_id)
    }

    async fn readiness(&self, tools: &[ToolCheck]) -> Readiness {
        if doctor::found(tools, Tool::Adb) {
            Readiness::Ready
        } else {
            Readiness::Blocked
        }
    }

    fn connect(&self) -> Option<&dyn Connect> {
        Some(self)
    }
    fn lifecycle(&self) -> Option<&dyn Lifecycle> {
        Some(self)
    }
    fn apps(&self) -> Option<&dyn Apps> {
        Some(self)
    }
    fn screen(&self) -> Option<&dyn Screen> {
        Some(self)
    }
    fn recording(&self) -> Option<&dyn Recording> {
        Some(self)
    }
    fn input(&self) -> Option<&dyn Input> {
        Some(self)
    }
    fn alerts(&self) -> Option<&dyn Alerts> {
        Some(self)
    }
    fn location(&self) -> Option<&dyn Location> {
        Some(self)
    }
    fn permissions(&self) -> Option<&dyn Permissions> {
        Some(self)
    }
    fn clipboard(&self) -> Option<&dyn Clipboard> {
        Some(self)
    }
    fn orientation(&self) -> Option<&dyn ScreenOrientation> {
        Some(self)
    }
    fn files(&self) -> Option<&dyn Files> {
        Some(self)
    }
    fn notifications(&self) -> Option<&dyn Notifications> {
        Some(self)
    }
    fn notification_shade(&self) -> Option<&dyn NotificationShade> {
        Some(self)
    }
    fn media(&self) -> Option<&dyn Media> {
        Some(self)
    }
    fn biometrics(&self) -> Option<&dyn Biometrics> {
        Some(self)
    }
    fn intents(&self) -> Option<&dyn Intents> {
        Some(self)
    }
    fn network_capture(&self) -> Option<&dyn NetworkCapture> {
        Some(self)
    }
    fn logs(&self) -> Option<&dyn Logs> {
        Some(self)
    }
}

impl AdbBackend {
    /// Runs an input script; returns its output (`input` prints nothing on success).
    async fn input(&self, device: &Device, script: &str) -> Result<String> {
        let out = self
            .shell(&device.udid, script, input_time_limit(script))
            .await?;
        let text = out.stdout_text() + &out.stderr_text();
        check_input_output(&text)?;
        Ok(text)
    }
}

/// How long an input script may take: each `input`/`am` starts a JVM on the device (a few
/// hundred ms), so long typing scripts get time in proportion.
fn input_time_limit(script: &str) -> std::time::Duration {
    let programs = script.matches("input ").count() + script.matches("am broadcast").count();
    QUICK_TIMEOUT + std::time::Duration::from_millis(700) * programs as u32
}

/// `input` prints nothing on success; an `Error` or a Java exception means it failed.
fn check_input_output(text: &str) -> Result<()> {
    if text.contains("Error") || text.contains("Exception") {
        return Err(Error::new(
            ErrorCode::CommandFailed,
            format!("input failed: {}", text.trim()),
        )
        .with_details(serde_json::json!({ "output": text })));
    }
    Ok(())
}
