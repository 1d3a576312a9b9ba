//! Web content in the canonical tree: a page read from inside a WebView (or a Custom Tab) as
//! [`WebContent`] — its elements already in the tree's coordinate space — and [`graft`], which
//! puts them under the WebView's node in place of whatever the native dump held there, so one
//! tree, one ref table and one fingerprint cover the whole screen.
//!
//! Web elements are marked by their class, `html:TAG` (`html:input`, `html:text` for text),
//! carry the page's `id` attribute as their id, and keep the DOM node they came from
//! ([`Element::dom`]) for CSS selectors. The WebView's node takes the page's title as its name
//! (when it had none) and the page's URL as its value.

use super::model::{Element, Rect, Tree};

/// The class prefix of elements that come from a web page.
pub const WEB_CLASS_PREFIX: &str = "html:";

/// Whether an element comes from a web page.
pub fn is_web(e: &Element) -> bool {
    e.class
        .as_deref()
        .is_some_and(|c| c.starts_with(WEB_CLASS_PREFIX))
}

/// A page read from inside one WebView, ready to graft.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WebContent {
    /// The bounds of the WebView node it belongs under (as the native dump gave them).
    pub host: Rect,
    /// The page's URL.
    pub url: String,
    /// The page's title.
    pub title: String,
    /// Its elements in document (pre-)order, parents before children; `parent` indices point
    /// into this list, `None` for the elements directly under the WebView.
    pub nodes: Vec<Element>,
    /// The page scrolls (its content is larger than what the WebView shows).
    pub scrollable: bool,
}

impl WebContent {
    /// Appends an element under `parent` (an index into [`WebContent::nodes`]) and returns its
    /// index.
    pub fn push(&mut self, mut el: Element, parent: Option<usize>) -> usize {
        let idx = self.nodes.len();
        el.parent = parent;
        el.children.clear();
        if let Some(p) = parent {
            self.nodes[p].children.push(idx);
        }
        self.nodes.push(el);
        idx
    }
}

/// The WebView node of `tree` that `content` belongs under: a node whose class or role says
/// WebView, with the content's host bounds (within a pixel), not taken by an earlier page.
fn host_of(tree: &Tree, content: &WebContent, taken: &[usize]) -> Option<usize> {
    tree.nodes.iter().enumerate().position(|(i, n)| {
        let webview = n.role == super::Role::Webview
            || n.class.as_deref().is_some_and(|c| c.ends_with("WebView"));
        webview
            && !taken.contains(&i)
            && (n.bounds.x - content.host.x).abs() <= 1.0
            && (n.bounds.y - content.host.y).abs() <= 1.0
            && (n.bounds.w - content.host.w).abs() <= 1.0
            && (n.bounds.h - content.host.h).abs() <= 1.0
    })
}

/// Puts each page under its WebView's node in `tree`, replacing the node's native children
/// (a WebView that exposes its page to accessibility shows the same content, less precisely).
/// Web elements that lie inside the screen but outside their WebView are marked invisible (the
/// WebView clips them); those outside the screen keep their bounds, so the pruning counts them
/// as more content above or below. Pages without their WebView in the tree are dropped.
/// Answers how many pages found their place.
pub fn graft(tree: &mut Tree, contents: Vec<WebContent>) -> usize {
    let mut taken = Vec::new();
    for content in contents {
        let Some(host) = host_of(tree, &content, &taken) else {
            continue;
        };
        let screen = tree.screen_rect();
        let clip = tree.nodes[host].bounds;
        let WebContent {
            url,
            title,
            mut nodes,
            scrollable,
            ..
        } = content;
        for n in &mut nodes {
            if screen.is_valid() && n.bounds.intersects(&screen) && !n.bounds.intersects(&clip) {
                n.states.visible = false;
            }
        }
        let h = &mut tree.nodes[host];
        if h.name.as_deref().is_none_or(|s| s.trim().is_empty()) && !title.is_empty() {
            h.name = Some(title);
        }
        if !url.is_empty() {
            h.value = Some(url);
        }
        h.states.scrollable |= scrollable;
        let moved = replace_children(tree, host, nodes);
        taken = taken.into_iter().map(moved).collect();
        taken.push(host);
    }
    taken.len()
}

