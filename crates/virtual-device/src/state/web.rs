//! What the device state knows of the WebView in front (the screen's `web` in `app.json`):
//! whether a screen with one is in front, whose it is (the app's WebView, or Chrome's web
//! contents in a Custom Tab: the screen's `devtools`), and where it is. The Chromium behind it,
//! and what reaches its page, belong to the crate's `web`.

use super::DeviceState;
use crate::app::Devtools;
use crate::uixml::{Hierarchy, Node, Rect};

/// The WebView in front as the device sees it at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebView {
    /// The process it belongs to (what `pidof` prints): the app's, or Chrome's for a tab.
    pub pid: u32,
    /// The abstract socket its DevTools listen on: `webview_devtools_remote_<pid>`, or
    /// `chrome_devtools_remote` for a tab.
    pub socket: String,
    /// The WebView's `resource-id` (empty for Chrome's web contents).
    pub id: String,
    /// How many screens had been shown (see [`DeviceState::shows`]).
    pub shows: u64,
}

/// Whether `n` is the WebView whose `resource-id` is `id` (a WebView without one is the node
/// of class `android.webkit.WebView` without one).
pub fn is_web_view(n: &Node, id: &str) -> bool {
    n.get("resource-id") == id && (!id.is_empty() || n.get("class") == "android.webkit.WebView")
}

/// The bounds of the WebView whose `resource-id` is `id`.
fn bounds_of(h: &Hierarchy, id: &str) -> Option<Rect> {
    h.walk()
        .into_iter()
        .find(|(_, n)| is_web_view(n, id))
        .map(|(_, n)| n.bounds())
        .filter(|b| !b.is_empty())
}

impl DeviceState {
    /// The app's process while it runs.
    pub fn app_pid(&self) -> Option<u32> {
        self.running.then_some(self.process.pid)
    }

    /// The WebView of the screen in front, when the app's screen in front has one (the shade
    /// closed, the app running and in front; for a Custom Tab, Chrome's process running).
    pub fn web_view(&self) -> Option<WebView> {
        if !self.running || !self.foreground || self.shade_open {
            return None;
        }
        let spec = self.spec()?;
        let id = spec.web.clone()?;
        let (pid, socket) = match spec.devtools {
            Devtools::Webview => (self.process.pid, crate::web::socket_name(self.process.pid)),
            Devtools::Chrome => (self.tab_pid()?, crate::web::CHROME_SOCKET.to_string()),
        };
        Some(WebView {
            pid,
            socket,
            id,
            shows: self.shows,
        })
    }

    /// Whether the process `pid` runs (the app's, or another app's).
    pub fn process_alive(&self, pid: u32) -> bool {
        (self.running && self.process.pid == pid) || self.others.contains_key(&pid)
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
        assert_eq!(Some(view.pid), s.app_pid());
        assert_eq!(view.socket, format!("webview_devtools_remote_{}", view.pid));
        assert!(view.shows > before);
        let b = s.web_view_bounds().unwrap();
        assert_eq!((b.x1, b.y1, b.x2, b.y2), (0, 252, 1080, 2400));
        s.key("HOME");
        assert_eq!(s.web_view(), None);
        s.force_stop();
        assert_eq!(s.app_pid(), None);
    }
}

#[cfg(test)]
mod tab_tests {
    use super::*;
    use crate::app::App;

    #[test]
    fn the_demo_custom_tab_is_chromes_with_its_process_and_socket() {
        let mut s = DeviceState::new(App::demo().unwrap());
        assert_eq!(s.tab_pid(), None);
        assert!(s.show_screen("tab"));
        assert_eq!(
            s.focused_component(),
            "com.android.chrome/org.chromium.chrome.browser.customtabs.CustomTabActivity"
        );
        let chrome = s.tab_pid().unwrap();
        assert_ne!(Some(chrome), s.app_pid());
        assert!(s
            .processes()
            .contains(&(chrome, "com.android.chrome".to_string())));
        let view = s.web_view().unwrap();
        assert_eq!(
            (view.pid, view.socket.as_str()),
            (chrome, "chrome_devtools_remote")
        );
        assert_eq!(view.id, "");
        let b = s.web_view_bounds().unwrap();
        assert_eq!((b.x1, b.y1, b.x2, b.y2), (0, 231, 1080, 2400));
        // HOME keeps the tab (and Chrome) where they are; BACK closes it.
        s.key("HOME");
        assert_eq!(s.tab_pid(), Some(chrome));
        s.launch(None);
        s.key("BACK");
        assert_eq!(s.screen, "login");
        assert_eq!(s.tab_pid(), None);
        assert!(!s.process_alive(chrome));
        assert_eq!(s.web_view(), None);
        // The close button closes it too; force-stopping the app ends Chrome's process.
        assert!(s.show_screen("tab"));
        let h = s.current();
        let (_, close) = h
            .walk()
            .into_iter()
            .find(|(_, n)| n.get("content-desc") == "Close tab")
            .unwrap();
        let c = close.bounds();
        s.tap((c.x1 + c.x2) / 2, (c.y1 + c.y2) / 2, false);
        assert_eq!(s.screen, "login");
        assert_eq!(s.tab_pid(), None);
        assert!(s.show_screen("tab"));
        assert!(s.tab_pid().is_some());
        s.force_stop();
        assert_eq!(s.tab_pid(), None);
    }
}
