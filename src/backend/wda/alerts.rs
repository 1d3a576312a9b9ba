//! Alerts through WebDriverAgent's own routes: what WDA sees (`GET /alert/text` and
//! `/wda/alert/buttons`, for a system alert the page source does not show) and the answer
//! (`POST /alert/accept` or `/alert/dismiss` with the button's name).

use async_trait::async_trait;
use reqwest::Method;
use serde_json::{json, Value};

use super::client::COMMAND_TIMEOUT;
use super::WdaBackend;
use crate::backend::Alerts;
use crate::device::{AlertChoice, Device};
use crate::error::{ErrorCode, Result};
use crate::ui::{Alert, AlertButton, Rect};

#[async_trait]
impl Alerts for WdaBackend {
    /// The alert WDA sees (`/alert/text`, then `/wda/alert/buttons`), or none.
    async fn native_alert(&self, device: &Device) -> Result<Option<Alert>> {
        let text = match self
            .session_call(device, Method::GET, "/alert/text", None, COMMAND_TIMEOUT)
            .await
        {
            Ok(answer) => answer["value"].as_str().unwrap_or_default().to_string(),
            Err(e) if e.code == ErrorCode::NoAlert => return Ok(None),
            Err(e) => return Err(e),
        };
        let buttons = self
            .session_call(
                device,
                Method::GET,
                "/wda/alert/buttons",
                None,
                COMMAND_TIMEOUT,
            )
            .await?;
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let title = lines.next().map(str::to_string);
        let message: Vec<&str> = lines.collect();
        Ok(Some(Alert {
            title,
            message: (!message.is_empty()).then(|| message.join("\n")),
            buttons: buttons["value"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|label| AlertButton {
                    label: label.to_string(),
                    r#ref: None,
                    bounds: Rect::new(0.0, 0.0, 0.0, 0.0),
                })
                .collect(),
        }))
    }

    /// `POST /alert/accept` or `/alert/dismiss` naming the button the controller picked, so
    /// the button reported is the one WDA taps.
    async fn answer_alert(
        &self,
        device: &Device,
        choice: &AlertChoice,
        button: &AlertButton,
    ) -> Result<()> {
        let path = match choice {
            AlertChoice::Dismiss => "/alert/dismiss",
            AlertChoice::Accept | AlertChoice::Button(_) => "/alert/accept",
        };
        let body = json!({ "name": button.label });
        self.session_call(device, Method::POST, path, Some(&body), COMMAND_TIMEOUT)
            .await
            .map(drop)
    }
}
