//! Notifications: posting one (checked first: text, the APNs payload's shape and its 4 KB
//! limit), and reading those on screen — the shade opened, the screen read, the rows taken
//! from the tree (`android:id/status_bar_latest_event_content` rows holding `android:id/title`,
//! `android:id/text`, `android:id/app_name_text`, as Android's shade lays them out), the shade
//! closed again whatever the read gave.

use super::reach::Reach;
use super::DeviceController;
use crate::backend::concern;
use crate::device::{check_notification, Device, ShownNotification};
use crate::error::Result;
use crate::ui::Element;

/// The notifications of a shade's elements, in screen order.
pub fn notifications_in(elements: &[Element]) -> Vec<ShownNotification> {
    const ROW: &str = "android:id/status_bar_latest_event_content";
    let row_of = |mut i: usize| -> Option<usize> {
        loop {
            let parent = elements.get(i)?.parent?;
            if elements.get(parent)?.id.as_deref() == Some(ROW) {
                return Some(parent);
            }
            i = parent;
        }
    };
    let mut rows: Vec<(usize, ShownNotification)> = Vec::new();
    for (i, e) in elements.iter().enumerate() {
        if e.id.as_deref() == Some(ROW) {
            rows.push((
                i,
                ShownNotification {
                    app: None,
                    title: None,
                    text: None,
                },
            ));
            continue;
        }
        let field = match e.id.as_deref() {
            Some("android:id/title") => 0,
            Some("android:id/text") => 1,
            Some("android:id/app_name_text") => 2,
            _ => continue,
        };
        let Some(row) = row_of(i) else { continue };
        let Some((_, n)) = rows.iter_mut().find(|(r, _)| *r == row) else {
            continue;
        };
        let text = e.text.clone().filter(|t| !t.is_empty());
        match field {
            0 => n.title = text,
            1 => n.text = text,
            _ => n.app = text,
        }
    }
    rows.into_iter().map(|(_, n)| n).collect()
}

impl DeviceController {
    /// Posts a notification.
    pub async fn post_notification(
        &self,
        udid: Option<&str>,
        bundle_id: Option<&str>,
        title: Option<&str>,
        body: Option<&str>,
        payload: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> Result<Device> {
        let post = check_notification(bundle_id, title, body, payload)?;
        let on = self.reach_held(udid, Reach::Act).await?;
        on.cap(concern::Notifications)?
            .post_notification(&on.device, &post)
            .await?;
        on.slot.touch();
        Ok(on.into_device())
    }

    /// The notifications on screen: the shade opened, read, and closed.
    pub async fn notifications(
        &self,
        udid: Option<&str>,
    ) -> Result<(Device, Vec<ShownNotification>)> {
        let on = self.reach_held(udid, Reach::Act).await?;
        let shade = on.cap(concern::NotificationShade)?;
        shade.notification_shade(&on.device, true).await?;
        on.slot.touch();
        let read = self.dump_locked(&on.device, &on.slot).await;
        let closed = shade.notification_shade(&on.device, false).await;
        on.slot.touch();
        let snapshot = read?;
        closed?;
        Ok((
            on.into_device(),
            notifications_in(&snapshot.screen.elements),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::{parse, DumpKind};

    #[test]
    fn rows_of_a_recorded_shade() {
        let xml = include_str!(
            "../../fixtures/android_uiautomator/notification_shade_spanish_systemui.xml"
        );
        let tree = parse(DumpKind::Uiautomator, xml).unwrap();
        let screen = crate::ui::analyze_owned(tree, None, &Default::default());
        let shown = notifications_in(&screen.elements);
        assert!(shown.len() >= 3, "{shown:?}");
        assert_eq!(shown[0].title.as_deref(), Some("Depuración USB activada"));
        assert_eq!(shown[0].app.as_deref(), Some("Sistema Android"));
        assert!(shown[0]
            .text
            .as_deref()
            .unwrap()
            .starts_with("Presiona para desactivar"));
        assert_eq!(
            shown[1].title.as_deref(),
            Some("Se activó el modo Hora de dormir")
        );
    }
}