/// Replaces the subtree under `host` (not the host itself) by `nodes` (parents `None` = the
/// host), renumbering every index after it. Answers where an index of the old tree outside
/// the replaced children went.
fn replace_children(tree: &mut Tree, host: usize, nodes: Vec<Element>) -> impl Fn(usize) -> usize {
    let old_end = tree.subtree_end(host);
    let start = host + 1;
    let added = nodes.len();
    let removed = old_end - start;
    let shift = move |j: usize| -> usize {
        if j >= old_end {
            j - removed + added
        } else {
            j
        }
    };
    for n in tree.nodes[..start].iter_mut() {
        n.children = n.children.iter().map(|&c| shift(c)).collect();
    }
    let tail: Vec<Element> = tree.nodes.drain(start..).collect();
    let (_, after) = tail.split_at(removed);
    tree.nodes[host].children.clear();
    for (k, mut n) in nodes.into_iter().enumerate() {
        let idx = start + k;
        n.parent = Some(n.parent.map_or(host, |p| start + p));
        n.children = n.children.iter().map(|c| start + c).collect();
        if n.parent == Some(host) {
            tree.nodes[host].children.push(idx);
        }
        tree.nodes.push(n);
    }
    for n in after {
        let mut n = n.clone();
        n.parent = n.parent.map(shift);
        n.children = n.children.iter().map(|&c| shift(c)).collect();
        tree.nodes.push(n);
    }
    tree.roots = tree.roots.iter().map(|&r| shift(r)).collect();
    shift
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::{DumpKind, Role, Size};

    fn el(role: Role, name: &str, bounds: Rect) -> Element {
        Element {
            role,
            name: (!name.is_empty()).then(|| name.to_string()),
            bounds,
            ..Default::default()
        }
    }

    /// window > [toolbar > title, webview > native child > grandchild, footer]
    fn native() -> Tree {
        let mut t = Tree::new(DumpKind::Uiautomator);
        t.screen = Size { w: 100.0, h: 200.0 };
        let w = t.push(el(Role::Window, "", Rect::new(0., 0., 100., 200.)), None);
        let bar = t.push(el(Role::Toolbar, "", Rect::new(0., 0., 100., 20.)), Some(w));
        t.push(
            el(Role::Text, "Help", Rect::new(0., 0., 50., 20.)),
            Some(bar),
        );
        let mut wv = el(Role::Webview, "", Rect::new(0., 20., 100., 160.));
        wv.class = Some("android.webkit.WebView".into());
        let wv = t.push(wv, Some(w));
        let c = t.push(el(Role::Group, "", Rect::new(0., 20., 100., 50.)), Some(wv));
        t.push(el(Role::Text, "old", Rect::new(0., 20., 10., 10.)), Some(c));
        t.push(
            el(Role::Button, "Footer", Rect::new(0., 180., 100., 20.)),
            Some(w),
        );
        t
    }

    fn page() -> WebContent {
        let mut p = WebContent {
            host: Rect::new(0., 20., 100., 160.),
            url: "https://help.example/login".into(),
            title: "Sign-in".into(),
            scrollable: true,
            ..Default::default()
        };
        let form = p.push(el(Role::Group, "", Rect::new(0., 30., 100., 60.)), None);
        p.push(
            el(Role::Textbox, "Email", Rect::new(0., 30., 100., 20.)),
            Some(form),
        );
        p.push(
            el(Role::Button, "Sign in", Rect::new(0., 60., 100., 20.)),
            Some(form),
        );
        p.push(
            el(Role::Text, "Terms", Rect::new(0., 185., 100., 10.)),
            None,
        );
        p.push(el(Role::Text, "Far", Rect::new(0., 900., 100., 10.)), None);
        p
    }

    fn check_links(t: &Tree) {
        for (i, n) in t.nodes.iter().enumerate() {
            for &c in &n.children {
                assert_eq!(t.nodes[c].parent, Some(i), "child {c} of {i}");
                assert!(c > i);
            }
            if let Some(p) = n.parent {
                assert!(t.nodes[p].children.contains(&i));
            } else {
                assert!(t.roots.contains(&i));
            }
        }
    }

    #[test]
    fn a_page_replaces_the_webviews_native_children_and_every_index_follows() {
        let mut t = native();
        assert_eq!(graft(&mut t, vec![page()]), 1);
        check_links(&t);
        let names: Vec<_> = t.nodes.iter().map(|n| n.label().unwrap_or("-")).collect();
        assert_eq!(
            names,
            ["-", "-", "Help", "Sign-in", "-", "Email", "Sign in", "Terms", "Far", "Footer"]
        );
        let wv = &t.nodes[3];
        assert_eq!(wv.value.as_deref(), Some("https://help.example/login"));
        assert!(wv.states.scrollable);
        assert_eq!(wv.children, vec![4, 7, 8]);
        assert_eq!(t.subtree_end(3), 9);
        assert_eq!(t.nodes[9].parent, Some(0));
        assert_eq!(t.nodes[0].children, vec![1, 3, 9]);
        // Inside the screen, outside the WebView: clipped. Outside the screen: kept for the
        // pruning to count.
        assert!(!t.nodes[7].states.visible);
        assert!(t.nodes[8].states.visible);
        assert!(t.nodes[5].states.visible);
    }

    #[test]
    fn a_page_without_its_webview_is_dropped_and_a_named_webview_keeps_its_name() {
        let mut t = native();
        let mut elsewhere = page();
        elsewhere.host = Rect::new(0., 0., 10., 10.);
        assert_eq!(graft(&mut t, vec![elsewhere]), 0);
        assert_eq!(t, native());
        let mut t = native();
        t.nodes[3].name = Some("Help page".into());
        graft(&mut t, vec![page()]);
        assert_eq!(t.nodes[3].name.as_deref(), Some("Help page"));
    }

    #[test]
    fn two_webviews_each_take_their_own_page() {
        let mut t = Tree::new(DumpKind::Uiautomator);
        t.screen = Size { w: 100.0, h: 200.0 };
        let w = t.push(el(Role::Window, "", Rect::new(0., 0., 100., 200.)), None);
        for y in [0., 100.] {
            let wv = t.push(el(Role::Webview, "", Rect::new(0., y, 100., 100.)), Some(w));
            t.push(
                el(Role::Text, "native", Rect::new(0., y, 10., 10.)),
                Some(wv),
            );
        }
        let pages = [0., 100.].map(|y| {
            let mut p = WebContent {
                host: Rect::new(0., y, 100., 100.),
                title: format!("page at {y}"),
                ..Default::default()
            };
            p.push(el(Role::Link, "a", Rect::new(0., y, 5., 5.)), None);
            p.push(el(Role::Link, "b", Rect::new(5., y, 5., 5.)), None);
            p
        });
        assert_eq!(graft(&mut t, pages.to_vec()), 2);
        check_links(&t);
        let names: Vec<_> = t.nodes.iter().map(|n| n.label().unwrap_or("-")).collect();
        assert_eq!(names, ["-", "page at 0", "a", "b", "page at 100", "a", "b"]);
    }
}
