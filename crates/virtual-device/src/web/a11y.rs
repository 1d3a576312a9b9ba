//! The page as a real Android WebView exposes it to accessibility services (Chromium's
//! `BrowserAccessibilityAndroid`), pure: a CDP `Accessibility.getFullAXTree` and a
//! `DOMSnapshot.captureSnapshot` (with `includeDOMRects`) become uiautomator `<node>`s nested as
//! the accessibility tree nests, under a root `android.webkit.WebView` (the document: its title
//! as `text`).
//!
//! - Ignored nodes are skipped (their children take their place), `InlineTextBox`es dropped;
//!   generic containers stay, as `android.view.View`.
//! - Controls (text fields, buttons, checkboxes, radios, selects, sliders, images) are leaves,
//!   and so is any node whose children are only text: its text becomes the node's `text`.
//! - Classes as Chromium maps roles: textbox/searchbox → `EditText` (`text` the value, bullets
//!   for a password, `hint` the placeholder or the label), button → `Button`, checkbox/switch →
//!   `CheckBox`, radio → `RadioButton`, combobox → `Spinner`, slider → `SeekBar`, image →
//!   `Image`, list → `ListView`, text and headings → `TextView`, links and the rest → `View`.
//!   `content-desc` is the accessible name where `text` does not carry it; `resource-id` the
//!   element's HTML `id`.
//! - Bounds: CSS pixels of the document, less its scroll, × the scale, plus the WebView's origin,
//!   clipped to the WebView. Nodes wholly outside the WebView (and without a descendant inside)
//!   are left out, as `uiautomator dump` leaves out nodes not visible to the user.

use std::collections::HashMap;

use serde_json::Value;

use crate::uixml::{Node, Rect};

/// Where the page is on the screen.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    /// The WebView's bounds (screen pixels).
    pub rect: Rect,
    /// Device pixels per CSS pixel.
    pub dpr: f64,
}

/// What one element of the DOM snapshot says.
#[derive(Default)]
struct Elem {
    /// Document CSS pixels: x1, y1, x2, y2.
    bounds: Option<[f64; 4]>,
    attrs: HashMap<String, String>,
}

/// The DOM snapshot's elements by backend node id, and the document's scroll.
struct Dom {
    elems: HashMap<i64, Elem>,
    scroll: (f64, f64),
    content_height: f64,
}

fn parse_dom(snap: &Value) -> Dom {
    let strings: Vec<&str> = snap["strings"]
        .as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap_or("")).collect())
        .unwrap_or_default();
    let s = |i: &Value| -> String {
        i.as_u64()
            .and_then(|i| strings.get(i as usize))
            .map_or_else(String::new, |s| s.to_string())
    };
    let doc = &snap["documents"][0];
    let nodes = &doc["nodes"];
    let ids: Vec<i64> = nodes["backendNodeId"]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_i64().unwrap_or(-1)).collect())
        .unwrap_or_default();
    let mut elems: HashMap<i64, Elem> = HashMap::new();
    if let Some(attrs) = nodes["attributes"].as_array() {
        for (i, a) in attrs.iter().enumerate() {
            let (Some(id), Some(a)) = (ids.get(i), a.as_array()) else {
                continue;
            };
            let e = elems.entry(*id).or_default();
            for pair in a.chunks(2) {
                if let [k, v] = pair {
                    e.attrs.insert(s(k), s(v));
                }
            }
        }
    }
    let layout = &doc["layout"];
    let index = layout["nodeIndex"].as_array().cloned().unwrap_or_default();
    let bounds = layout["bounds"].as_array().cloned().unwrap_or_default();
    for (ni, b) in index.iter().zip(bounds.iter()) {
        let (Some(id), Some(b)) = (ni.as_u64().and_then(|i| ids.get(i as usize)), b.as_array())
        else {
            continue;
        };
        let f: Vec<f64> = b.iter().filter_map(Value::as_f64).collect();
        let [x, y, w, h] = f[..] else { continue };
        let r = [x, y, x + w, y + h];
        let e = elems.entry(*id).or_default();
        e.bounds = Some(match e.bounds {
            Some(o) => [
                o[0].min(r[0]),
                o[1].min(r[1]),
                o[2].max(r[2]),
                o[3].max(r[3]),
            ],
            None => r,
        });
    }
    Dom {
        elems,
        scroll: (
            doc["scrollOffsetX"].as_f64().unwrap_or(0.0),
            doc["scrollOffsetY"].as_f64().unwrap_or(0.0),
        ),
        content_height: doc["contentHeight"].as_f64().unwrap_or(0.0),
    }
}

/// The accessibility tree by node id.
struct Ax<'a> {
    nodes: HashMap<&'a str, &'a Value>,
}

