//! Wire types of the device operations: listing, the active device, boot, shutdown, erase and
//! the simulator status bar.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

pub use crate::controller::{BootRequest, DeviceList, PowerResult, ShutdownRequest};
pub use crate::device::Device;
use crate::device::{BatteryState, DataNetwork, DeviceState, Platform};

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
    pub battery_level: Option<u8>,
    pub battery_state: Option<BatteryState>,
    /// 0–3.
    pub wifi_bars: Option<u8>,
    /// 0–4.
    pub cellular_bars: Option<u8>,
    pub data_network: Option<DataNetwork>,
    /// Carrier name.
    pub operator_name: Option<String>,
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
#[derive(Debug, Serialize, ToSchema)]
pub struct ConnectResult {
    /// The serial (udid) adb lists it under, `HOST:PORT`.
    pub connected: String,
    /// It was connected already.
    pub already: bool,
    pub device: Device,
}
