//! The page inside the WebView's node of a dump, with `web a11y on`: `uiautomator dump` and the
//! UiAutomator2 stand-in's page source call [`fill`] on the hierarchy they are about to write.
//! It reads the page's accessibility tree and DOM snapshot over DevTools ([`super::Page::
//! a11y_tree`], reads only), within [`READ_TIMEOUT`], maps them ([`super::a11y`]) through the
//! WebView's bounds in that hierarchy (so a panned or rotated layout moves the page along) and
//! puts the result inside the WebView's node. When Chromium is not running, or the read fails or
//! takes too long, the WebView stays bare and the journal says why (`{"web":"a11y: …"}`).

use std::time::{Duration, Instant};

use super::a11y::{self, Frame};
use super::input::DENSITY_DPI;
use crate::state::web::is_web_view;
use crate::uixml::Hierarchy;
use crate::Device;

/// Longest a dump waits for the page's accessibility tree.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Puts the page inside the WebView's node of `h` (the dump of the screen in front) when the
/// page's exposure is on; `heading` adds the `heading` attribute (page sources have it).
/// Called on a blocking thread, without the device state's lock.
pub fn fill(dev: &Device, h: &mut Hierarchy, heading: bool) {
    if !dev.web.a11y() {
        return;
    }
    let Some(view) = dev.state().web_view() else {
        return;
    };
    // The page's nodes are the package's whose WebView it is (the app's, or Chrome's).
    let Some((path, package)) = h
        .walk()
        .into_iter()
        .find(|(_, n)| is_web_view(n, &view.id))
        .map(|(p, n)| (p, n.get("package").to_string()))
    else {
        return;
    };
    let Some(page) = dev.web.page_of(&view) else {
        dev.journal.web(&format!(
            "a11y: the WebView is bare: {}",
            dev.web.why_bare()
        ));
        return;
    };
    let t0 = Instant::now();
    let read = dev
        .web
        .block_on(async { tokio::time::timeout(READ_TIMEOUT, page.a11y_tree()).await });
    let (ax, snapshot) = match read {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            dev.journal
                .web(&format!("a11y: the WebView is bare: reading the page: {e}"));
            return;
        }
        Err(_) => {
            dev.journal.web(&format!(
                "a11y: the WebView is bare: the page's accessibility tree took over {READ_TIMEOUT:?}"
            ));
            return;
        }
    };
    let Some(node) = h.node_mut(&path) else {
        return;
    };
    let frame = Frame {
        rect: node.bounds(),
        dpr: f64::from(DENSITY_DPI) / 160.0,
    };
    match a11y::map(&ax, &snapshot, frame, &package, heading) {
        Some(root) => {
            let count = count(&root);
            node.children = vec![root];
            dev.journal.web(&format!(
                "a11y: {count} nodes ms={}",
                t0.elapsed().as_millis()
            ));
        }
        None => dev
            .journal
            .web("a11y: the WebView is bare: the page has no accessibility tree"),
    }
}

fn count(n: &crate::uixml::Node) -> usize {
    1 + n.children.iter().map(count).sum::<usize>()
}
