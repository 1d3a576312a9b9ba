//! Android emulators: start an AVD through the SDK's `emulator` binary (detached), wait until
//! it reports `sys.boot_completed=1`, and stop it with `adb emu kill`.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::json;

use super::{AdbBackend, QUICK_TIMEOUT};
use crate::backend::AfterShutdown;
use crate::backend::Lifecycle;
use crate::backend::{command_failed, exec_error, tool_command};
use crate::device::Device;
use crate::device::DeviceKind;
use crate::device::DeviceState;
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::exec::Tool;

/// AVD names as the AVD manager allows them.
pub fn valid_avd_name(name: &str) -> bool {
    name.len() <= 128
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

impl AdbBackend {
    /// The AVDs the `emulator` binary knows.
    pub async fn list_avds(&self) -> Result<Vec<String>> {
        let out = tool_command(&self.tools, Tool::Emulator)?
            .arg("-list-avds")
            .timeout(QUICK_TIMEOUT)
            .run()
            .await
            .map_err(|e| exec_error(Tool::Emulator, e))?;
        if !out.success() {
            return Err(command_failed(Tool::Emulator, "emulator -list-avds", &out));
        }
        Ok(out
            .stdout_text()
            .lines()
            .map(str::trim)
            .filter(|l| valid_avd_name(l))
            .map(str::to_string)
            .collect())
    }

    /// The serial of a running emulator of this AVD, if any.
    async fn running_emulator(&self, avd: &str) -> Result<Option<String>> {
        for d in self.list_serials().await? {
            if !d.serial.starts_with("emulator-") || d.state != DeviceState::Online {
                continue;
            }
            let cmd = self
                .adb_for(&d.serial)?
                .args(["emu", "avd", "name"])
                .timeout(QUICK_TIMEOUT);
            if let Ok(out) = self.run(cmd).await {
                if out.stdout_text().lines().next().map(str::trim) == Some(avd) {
                    return Ok(Some(d.serial));
                }
            }
        }
        Ok(None)
    }

    async fn boot_completed(&self, serial: &str) -> bool {
        let Ok(cmd) = self.adb_for(serial) else {
            return false;
        };
        let cmd = cmd
            .args(["shell", "getprop sys.boot_completed"])
            .timeout(QUICK_TIMEOUT);
        matches!(self.run(cmd).await, Ok(out) if out.stdout_text().trim() == "1")
    }

    /// Stops an emulator (`adb emu kill`). Physical phones are not powered off by mobilectl.
    pub async fn kill_emulator(&self, serial: &str) -> Result<()> {
        let cmd = self
            .adb_for(serial)?
            .args(["emu", "kill"])
            .timeout(QUICK_TIMEOUT);
        let out = self.run(cmd).await?;
        if !out.success() {
            return Err(command_failed(Tool::Adb, "adb emu kill", &out));
        }
        Ok(())
    }
}

#[async_trait]
impl Lifecycle for AdbBackend {
    /// A listed Android device is running already; emulators start from their AVD.
    async fn boot(&self, _device: &Device, _wait: Option<Duration>) -> Result<()> {
        Err(
            crate::backend::unsupported("booting a listed device", "Android").with_next(
                "Android emulators are booted by AVD name: {0}",
                [Step::example_of(Op::Boot, json!({"avd": "…"}))],
            ),
        )
    }

    fn boots_images(&self) -> bool {
        true
    }

    /// Starts the AVD detached. With `wait`, returns the serial once it has booted.
    async fn boot_image(&self, avd: &str, wait: Option<Duration>) -> Result<Option<String>> {
        if !valid_avd_name(avd) {
            return Err(
                Error::validation(format!("`{avd}` is not a valid AVD name"))
                    .with_hint("AVD names use letters, digits, '.', '_' and '-'"),
            );
        }
        let avds = self.list_avds().await?;
        if !avds.iter().any(|a| a == avd) {
            return Err(
                Error::new(ErrorCode::NotFound, format!("no AVD named `{avd}`"))
                    .with_hint(
                        "create one with `avdmanager create avd`, or pick one of `available`",
                    )
                    .with_details(json!({ "available": avds })),
            );
        }
        if let Some(serial) = self.running_emulator(avd).await? {
            return Ok(Some(serial));
        }
        tool_command(&self.tools, Tool::Emulator)?
            .args(["-avd", avd, "-no-boot-anim"])
            .spawn_detached(None)
            .map_err(|e| exec_error(Tool::Emulator, e))?;
        let Some(limit) = wait else {
            return Ok(None);
        };
        let deadline = Instant::now() + limit;
        loop {
            if let Some(serial) = self.running_emulator(avd).await? {
                if self.boot_completed(&serial).await {
                    return Ok(Some(serial));
                }
            }
            if Instant::now() >= deadline {
                return Err(Error::new(
                    ErrorCode::Timeout,
                    format!(
                        "AVD `{avd}` did not finish booting within {} s",
                        limit.as_secs()
                    ),
                )
                .with_hint("the emulator is still starting; list devices again later"));
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avd_names() {
        assert!(valid_avd_name("Pixel_7_API_34"));
        assert!(valid_avd_name("tv-1080p.v2"));
        assert!(!valid_avd_name(""));
        assert!(!valid_avd_name("a b"));
        assert!(!valid_avd_name("x;reboot"));
        assert!(!valid_avd_name("-avd"[1..].repeat(200).as_str()));
    }
}
