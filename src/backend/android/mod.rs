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

use std::path::Path;
use std::time::Duration;

use async_trait::async_trait;

use super::doctor;
use super::{exec_error, tool_command, validate, AfterShutdown, DeviceBackend};
use super::{AfterAction, InputStep, TypeJob, TypedWith, UiSource};
use crate::api::wire::service::{Readiness, ToolCheck};
use crate::device::{
    AppInfo, Device, DeviceKind, Key, KeyPress, LaunchOptions, Launched, PermissionAction,
    Platform, Point, RecordingOptions, ScreenRecorder,
};
use crate::error::{Error, ErrorCode, Result};
use crate::exec::{Command, Tool, Toolbox};
use crate::logs::{CrashDetection, DeviceClock, LogRead, LogStream, LogText, ProcessName};
use crate::proxy::attach::{ProxyAttached, ProxyDetached, ProxySetup};
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

    async fn reconnect(&self, udid: &str) -> Result<bool> {
        self.reconnect_network(udid).await
    }

    async fn connect(&self, host: &str, port: u16) -> Result<Option<(String, bool)>> {
        self.connect_network(host, port).await.map(Some)
    }

    /// A listed Android device is running already; emulators start from their AVD.
    async fn boot(&self, _device: &Device, _wait: Option<Duration>) -> Result<()> {
        Err(super::unsupported("booting a listed device", self.name())
            .with_hint("Android emulators are booted by AVD name: {\"avd\": \"…\"}"))
    }

    fn boots_images(&self) -> bool {
        true
    }

    async fn boot_image(&self, avd: &str, wait: Option<Duration>) -> Result<Option<String>> {
        self.boot_avd(avd, wait).await
    }

    /// Emulators are stopped (and leave the listing); physical phones are refused.
    async fn shutdown(&self, device: &Device) -> Result<AfterShutdown> {
        if device.kind != DeviceKind::Emulator {
            return Err(Error::new(
                ErrorCode::UnsupportedOnPlatform,
                "mobilectl does not power off physical phones",
            )
            .with_hint("only emulators and simulators can be shut down"));
        }
        self.kill_emulator(&device.udid).await?;
        Ok(AfterShutdown::Gone)
    }

    fn check_app_id<'a>(&self, bundle_id: &'a str) -> Result<&'a str> {
        validate::android_package(bundle_id)
    }

    fn check_app_package(&self, path: &Path, meta: &std::fs::Metadata) -> Result<()> {
        apps::check_apk(path, meta)
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

    async fn readiness(&self, tools: &[ToolCheck]) -> Readiness {
        if doctor::found(tools, Tool::Adb) {
            Readiness::Ready
        } else {
            Readiness::Blocked
        }
    }

    async fn install_app(&self, device: &Device, path: &Path) -> Result<()> {
        self.install(device, path).await
    }

    async fn launch_app(
        &self,
        device: &Device,
        bundle_id: &str,
        opts: &LaunchOptions,
    ) -> Result<Launched> {
        self.launch(device, bundle_id, opts).await
    }

    async fn terminate_app(&self, device: &Device, bundle_id: &str) -> Result<()> {
        let script = format!("am force-stop {}", shell::quote(bundle_id));
        self.package_script(device, &script, "force-stop")
            .await
            .map(drop)
    }

    /// Android has no keychain shared by apps: an app's keystore entries go with its data
    /// (`reset_app`). Nothing to do, as Maestro does nothing for `clearKeychain` here.
    async fn reset_keychain(&self, _device: &Device) -> Result<()> {
        Ok(())
    }
    async fn reset_app(&self, device: &Device, bundle_id: &str) -> Result<()> {
        let script = format!("pm clear {}", shell::quote(bundle_id));
        let out = self.package_script(device, &script, "pm clear").await?;
        if !out.contains("Success") {
            return Err(Error::new(
                ErrorCode::CommandFailed,
                format!("pm clear: {}", out.trim()),
            ));
        }
        Ok(())
    }

    async fn list_apps(&self, device: &Device) -> Result<Vec<AppInfo>> {
        self.apps_list(device).await
    }

    async fn open_url(&self, device: &Device, url: &str) -> Result<()> {
        self.view_url(device, url).await
    }

    async fn screenshot_png(&self, device: &Device) -> Result<Vec<u8>> {
        self.screencap(device).await
    }

    async fn start_recording(
        &self,
        device: &Device,
        options: &RecordingOptions,
        dest: &Path,
    ) -> Result<Box<dyn ScreenRecorder>> {
        self.record_start(device, options, dest).await
    }
    async fn dump_ui(&self, device: &Device) -> Result<UiSource> {
        self.ui_dump(device).await
    }

    async fn tap(&self, device: &Device, at: Point) -> Result<()> {
        self.input(device, &input::tap_script(at)).await.map(drop)
    }

    async fn long_press(&self, device: &Device, at: Point, duration_ms: u64) -> Result<()> {
        self.input(device, &input::swipe_script(at, at, duration_ms))
            .await
            .map(drop)
    }

    async fn swipe(&self, device: &Device, from: Point, to: Point, duration_ms: u64) -> Result<()> {
        self.input(device, &input::swipe_script(from, to, duration_ms))
            .await
            .map(drop)
    }

    async fn type_text(&self, device: &Device, text: &str) -> Result<TypedWith> {
        let job = TypeJob {
            tap: None,
            clear_chars: None,
            text,
            submit: false,
        };
        self.type_job(device, &job).await
    }

    /// Tap, clear, type and Enter in one adb round trip; text that needs the ADB Keyboard is
    /// checked on the device before the first step.
    async fn type_job(&self, device: &Device, job: &TypeJob<'_>) -> Result<TypedWith> {
        let (script, with) = input::type_job_script(job)?;
        if self
            .input(device, &script)
            .await?
            .contains(input::NO_IME_MARKER)
        {
            return Err(input::unsupported_text(job.text));
        }
        Ok(TypedWith(with))
    }

    async fn press_key(&self, device: &Device, key: KeyPress) -> Result<()> {
        self.input(device, &input::key_script(key)?).await.map(drop)
    }

    async fn clear_field(&self, device: &Device, chars: usize) -> Result<()> {
        self.input(device, &input::clear_script(chars))
            .await
            .map(drop)
    }

    /// `uiautomator dump` waits for the UI to be idle before it reads, so no settle time is
    /// added by default.
    fn settle_time(&self) -> Duration {
        Duration::ZERO
    }

    /// The step, the settle time, the dump and the log tail as one device script: one adb
    /// round trip.
    async fn act_then_read(
        &self,
        device: &Device,
        step: &InputStep<'_>,
        settle: std::time::Duration,
        log_tail: Option<&LogRead>,
    ) -> Result<AfterAction> {
        self.act_and_dump(device, step, settle, log_tail).await
    }

    async fn hide_keyboard(&self, device: &Device) -> Result<()> {
        self.input(device, &input::key_script(KeyPress::Named(Key::Back))?)
            .await
            .map(drop)
    }

    async fn set_location(&self, device: &Device, latitude: f64, longitude: f64) -> Result<()> {
        self.geo_fix(device, Some((latitude, longitude))).await
    }

    async fn clear_location(&self, device: &Device) -> Result<()> {
        self.geo_fix(device, None).await
    }

    async fn permission(
        &self,
        device: &Device,
        bundle_id: &str,
        permission: &str,
        action: PermissionAction,
    ) -> Result<Option<String>> {
        self.change_permission(device, bundle_id, permission, action)
            .await
    }

    async fn get_clipboard(&self, device: &Device) -> Result<String> {
        self.clipboard_get(device).await
    }

    async fn set_clipboard(&self, device: &Device, text: &str) -> Result<()> {
        self.clipboard_set(device, text).await
    }

    async fn get_orientation(&self, device: &Device) -> Result<crate::device::OrientationRead> {
        self.orientation_get(device).await
    }

    async fn set_orientation(
        &self,
        device: &Device,
        to: Option<crate::device::Orientation>,
    ) -> Result<()> {
        self.orientation_set(device, to).await
    }

    async fn push_file(
        &self,
        device: &Device,
        local: &Path,
        device_path: &str,
        bundle_id: Option<&str>,
    ) -> Result<()> {
        files::no_container(bundle_id)?;
        self.file_push(device, local, device_path).await
    }

    async fn pull_file(
        &self,
        device: &Device,
        device_path: &str,
        bundle_id: Option<&str>,
        local: &Path,
        max: u64,
    ) -> Result<u64> {
        files::no_container(bundle_id)?;
        self.file_pull(device, device_path, local, max).await
    }

    async fn post_notification(
        &self,
        device: &Device,
        n: &crate::device::NotificationPost,
    ) -> Result<()> {
        self.notification_post(device, n).await
    }

    async fn notification_shade(&self, device: &Device, open: bool) -> Result<()> {
        self.shade(device, open).await
    }

    async fn add_media(&self, device: &Device, local: &Path) -> Result<String> {
        self.media_add(device, local).await
    }

    async fn biometric(
        &self,
        device: &Device,
        action: crate::device::BiometricAction,
        _kind: crate::device::BiometricKind,
        finger: Option<u8>,
    ) -> Result<()> {
        self.finger(device, action, finger).await
    }

    async fn send_intent(
        &self,
        device: &Device,
        intent: &crate::device::IntentSpec,
    ) -> Result<crate::device::IntentOutcome> {
        self.intent_send(device, intent).await
    }

    async fn read_proxy_setting(
        &self,
        device: &Device,
        setup: &ProxySetup,
    ) -> Result<Option<String>> {
        self.proxy_setting(device, setup).await
    }

    async fn attach_proxy(&self, device: &Device, setup: &ProxySetup) -> Result<ProxyAttached> {
        self.proxy_attach(device, setup).await
    }

    async fn detach_proxy(&self, device: &Device, a: &ProxyAttached) -> Result<ProxyDetached> {
        self.proxy_detach(device, a).await
    }
    fn crash_detection(&self) -> CrashDetection {
        CrashDetection::Log
    }
    fn log_handle(&self) -> Option<std::sync::Arc<dyn crate::backend::DeviceBackend>> {
        Some(std::sync::Arc::new(self.clone()))
    }
    async fn log_clock(&self, device: &Device) -> Result<DeviceClock> {
        self.logs_clock(device).await
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
