//! The WebViews of an Android screen and where their pages can be read: which WebViews a dump
//! has (their app, bounds, and whether they show anything of their page), the DevTools socket
//! of each app — a debuggable WebView listens on the abstract socket
//! `webview_devtools_remote_PID` of its app's process, Chrome on `chrome_devtools_remote`,
//! both listed in `/proc/net/unix` on the device (what `chrome://inspect` looks at) — and the
//! note for a WebView with neither content nor a socket, with the fix. Reading the pages is
//! [`read`]'s; keeping them attached is [`pages`]'.

use std::collections::BTreeSet;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

mod pages;
mod read;

pub use pages::AttachedPages;

use super::shell::quote;
use crate::ui::model::Rect;
use crate::ui::parse::android_bounds;

/// The class of Android's WebView.
const WEBVIEW: &str = "android.webkit.WebView";
/// Chrome, whose pages (Custom Tabs among them) listen on [`CHROME_SOCKET`].
const CHROME: &str = "com.android.chrome";
const CHROME_SOCKET: &str = "chrome_devtools_remote";
const PID_MARKER: &str = "__MOBILECTL_PID__";

/// The attribute `name` of an element.
fn attr(e: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == name)
        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
}

/// The class of a dump's element: `class=` (uiautomator's `<node>`), else its tag (the
/// UiAutomator2 server names elements by class).
fn class_of(e: &BytesStart<'_>) -> String {
    attr(e, b"class").unwrap_or_else(|| String::from_utf8_lossy(e.name().as_ref()).into_owned())
}

/// A WebView of a dump: its app, where it is, and whether it showed nothing of its page.
#[derive(Debug, Clone, PartialEq)]
pub struct WebViewNode {
    /// The package of its window.
    pub package: String,
    /// Its bounds, as the dump gives them.
    pub bounds: Rect,
    /// It has no element inside: its page is not in the accessibility tree.
    pub bare: bool,
}

/// The WebViews in `xml`, in document order (a WebView inside another is listed too).
/// Unreadable XML answers none (the parser says why).
pub fn webviews(xml: &str) -> Vec<WebViewNode> {
    let mut found = Vec::new();
    if !xml.contains(WEBVIEW) {
        return found;
    }
    let mut reader = Reader::from_str(xml);
    // The WebViews open around the current element: (depth, index into `found`).
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0usize;
    let node = |e: &BytesStart<'_>| WebViewNode {
        package: attr(e, b"package").unwrap_or_default(),
        bounds: attr(e, b"bounds")
            .and_then(|b| android_bounds(&b))
            .unwrap_or_default(),
        bare: true,
    };
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                if let Some(&(_, w)) = open.last() {
                    found[w].bare = false;
                }
                depth += 1;
                if class_of(&e) == WEBVIEW {
                    open.push((depth, found.len()));
                    found.push(node(&e));
                }
            }
            Ok(Event::Empty(e)) => {
                if let Some(&(_, w)) = open.last() {
                    found[w].bare = false;
                }
                if class_of(&e) == WEBVIEW {
                    found.push(node(&e));
                }
            }
            Ok(Event::End(_)) => {
                if open.last().is_some_and(|w| w.0 == depth) {
                    open.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
    }
    found.retain(|w| !w.package.is_empty());
    found
}

/// The abstract sockets of `/proc/net/unix` (its `@NAME` paths) that are DevTools'.
pub fn devtools_sockets(net_unix: &str) -> BTreeSet<String> {
    net_unix
        .lines()
        .filter_map(|l| l.split_whitespace().last()?.strip_prefix('@'))
        .filter(|name| name.contains("devtools_remote"))
        .map(str::to_string)
        .collect()
}

/// The DevTools socket of `package`, running as `pid`, among `sockets`.
pub fn socket_of(sockets: &BTreeSet<String>, package: &str, pid: Option<&str>) -> Option<String> {
    if package == CHROME && sockets.contains(CHROME_SOCKET) {
        return Some(CHROME_SOCKET.to_string());
    }
    let name = format!("webview_devtools_remote_{}", pid?);
    sockets.contains(&name).then_some(name)
}

