//! Answering alerts: the snapshot's alert (title, message, buttons) is accepted, dismissed or
//! answered with a named button. The controller picks the button; the device's backend answers
//! with it (by default a tap on it; a backend with its own alert commands uses those). When the
//! tree shows no alert, a backend that can see alerts itself (WebDriverAgent) is asked.

use serde_json::json;

use super::DeviceController;
use crate::api::wire::act::{ActionResult, ActionTarget};
use crate::backend::concern;
use crate::device::AlertChoice;
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::ui::AlertButton;

const ACCEPT: &[&str] = &[
    "allow",
    "ok",
    "accept",
    "yes",
    "continue",
    "while using the app",
    "allow while using app",
    "allow once",
    "only this time",
    "always allow",
    "open",
    "agree",
    "confirm",
    "got it",
    "done",
];
const DISMISS: &[&str] = &[
    "don't allow",
    "dont allow",
    "deny",
    "cancel",
    "no",
    "not now",
    "close",
    "later",
    "dismiss",
    "no thanks",
    "skip",
    "ask app not to track",
    "decline",
];

fn norm(label: &str) -> String {
    label
        .trim()
        .to_lowercase()
        .replace(['\u{2019}', '\u{2018}', '`'], "'")
}

/// Picks the button that answers `choice`: a known word first, then by position (accept is
/// the last button on iOS alerts and the first on Android permission dialogs, so position is
/// only a fallback for two-button alerts: the one that is not the dismiss word).
pub fn pick_button<'a>(
    buttons: &'a [AlertButton],
    choice: &AlertChoice,
) -> Option<&'a AlertButton> {
    let labelled = |words: &[&str]| {
        words
            .iter()
            .find_map(|w| buttons.iter().find(|b| norm(&b.label) == *w))
    };
    match choice {
        AlertChoice::Button(label) => buttons.iter().find(|b| norm(&b.label) == norm(label)),
        AlertChoice::Accept => labelled(ACCEPT).or_else(|| {
            let dismiss = labelled(DISMISS)?;
            buttons.iter().find(|b| b.label != dismiss.label)
        }),
        AlertChoice::Dismiss => labelled(DISMISS).or_else(|| {
            let accept = labelled(ACCEPT)?;
            buttons.iter().find(|b| b.label != accept.label)
        }),
    }
}

impl DeviceController {
    /// Taps a button of the alert on screen: the accepting one, the dismissing one, or one
    /// named.
    pub async fn answer_alert(
        &self,
        udid: Option<&str>,
        choice: AlertChoice,
    ) -> Result<ActionResult> {
        let kind = match choice {
            AlertChoice::Accept => "alert_accept",
            AlertChoice::Dismiss => "alert_dismiss",
            AlertChoice::Button(_) => "alert_button",
        };
        let mut action = self.begin(udid, kind).await?;
        let snapshot = self
            .fresh_or_dump_locked(&action.device, &action.session)
            .await?;
        let alerts = self.cap(&action.device, concern::Alerts)?;
        // The tree shows app and system alerts alike; a device that can say so itself is
        // asked when it shows none.
        let (alert, native) = match snapshot.screen.alert.clone() {
            Some(a) => (a, false),
            None => match alerts.native_alert(&action.device).await? {
                Some(a) => (a, true),
                None => {
                    return Err(
                        Error::new(ErrorCode::NoAlert, "no alert is on screen").with_next(
                            "read the screen with {0}; the alert may have closed already",
                            [Step::call(Op::Snapshot)],
                        ),
                    )
                }
            },
        };
        let Some(button) = pick_button(&alert.buttons, &choice).cloned() else {
            let labels: Vec<&str> = alert.buttons.iter().map(|b| b.label.as_str()).collect();
            return Err(Error::new(
                ErrorCode::ElementNotFound,
                match &choice {
                    AlertChoice::Button(label) => format!("the alert has no button {label:?}"),
                    AlertChoice::Accept => "no button of the alert accepts it".to_string(),
                    AlertChoice::Dismiss => "no button of the alert dismisses it".to_string(),
                },
            )
            .with_next(
                "name the button: {0}",
                [Step::call_with(Op::AlertAccept, json!({"button": "…"}))],
            )
            .with_details(json!({ "buttons": labels, "alert": alert })));
        };
        let (x, y) = button.bounds.center();
        if action.fingerprint_before.is_none() {
            action.fingerprint_before = Some(snapshot.screen.fingerprint.clone());
        }
        alerts
            .answer_alert(&action.device, &choice, &button)
            .await?;
        action.session.touch();
        let target = ActionTarget {
            r#ref: button.r#ref.clone(),
            name: Some(button.label.clone()),
            x: (!native).then_some(x.round()),
            y: (!native).then_some(y.round()),
        };
        let details = json!({ "alert": alert, "button": button.label });
        self.finish(action, Some(target), Some(details)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::Rect;

    fn buttons(labels: &[&str]) -> Vec<AlertButton> {
        labels
            .iter()
            .map(|l| AlertButton {
                label: l.to_string(),
                r#ref: None,
                bounds: Rect::new(0.0, 0.0, 10.0, 10.0),
            })
            .collect()
    }

    #[test]
    fn android_permission_dialog() {
        let b = buttons(&["Allow", "Don’t allow"]);
        assert_eq!(
            pick_button(&b, &AlertChoice::Accept).unwrap().label,
            "Allow"
        );
        assert_eq!(
            pick_button(&b, &AlertChoice::Dismiss).unwrap().label,
            "Don’t allow"
        );
    }

    #[test]
    fn ios_alert_with_unknown_accept_word() {
        let b = buttons(&["Cancel", "Delete"]);
        assert_eq!(
            pick_button(&b, &AlertChoice::Accept).unwrap().label,
            "Delete"
        );
        assert_eq!(
            pick_button(&b, &AlertChoice::Dismiss).unwrap().label,
            "Cancel"
        );
        assert_eq!(
            pick_button(&b, &AlertChoice::Button("delete".into()))
                .unwrap()
                .label,
            "Delete"
        );
        assert!(pick_button(&b, &AlertChoice::Button("Nope".into())).is_none());
    }
}
