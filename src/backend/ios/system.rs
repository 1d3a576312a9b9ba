//! System settings of a simulator through simctl: `location set LAT,LON` / `clear`,
//! `privacy grant|revoke|reset SERVICE BUNDLE`, `status_bar override …` / `clear`, and `erase`
//! (which needs a shut-down simulator: a booted one is shut down, erased and booted again).

use async_trait::async_trait;

use super::{SimctlBackend, BOOT_TIMEOUT, QUICK_TIMEOUT};
use crate::backend::Erase;
use crate::backend::Location;
use crate::backend::Permissions;
use crate::backend::StatusBar;
use crate::device::{Device, DeviceState, PermissionAction, StatusBarOverride};
use crate::error::Result;

/// `simctl status_bar UDID override …` arguments after `override`.
pub fn status_bar_args(v: &StatusBarOverride) -> Vec<String> {
    let mut args = Vec::new();
    let mut push = |flag: &str, value: Option<String>| {
        if let Some(value) = value {
            args.push(flag.to_string());
            args.push(value);
        }
    };
    push("--time", v.time.clone());
    push("--batteryLevel", v.battery_level.map(|n| n.to_string()));
    push(
        "--batteryState",
        v.battery_state.map(|s| s.as_str().to_string()),
    );
    push("--wifiBars", v.wifi_bars.map(|n| n.to_string()));
    push("--cellularBars", v.cellular_bars.map(|n| n.to_string()));
    push(
        "--dataNetwork",
        v.data_network.map(|n| n.as_str().to_string()),
    );
    push("--operatorName", v.operator_name.clone());
    args
}

#[async_trait]
impl Location for SimctlBackend {
    async fn set_location(&self, device: &Device, lat: f64, lon: f64) -> Result<()> {
        let udid = device.udid.as_str();
        let at = format!("{lat},{lon}");
        self.simctl_ok(
            ["location", udid, "set", &at],
            QUICK_TIMEOUT,
            "simctl location set",
            "",
        )
        .await
        .map(drop)
    }

    async fn clear_location(&self, device: &Device) -> Result<()> {
        let udid = device.udid.as_str();
        self.simctl_ok(
            ["location", udid, "clear"],
            QUICK_TIMEOUT,
            "simctl location clear",
            "",
        )
        .await
        .map(drop)
    }
}

#[async_trait]
impl Permissions for SimctlBackend {
    /// `simctl privacy UDID grant|revoke|reset SERVICE BUNDLE` (services: `all`, `calendar`,
    /// `contacts`, `location`, `location-always`, `photos`, `photos-add`, `media-library`,
    /// `microphone`, `motion`, `reminders`, `siri`… as simctl lists them).
    async fn permission(
        &self,
        device: &Device,
        bundle_id: &str,
        service: &str,
        action: PermissionAction,
    ) -> Result<Option<String>> {
        let udid = device.udid.as_str();
        let verb = match action {
            PermissionAction::Grant => "grant",
            PermissionAction::Revoke => "revoke",
            PermissionAction::Reset => "reset",
        };
        self.simctl_ok(
            ["privacy", udid, verb, service, bundle_id],
            QUICK_TIMEOUT,
            "simctl privacy",
            "",
        )
        .await
        .map(|_| None)
    }
}

#[async_trait]
impl Erase for SimctlBackend {
    /// Erases content and settings. simctl only erases a shut-down simulator, so a booted one
    /// is shut down first and booted again afterwards.
    async fn erase(&self, device: &Device) -> Result<()> {
        let was_booted = device.state == DeviceState::Booted;
        if was_booted {
            self.simctl_shutdown(&device.udid).await?;
        }
        self.simctl_ok(
            ["erase", device.udid.as_str()],
            BOOT_TIMEOUT,
            "simctl erase",
            "",
        )
        .await?;
        if was_booted {
            self.simctl_boot(&device.udid).await?;
        }
        Ok(())
    }
}

#[async_trait]
impl StatusBar for SimctlBackend {
    async fn status_bar(&self, device: &Device, values: Option<&StatusBarOverride>) -> Result<()> {
        let udid = device.udid.as_str();
        let mut args = vec!["status_bar".to_string(), udid.to_string()];
        match values {
            Some(v) => {
                args.push("override".into());
                args.extend(status_bar_args(v));
            }
            None => args.push("clear".into()),
        }
        self.simctl_ok(args, QUICK_TIMEOUT, "simctl status_bar", "")
            .await
            .map(drop)
    }
}
