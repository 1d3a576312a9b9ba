//! Notifications and the shade: `cmd notification post [-t TITLE] [-S STYLE] TAG TEXT`
//! posts one as the shell (`com.android.shell`; a post with a tag already shown replaces
//! it), `cmd statusbar expand-notifications` opens the shade and `collapse` closes it. While
//! open, the screen is the shade (package `com.android.systemui`): one row per notification,
//! newest first, with the ids of a recorded shade (`notification_stack_scroller`, rows
//! `android:id/status_bar_latest_event_content` holding `android:id/title`, `android:id/text`
//! and `android:id/app_name_text`).

use super::DeviceState;
use crate::uixml::{Hierarchy, Node};

/// One posted notification.
#[derive(Debug, Clone, PartialEq)]
pub struct Posted {
    pub tag: String,
    pub title: Option<String>,
    pub text: String,
}

const SYSTEMUI: &str = "com.android.systemui";

fn node(id: &str, class: &str, text: &str, b: (i32, i32, i32, i32)) -> Node {
    let mut n = Node::default();
    for (k, v) in [
        ("index", "0"),
        ("text", text),
        ("resource-id", id),
        ("class", class),
        ("package", SYSTEMUI),
        ("content-desc", ""),
        ("checkable", "false"),
        ("checked", "false"),
        ("clickable", "false"),
        ("enabled", "true"),
        ("focusable", "false"),
        ("focused", "false"),
        ("scrollable", "false"),
        ("long-clickable", "false"),
        ("password", "false"),
        ("selected", "false"),
    ] {
        n.set(k, v);
    }
    n.set("bounds", &format!("[{},{}][{},{}]", b.0, b.1, b.2, b.3));
    n
}

impl DeviceState {
    /// Posts (or replaces, by tag) a notification.
    pub fn post_notification(&mut self, p: Posted) {
        self.notifications.retain(|n| n.tag != p.tag);
        self.log(
            'I',
            "NotificationService",
            &format!("enqueueNotification pkg=com.android.shell tag={}", p.tag),
        );
        self.notifications.push(p);
    }

    /// The shade with its notifications, newest first.
    pub(super) fn shade(&self) -> Hierarchy {
        let (w, h) = (self.app.size.0 as i32, self.app.size.1 as i32);
        let mut panel = node(
            "com.android.systemui:id/notification_panel",
            "android.widget.FrameLayout",
            "",
            (0, 0, w, h),
        );
        let mut stack = node(
            "com.android.systemui:id/notification_stack_scroller",
            "android.widget.ScrollView",
            "",
            (0, 0, w, h),
        );
        let row_h = 228;
        for (i, p) in self.notifications.iter().rev().enumerate() {
            let top = 400 + i as i32 * (row_h + 18);
            if top + row_h > h {
                break;
            }
            let mut row = node(
                "android:id/status_bar_latest_event_content",
                "android.widget.FrameLayout",
                "",
                (33, top, w - 33, top + row_h),
            );
            row.set("clickable", "true");
            row.children.push(node(
                "android:id/title",
                "android.widget.TextView",
                p.title.as_deref().unwrap_or(""),
                (176, top + 55, w / 2, top + 107),
            ));
            row.children.push(node(
                "android:id/app_name_text",
                "android.widget.TextView",
                "Shell",
                (w / 2 + 6, top + 68, w - 200, top + 104),
            ));
            row.children.push(node(
                "android:id/text",
                "android.widget.TextView",
                &p.text,
                (176, top + 116, w - 187, top + 163),
            ));
            stack.children.push(row);
        }
        panel.children.push(stack);
        Hierarchy {
            rotation: "0".into(),
            roots: vec![panel],
        }
    }
}
