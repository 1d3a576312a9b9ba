//! System settings of a simulator through simctl: `location set LAT,LON` / `clear`,
//! `privacy grant|revoke|reset SERVICE BUNDLE`, `status_bar override …` / `clear`, and `erase`
//! (which needs a shut-down simulator: a booted one is shut down, erased and booted again).

use super::{SimctlBackend, BOOT_TIMEOUT, QUICK_TIMEOUT};
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

impl SimctlBackend {
    pub(super) async fn location_set(&self, udid: &str, lat: f64, lon: f64) -> Result<()> {
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

    pub(super) async fn location_clear(&self, udid: &str) -> Result<()> {
        self.simctl_ok(
            ["location", udid, "clear"],
            QUICK_TIMEOUT,
            "simctl location clear",
            "",
        )
        .await
        .map(drop)
    }

    /// `simctl privacy UDID grant|revoke|reset SERVICE BUNDLE` (services: `all`, `calendar`,
    /// `contacts`, `location`, `location-always`, `photos`, `photos-add`, `media-library`,
    /// `microphone`, `motion`, `reminders`, `siri`… as simctl lists them).
    pub(super) async fn privacy(
        &self,
        udid: &str,
        bundle_id: &str,
        service: &str,
        action: PermissionAction,
    ) -> Result<()> {
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
        .map(drop)
    }

    pub(super) async fn status_bar_set(
        &self,
        udid: &str,
        values: Option<&StatusBarOverride>,
    ) -> Result<()> {
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

    /// Erases content and settings. simctl only erases a shut-down simulator, so a booted one
    /// is shut down first and booted again afterwards.
    pub(super) async fn erase_device(&self, device: &Device) -> Result<()> {
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
