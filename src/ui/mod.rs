//! The canonical, platform-free UI tree: parsers, pruning, refs, text, fingerprints, selectors.
//! Pure code: no I/O, no async, no knowledge of HTTP or devices.
//!
//! Per snapshot the controller calls [`parse`] (or [`parse_any`]) then [`analyze`], keeping the
//! returned [`Screen::refs`] to pass as `previous` next time so unchanged elements keep their
//! refs. [`summary::summarize`] and [`select::find`] work on the [`Screen`].

pub mod detect;
pub mod diff;
pub mod fingerprint;
pub mod model;
pub mod parse;
pub mod prune;
pub mod refs;
pub mod render;
pub mod roles;
pub mod select;
pub mod summary;
pub mod view;
pub mod web;

pub use model::{CoordinateSpace, DumpKind, Element, Rect, Role, Size, States, Tree};
pub use parse::{detect_kind, parse, parse_any, ParseError};
pub use prune::Offscreen;
pub use refs::{RefEntry, RefTable};
pub use view::{ElementView, Observed};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How a snapshot is viewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
pub struct ViewOptions {
    /// Keep only the elements an agent can act on.
    #[serde(default)]
    pub interactive_only: bool,
}

/// A button of an alert.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct AlertButton {
    pub label: String,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    pub bounds: Rect,
}

/// A blocking system alert or app dialog.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Alert {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub buttons: Vec<AlertButton>,
}

/// The analysed screen of one snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Screen {
    /// The kind of dump it was read from.
    pub source: DumpKind,
    /// The space its coordinates are in (Android pixels, iOS points).
    pub coordinate_space: CoordinateSpace,
    /// The screen's size, in that space.
    pub screen: Size,
    /// Android `rotation` (0..3) when the dump states it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation: Option<u8>,
    /// Foreground package (Android) or bundle id / app name (iOS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foreground: Option<String>,
    /// Every element of the tree (refs filled in), plus a synthetic keyboard element when the
    /// dump lists keys without a keyboard container.
    pub elements: Vec<Element>,
    /// The refs handed out in this analysis and the elements they name.
    pub refs: RefTable,
    /// The compact text, one line per listed element.
    pub tree_text: String,
    /// 16 hex digits hashing the significant visible elements: the same screen read twice
    /// hashes the same.
    pub fingerprint: String,
    /// The blocking alert or dialog on screen, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alert: Option<Alert>,
    /// Bounds of the soft keyboard when it is up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyboard: Option<Rect>,
    /// Ref of the focused element (or of its nearest ancestor with a ref).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focused: Option<String>,
    /// Counts of actionable elements outside the screen, by direction.
    pub offscreen: Offscreen,
    /// Indices of the listed elements (the lines of `tree_text`), in order.
    pub listed: Vec<usize>,
    /// Per listed element, the label its line prints (a clickable container takes the text
    /// of the children it absorbed: `button "Sign in"`), if any.
    #[serde(skip)]
    pub listed_names: Vec<Option<String>>,
    /// Per element: visible, of positive size and on the screen.
    #[serde(skip)]
    pub shown: Vec<bool>,
}

impl Screen {
    /// The element behind a ref (`e12` or `@e12`).
    pub fn element(&self, r: &str) -> Option<&Element> {
        self.refs.get(r).map(|e| &self.elements[e.node])
    }

    /// The name element `node` goes by: its own label, else the name its line prints (a
    /// clickable row takes the text of the children it absorbed), so that a match, a
    /// candidate or a summary names it as the compact text does.
    pub fn name_of(&self, node: usize) -> Option<String> {
        let e = self.elements.get(node)?;
        e.label().map(str::to_string).or_else(|| {
            let k = self.listed.iter().position(|&i| i == node)?;
            self.listed_names.get(k).cloned().flatten()
        })
    }

    /// The nearest element at or above `i` that has a ref.
    pub fn ref_owner(&self, mut i: usize) -> Option<usize> {
        loop {
            if self.elements[i].r#ref.is_some() {
                return Some(i);
            }
            i = self.elements[i].parent?;
        }
    }

    /// The screen as a rectangle.
    pub fn screen_rect(&self) -> Rect {
        Rect::new(0.0, 0.0, self.screen.w, self.screen.h)
    }

    /// Whether element `node` is shown and its centre lies on the screen (it may still be
    /// under the keyboard).
    pub fn is_on_screen(&self, node: usize) -> bool {
        let (x, y) = self.elements[node].bounds.center();
        self.shown.get(node).copied().unwrap_or(false) && self.screen_rect().contains(x, y)
    }
}

