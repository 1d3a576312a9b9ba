//! Simulator housekeeping: erase and status-bar override. iOS Simulators only; other devices
//! answer `501` from their backend. Values are validated here, before any command.

use super::reach::Reach;
use super::DeviceController;
use crate::backend::concern;
use crate::device::{Device, StatusBarOverride};
use serde_json::json;

use crate::error::{Error, Op, Result, Step};

fn check_text(field: &str, value: &Option<String>, extra: &[char]) -> Result<()> {
    let Some(v) = value else { return Ok(()) };
    let ok = !v.is_empty()
        && v.len() <= 40
        && !v.starts_with('-')
        && v.chars()
            .all(|c| c.is_alphanumeric() || c == ' ' || extra.contains(&c));
    if ok {
        Ok(())
    } else {
        Err(Error::validation(format!("`{v}` is not a valid {field}")))
    }
}

/// Checks status bar values: ranges, and texts that simctl takes as plain values.
pub fn check_status_bar(v: &StatusBarOverride) -> Result<()> {
    let over = |n: Option<u8>, max: u8| n.is_some_and(|n| n > max);
    if over(v.battery_level, 100) || over(v.wifi_bars, 3) || over(v.cellular_bars, 4) {
        return Err(Error::validation(
            "battery_level is 0–100, wifi_bars 0–3 and cellular_bars 0–4",
        ));
    }
    check_text("time", &v.time, &[':', '-', '+', '.'])
        .map_err(|e| e.with_hint("e.g. \"9:41\" or \"2007-01-09T09:41:00+01:00\""))?;
    check_text("operator name", &v.operator_name, &['-', '.', '&', '\''])?;
    if *v == StatusBarOverride::default() {
        return Err(
            Error::validation("give at least one status bar value, or `clear: true`").with_next(
                "e.g. {0}",
                [Step::example_of(
                    Op::StatusBar,
                    json!({"time": "9:41", "battery_level": 100, "battery_state": "charged"}),
                )],
            ),
        );
    }
    Ok(())
}

impl DeviceController {
    /// Erases a simulator's content and settings (a booted one is rebooted).
    pub async fn erase(&self, udid: Option<&str>) -> Result<Device> {
        let on = self.reach(udid, Reach::Change).await?;
        on.cap(concern::Erase)?.erase(&on.device).await?;
        let device = on.into_device();
        Ok(self.find(&device.udid).await.unwrap_or(device))
    }

    /// Overrides (`Some`) or clears (`None`) the status bar.
    pub async fn status_bar(
        &self,
        udid: Option<&str>,
        values: Option<&StatusBarOverride>,
    ) -> Result<Device> {
        if let Some(v) = values {
            check_status_bar(v)?;
        }
        let on = self.reach(udid, Reach::Act).await?;
        on.cap(concern::StatusBar)?
            .status_bar(&on.device, values)
            .await?;
        Ok(on.into_device())
    }
}
