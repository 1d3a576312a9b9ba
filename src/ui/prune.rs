//! Pruning: from the full tree to the short list of lines an agent reads. One iterative pass
//! in document order: hidden, zero-size and off-screen nodes are dropped (off-screen actionable
//! ones counted by direction), label-less wrappers collapse (they add no line and no
//! indentation), a clickable container absorbs the labels of its non-actionable descendants,
//! repeated labels are dropped, the keyboard becomes one line, and `interactive_only` keeps the
//! actionable lines alone.

use super::model::{Element, Rect, Role};
use serde::Serialize;
use utoipa::ToSchema;

/// Longest label piece kept in the text (the JSON keeps the full strings).
pub const MAX_PIECE_CHARS: usize = 100;

/// One rendered line.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Index of the element (into the analysed element list).
    pub node: usize,
    /// Indentation level of its line (collapsed wrappers add none).
    pub depth: usize,
    /// Gets a ref: the agent can act on it.
    pub actionable: bool,
    /// Label pieces: its own name, its description, then absorbed descendant labels.
    pub pieces: Vec<String>,
}

/// Counts of actionable elements outside the screen, by direction.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, ToSchema)]
pub struct Offscreen {
    pub above: usize,
    pub below: usize,
    pub left: usize,
    pub right: usize,
}

impl Offscreen {
    /// Actionable elements off screen in every direction together.
    pub fn total(&self) -> usize {
        self.above + self.below + self.left + self.right
    }

    /// `"4 more below, 1 more right"`; empty when nothing is off screen.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (n, dir) in [
            (self.above, "above"),
            (self.below, "below"),
            (self.left, "left"),
            (self.right, "right"),
        ] {
            if n > 0 {
                parts.push(format!("{n} more {dir}"));
            }
        }
        parts.join(", ")
    }
}

/// The pruned view of a screen.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct View {
    /// The lines, in document order.
    pub items: Vec<Item>,
    /// Actionable elements dropped for lying off screen, by direction.
    pub offscreen: Offscreen,
}

/// What the pruner needs besides the elements.
pub struct Input<'a> {
    /// The analysed elements, in document order.
    pub elements: &'a [Element],
    /// The screen, in the elements' coordinate space.
    pub screen: Rect,
    /// Per element: visible, positive size, intersecting the screen.
    pub shown: &'a [bool],
    /// Element standing for the keyboard, and a mask of the elements it absorbs.
    pub keyboard: Option<(usize, &'a [bool])>,
    /// Keep only the actionable lines.
    pub interactive_only: bool,
}

/// Whether an element is something an agent acts on.
pub fn is_actionable(e: &Element) -> bool {
    let s = &e.states;
    s.clickable || s.editable || s.scrollable || s.long_clickable || (s.checkable && s.enabled)
}

/// Whether an actionable element is a container that lists its children instead of
/// absorbing their labels.
fn is_list_like(e: &Element) -> bool {
    e.states.scrollable || matches!(e.role, Role::List | Role::Tablist | Role::Webview)
}

fn same_rect(a: &Rect, b: &Rect) -> bool {
    (a.x - b.x).abs() <= 1.0
        && (a.y - b.y).abs() <= 1.0
        && (a.w - b.w).abs() <= 1.0
        && (a.h - b.h).abs() <= 1.0
}

fn specific(r: Role) -> bool {
    matches!(
        r,
        Role::Switch | Role::Checkbox | Role::Radio | Role::Textbox | Role::Slider | Role::Picker
    )
}

fn semantic_container(e: &Element) -> bool {
    matches!(
        e.role,
        Role::Toolbar | Role::Tablist | Role::Alert | Role::Menu | Role::List
    )
}

/// Normalises a label for display: whitespace runs become one space, long strings are cut.
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_PIECE_CHARS * 4));
    let mut n = 0;
    let mut space = false;
    for c in s.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
            n += 1;
        }
        space = false;
        if n >= MAX_PIECE_CHARS {
            out.push('…');
            break;
        }
        out.push(c);
        n += 1;
    }
    out
}

struct Open {
    item: usize,
    end: usize,
    absorbs: bool,
}

