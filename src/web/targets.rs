//! The pages a DevTools socket serves (`GET /json/list`), and which of them a WebView shows.
//! Android's WebView describes each page's view in the target's `description`, a JSON object
//! (`attached`, `visible`, `empty`, `screenX`, `screenY`, `width`, `height`); desktop Chromium
//! and Chrome leave it empty and list their own UI (`browser_ui`, service workers) beside the
//! pages, which are never what a screen shows.

use serde::Deserialize;

use crate::ui::model::Rect;

/// One target of `/json/list`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// The target's id (also the last segment of its WebSocket path).
    pub id: String,
    /// `page`, `iframe`, `service_worker`, `browser_ui`…
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The page's title.
    #[serde(default)]
    pub title: String,
    /// The page's URL.
    #[serde(default)]
    pub url: String,
    /// Where its WebSocket is; absent while another client holds the page (old Chromes).
    #[serde(default)]
    pub web_socket_debugger_url: Option<String>,
    /// Android WebView's JSON description of the view; empty elsewhere.
    #[serde(default)]
    pub description: String,
}

/// Where and how an Android WebView shows a page (its target's description).
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ViewPlace {
    /// The view is attached to a window.
    pub attached: bool,
    /// The view is shown.
    pub visible: bool,
    /// The view has no size.
    pub empty: bool,
    /// Its left edge on the screen, in pixels.
    pub screen_x: f64,
    /// Its top edge on the screen, in pixels.
    pub screen_y: f64,
    /// Its width, in pixels.
    pub width: f64,
    /// Its height, in pixels.
    pub height: f64,
}

impl Target {
    /// The view's place, when the description is Android WebView's.
    pub fn place(&self) -> Option<ViewPlace> {
        if !self.description.trim_start().starts_with('{') {
            return None;
        }
        serde_json::from_str(&self.description).ok()
    }

    /// The path (and query) of its WebSocket, to open on the host's end of the forward:
    /// the host and port in the URL are the device's, which mean nothing on the host.
    pub fn socket_path(&self) -> Option<String> {
        let url = self.web_socket_debugger_url.as_deref()?;
        let rest = url
            .strip_prefix("ws://")
            .or_else(|| url.strip_prefix("wss://"))?;
        let slash = rest.find('/')?;
        Some(rest[slash..].to_string())
    }
}

/// The targets in a `/json/list` answer.
pub fn parse(body: &str) -> Result<Vec<Target>, String> {
    serde_json::from_str(body).map_err(|e| format!("`/json/list` is not a target list: {e}"))
}

/// The page a WebView at `host` shows: among the pages with a WebSocket, one whose view is
/// attached, visible, not empty and placed at `host` (within 2 px), else the first visible
/// one, else (no descriptions: Chrome, desktop Chromium) the first page.
pub fn pick(targets: &[Target], host: Rect) -> Option<&Target> {
    let pages: Vec<&Target> = targets
        .iter()
        .filter(|t| t.kind == "page" && t.socket_path().is_some())
        .collect();
    let shown = |t: &&&Target| {
        t.place()
            .is_some_and(|p| p.attached && p.visible && !p.empty)
    };
    let at_host = |t: &&&Target| {
        t.place().is_some_and(|p| {
            (p.screen_x - host.x).abs() <= 2.0
                && (p.screen_y - host.y).abs() <= 2.0
                && (p.width - host.w).abs() <= 2.0
                && (p.height - host.h).abs() <= 2.0
        })
    };
    pages
        .iter()
        .filter(shown)
        .find(at_host)
        .or_else(|| pages.iter().find(shown))
        .or_else(|| pages.iter().find(|t| t.place().is_none()))
        .copied()
}

