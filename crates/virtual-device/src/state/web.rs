//! What the device state knows of the app's WebView (the screen's `web` in `app.json`): whether
//! a screen with one is in front, and where the WebView is. The Chromium behind it, and what
//! reaches its page, belong to the crate's `web`.

use super::DeviceState;
use crate::uixml::{Hierarchy, Rect};

/// The app's WebView as the device sees it at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebView {
    /// The app's process (what `pidof` prints).
    pub app_pid: u32,
    /// The WebView's `resource-id`.
    pub id: String,
    /// How many screens had been shown (see [`DeviceState::shows`]).
    pub shows: u64,
}

/// The bounds of the node whose `resource-id` is `id`.
fn bounds_of(h: &Hierarchy, id: &str) -> Option<Rect> {
    h.walk()
        .into_iter()
        .find(|(_, n)| n.get("resource-id") == id)
        .map(|(_, n)| n.bounds())
        .filter(|b| !b.is_empty())
}

impl DeviceState {
    /// The app's process while it runs.
    pub fn app_pid(&self) -> Option<u32> {
        self.running.then_some(self.process.pid)
    }

    /// The WebView of the screen in front, when the app's screen in front has one (the shade
    /// closed, the app running and in front).
    pub fn web_view(&self) -> Option<WebView> {
        if !self.running || !self.foreground || self.shade_open {
            return None;
        }
        let id = self.spec()?.web.clone()?;
        Some(WebView {
            app_pid: self.process.pid,
            id,
            shows: self.shows,
        })
    }

    /// Where the WebView in front is, upright (the coordinates taps are mapped to).
    pub fn web_view_bounds(&self) -> Option<Rect> {
        let view = self.web_view()?;
        bounds_of(&self.portrait(), &view.id)
    }

    /// Where the WebView in front is on the screen as shown (rotated), for screenshots.
    pub fn web_view_shown_bounds(&self) -> Option<Rect> {
        let view = self.web_view()?;
        bounds_of(&self.current(), &view.id)
    }

    /// A point on the shown screen in the upright layout (what taps are mapped through).
    pub fn upright(&self, x: i32, y: i32) -> (i32, i32) {
        self.to_portrait(x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::App;

    #[test]
    fn the_demo_help_screen_has_its_webview_in_front() {
        let mut s = DeviceState::new(App::demo().unwrap());
        assert_eq!(s.web_view(), None);
        let before = s.shows;
        assert!(s.show_screen("web"));
        let view = s.web_view().unwrap();
        assert_eq!(view.id, "com.mobilectl.demo:id/help_web");
        assert_eq!(Some(view.app_pid), s.app_pid());
        assert!(view.shows > before);
        let b = s.web_view_bounds().unwrap();
        assert_eq!((b.x1, b.y1, b.x2, b.y2), (0, 252, 1080, 2400));
        s.key("HOME");
        assert_eq!(s.web_view(), None);
        s.force_stop();
        assert_eq!(s.app_pid(), None);
    }
}
