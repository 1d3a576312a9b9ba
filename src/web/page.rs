//! A page's accessibility tree with its layout, as the canonical tree's elements: pure, from
//! three answers of the DevTools Protocol — `Accessibility.getFullAXTree` (roles, names,
//! values, states; what is hidden, `aria-hidden` or `display: none` is already left out or
//! marked ignored), `DOMSnapshot.captureSnapshot` (each DOM node's box in document CSS pixels,
//! its tag and attributes, which nodes listen for clicks) and `Page.getLayoutMetrics` (where
//! the visual viewport is and how wide it is). A box becomes screen pixels through the
//! WebView's bounds: `x = host.x + (doc_x - viewport.pageX) × host.w / viewport.clientWidth`,
//! which follows the page's scroll and pinch zoom and the device's pixel ratio at once.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::ui::model::{Element, Rect, Role, States};
use crate::ui::web::{WebContent, WEB_CLASS_PREFIX};

/// The three answers a page read is made of (each the `result` of its call).
#[derive(Debug, Clone, Copy)]
pub struct PageAnswers<'a> {
    /// `Accessibility.getFullAXTree`.
    pub ax: &'a Value,
    /// `DOMSnapshot.captureSnapshot` with `includeDOMRects`.
    pub snapshot: &'a Value,
    /// `Page.getLayoutMetrics`.
    pub metrics: &'a Value,
}

/// Why answers could not be made into a page.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PageError {
    /// An answer lacks what every Chromium since 2019 sends.
    #[error("the DevTools answer has no {0}")]
    Missing(&'static str),
    /// The accessibility tree and the layout are of different documents: the page navigated
    /// between the two reads.
    #[error("the page changed during the read (its accessibility tree is of {ax}, its layout of {layout})")]
    Navigated {
        /// The URL of the accessibility tree's root.
        ax: String,
        /// The URL of the layout's document.
        layout: String,
    },
}

/// What a read turned out: the content, and how many elements were left out by the limit.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRead {
    /// The elements, ready to graft.
    pub content: WebContent,
    /// Elements of the page past the limit, not listed.
    pub left_out: usize,
    /// Read near the viewport from the DOM (a large page), not from the accessibility tree.
    pub near_viewport: bool,
}

#[derive(Debug, Deserialize)]
struct AxValue {
    #[serde(default)]
    value: Value,
    #[serde(default, rename = "relatedNodes")]
    related_nodes: Vec<Value>,
}

#[derive(Debug, Deserialize)]
struct AxProperty {
    name: String,
    value: AxValue,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AxNode {
    node_id: String,
    #[serde(default)]
    ignored: bool,
    role: Option<AxValue>,
    name: Option<AxValue>,
    value: Option<AxValue>,
    #[serde(default)]
    properties: Vec<AxProperty>,
    #[serde(default)]
    child_ids: Vec<String>,
    #[serde(rename = "backendDOMNodeId")]
    backend_dom_node_id: Option<u64>,
}

impl AxNode {
    fn role(&self) -> &str {
        self.role
            .as_ref()
            .and_then(|r| r.value.as_str())
            .unwrap_or("")
    }

    fn text(v: &Option<AxValue>) -> Option<String> {
        let s = match &v.as_ref()?.value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        (!s.trim().is_empty()).then_some(s)
    }

    fn prop(&self, name: &str) -> Option<&Value> {
        self.properties
            .iter()
            .find(|p| p.name == name)
            .map(|p| &p.value.value)
    }

    fn flag(&self, name: &str) -> bool {
        match self.prop(name) {
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) => s == "true" || s == "mixed",
            _ => false,
        }
    }
}

/// The DOM facts of one node: its tag, attributes, click listener and box.
#[derive(Debug, Default)]
struct DomNode {
    tag: String,
    attributes: Vec<(String, String)>,
    clickable: bool,
    bounds: Option<[f64; 4]>,
}