/// Subtree ends: `ends[i]` is one past the last descendant of `i`.
fn subtree_ends(els: &[Element]) -> Vec<usize> {
    let mut ends = vec![0; els.len()];
    for i in (0..els.len()).rev() {
        ends[i] = match els[i].children.last() {
            Some(&c) if c > i && c < els.len() => ends[c],
            _ => i + 1,
        };
    }
    ends
}

/// Prunes, assigns refs (stable against `previous`), renders, fingerprints and detects the
/// alert, keyboard and focus of a parsed tree.
pub fn analyze(tree: &Tree, previous: Option<&RefTable>, opts: &ViewOptions) -> Screen {
    let meta = Tree {
        nodes: Vec::new(),
        roots: Vec::new(),
        foreground: tree.foreground.clone(),
        ..*tree
    };
    analyze_nodes(&meta, tree.nodes.clone(), previous, opts)
}

/// [`analyze`] taking the tree by value (no copy of its elements).
pub fn analyze_owned(mut tree: Tree, previous: Option<&RefTable>, opts: &ViewOptions) -> Screen {
    let nodes = std::mem::take(&mut tree.nodes);
    analyze_nodes(&tree, nodes, previous, opts)
}

fn analyze_nodes(
    tree: &Tree,
    mut els: Vec<Element>,
    previous: Option<&RefTable>,
    opts: &ViewOptions,
) -> Screen {
    let screen = tree.screen_rect();
    let mut ends = subtree_ends(&els);
    let mut shown: Vec<bool> = els
        .iter()
        .map(|e| e.states.visible && e.bounds.is_valid() && e.bounds.intersects(&screen))
        .collect();
    let kb = detect::keyboard(&els, &shown, &ends, screen);
    let kb_node = kb.as_ref().map(|k| match k.container {
        Some(c) => c,
        None => {
            els.push(Element {
                role: Role::Keyboard,
                class: Some("keyboard".into()),
                bounds: k.bounds,
                ..Element::default()
            });
            shown.push(true);
            ends.push(els.len());
            els.len() - 1
        }
    });
    // The compact text leaves the status bar out, as the fingerprint does; `elements` keep it.
    let bar = fingerprint::passive_status_bar(&els, screen);
    let listable: Vec<bool> = shown.iter().zip(&bar).map(|(&s, &b)| s && !b).collect();
    let view = prune::prune(
        &prune::Input {
            elements: &els,
            screen,
            shown: &listable,
            keyboard: kb
                .as_ref()
                .zip(kb_node)
                .map(|(k, n)| (n, k.members.as_slice())),
            interactive_only: opts.interactive_only,
        },
        &ends,
    );
    let candidates: Vec<usize> = view
        .items
        .iter()
        .filter(|i| i.actionable)
        .map(|i| i.node)
        .collect();
    let paths = refs::path_hashes(&els);
    let table = refs::assign(&els, &paths, &candidates, previous);
    for e in &table.entries {
        els[e.node].r#ref = Some(e.r#ref.clone());
    }
    let alert = detect::alert(&els, &shown, &ends, screen).map(|a| Alert {
        title: a.title,
        message: a.message,
        buttons: a
            .buttons
            .iter()
            .map(|&b| AlertButton {
                label: els[b].label().unwrap_or("").to_string(),
                r#ref: els[b].r#ref.clone(),
                bounds: els[b].bounds,
            })
            .collect(),
    });
    let alert_line = alert.as_ref().map(|a| {
        let buttons: Vec<&str> = a
            .buttons
            .iter()
            .filter_map(|b| b.r#ref.as_deref())
            .collect();
        let listed: Vec<&str> = candidates
            .iter()
            .filter_map(|&n| els[n].r#ref.as_deref())
            .collect();
        alert_line(&buttons, &listed)
    });
    let tree_text = render::render(
        &els,
        &view.items,
        &table,
        &view.offscreen,
        alert_line.as_deref(),
    );
    let kb_members = kb.as_ref().map(|k| k.members.as_slice()).unwrap_or(&[]);
    let significant: Vec<bool> = (0..els.len())
        .map(|i| {
            let e = &els[i];
            let member = kb_members.get(i).copied().unwrap_or(false);
            Some(i) == kb_node
                || (shown[i] && !member && (prune::is_actionable(e) || e.label().is_some()))
        })
        .collect();
    let fp = fingerprint::fingerprint(&els, &significant, screen);
    let owner = |i: usize, els: &[Element]| {
        let mut c = Some(i);
        while let Some(x) = c {
            if let Some(r) = &els[x].r#ref {
                return Some(r.clone());
            }
            c = els[x].parent;
        }
        None
    };
    let focused = detect::focused(&els, &shown).and_then(|f| owner(f, &els));
    Screen {
        source: tree.source,
        coordinate_space: tree.coordinate_space,
        screen: tree.screen,
        rotation: tree.rotation,
        foreground: tree.foreground.clone(),
        refs: table,
        tree_text,
        fingerprint: fp,
        alert,
        keyboard: kb.map(|k| k.bounds),
        focused,
        offscreen: view.offscreen,
        listed: view.items.iter().map(|i| i.node).collect(),
        listed_names: view
            .items
            .iter()
            .map(|i| render::item_label(&els[i.node], i))
            .collect(),
        elements: els,
        shown,
    }
}

/// The compact text's alert line. It names the alert's buttons, unless they are every ref the
/// screen lists (a dialog alone on screen, as a permission dialog is): the button lines below
/// then say it already; so does an alert none of whose buttons has a ref. The title is a line of
/// its own below, not repeated here.
fn alert_line(buttons: &[&str], listed: &[&str]) -> String {
    let mut alone = buttons.to_vec();
    let mut all = listed.to_vec();
    alone.sort_unstable();
    all.sort_unstable();
    if alone.is_empty() || alone == all {
        "! alert".to_string()
    } else {
        format!("! alert buttons: {}", buttons.join(" "))
    }
}

/// Output format of [`render_dump`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The compact text, one line per listed element.
    Text,
    /// The JSON form, with the fields of `GET /api/v1/device/ui` a saved dump has.
    Json,
}

