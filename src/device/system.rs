//! System settings of a device: permissions and the simulator status bar override.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Grant, revoke or reset a permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PermissionAction {
    /// Give the app the permission.
    Grant,
    /// Take the permission away.
    Revoke,
    /// Back to undecided, so that the app asks again.
    Reset,
}

/// Battery state shown in an overridden status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BatteryState {
    /// Plugged in and charging.
    Charging,
    /// Plugged in and full.
    Charged,
    /// On battery.
    Discharging,
}

impl BatteryState {
    /// The value `simctl status_bar … --batteryState` takes (also its name on the wire).
    pub fn as_str(self) -> &'static str {
        match self {
            BatteryState::Charging => "charging",
            BatteryState::Charged => "charged",
            BatteryState::Discharging => "discharging",
        }
    }
}

/// Data network shown in an overridden status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DataNetwork {
    /// No data network icon.
    Hide,
    /// The Wi-Fi icon.
    Wifi,
    /// The `3G` icon.
    #[serde(rename = "3g")]
    ThreeG,
    /// The `4G` icon.
    #[serde(rename = "4g")]
    FourG,
    /// The `LTE` icon.
    Lte,
    /// The `LTE-A` icon (LTE Advanced).
    #[serde(rename = "lte-a")]
    LteA,
    /// The `LTE+` icon.
    #[serde(rename = "lte+")]
    LtePlus,
    /// The `5G` icon.
    #[serde(rename = "5g")]
    FiveG,
    /// The `5G+` icon.
    #[serde(rename = "5g+")]
    FiveGPlus,
    /// The `5G UW` icon (ultra wideband).
    #[serde(rename = "5g-uwb")]
    FiveGUwb,
    /// The `5G UC` icon (ultra capacity).
    #[serde(rename = "5g-uc")]
    FiveGUc,
}

impl DataNetwork {
    /// The value `simctl status_bar … --dataNetwork` takes (also its name on the wire).
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

/// Status bar values for clean screenshots. Unset fields keep their current value. The wire
/// request ([`StatusBarRequest`](crate::api::wire::devices::StatusBarRequest)) carries the same
/// fields flat beside `udid` and `clear`, and [`StatusBarRequest::change`](crate::api::wire::devices::StatusBarRequest::change)
/// is the one place one becomes the other.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusBarOverride {
    /// Clock text, e.g. `"9:41"`, or an ISO 8601 date.
    pub time: Option<String>,
    /// 0–100.
    pub battery_level: Option<u8>,
    /// The battery icon's state.
    pub battery_state: Option<BatteryState>,
    /// 0–3.
    pub wifi_bars: Option<u8>,
    /// 0–4.
    pub cellular_bars: Option<u8>,
    /// The data network icon, or none (`hide`).
    pub data_network: Option<DataNetwork>,
    /// Carrier name.
    pub operator_name: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `as_str` gives simctl the same names the wire uses.
    #[test]
    fn simctl_names_are_the_wire_names() {
        let wire = |v: serde_json::Value| v.as_str().unwrap_or_default().to_string();
        for s in [
            BatteryState::Charging,
            BatteryState::Charged,
            BatteryState::Discharging,
        ] {
            assert_eq!(s.as_str(), wire(serde_json::to_value(s).unwrap()));
        }
        for n in [
            DataNetwork::Hide,
            DataNetwork::Wifi,
            DataNetwork::ThreeG,
            DataNetwork::FourG,
            DataNetwork::Lte,
            DataNetwork::LteA,
            DataNetwork::LtePlus,
            DataNetwork::FiveG,
            DataNetwork::FiveGPlus,
            DataNetwork::FiveGUwb,
            DataNetwork::FiveGUc,
        ] {
            assert_eq!(n.as_str(), wire(serde_json::to_value(n).unwrap()));
        }
    }
}