/// Runs the pruning pass. `subtree_end[i]` is one past the last descendant of `i`.
pub fn prune(input: &Input<'_>, subtree_end: &[usize]) -> View {
    let els = input.elements;
    let mut view = View::default();
    let mut stack: Vec<Open> = Vec::new();
    let mut kb_item: Option<usize> = None;
    let inner = sole_inner_action(input, subtree_end);
    let mut merged = vec![false; els.len()];
    for j in inner.iter().flatten() {
        merged[*j] = true;
    }
    for i in 0..els.len() {
        while stack.last().is_some_and(|o| o.end <= i) {
            stack.pop();
        }
        let e = &els[i];
        // The keyboard: one line holding its keys.
        if let Some((kb, mask)) = input.keyboard {
            if mask.get(i).copied().unwrap_or(false) || i == kb {
                if !input.shown[i] && i != kb {
                    continue;
                }
                let it = *kb_item.get_or_insert_with(|| {
                    view.items.push(Item {
                        node: kb,
                        depth: 0,
                        actionable: true,
                        pieces: Vec::new(),
                    });
                    view.items.len() - 1
                });
                if i != kb {
                    if let Some(l) = e.label().map(clean) {
                        let pieces = &mut view.items[it].pieces;
                        if !pieces.contains(&l) {
                            pieces.push(l);
                        }
                    }
                }
                continue;
            }
        }
        if !input.shown[i] {
            if e.states.visible && is_actionable(e) && e.bounds.is_valid() {
                count_offscreen(&mut view.offscreen, &e.bounds, &input.screen);
            }
            continue;
        }
        let actionable = is_actionable(e);
        let absorbing = stack.last().filter(|o| o.absorbs).map(|o| o.item);
        // An inner control merged into its outer control reads as a label of it.
        let actionable = actionable && !merged[i];
        // A scroll container filling the scroll container around it adds nothing.
        if actionable && is_list_like(e) && !e.states.clickable && e.label().is_none() {
            let same = stack.last().is_some_and(|o| {
                let outer = &els[view.items[o.item].node];
                !o.absorbs && same_rect(&outer.bounds, &e.bounds)
            });
            if same {
                continue;
            }
        }
        if actionable || inner[i].is_some() {
            let mut pieces = Vec::new();
            own_pieces(e, &mut pieces);
            let depth = stack.len();
            // The line shows the more specific of the two merged controls; a label-less
            // control hosted by a plain container is the line of that container.
            let node = match inner[i] {
                Some(j) if !actionable || specific(els[j].role) => j,
                _ => i,
            };
            view.items.push(Item {
                node,
                depth,
                actionable: true,
                pieces,
            });
            let absorbs = !is_list_like(e);
            stack.push(Open {
                item: view.items.len() - 1,
                end: subtree_end[i],
                absorbs,
            });
            continue;
        }
        if input.interactive_only {
            if let Some(it) = absorbing {
                own_pieces(e, &mut view.items[it].pieces);
            }
            continue;
        }
        let mut pieces = Vec::new();
        own_pieces(e, &mut pieces);
        if pieces.is_empty() {
            continue; // wrappers collapse, empty leaves drop
        }
        if let Some(it) = absorbing {
            for p in pieces {
                push_piece(&mut view.items[it].pieces, &p);
            }
            continue;
        }
        // Drop a label that repeats the line just above at the same depth or its container's.
        let depth = stack.len();
        if let Some(last) = view.items.last() {
            if !last.actionable && last.depth == depth && last.pieces == pieces {
                continue;
            }
        }
        if let Some(o) = stack.last() {
            let parent = &view.items[o.item].pieces;
            if pieces.iter().all(|p| parent.contains(p)) {
                continue;
            }
        }
        view.items.push(Item {
            node: i,
            depth,
            actionable: false,
            pieces,
        });
        if semantic_container(e) && subtree_end[i] > i + 1 {
            stack.push(Open {
                item: view.items.len() - 1,
                end: subtree_end[i],
                absorbs: false,
            });
        }
    }
    if input.interactive_only {
        for it in &mut view.items {
            shorten(&mut it.pieces);
        }
    }
    view
}

/// The interactive-only view names a control, it does not read it: the first two label
/// pieces, each cut to 24 characters.
fn shorten(pieces: &mut Vec<String>) {
    pieces.truncate(2);
    for p in pieces.iter_mut() {
        if p.chars().count() > 24 {
            *p = p.chars().take(24).chain(std::iter::once('…')).collect();
        }
    }
}