/// The note for a WebView of `package` whose page can be read neither way.
pub fn closed_note(package: &str) -> String {
    format!(
        "a WebView of `{package}` shows nothing of its page, and the page cannot be read over \
         DevTools either: the app does not enable WebView debugging (in its debug build: \
         `WebView.setWebContentsDebuggingEnabled(true)`), or its WebView is still starting \
         (read again in a moment)"
    )
}

/// The device script: each package's pid, then the DevTools sockets.
pub(super) fn script(packages: &BTreeSet<String>) -> String {
    let mut s = String::new();
    for p in packages {
        s += &format!("echo {PID_MARKER} {q} $(pidof {q}); ", q = quote(p));
    }
    s + "cat /proc/net/unix | grep devtools_remote"
}

/// The pids the script printed, by package.
pub(super) fn pids(out: &str) -> Vec<(String, Option<String>)> {
    out.lines()
        .filter_map(|l| l.trim().strip_prefix(PID_MARKER))
        .map(|rest| {
            let mut words = rest.split_whitespace();
            let package = words.next().unwrap_or_default().to_string();
            (package, words.next().map(str::to_string))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packages of the WebViews in `xml` that show nothing of their page.
    fn bare_webviews(xml: &str) -> BTreeSet<String> {
        webviews(xml)
            .into_iter()
            .filter(|w| w.bare)
            .map(|w| w.package)
            .collect()
    }

    fn debuggable(sockets: &BTreeSet<String>, package: &str, pid: Option<&str>) -> bool {
        socket_of(sockets, package, pid).is_some()
    }

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/fixtures/android_uiautomator/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn a_webview_with_nothing_inside_is_bare_one_with_its_page_exposed_is_not() {
        let bare = r#"<hierarchy><node class="android.widget.FrameLayout" package="a.b"><node class="android.webkit.WebView" package="a.b" bounds="[0,0][1,1]"/></node></hierarchy>"#;
        assert_eq!(bare_webviews(bare), BTreeSet::from(["a.b".to_string()]));
        let open_close =
            r#"<hierarchy><node class="android.webkit.WebView" package="c.d"></node></hierarchy>"#;
        assert_eq!(
            bare_webviews(open_close),
            BTreeSet::from(["c.d".to_string()])
        );
        let full = r#"<hierarchy><node class="android.webkit.WebView" package="a.b"><node class="android.view.View" package="a.b"/></node></hierarchy>"#;
        assert!(bare_webviews(full).is_empty());
        // The UiAutomator2 server's format: elements named by class.
        let appium = r#"<hierarchy><android.webkit.WebView package="e.f" class="android.webkit.WebView"/></hierarchy>"#;
        assert_eq!(bare_webviews(appium), BTreeSet::from(["e.f".to_string()]));
        assert!(bare_webviews("<hierarchy/>").is_empty());
    }

    #[test]
    fn real_dumps_of_webviews_with_their_pages_exposed_need_no_note() {
        // Real hybrid apps whose web content reaches uiautomator through accessibility.
        for name in [
            "obsidian_capacitor_webview.xml",
            "via_browser_webview.xml",
            "webview_ecovacs_u2_visible_to_user.xml",
        ] {
            assert!(bare_webviews(&fixture(name)).is_empty(), "{name}");
        }
    }

    #[test]
    fn a_real_dump_of_a_webview_showing_nothing_is_found() {
        // Xiaomi's account page: one NAF WebView node, nothing inside.
        assert_eq!(
            bare_webviews(&fixture("xiaomi_account_webview_small.xml")),
            BTreeSet::from(["com.xiaomi.account".to_string()])
        );
    }

    #[test]
    fn devtools_sockets_are_read_from_proc_net_unix() {
        let text = "Num       RefCount Protocol Flags    Type St Inode Path\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 31337 @webview_devtools_remote_4242\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 31338 @chrome_devtools_remote\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 1234 /dev/socket/zygote\n";
        let sockets = devtools_sockets(text);
        assert_eq!(sockets.len(), 2);
        assert!(debuggable(&sockets, "a.b", Some("4242")));
        assert!(!debuggable(&sockets, "a.b", Some("4243")));
        assert!(!debuggable(&sockets, "a.b", None));
        assert!(debuggable(&sockets, CHROME, None));
        assert_eq!(
            pids("__MOBILECTL_PID__ a.b 4242\n__MOBILECTL_PID__ c.d\n"),
            vec![("a.b".into(), Some("4242".into())), ("c.d".into(), None)]
        );
    }
}