fn role(n: &Value) -> &str {
    n["role"]["value"].as_str().unwrap_or("")
}

fn name(n: &Value) -> String {
    n["name"]["value"].as_str().unwrap_or("").trim().to_string()
}

fn prop<'a>(n: &'a Value, key: &str) -> Option<&'a Value> {
    n["properties"]
        .as_array()?
        .iter()
        .find(|p| p["name"] == key)
        .map(|p| &p["value"]["value"])
}

fn prop_true(n: &Value, key: &str) -> bool {
    matches!(prop(n, key), Some(Value::Bool(true)))
        || prop(n, key).and_then(Value::as_str) == Some("true")
}

impl<'a> Ax<'a> {
    /// The node's children as the WebView exposes them: ignored nodes replaced by theirs,
    /// inline text boxes dropped.
    fn children(&self, n: &'a Value) -> Vec<&'a Value> {
        let mut out = Vec::new();
        for id in n["childIds"].as_array().into_iter().flatten() {
            let Some(c) = id.as_str().and_then(|id| self.nodes.get(id)) else {
                continue;
            };
            if role(c) == "InlineTextBox" {
                continue;
            }
            if c["ignored"] == true {
                out.extend(self.children(c));
            } else {
                out.push(c);
            }
        }
        out
    }
}

/// Roles whose nodes are leaves on Android (their children are not exposed).
const LEAF_ROLES: &[&str] = &[
    "textbox",
    "searchbox",
    "spinbutton",
    "button",
    "checkbox",
    "switch",
    "radio",
    "combobox",
    "slider",
    "image",
    "img",
];

/// Roles a finger can activate (`clickable`).
const CLICKABLE_ROLES: &[&str] = &[
    "textbox",
    "searchbox",
    "spinbutton",
    "button",
    "checkbox",
    "switch",
    "radio",
    "combobox",
    "slider",
    "link",
    "menuitem",
    "tab",
    "option",
];

fn class_of(role: &str) -> &'static str {
    match role {
        "textbox" | "searchbox" | "spinbutton" => "android.widget.EditText",
        "button" => "android.widget.Button",
        "checkbox" | "switch" => "android.widget.CheckBox",
        "radio" => "android.widget.RadioButton",
        "combobox" => "android.widget.Spinner",
        "slider" => "android.widget.SeekBar",
        "image" | "img" => "android.widget.Image",
        "list" | "listbox" => "android.widget.ListView",
        "StaticText" | "heading" => "android.widget.TextView",
        "RootWebArea" => "android.webkit.WebView",
        _ => "android.view.View",
    }
}

/// Maps the page's accessibility tree to the nodes a WebView exposes: the root
/// `android.webkit.WebView` (document) with the content inside, or `None` when the tree has no
/// root. `package` is the app's; `heading` adds the `heading` attribute (the UiAutomator2
/// server's page source has it, `uiautomator dump` does not).
pub fn map(
    ax: &Value,
    snapshot: &Value,
    frame: Frame,
    package: &str,
    heading: bool,
) -> Option<Node> {
    let list = ax["nodes"].as_array()?;
    let tree = Ax {
        nodes: list
            .iter()
            .filter_map(|n| Some((n["nodeId"].as_str()?, n)))
            .collect(),
    };
    let root = list
        .iter()
        .find(|n| n.get("parentId").is_none() && role(n) == "RootWebArea")
        .or_else(|| list.first())?;
    let dom = parse_dom(snapshot);
    let cx = Cx {
        tree: &tree,
        dom: &dom,
        frame,
        package,
        heading,
    };
    let (mut node, _) = cx.node(root, 0)?;
    // The document is the WebView's own size; it scrolls when its content is taller.
    let view_height = f64::from(frame.rect.y2 - frame.rect.y1) / frame.dpr;
    set_bounds(&mut node, frame.rect);
    if dom.content_height > view_height + 0.5 {
        node.set("scrollable", "true");
    }
    Some(node)
}

struct Cx<'a> {
    tree: &'a Ax<'a>,
    dom: &'a Dom,
    frame: Frame,
    package: &'a str,
    heading: bool,
}

fn set_bounds(n: &mut Node, r: Rect) {
    n.set("bounds", &format!("[{},{}][{},{}]", r.x1, r.y1, r.x2, r.y2));
}