/// The pages to try for a WebView at `host`, best first: [`pick`]'s choice, then the other
/// pages (a tab in front is known only by asking the page itself whether it is hidden).
pub fn candidates(targets: &[Target], host: Rect) -> Vec<&Target> {
    let first = pick(targets, host);
    first
        .into_iter()
        .chain(targets.iter().filter(|t| {
            t.kind == "page"
                && t.socket_path().is_some()
                && first.is_none_or(|f| f.id != t.id)
                && t.place().is_none_or(|p| p.visible)
        }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What desktop Chromium 156 answered here (headless, one page opened).
    const CHROMIUM: &str = r#"[ {
   "description": "",
   "devtoolsFrontendUrl": "https://chrome-devtools-frontend.appspot.com/serve_rev/@730482a940ce25ae7cf051320d8340e793acf8b9/inspector.html?ws=localhost:9333/devtools/page/06DAB426B0A202C2C39C9A2FB5724980",
   "id": "06DAB426B0A202C2C39C9A2FB5724980",
   "title": "Help centre sign-in",
   "type": "page",
   "url": "file:///tmp/cdp/login.html",
   "webSocketDebuggerUrl": "ws://localhost:9333/devtools/page/06DAB426B0A202C2C39C9A2FB5724980"
}, {
   "description": "",
   "id": "5E26308B7CEAF2C3E15F7305F8CC0129",
   "title": "Omnibox Popup",
   "type": "browser_ui",
   "url": "chrome://omnibox-popup.top-chrome/",
   "webSocketDebuggerUrl": "ws://localhost:9333/devtools/page/5E26308B7CEAF2C3E15F7305F8CC0129"
} ]"#;

    #[test]
    fn desktop_chromium_lists_its_page_beside_its_own_ui() {
        let targets = parse(CHROMIUM).unwrap();
        assert_eq!(targets.len(), 2);
        let page = pick(&targets, Rect::new(0., 252., 1080., 2148.)).unwrap();
        assert_eq!(page.title, "Help centre sign-in");
        assert_eq!(
            page.socket_path().as_deref(),
            Some("/devtools/page/06DAB426B0A202C2C39C9A2FB5724980")
        );
        assert!(page.place().is_none());
    }

    fn webview(id: &str, place: &str) -> Target {
        Target {
            id: id.into(),
            kind: "page".into(),
            title: id.into(),
            url: format!("https://example.com/{id}"),
            web_socket_debugger_url: Some(format!("ws:///devtools/page/{id}")),
            description: place.into(),
        }
    }

    #[test]
    fn a_webview_is_matched_by_its_place_and_hidden_ones_are_passed_over() {
        let hidden = webview(
            "hidden",
            r#"{"attached":true,"empty":false,"height":2148,"screenX":0,"screenY":252,"visible":false,"width":1080}"#,
        );
        let top = webview(
            "top",
            r#"{"attached":true,"empty":false,"height":1000,"screenX":0,"screenY":252,"visible":true,"width":1080}"#,
        );
        let bottom = webview(
            "bottom",
            r#"{"attached":true,"empty":false,"height":1148,"screenX":0,"screenY":1252,"visible":true,"width":1080}"#,
        );
        let targets = vec![hidden, top, bottom];
        let at = |y: f64, h: f64| {
            pick(&targets, Rect::new(0., y, 1080., h))
                .unwrap()
                .id
                .clone()
        };
        assert_eq!(at(252., 1000.), "top");
        assert_eq!(at(1252., 1148.), "bottom");
        // A host the descriptions do not place: the first shown page.
        assert_eq!(at(0., 10.), "top");
        assert_eq!(
            targets[1].socket_path().as_deref(),
            Some("/devtools/page/top")
        );
        // To try in order: the pick, then the other shown pages (never a hidden view).
        let order: Vec<&str> = candidates(&targets, Rect::new(0., 1252., 1080., 1148.))
            .iter()
            .map(|t| t.id.as_str())
            .collect();
        assert_eq!(order, ["bottom", "top"]);
    }

    #[test]
    fn nothing_to_pick_from_and_lists_that_are_not_lists() {
        assert!(pick(&[], Rect::default()).is_none());
        let mut held = webview("held", "");
        held.web_socket_debugger_url = None;
        assert!(pick(&[held], Rect::default()).is_none());
        assert!(parse("<html>").is_err());
        assert!(parse("{}").is_err());
    }
}