/// Pairs of elements that read as one control, as `outer → inner`:
/// - an actionable element whose only shown actionable descendant covers its centre;
/// - a plain container (up to 3 levels up) around exactly one label-less control and some
///   labels: the labels name the control (a settings row and its switch, a field and its
///   caption).
fn sole_inner_action(input: &Input<'_>, ends: &[usize]) -> Vec<Option<usize>> {
    let els = input.elements;
    let n = els.len();
    let act = |j: usize| input.shown[j] && is_actionable(&els[j]);
    let lab = |j: usize| input.shown[j] && !is_actionable(&els[j]) && els[j].label().is_some();
    // Reverse pass: actionable and labelled descendants, and the last actionable one seen.
    let mut count = vec![0usize; n];
    let mut labels = vec![0usize; n];
    let mut some = vec![None; n];
    for i in (0..n).rev() {
        for &c in &els[i].children {
            if c <= i || c >= n {
                continue;
            }
            count[i] += count[c] + act(c) as usize;
            labels[i] += labels[c] + lab(c) as usize;
            if act(c) {
                some[i] = Some(c);
            } else if some[c].is_some() {
                some[i] = some[c];
            }
        }
    }
    let _ = ends;
    let mut out: Vec<Option<usize>> = (0..n)
        .map(|i| {
            if count[i] != 1 || !act(i) || is_list_like(&els[i]) {
                return None;
            }
            let j = some[i]?;
            let (cx, cy) = els[i].bounds.center();
            (els[j].bounds.contains(cx, cy) && !is_list_like(&els[j])).then_some(j)
        })
        .collect();
    for e in 0..n {
        let nameless = els[e].label().is_none() && labels[e] == 0;
        if !act(e) || !nameless || is_list_like(&els[e]) || count[e] > 0 {
            continue;
        }
        let mut host = None;
        let mut cur = els[e].parent;
        for _ in 0..3 {
            let Some(a) = cur else { break };
            let ok = input.shown[a]
                && !is_actionable(&els[a])
                && els[a].parent.is_some()
                && !semantic_container(&els[a])
                && count[a] == 1;
            if !ok {
                break;
            }
            if labels[a] > 0 {
                host = Some(a);
            }
            cur = els[a].parent;
        }
        if let Some(a) = host {
            out[a] = Some(e);
        }
    }
    out
}

/// The element's own label pieces: name (or text), then a differing description.
fn own_pieces(e: &Element, out: &mut Vec<String>) {
    for s in [e.name.as_deref(), e.text.as_deref(), e.desc.as_deref()]
        .into_iter()
        .flatten()
    {
        push_piece(out, s);
    }
}

/// Adds a piece unless an existing one already holds it; replaces pieces it holds.
fn push_piece(out: &mut Vec<String>, s: &str) {
    let c = clean(s);
    if c.is_empty() || out.iter().any(|p| p.contains(c.as_str())) {
        return;
    }
    if let Some(k) = out.iter().position(|p| c.contains(p.as_str())) {
        out[k] = c;
        out.retain_with_index_dedup();
        return;
    }
    out.push(c);
}

trait DedupPieces {
    fn retain_with_index_dedup(&mut self);
}

impl DedupPieces for Vec<String> {
    /// Drops pieces contained in another piece (keeps the first of equal ones).
    fn retain_with_index_dedup(&mut self) {
        let snapshot = self.clone();
        let mut k = 0;
        self.retain(|p| {
            let me = k;
            k += 1;
            !snapshot
                .iter()
                .enumerate()
                .any(|(o, q)| o != me && q.contains(p.as_str()) && (q != p || o < me))
        });
    }
}

