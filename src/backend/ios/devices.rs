//! iOS Simulator discovery from `xcrun simctl list devices available -j`, across the JSON
//! shapes of Xcode 10 to 27 (runtime keys `com.apple.CoreSimulator.SimRuntime.iOS-17-4` or
//! `iOS 12.1`; `isAvailable` or the older `availability` string).

use async_trait::async_trait;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;

use super::{SimctlBackend, QUICK_TIMEOUT};
use crate::backend::command_failed;
use crate::backend::AfterShutdown;
use crate::backend::Lifecycle;
use crate::device::{Device, DeviceKind, DeviceState, Platform};
use crate::error::{Error, Result};
use crate::exec::Tool;

#[derive(Deserialize)]
struct SimctlList {
    #[serde(default)]
    devices: BTreeMap<String, Vec<SimDevice>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SimDevice {
    udid: String,
    name: String,
    #[serde(default)]
    state: String,
    #[serde(default)]
    is_available: Option<bool>,
    #[serde(default)]
    availability: Option<String>,
    #[serde(default)]
    device_type_identifier: Option<String>,
}

/// `com.apple.CoreSimulator.SimRuntime.iOS-17-4` → `iOS 17.4`; `iOS 12.1` stays as it is.
fn runtime_version(key: &str) -> String {
    let tail = key.rsplit('.').next().unwrap_or(key);
    if key.contains("SimRuntime.") {
        match tail.split_once('-') {
            Some((os, ver)) => format!("{os} {}", ver.replace('-', ".")),
            None => tail.to_string(),
        }
    } else {
        key.to_string()
    }
}

fn state(s: &str) -> DeviceState {
    match s {
        "Booted" => DeviceState::Booted,
        "Shutdown" => DeviceState::Shutdown,
        "Booting" => DeviceState::Booting,
        "Shutting Down" => DeviceState::ShuttingDown,
        _ => DeviceState::Unknown,
    }
}

/// Parses simctl's device list JSON into devices (unavailable ones are left out).
pub fn parse_simctl_devices(json: &str) -> Result<Vec<Device>> {
    let list: SimctlList = serde_json::from_str(json).map_err(|e| {
        Error::new(
            crate::error::ErrorCode::CommandFailed,
            format!("could not read `simctl list` JSON: {e}"),
        )
    })?;
    let mut out = Vec::new();
    for (runtime, devices) in list.devices {
        let version = runtime_version(&runtime);
        for d in devices {
            let unavailable = d.is_available == Some(false)
                || d.availability
                    .as_deref()
                    .is_some_and(|a| a.contains("unavailable"));
            if unavailable {
                continue;
            }
            out.push(Device {
                state: state(&d.state),
                platform: Platform::Ios,
                kind: DeviceKind::Simulator,
                os_version: Some(version.clone()),
                api_level: None,
                model: d
                    .device_type_identifier
                    .map(|t| t.rsplit('.').next().unwrap_or(&t).replace('-', " ")),
                name: d.name,
                udid: d.udid,
                backend: SimctlBackend::ID,
                capabilities: Vec::new(),
            });
        }
    }
    Ok(out)
}

impl SimctlBackend {
    /// Every available simulator.
    pub async fn simulators(&self) -> Result<Vec<Device>> {
        let cmd = self
            .simctl()?
            .args(["list", "devices", "available", "-j"])
            .timeout(QUICK_TIMEOUT);
        let out = self.run(cmd).await?;
        if !out.success() {
            return Err(command_failed(Tool::Xcrun, "simctl list", &out));
        }
        parse_simctl_devices(&out.stdout_text())
    }
}

#[async_trait]
impl Lifecycle for SimctlBackend {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/fixtures/ios_simctl/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn every_recorded_device_list_parses() {
        for name in [
            "simctl_list_devices_json_default_set_xcode27_ios26.5-27_tvos_lastUsedAt.json",
            "simctl_list_devices_json_unavailable_runtime_availabilityError_xcode27.json",
            "simctl_list_devices_json_with_unavailable_xcode10.1.json",
            "simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json",
            "simctl_list_full_json_xcode10_2018.json",
        ] {
            let devices = parse_simctl_devices(&fixture(name)).unwrap();
            assert!(!devices.is_empty(), "{name}");
            for d in &devices {
                assert_eq!(d.udid.len(), 36, "{name}: {}", d.udid);
                assert_ne!(d.state, DeviceState::Unknown, "{name}: {}", d.udid);
            }
        }
    }

    #[test]
    fn versions_and_unavailable_devices() {
        let devices = parse_simctl_devices(&fixture(
            "simctl_list_devices_json_with_unavailable_xcode10.1.json",
        ))
        .unwrap();
        assert!(devices
            .iter()
            .any(|d| d.os_version.as_deref() == Some("tvOS 12.1")));
        let raw = fixture("simctl_list_devices_json_with_unavailable_xcode10.1.json");
        let listed = raw.matches("\"udid\"").count();
        let unavailable = raw.matches("(unavailable").count();
        assert!(unavailable > 0);
        assert_eq!(devices.len(), listed - unavailable);
    }

    #[test]
    fn runtime_keys() {
        assert_eq!(
            runtime_version("com.apple.CoreSimulator.SimRuntime.iOS-17-4"),
            "iOS 17.4"
        );
        assert_eq!(runtime_version("iOS 12.1"), "iOS 12.1");
    }
}
