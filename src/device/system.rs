//! System settings of a device: permissions and the simulator status bar override.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Grant, revoke or reset a permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PermissionAction {
    Grant,
    Revoke,
    Reset,
}

/// Battery state shown in an overridden status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BatteryState {
    Charging,
    Charged,
    Discharging,
}

/// Data network shown in an overridden status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DataNetwork {
    Hide,
    Wifi,
    #[serde(rename = "3g")]
    ThreeG,
    #[serde(rename = "4g")]
    FourG,
    Lte,
    #[serde(rename = "lte-a")]
    LteA,
    #[serde(rename = "lte+")]
    LtePlus,
    #[serde(rename = "5g")]
    FiveG,
    #[serde(rename = "5g+")]
    FiveGPlus,
    #[serde(rename = "5g-uwb")]
    FiveGUwb,
    #[serde(rename = "5g-uc")]
    FiveGUc,
}

impl DataNetwork {
    /// The value `simctl status_bar … --dataNetwork` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            DataNetwork::Hide => "hide",
            DataNetwork::Wifi => "wifi",
            DataNetwork::ThreeG => "3g",
            DataNetwork::FourG => "4g",
            DataNetwork::Lte => "lte",
            DataNetwork::LteA => "lte-a",
            DataNetwork::LtePlus => "lte+",
            DataNetwork::FiveG => "5g",
            DataNetwork::FiveGPlus => "5g+",
            DataNetwork::FiveGUwb => "5g-uwb",
            DataNetwork::FiveGUc => "5g-uc",
        }
    }
}

/// Status bar values for clean screenshots. Unset fields keep their current value.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, ToSchema)]
pub struct StatusBarOverride {
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
