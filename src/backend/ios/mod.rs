//! The iOS Simulator backend: `xcrun simctl` for devices and apps. (UI through AXe or idb comes
//! with the iOS UI work.)

mod devices;

pub use devices::parse_simctl_devices;

use std::time::Duration;

use crate::backend::{command_failed, exec_error, tool_command};
use crate::error::Result;
use crate::exec::{Command, Output, Tool, Toolbox};

/// Time limit of quick simctl queries.
pub const QUICK_TIMEOUT: Duration = Duration::from_secs(20);
/// Time limit of a simulator boot or shutdown.
pub const BOOT_TIMEOUT: Duration = Duration::from_secs(180);

/// Talks to iOS Simulators through `xcrun simctl`.
#[derive(Debug, Clone)]
pub struct SimctlBackend {
    tools: Toolbox,
}

impl SimctlBackend {
    pub fn new(tools: Toolbox) -> Self {
        SimctlBackend { tools }
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
    async fn simctl_ok(
        &self,
        args: &[&str],
        timeout: Duration,
        what: &str,
        tolerated: &str,
    ) -> Result<Output> {
        let out = self.run(self.simctl()?.args(args).timeout(timeout)).await?;
        if out.success() || (!tolerated.is_empty() && out.stderr_text().contains(tolerated)) {
            Ok(out)
        } else {
            Err(command_failed(Tool::Xcrun, what, &out))
        }
    }

    /// Boots a simulator; booting a booted one is not an error.
    pub async fn boot(&self, udid: &str) -> Result<()> {
        self.simctl_ok(
            &["boot", udid],
            BOOT_TIMEOUT,
            "simctl boot",
            "current state: Booted",
        )
        .await
        .map(drop)
    }

    /// Shuts a simulator down; shutting down a stopped one is not an error.
    pub async fn shutdown(&self, udid: &str) -> Result<()> {
        self.simctl_ok(
            &["shutdown", udid],
            BOOT_TIMEOUT,
            "simctl shutdown",
            "current state: Shutdown",
        )
        .await
        .map(drop)
    }
}

#[async_trait::async_trait]
impl crate::backend::DeviceBackend for SimctlBackend {
    fn platform(&self) -> crate::backend::Platform {
        crate::backend::Platform::Ios
    }
}
