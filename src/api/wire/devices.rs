//! Wire types of the device operations: listing, the active device, boot, shutdown, erase and
//! the simulator status bar.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

pub use crate::device::Device;
use crate::device::{
    BatteryState, DataNetwork, DeviceState, Platform, PlatformStatus, StatusBarOverride,
};
use crate::error::{Error, Result};

/// Filters of the device list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only this platform.
    #[param(inline)]
    pub platform: Option<Platform>,
    /// Only devices in this state.
    #[param(inline)]
    pub state: Option<DeviceState>,
}

/// A device named in the path.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DevicePath {
    /// Its udid (Android serial, iOS UDID), or its name when only one device has it.
    pub udid: String,
}

/// The active device.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActiveDevice {
    /// The device requests go to when they name none; `null` when none is chosen.
    pub device: Option<Device>,
    /// The chosen udid (also when that device is not connected now).
    pub udid: Option<String>,
}

/// Which device to make active.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetActive {
    /// Udid (or unique name) of the device; `null` forgets the choice.
    pub udid: Option<String>,
}

/// Which simulator to erase.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EraseRequest {
    /// Simulator udid or name; default: the target device.
    pub udid: Option<String>,
}

/// Status bar values to show, or `clear: true` to restore the real ones.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusBarRequest {
    pub udid: Option<String>,
    /// Restore the real status bar instead of overriding it.
    #[serde(default)]
    pub clear: bool,
    /// Clock text, e.g. `"9:41"`, or an ISO 8601 date.
    pub time: Option<String>,
    /// 0–100.
    #[schema(minimum = 0, maximum = 100)]
    pub battery_level: Option<u8>,
    pub battery_state: Option<BatteryState>,
    /// 0–3.
    #[schema(minimum = 0, maximum = 3)]
    pub wifi_bars: Option<u8>,
    /// 0–4.
    #[schema(minimum = 0, maximum = 4)]
    pub cellular_bars: Option<u8>,
    pub data_network: Option<DataNetwork>,
    /// Carrier name.
    pub operator_name: Option<String>,
}

impl StatusBarRequest {
    /// The values to show (`Some`) or `None` for `clear: true`, with the udid: the one place
    /// the wire's flat fields become the device's [`StatusBarOverride`]. Values and `clear`
    /// together are refused.
    pub fn change(self) -> Result<(Option<String>, Option<StatusBarOverride>)> {
        let values = StatusBarOverride {
            time: self.time,
            battery_level: self.battery_level,
            battery_state: self.battery_state,
            wifi_bars: self.wifi_bars,
            cellular_bars: self.cellular_bars,
            data_network: self.data_network,
            operator_name: self.operator_name,
        };
        let values = match (self.clear, values == StatusBarOverride::default()) {
            (true, true) => None,
            (true, false) => {
                return Err(Error::validation(
                    "give status bar values or `clear: true`, not both",
                ))
            }
            (false, _) => Some(values),
        };
        Ok((self.udid, values))
    }
}

/// Which device to boot: an iOS Simulator by udid or name, or an Android emulator by AVD.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BootRequest {
    /// iOS Simulator udid or name.
    pub udid: Option<String>,
    /// Android Virtual Device name (started with the SDK's `emulator`).
    pub avd: Option<String>,
    /// Wait until the device has finished booting (default true).
    pub wait: Option<bool>,
    /// How long to wait, in milliseconds (default 180000).
    pub timeout_ms: Option<u64>,
}

/// Which device to shut down.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShutdownRequest {
    /// Device udid or name; default: the target device.
    pub udid: Option<String>,
}

/// What a boot or shutdown did.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PowerResult {
    /// The device, as listed after the operation (absent when an emulator is still starting).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<Device>,
    /// `booted`, `booting` or `shutdown`.
    pub state: DeviceState,
}

/// Per backend id (`android`, `ios`): whether it could list its devices, and why not.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(transparent)]
pub struct PlatformTools(pub BTreeMap<String, PlatformStatus>);

/// The answer of a device listing.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeviceList {
    pub devices: Vec<Device>,
    /// The active device's udid, if one is chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<String>,
    /// Per backend (`android`, `ios`): whether it could list its devices, and why not.
    pub tools: PlatformTools,
    /// Who leases which device (sessions), and until when.
    pub leases: Vec<crate::api::wire::sessions::Lease>,
}

/// A device to reach over the network (`adb connect HOST:PORT`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectRequest {
    /// The phone's IP address or hostname (`192.168.1.20`, `::1`, `pixel.local`).
    pub host: String,
    /// Its adb port, 1–65535 (wireless debugging shows it; 5555 after `adb tcpip`).
    #[schema(minimum = 1, maximum = 65535)]
    pub port: u16,
}

/// The device adb connected to, as listed.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct ConnectResult {
    /// The serial (udid) adb lists it under, `HOST:PORT`.
    pub connected: String,
    /// It was connected already.
    pub already: bool,
    pub device: Device,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(body: serde_json::Value) -> StatusBarRequest {
        serde_json::from_value(body).unwrap()
    }

    #[test]
    fn status_bar_request_becomes_an_override_or_a_clear() {
        let (udid, values) = request(serde_json::json!({
            "udid": "SIM", "time": "9:41", "battery_level": 100, "battery_state": "charged",
            "wifi_bars": 3, "cellular_bars": 4, "data_network": "5g", "operator_name": "Carrier"
        }))
        .change()
        .unwrap();
        assert_eq!(udid.as_deref(), Some("SIM"));
        assert_eq!(
            values,
            Some(StatusBarOverride {
                time: Some("9:41".into()),
                battery_level: Some(100),
                battery_state: Some(BatteryState::Charged),
                wifi_bars: Some(3),
                cellular_bars: Some(4),
                data_network: Some(DataNetwork::FiveG),
                operator_name: Some("Carrier".into()),
            })
        );
        let (_, values) = request(serde_json::json!({"clear": true}))
            .change()
            .unwrap();
        assert_eq!(values, None);
        // No values and no clear: an empty override, which the controller refuses.
        let (_, values) = request(serde_json::json!({})).change().unwrap();
        assert_eq!(values, Some(StatusBarOverride::default()));
        assert!(request(serde_json::json!({"clear": true, "time": "9:41"}))
            .change()
            .is_err());
    }
}

/// Where to take the on-device helper from.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HelperInstallRequest {
    /// Device udid; default: the target device.
    pub udid: Option<String>,
    /// The helper's files, under the server's files root (Android: the two APKs of the npm
    /// package `appium-uiautomator2-server`). Empty: found in the npm and Appium folders of
    /// the server's machine.
    #[serde(default)]
    pub apks: Vec<String>,
}

/// One package of the helper, installed.
#[derive(Debug, Serialize, ToSchema)]
pub struct HelperPackage {
    /// The package (`io.appium.uiautomator2.server`).
    pub package: String,
    /// Its version, as its manifest says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The file installed.
    pub path: String,
}

/// The helper installed on a device.
#[derive(Debug, Serialize, ToSchema)]
pub struct HelperInstalled {
    /// The device it was installed on.
    pub device: Device,
    /// What was installed.
    pub packages: Vec<HelperPackage>,
    /// Where the files came from (`given`, or the folder they were found in).
    pub source: String,
    /// The folders looked in, in order (empty when the files were given).
    pub looked_in: Vec<String>,
    /// How long installing took, in ms.
    pub install_ms: u64,
}
