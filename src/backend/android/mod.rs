//! The Android backend: everything mobilectl does to a phone goes through the `adb` client
//! (which talks to the adb server, which talks to the device). One adb round trip per operation
//! where possible. Taps are in pixels; emulators boot from AVDs (`emulator`) and stop with
//! `adb emu kill`; devices reached over TCP are connected on an explicit request, and
//! reconnected when the adb server forgot one it listed before (see `connect`).

mod act;
mod airplane;
mod apps;
pub mod connect;
mod devices;
mod emulator;
mod features;
mod files;
mod focus;
pub mod input;
mod logs;
pub mod perf;
mod proxy;
pub mod record;
pub mod resident;
pub mod screen;
pub mod shell;
mod track;
pub mod web;

pub use devices::parse_devices_l;

use std::time::Duration;

use super::{exec_error, tool_command};
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::exec::{Command, Tool, Toolbox};

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
    /// The UiAutomator2 servers of the devices, where they are used (see [`resident`]).
    residents: resident::Residents,
    /// Each device's last focused window, for reads that have none of their own.
    focus: focus::FocusCache,
    /// The web pages of the devices' WebViews, attached over DevTools (see [`web`]).
    web: std::sync::Arc<web::AttachedPages>,
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
            residents: Default::default(),
            focus: Default::default(),
            web: Default::default(),
        }
    }

    /// The same backend, using the UiAutomator2 server as `use_` says (see [`resident`]).
    pub fn with_helper(mut self, use_: resident::HelperUse) -> Self {
        self.residents = resident::Residents::new(use_);
        self
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