impl DomNode {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The main document of a snapshot, by backend node id, and its URL.
fn dom_nodes(snapshot: &Value) -> Result<(HashMap<u64, DomNode>, String), PageError> {
    let strings: Vec<&str> = snapshot["strings"]
        .as_array()
        .ok_or(PageError::Missing("strings"))?
        .iter()
        .map(|s| s.as_str().unwrap_or(""))
        .collect();
    let s = |v: &Value| -> String {
        v.as_u64()
            .and_then(|i| strings.get(i as usize))
            .map(|s| s.to_string())
            .unwrap_or_default()
    };
    let doc = &snapshot["documents"][0];
    let nodes = &doc["nodes"];
    let ids = nodes["backendNodeId"]
        .as_array()
        .ok_or(PageError::Missing("documents[0].nodes.backendNodeId"))?;
    let names = nodes["nodeName"].as_array();
    let attributes = nodes["attributes"].as_array();
    let mut by_index: Vec<DomNode> = (0..ids.len())
        .map(|i| DomNode {
            tag: names
                .and_then(|n| n.get(i))
                .map(&s)
                .unwrap_or_default()
                .to_ascii_lowercase(),
            attributes: attributes
                .and_then(|a| a.get(i))
                .and_then(Value::as_array)
                .map(|pairs| {
                    pairs
                        .chunks(2)
                        .filter(|kv| kv.len() == 2)
                        .map(|kv| (s(&kv[0]), s(&kv[1])))
                        .collect()
                })
                .unwrap_or_default(),
            ..Default::default()
        })
        .collect();
    for i in nodes["isClickable"]["index"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
    {
        if let Some(n) = by_index.get_mut(i as usize) {
            n.clickable = true;
        }
    }
    let layout = &doc["layout"];
    let boxes = layout["bounds"].as_array();
    for (k, i) in layout["nodeIndex"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let (Some(i), Some(b)) = (i.as_u64(), boxes.and_then(|b| b.get(k))) else {
            continue;
        };
        let b: Vec<f64> = b
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_f64)
            .collect();
        if let (Some(n), [x, y, w, h]) = (by_index.get_mut(i as usize), b.as_slice()) {
            n.bounds.get_or_insert([*x, *y, *w, *h]);
        }
    }
    let map = ids
        .iter()
        .zip(by_index)
        .filter_map(|(id, n)| Some((id.as_u64()?, n)))
        .collect();
    Ok((map, s(&doc["documentURL"])))
}

/// The canonical role of an accessibility role (ARIA's names and Chromium's own).
pub(super) fn role_of(ax_role: &str, editable: bool, modal: bool) -> Role {
    match ax_role {
        "button" | "ToggleButton" => Role::Button,
        "PopUpButton" | "listbox" => Role::Picker,
        "combobox" if editable => Role::Textbox,
        "combobox" => Role::Picker,
        "link" => Role::Link,
        "textbox" | "searchbox" | "TextField" | "textField" => Role::Textbox,
        "checkbox" | "menuitemcheckbox" => Role::Checkbox,
        "radio" | "menuitemradio" => Role::Radio,
        "switch" => Role::Switch,
        "slider" | "spinbutton" => Role::Slider,
        "progressbar" | "meter" => Role::Progress,
        "heading" => Role::Heading,
        "StaticText" => Role::Text,
        "image" | "img" | "graphics-symbol" => Role::Image,
        "list" | "table" | "grid" | "tree" | "treegrid" => Role::List,
        "listitem" | "row" | "treeitem" | "option" => Role::Cell,
        "tab" => Role::Tab,
        "tablist" => Role::Tablist,
        "menu" | "menubar" => Role::Menu,
        "menuitem" => Role::Menuitem,
        // A modal dialog blocks the page as an app's dialog blocks the app; `alert` (a live
        // message such as a form's error) and non-modal dialogs do not.
        "dialog" | "alertdialog" if modal => Role::Alert,
        "alert" | "status" => Role::Text,
        "toolbar" => Role::Toolbar,
        "Iframe" | "IframePresentational" | "RootWebArea" | "WebArea" => Role::Webview,
        _ => Role::Group,
    }
}

/// Roles a finger acts on by themselves (a list's item is acted on through what it holds).
pub(super) fn is_control(role: Role) -> bool {
    role.is_control() && role != Role::Cell
}

/// Roles whose name is made of their content: their descendants add nothing but repeats.
pub(super) fn is_leaf(role: Role) -> bool {
    matches!(
        role,
        Role::Button
            | Role::Link
            | Role::Textbox
            | Role::Checkbox
            | Role::Radio
            | Role::Switch
            | Role::Slider
            | Role::Progress
            | Role::Heading
            | Role::Text
            | Role::Image
            | Role::Tab
            | Role::Menuitem
            | Role::Picker
    )
}

/// Maps document CSS pixels to the screen.
#[derive(Debug, Clone, Copy)]
struct Mapping {
    host: Rect,
    page_x: f64,
    page_y: f64,
    scale: f64,
}

impl Mapping {
    fn from_metrics(metrics: &Value, host: Rect) -> Result<Self, PageError> {
        let vv = if metrics["cssVisualViewport"].is_object() {
            &metrics["cssVisualViewport"]
        } else {
            &metrics["visualViewport"]
        };
        let width = vv["clientWidth"]
            .as_f64()
            .filter(|w| *w > 0.0)
            .ok_or(PageError::Missing("cssVisualViewport.clientWidth"))?;
        Ok(Mapping {
            host,
            page_x: vv["pageX"].as_f64().unwrap_or(0.0),
            page_y: vv["pageY"].as_f64().unwrap_or(0.0),
            scale: host.w / width,
        })
    }