/// The JSON form of an offline snapshot: the fields of `GET /api/v1/device/ui` that a saved
/// dump has (no device, snapshot id or timing), with the same names and element shape.
#[derive(Serialize)]
struct OfflineSnapshot<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    app: Option<&'a str>,
    source: DumpKind,
    coordinate_space: CoordinateSpace,
    screen: Size,
    fingerprint: &'a str,
    tree_text: &'a str,
    elements: Vec<ElementView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alert: Option<&'a Alert>,
    keyboard_visible: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    keyboard: Option<Rect>,
    #[serde(skip_serializing_if = "Option::is_none")]
    focused: Option<&'a str>,
    offscreen: Offscreen,
}

/// Renders a saved dump offline (`mobilectl snapshot --from-file`); the kind is detected from
/// the content.
pub fn render_dump(
    text: &str,
    format: Format,
    interactive_only: bool,
) -> Result<String, ParseError> {
    let tree = parse_any(text)?;
    let s = analyze_owned(tree, None, &ViewOptions { interactive_only });
    Ok(match format {
        Format::Text => s.tree_text,
        Format::Json => {
            let snap = OfflineSnapshot {
                app: s.foreground.as_deref(),
                source: s.source,
                coordinate_space: s.coordinate_space,
                screen: s.screen,
                fingerprint: &s.fingerprint,
                tree_text: &s.tree_text,
                elements: view::listed(&s),
                alert: s.alert.as_ref(),
                keyboard_visible: s.keyboard.is_some(),
                keyboard: s.keyboard,
                focused: s.focused.as_deref(),
                offscreen: s.offscreen,
            };
            serde_json::to_string_pretty(&snap).unwrap_or_else(|_| "{}".into())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::alert_line;

    #[test]
    fn the_alert_line_names_its_buttons_unless_they_are_all_the_screen_lists() {
        assert_eq!(alert_line(&["e2", "e1"], &["e1", "e2"]), "! alert");
        assert_eq!(
            alert_line(&["e5", "e6"], &["e1", "e5", "e6"]),
            "! alert buttons: e5 e6"
        );
        assert_eq!(alert_line(&[], &["e1"]), "! alert");
    }
}