impl Cx<'_> {
    fn elem(&self, n: &Value) -> Option<&Elem> {
        self.dom.elems.get(&n["backendDOMNodeId"].as_i64()?)
    }

    /// A document rectangle on the screen (unclipped).
    fn on_screen(&self, b: [f64; 4]) -> Rect {
        let f = self.frame;
        let x = |v: f64| (f64::from(f.rect.x1) + (v - self.dom.scroll.0) * f.dpr).round() as i32;
        let y = |v: f64| (f64::from(f.rect.y1) + (v - self.dom.scroll.1) * f.dpr).round() as i32;
        Rect {
            x1: x(b[0]),
            y1: y(b[1]),
            x2: x(b[2]),
            y2: y(b[3]),
        }
    }

    fn visible(&self, r: Rect) -> bool {
        let f = self.frame.rect;
        r.x1 < f.x2 && r.x2 > f.x1 && r.y1 < f.y2 && r.y2 > f.y1
    }

    fn clip(&self, r: Rect) -> Rect {
        let f = self.frame.rect;
        let cx = |v: i32| v.clamp(f.x1, f.x2);
        let cy = |v: i32| v.clamp(f.y1, f.y2);
        Rect {
            x1: cx(r.x1),
            y1: cy(r.y1),
            x2: cx(r.x2),
            y2: cy(r.y2),
        }
    }

    /// The node `n` as the `index`-th child of its parent, and whether it is visible; `None`
    /// when neither it nor anything inside it is.
    fn node(&self, n: &Value, index: usize) -> Option<(Node, bool)> {
        let role = role(n);
        let is_root = role == "RootWebArea";
        let kids = self.tree.children(n);
        let only_text = !kids.is_empty() && kids.iter().all(|c| self::role(c) == "StaticText");
        let leaf = LEAF_ROLES.contains(&role) || (only_text && !is_root);
        let elem = self.elem(n);
        let attr = |k: &str| {
            elem.and_then(|e| e.attrs.get(k))
                .cloned()
                .unwrap_or_default()
        };

        let mut children = Vec::new();
        let mut inside: Option<Rect> = None;
        if !leaf {
            for c in &kids {
                if let Some((child, _)) = self.node(c, children.len()) {
                    let b = child.bounds();
                    inside = Some(match inside {
                        Some(u) => Rect {
                            x1: u.x1.min(b.x1),
                            y1: u.y1.min(b.y1),
                            x2: u.x2.max(b.x2),
                            y2: u.y2.max(b.y2),
                        },
                        None => b,
                    });
                    children.push(child);
                }
            }
        }
        let own = elem.and_then(|e| e.bounds).map(|b| self.on_screen(b));
        let visible = own.is_some_and(|r| self.visible(r));
        if !visible && children.is_empty() && !is_root {
            return None;
        }
        let bounds = match own {
            Some(r) if visible => self.clip(r),
            _ => inside.unwrap_or_else(|| self.clip(own.unwrap_or_default())),
        };

        let class = class_of(role);
        let name = name(n);
        let value = n["value"]["value"]
            .as_str()
            .map(str::to_string)
            .or_else(|| n["value"]["value"].as_f64().map(|v| v.to_string()))
            .unwrap_or_default();
        let password = attr("type").eq_ignore_ascii_case("password");
        let inner_text = || {
            kids.iter()
                .map(|c| self::name(c))
                .collect::<Vec<_>>()
                .join("")
        };
        let (text, desc, hint) = match class {
            "android.widget.EditText" => {
                let text = if password {
                    "•".repeat(value.chars().count())
                } else {
                    value
                };
                let hint = Some(attr("placeholder"))
                    .filter(|p| !p.is_empty())
                    .unwrap_or(name);
                (text, String::new(), hint)
            }
            "android.widget.Spinner" | "android.widget.SeekBar" => (value, name, String::new()),
            "android.widget.Image" => (String::new(), name, String::new()),
            _ if is_root => (name, String::new(), String::new()),
            _ if role == "StaticText" || role == "heading" || leaf => {
                let text = if name.is_empty() { inner_text() } else { name };
                (text, String::new(), String::new())
            }
            _ => (String::new(), name, String::new()),
        };
        let checkable = matches!(role, "checkbox" | "switch" | "radio");
        let b = |v: bool| if v { "true" } else { "false" };
        let mut node = Node::default();
        for (k, v) in [
            ("index", index.to_string().as_str()),
            ("text", &text),
            ("resource-id", &attr("id")),
            ("class", class),
            ("package", self.package),
            ("content-desc", &desc),
            ("checkable", b(checkable)),
            ("checked", b(checkable && prop_true(n, "checked"))),
            ("clickable", b(CLICKABLE_ROLES.contains(&role))),
            ("enabled", b(!prop_true(n, "disabled"))),
            ("focusable", b(prop_true(n, "focusable"))),
            ("focused", b(prop_true(n, "focused"))),
            ("scrollable", "false"),
            ("long-clickable", "false"),
            ("password", b(password)),
            ("selected", b(prop_true(n, "selected"))),
            ("bounds", ""),
            ("hint", &hint),
        ] {
            node.set(k, v);
        }
        set_bounds(&mut node, bounds);
        if self.heading {
            node.set("heading", b(role == "heading"));
        }
        node.children = children;
        Some((node, visible))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Value {
        let path = format!(
            "{}/../../tests/fixtures/cdp/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    }

    fn frame() -> Frame {
        Frame {
            rect: Rect {
                x1: 0,
                y1: 252,
                x2: 1080,
                y2: 2400,
            },
            dpr: 2.625,
        }
    }

    fn all(n: &Node) -> Vec<&Node> {
        let mut out = vec![n];
        for c in &n.children {
            out.extend(all(c));
        }
        out
    }

    fn find(root: &Node, pick: impl Fn(&Node) -> bool) -> &Node {
        all(root).into_iter().find(|n| pick(n)).unwrap()
    }

    #[test]
    fn the_login_page_maps_as_a_webview_exposes_it() {
        let ax = fixture("login_ax.json");
        let snap = fixture("login_snapshot.json");
        let root = map(&ax, &snap, frame(), "com.example", false).unwrap();
        assert_eq!(root.get("class"), "android.webkit.WebView");
        assert_eq!(root.get("text"), "Help centre sign-in");
        assert_eq!(root.get("bounds"), "[0,252][1080,2400]");
        assert_eq!(root.get("scrollable"), "true");
        assert_eq!(root.get("package"), "com.example");

        let email = find(&root, |n| n.get("resource-id") == "email");
        assert_eq!(email.get("class"), "android.widget.EditText");
        assert_eq!(email.get("hint"), "Email");
        assert_eq!(email.get("text"), "");
        assert_eq!(email.get("clickable"), "true");
        assert_eq!(email.get("focusable"), "true");
        assert!(
            email.children.is_empty(),
            "the editable's inner div is not exposed"
        );
        // 16,161.875 + 387×27 CSS px at 2.625 below the toolbar.
        assert_eq!(email.get("bounds"), "[42,677][1058,748]");
        let password = find(&root, |n| n.get("resource-id") == "password");
        assert_eq!(password.get("password"), "true");
        assert_eq!(password.get("hint"), "Password");

        let submit = find(&root, |n| n.get("resource-id") == "submit");
        assert_eq!(submit.get("class"), "android.widget.Button");
        assert_eq!(submit.get("text"), "Sign in");
        assert!(submit.children.is_empty());
        let heading = find(&root, |n| {
            n.get("class") == "android.widget.TextView" && n.get("text") == "Sign in"
        });
        assert!(
            heading.children.is_empty(),
            "a heading of text only is a leaf"
        );
        assert_eq!(heading.get("heading"), "");
        let link = find(&root, |n| n.get("text") == "Forgot password?");
        assert_eq!(link.get("class"), "android.view.View");
        assert_eq!(link.get("clickable"), "true");
        // Labels are Views with their text; the form a container.
        let label = find(&root, |n| n.get("text") == "Email");
        assert_eq!(label.get("class"), "android.view.View");
        // Every node inside the WebView, indexes in order.
        for n in all(&root) {
            let b = n.bounds();
            assert!(
                b.x1 >= 0 && b.x2 <= 1080 && b.y1 >= 252 && b.y2 <= 2400,
                "{n:?}"
            );
            for (i, c) in n.children.iter().enumerate() {
                assert_eq!(c.get("index"), i.to_string());
            }
        }
    }

    #[test]
    fn typed_values_scroll_and_the_heading_attribute() {
        let ax = fixture("typed_scrolled_ax.json");
        let snap = fixture("typed_scrolled_snapshot.json");
        let root = map(&ax, &snap, frame(), "p", true).unwrap();
        let email = find(&root, |n| n.get("resource-id") == "email");
        assert!(!email.get("text").is_empty());
        // Scrolled by 100 CSS px: 262.5 px higher.
        assert_eq!(email.get("bounds"), "[42,414][1058,485]");
        let password = find(&root, |n| n.get("resource-id") == "password");
        assert!(password.get("text").chars().all(|c| c == '•'));
        let heading = all(&root)
            .into_iter()
            .filter(|n| n.get("heading") == "true")
            .count();
        assert!(heading <= 1);
    }

    #[test]
    fn nodes_outside_the_webview_are_left_out() {
        let ax = fixture("login_ax.json");
        let snap = fixture("login_snapshot.json");
        let small = Frame {
            rect: Rect {
                x1: 0,
                y1: 252,
                x2: 1080,
                y2: 800,
            },
            dpr: 2.625,
        };
        let root = map(&ax, &snap, small, "p", false).unwrap();
        assert!(all(&root).iter().all(|n| n.get("resource-id") != "report"));
        assert!(all(&root).iter().any(|n| n.get("resource-id") == "email"));
    }
}