    fn rect(&self, [x, y, w, h]: [f64; 4]) -> Rect {
        let r = |v: f64| (v * 10.0).round() / 10.0;
        Rect::new(
            r(self.host.x + (x - self.page_x) * self.scale),
            r(self.host.y + (y - self.page_y) * self.scale),
            r(w * self.scale),
            r(h * self.scale),
        )
    }
}

/// The page in `answers` as elements under a WebView at `host`, at most `max_elements` of
/// them (document order; the rest counted in [`PageRead::left_out`]).
pub fn read_page(
    answers: PageAnswers<'_>,
    host: Rect,
    max_elements: usize,
) -> Result<PageRead, PageError> {
    let nodes: Vec<AxNode> = serde_json::from_value(answers.ax["nodes"].clone())
        .map_err(|_| PageError::Missing("nodes"))?;
    let (dom, layout_url) = dom_nodes(answers.snapshot)?;
    let mapping = Mapping::from_metrics(answers.metrics, host)?;
    let by_id: HashMap<&str, &AxNode> = nodes.iter().map(|n| (n.node_id.as_str(), n)).collect();
    let root = nodes
        .iter()
        .find(|n| n.role() == "RootWebArea")
        .or(nodes.first())
        .ok_or(PageError::Missing("nodes"))?;
    let url = root
        .prop("url")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if !url.is_empty() && !layout_url.is_empty() && url != layout_url {
        return Err(PageError::Navigated {
            ax: url,
            layout: layout_url,
        });
    }
    let scrollable = {
        let content = &answers.metrics["cssContentSize"];
        let vv = &answers.metrics["cssVisualViewport"];
        let more = |c: &str, v: &str| {
            content[c].as_f64().unwrap_or(0.0) > vv[v].as_f64().unwrap_or(f64::MAX) + 1.0
        };
        more("height", "clientHeight") || more("width", "clientWidth")
    };
    let mut read = PageRead {
        content: WebContent {
            host,
            url,
            title: AxNode::text(&root.name).unwrap_or_default(),
            scrollable,
            ..Default::default()
        },
        left_out: 0,
        near_viewport: false,
    };
    // Depth-first from the root's children, carrying the element each node hangs under.
    let mut stack: Vec<(&str, Option<usize>)> = root
        .child_ids
        .iter()
        .rev()
        .map(|c| (c.as_str(), None))
        .collect();
    let labels = labels_of_controls(&nodes);
    let mut seen = 0usize;
    while let Some((id, parent)) = stack.pop() {
        let Some(node) = by_id.get(id) else { continue };
        seen += 1;
        if node
            .backend_dom_node_id
            .is_some_and(|b| labels.contains(&b))
        {
            continue; // a control's label: already the control's name
        }
        if seen > nodes.len() {
            break; // a cycle: Chromium never sends one, a broken answer might
        }
        let mut under = parent;
        let mut leaf = false;
        if !node.ignored && !matches!(node.role(), "InlineTextBox" | "none" | "LineBreak") {
            if let Some(el) = element(node, &dom, &mapping) {
                leaf = is_leaf(el.role);
                if read.content.nodes.len() < max_elements {
                    under = Some(read.content.push(el, parent));
                } else {
                    read.left_out += 1;
                }
            }
        }
        if !leaf {
            stack.extend(node.child_ids.iter().rev().map(|c| (c.as_str(), under)));
        }
    }
    Ok(read)
}

/// The DOM nodes that label a control (its `labelledby`: `<label for>`, `aria-labelledby`):
/// their text is the control's name, a line of their own would only repeat it.
fn labels_of_controls(nodes: &[AxNode]) -> std::collections::HashSet<u64> {
    nodes
        .iter()
        .filter(|n| !n.ignored)
        .flat_map(|n| &n.properties)
        .filter(|p| p.name == "labelledby")
        .flat_map(|p| &p.value.related_nodes)
        .filter_map(|r| r["backendDOMNodeId"].as_u64())
        .collect()
}

/// One accessibility node as an element: `None` for an unnamed group with no box of its own
/// (its children hang under its parent instead).
fn element(node: &AxNode, dom: &HashMap<u64, DomNode>, mapping: &Mapping) -> Option<Element> {
    let facts = node.backend_dom_node_id.and_then(|id| dom.get(&id));
    let editable = node.prop("editable").is_some() && !node.flag("readonly");
    let role = role_of(node.role(), editable, node.flag("modal"));
    let name = AxNode::text(&node.name);
    let value = AxNode::text(&node.value);
    if matches!(role, Role::Group | Role::Text)
        && name.is_none()
        && facts.is_none_or(|f| !f.clickable)
    {
        return None;
    }
    let disabled = node.flag("disabled");
    let checkable = matches!(role, Role::Checkbox | Role::Radio | Role::Switch);
    let clickable = !disabled && (is_control(role) || facts.is_some_and(|f| f.clickable));
    let tag = facts.map(|f| f.tag.as_str()).unwrap_or("");
    let tag = match tag {
        "#text" => "text",
        "" => node.role(),
        t => t,
    };
    let states = States {
        enabled: !disabled,
        visible: true,
        focused: node.flag("focused"),
        checked: node.flag("checked") || node.flag("pressed"),
        selected: node.flag("selected"),
        clickable,
        scrollable: false,
        editable: role == Role::Textbox && editable && !disabled,
        checkable,
        long_clickable: false,
        password: facts
            .and_then(|f| f.attr("type"))
            .is_some_and(|t| t.eq_ignore_ascii_case("password")),
    };
    let bounds = facts
        .and_then(|f| f.bounds)
        .map(|b| mapping.rect(b))
        .unwrap_or_default();
    Some(Element {
        role,
        name,
        text: (role == Role::Textbox).then(|| value.clone()).flatten(),
        value,
        hint: facts
            .and_then(|f| f.attr("placeholder"))
            .filter(|p| !p.trim().is_empty())
            .map(str::to_string),
        id: facts
            .and_then(|f| f.attr("id"))
            .filter(|i| !i.is_empty())
            .map(str::to_string),
        class: Some(format!("{WEB_CLASS_PREFIX}{tag}")),
        bounds,
        states,
        dom: node.backend_dom_node_id,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Value {
        let path = format!(
            "{}/tests/fixtures/cdp/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn answers(prefix: &str) -> (Value, Value, Value) {
        (
            fixture(&format!("{prefix}_ax")),
            fixture(&format!("{prefix}_snapshot")),
            fixture(&format!("{prefix}_metrics")),
        )
    }

    /// The demo's WebView: 1080 px wide from y = 252, a 411 CSS px viewport (dpr 2.625).
    const HOST: Rect = Rect {
        x: 0.0,
        y: 252.0,
        w: 1080.0,
        h: 2148.0,
    };

    fn read(prefix: &str, max: usize) -> PageRead {
        let (ax, snapshot, metrics) = answers(prefix);
        read_page(
            PageAnswers {
                ax: &ax,
                snapshot: &snapshot,
                metrics: &metrics,
            },
            HOST,
            max,
        )
        .unwrap()
    }

    fn find<'a>(c: &'a WebContent, role: Role, name: &str) -> &'a Element {
        c.nodes
            .iter()
            .find(|e| e.role == role && e.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no {role:?} {name}: {:#?}", c.nodes))
    }

    #[test]
    fn a_real_login_page_reads_as_its_form_with_screen_boxes() {
        let c = read("login", 1000).content;
        assert_eq!(c.title, "Help centre sign-in");
        assert!(c.url.ends_with("login.html"), "{}", c.url);
        assert!(c.scrollable, "the page is taller than its viewport");
        let email = find(&c, Role::Textbox, "Email");
        assert_eq!(email.id.as_deref(), Some("email"));
        assert_eq!(email.class.as_deref(), Some("html:input"));
        assert!(email.states.editable && email.states.clickable);
        assert!(!email.states.password);
        assert!(email.dom.is_some());
        let password = find(&c, Role::Textbox, "Password");
        assert!(password.states.password);
        let submit = find(&c, Role::Button, "Sign in");
        assert_eq!(submit.id.as_deref(), Some("submit"));
        assert!(submit.states.clickable);
        // Buttons, links and headings are leaves: their text is their name.
        assert!(submit.children.is_empty());
        find(&c, Role::Heading, "Sign in");
        find(&c, Role::Link, "Forgot password?");
        // Boxes in screen pixels: 16 CSS px of margin is 42 px at 2.625, below y = 252.
        assert_eq!(email.bounds.x, 42.0);
        assert!(
            email.bounds.y > 252.0 && email.bounds.y < 1000.0,
            "{:?}",
            email.bounds
        );
        assert!(
            email.bounds.right() <= 1080.0 && email.bounds.w > 900.0,
            "{:?}",
            email.bounds
        );
        // aria-hidden and display:none content is not there; the text far below is, with a
        // box below the screen for the pruning to count.
        assert!(c.nodes.iter().all(|e| e.label() != Some("Hidden text")));
        assert!(c.nodes.iter().all(|e| e.label() != Some("✦")));
        let terms = find(&c, Role::Text, "Terms of service");
        assert!(terms.bounds.y > 2400.0);
        // Nothing is focused (the document's own focus is not an element's).
        assert!(c.nodes.iter().all(|e| !e.states.focused));
        // The labels of the fields are their names, not lines of their own.
        assert!(c
            .nodes
            .iter()
            .all(|e| e.class.as_deref() != Some("html:label")));
        assert_eq!(
            c.nodes
                .iter()
                .filter(|e| e.label() == Some("Email"))
                .count(),
            1
        );
        // A parent always precedes its children.
        for (i, e) in c.nodes.iter().enumerate() {
            assert!(e.parent.is_none_or(|p| p < i));
        }
    }

    #[test]
    fn typed_values_focus_and_scroll_follow_the_page() {
        let before = read("login", 1000).content;
        let c = read("typed_scrolled", 1000).content;
        let email = find(&c, Role::Textbox, "Email");
        assert_eq!(email.value.as_deref(), Some("ana@example.com"));
        assert_eq!(email.text.as_deref(), Some("ana@example.com"));
        let password = find(&c, Role::Textbox, "Password");
        assert!(password.states.focused);
        assert_ne!(password.value.as_deref(), Some("secret"), "masked");
        // Scrolled by 100 CSS px: every box is 262.5 px higher.
        let was = find(&before, Role::Textbox, "Email").bounds.y;
        assert!(
            (was - email.bounds.y - 262.5).abs() < 0.5,
            "{was} {}",
            email.bounds.y
        );
    }

    #[test]
    fn the_limit_keeps_the_first_elements_and_counts_the_rest() {
        let all = read("login", 1000);
        assert_eq!(all.left_out, 0);
        let some = read("login", 3);
        assert_eq!(some.content.nodes.len(), 3);
        assert!(some.left_out > 0);
        assert_eq!(
            some.content.nodes.len() + some.left_out,
            all.content.nodes.len(),
            "{:#?}",
            some.content.nodes
        );
    }

    #[test]
    fn answers_of_two_documents_are_a_navigation_and_broken_ones_are_refused() {
        let (ax, _, metrics) = answers("login");
        let mut snapshot = fixture("login_snapshot");
        let strings = snapshot["strings"].as_array_mut().unwrap();
        strings.push("file:///elsewhere.html".into());
        let elsewhere = strings.len() - 1;
        snapshot["documents"][0]["documentURL"] = elsewhere.into();
        let err = read_page(
            PageAnswers {
                ax: &ax,
                snapshot: &snapshot,
                metrics: &metrics,
            },
            HOST,
            10,
        )
        .unwrap_err();
        assert!(matches!(err, PageError::Navigated { .. }), "{err}");
        let empty = serde_json::json!({});
        for (a, s, m) in [
            (&empty, &snapshot, &metrics),
            (&ax, &empty, &metrics),
            (&ax, &snapshot, &empty),
        ] {
            let r = read_page(
                PageAnswers {
                    ax: a,
                    snapshot: s,
                    metrics: m,
                },
                HOST,
                10,
            );
            assert!(matches!(r, Err(PageError::Missing(_))), "{r:?}");
        }
    }
}