fn count_offscreen(o: &mut Offscreen, b: &Rect, screen: &Rect) {
    if b.y >= screen.bottom() {
        o.below += 1;
    } else if b.bottom() <= screen.y {
        o.above += 1;
    } else if b.x >= screen.right() {
        o.right += 1;
    } else if b.right() <= screen.x {
        o.left += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::model::{DumpKind, States, Tree};

    fn el(role: Role, name: Option<&str>, clickable: bool, b: Rect) -> Element {
        Element {
            role,
            name: name.map(String::from),
            bounds: b,
            states: States {
                clickable,
                ..States::default()
            },
            ..Element::default()
        }
    }

    fn run(t: &Tree, interactive_only: bool) -> View {
        let screen = Rect::new(0.0, 0.0, 100.0, 100.0);
        let shown: Vec<bool> = t
            .nodes
            .iter()
            .map(|n| n.states.visible && n.bounds.intersects(&screen))
            .collect();
        let ends: Vec<usize> = (0..t.nodes.len()).map(|i| t.subtree_end(i)).collect();
        prune(
            &Input {
                elements: &t.nodes,
                screen,
                shown: &shown,
                keyboard: None,
                interactive_only,
            },
            &ends,
        )
    }

    #[test]
    fn merges_collapses_and_counts() {
        let full = Rect::new(0.0, 0.0, 100.0, 100.0);
        let mut t = Tree::new(DumpKind::Uiautomator);
        let root = t.push(el(Role::Group, None, false, full), None);
        let wrap = t.push(el(Role::Group, None, false, full), Some(root));
        let row = t.push(
            el(Role::Button, None, true, Rect::new(0.0, 0.0, 100.0, 20.0)),
            Some(wrap),
        );
        t.push(
            el(
                Role::Text,
                Some("Wi-Fi"),
                false,
                Rect::new(0.0, 0.0, 50.0, 10.0),
            ),
            Some(row),
        );
        t.push(
            el(
                Role::Text,
                Some("On"),
                false,
                Rect::new(0.0, 10.0, 50.0, 10.0),
            ),
            Some(row),
        );
        t.push(
            el(
                Role::Text,
                Some("Title"),
                false,
                Rect::new(0.0, 30.0, 50.0, 10.0),
            ),
            Some(wrap),
        );
        t.push(
            el(
                Role::Text,
                Some("Title"),
                false,
                Rect::new(0.0, 40.0, 50.0, 10.0),
            ),
            Some(wrap),
        );
        t.push(
            el(
                Role::Text,
                Some("zero"),
                false,
                Rect::new(0.0, 40.0, 0.0, 10.0),
            ),
            Some(wrap),
        );
        t.push(
            el(
                Role::Button,
                Some("More"),
                true,
                Rect::new(0.0, 150.0, 50.0, 10.0),
            ),
            Some(wrap),
        );
        let v = run(&t, false);
        assert_eq!(v.items.len(), 2);
        assert_eq!(v.items[0].pieces, vec!["Wi-Fi", "On"]);
        assert_eq!(v.items[0].depth, 0);
        assert_eq!(v.items[1].pieces, vec!["Title"]);
        assert_eq!(v.offscreen.below, 1);
        assert_eq!(v.offscreen.describe(), "1 more below");
        let v = run(&t, true);
        assert_eq!(v.items.len(), 1);
    }

    #[test]
    fn label_less_switch_is_named_by_its_row() {
        let full = Rect::new(0.0, 0.0, 100.0, 100.0);
        let mut t = Tree::new(DumpKind::Uiautomator);
        let root = t.push(el(Role::Group, None, false, full), None);
        let row = t.push(
            el(Role::Group, None, false, Rect::new(0.0, 0.0, 100.0, 20.0)),
            Some(root),
        );
        t.push(
            el(
                Role::Text,
                Some("Wi-Fi"),
                false,
                Rect::new(0.0, 0.0, 50.0, 10.0),
            ),
            Some(row),
        );
        let mut sw = el(Role::Switch, None, true, Rect::new(80.0, 0.0, 20.0, 20.0));
        sw.states.checkable = true;
        let sw = t.push(sw, Some(row));
        t.push(
            el(
                Role::Text,
                Some("Other"),
                false,
                Rect::new(0.0, 50.0, 50.0, 10.0),
            ),
            Some(root),
        );
        let v = run(&t, false);
        assert_eq!(v.items.len(), 2);
        assert_eq!(v.items[0].node, sw);
        assert!(v.items[0].actionable);
        assert_eq!(v.items[0].pieces, vec!["Wi-Fi"]);
        assert_eq!(v.items[1].pieces, vec!["Other"]);
    }

    #[test]
    fn clean_collapses_and_cuts() {
        assert_eq!(clean("  a \n\t b "), "a b");
        let long = "x".repeat(300);
        assert_eq!(clean(&long).chars().count(), MAX_PIECE_CHARS + 1);
    }
}
