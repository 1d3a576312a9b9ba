//! The Android backend: everything mobilectl does to a phone goes through the `adb` client
//! (which talks to the adb server, which talks to the device). One adb round trip per operation
//! where possible.

mod devices;
mod emulator;

pub use devices::parse_devices_l;

use std::time::Duration;

use crate::error::Result;
use crate::exec::{Command, Tool, Toolbox};

use super::{exec_error, tool_command};

/// Time limit of quick adb queries (listing, getprop).
pub const QUICK_TIMEOUT: Duration = Duration::from_secs(10);

/// Talks to Android devices through one adb client binary and one adb server.
#[derive(Debug, Clone)]
pub struct AdbBackend {
    tools: Toolbox,
    /// The adb server's port (`adb -P`); `None` means adb's default (5037 or
    /// `ANDROID_ADB_SERVER_PORT`).
    server_port: Option<u16>,
}

impl AdbBackend {
    pub fn new(tools: Toolbox, server_port: Option<u16>) -> Self {
        AdbBackend { tools, server_port }
    }

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
        cmd.run().await.map_err(|e| exec_error(Tool::Adb, e))
    }
}

#[async_trait::async_trait]
impl crate::backend::DeviceBackend for AdbBackend {
    fn platform(&self) -> crate::backend::Platform {
        crate::backend::Platform::Android
    }
}
