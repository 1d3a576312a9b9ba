//! Detection of what matters beyond the elements: the soft keyboard (and the elements it
//! covers), a blocking alert or dialog (title, message, buttons) and the focused element.

use super::model::{Element, Rect, Role};
use super::parse::{is_ime_package, is_system_ui_package};

/// The keyboard: the element standing for it and the elements it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyboard {
    /// An element of the tree (iOS `Keyboard`, the Android IME window); `None` when the
    /// keyboard was recognised from its keys only (AXe/idb list keys without a container).
    pub container: Option<usize>,
    /// Where the keyboard is, in the tree's coordinate space.
    pub bounds: Rect,
    /// Mask over the elements: true for the keyboard's keys and parts.
    pub members: Vec<bool>,
}

/// Ids AX dumps give to the keyboard's function keys.
const KEY_IDS: &[&str] = &[
    "shift",
    "delete",
    "more",
    "emoji",
    "space",
    "dictation",
    "return",
    "search",
    "go",
    "done",
    "next",
    "send",
    "join",
];

/// The soft keyboard, when one is up: a visible keyboard element on the screen, or else its
/// function keys recognised by their ids. `shown` and `ends` are per element (shown, subtree end).
pub fn keyboard(els: &[Element], shown: &[bool], ends: &[usize], screen: Rect) -> Option<Keyboard> {
    let n = els.len();
    if let Some(k) = (0..n).find(|&i| els[i].role == Role::Keyboard && els[i].states.visible) {
        let mut bounds = els[k].bounds;
        let mut members = vec![false; n];
        for (j, m) in members.iter_mut().enumerate().take(ends[k]).skip(k + 1) {
            *m = true;
            if !bounds.is_valid() && shown[j] {
                bounds = bounds.union(&els[j].bounds);
            }
        }
        if bounds.is_valid() && bounds.intersects(&screen) {
            return Some(Keyboard {
                container: Some(k),
                bounds,
                members,
            });
        }
    }
    // Keys without a container: function keys recognised by their ids.
    let anchors: Vec<usize> = (0..n)
        .filter(|&i| {
            shown[i]
                && matches!(els[i].role, Role::Button | Role::Key)
                && els[i]
                    .id
                    .as_deref()
                    .is_some_and(|id| KEY_IDS.iter().any(|k| id.eq_ignore_ascii_case(k)))
        })
        .collect();
    if anchors.len() < 2 {
        return None;
    }
    let mut hs: Vec<f64> = anchors.iter().map(|&i| els[i].bounds.h).collect();
    hs.sort_by(f64::total_cmp);
    let key_h = hs[hs.len() / 2];
    let anchor_top = anchors
        .iter()
        .map(|&i| els[i].bounds.y)
        .fold(f64::INFINITY, f64::min);
    let floor = anchor_top - 3.5 * key_h;
    let top = (0..n)
        .filter(|&i| {
            shown[i]
                && ends[i] == i + 1
                && els[i].bounds.y >= floor
                && els[i].bounds.w <= screen.w / 2.0
                && els[i].bounds.bottom() <= screen.bottom() + 1.0
        })
        .map(|i| els[i].bounds.y)
        .fold(anchor_top, f64::min);
    let bounds = Rect::new(screen.x, top, screen.w, screen.bottom() - top);
    if !bounds.is_valid() {
        return None;
    }
    let members = (0..n)
        .map(|i| shown[i] && ends[i] == i + 1 && bounds.contains_rect(&els[i].bounds))
        .collect();
    Some(Keyboard {
        container: None,
        bounds,
        members,
    })
}

/// A blocking alert or dialog, as element indices.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertNodes {
    /// Index of the alert's (or dialog's) element.
    pub container: usize,
    /// Its title text, when it has one.
    pub title: Option<String>,
    /// Its message text, when it has one.
    pub message: Option<String>,
    /// Indices of its buttons, in document order.
    pub buttons: Vec<usize>,
}

/// The blocking alert or dialog on screen, if any. `shown` and `ends` are per element (shown,
/// subtree end).
pub fn alert(els: &[Element], shown: &[bool], ends: &[usize], screen: Rect) -> Option<AlertNodes> {
    let n = els.len();
    // iOS: an Alert/Sheet element that is visible (even with a zero-size frame).
    if let Some(a) = (0..n)
        .find(|&i| els[i].role == Role::Alert && els[i].states.visible && has_shown(shown, i, ends))
    {
        return Some(collect(els, shown, a, ends[a]));
    }
    // Android: the framework dialog ids.
    if let Some(t) = (0..n).find(|&i| {
        shown[i]
            && els[i].id.as_deref().is_some_and(|id| {
                id.ends_with("id/alertTitle")
                    || id.ends_with("id/permission_message")
                    || id.ends_with("id/grant_dialog")
            })
    }) {
        let root = window_of(els, t);
        let mut a = collect(els, shown, root, ends[root]);
        if let Some(msg) = (root..ends[root]).find(|&i| {
            shown[i]
                && els[i]
                    .id
                    .as_deref()
                    .is_some_and(|d| d.ends_with("id/message"))
        }) {
            a.message = els[msg].label().map(str::to_string);
        }
        if !a.buttons.is_empty() {
            return Some(a);
        }
    }
    // Android: a window above the app, or a floating one, holding a title and a few buttons.
    let roots: Vec<usize> = (0..n).filter(|&i| els[i].parent.is_none()).collect();
    for (k, &r) in roots.iter().enumerate().rev() {
        let e = &els[r];
        let pkg = e.package.as_deref().unwrap_or("");
        if !shown[r] || e.role == Role::Keyboard || is_system_ui_package(pkg) || is_ime_package(pkg)
        {
            continue;
        }
        let b = e.bounds;
        let floating = b.x > screen.x + 0.05 * screen.w || b.y > screen.y + 0.05 * screen.h;
        let above_smaller = k > 0 && b.area() < 0.85 * screen.area();
        if !(floating || above_smaller) {
            continue;
        }
        let a = collect(els, shown, r, ends[r]);
        if (1..=4).contains(&a.buttons.len()) && a.title.is_some() {
            return Some(a);
        }
    }
    None
}

fn has_shown(shown: &[bool], i: usize, ends: &[usize]) -> bool {
    (i..ends[i]).any(|j| shown[j])
}

fn window_of(els: &[Element], mut i: usize) -> usize {
    while let Some(p) = els[i].parent {
        i = p;
    }
    i
}

fn collect(els: &[Element], shown: &[bool], start: usize, end: usize) -> AlertNodes {
    let mut texts = Vec::new();
    let mut buttons = Vec::new();
    let mut skip_until = start;
    for i in start + 1..end {
        if !shown[i] {
            continue;
        }
        let e = &els[i];
        if e.states.clickable && matches!(e.role, Role::Button | Role::Link) {
            buttons.push(i);
            skip_until = skip_until.max(end_of(els, i));
            continue;
        }
        if i < skip_until {
            continue;
        }
        if let Some(l) = e.label() {
            if !texts.iter().any(|t: &String| t == l) {
                texts.push(l.to_string());
            }
        }
    }
    let mut it = texts.into_iter();
    let title = it.next().or_else(|| els[start].label().map(str::to_string));
    let rest: Vec<String> = it.collect();
    AlertNodes {
        container: start,
        title,
        message: (!rest.is_empty()).then(|| rest.join("\n")),
        buttons,
    }
}

fn end_of(els: &[Element], i: usize) -> usize {
    let mut cur = i;
    while let Some(&c) = els[cur].children.last() {
        cur = c;
    }
    cur + 1
}

/// The focused element: an input first, else any focused element on screen.
pub fn focused(els: &[Element], shown: &[bool]) -> Option<usize> {
    let f = |i: &usize| shown[*i] && els[*i].states.focused;
    (0..els.len())
        .filter(f)
        .find(|&i| els[i].states.editable)
        .or_else(|| (0..els.len()).find(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::model::{DumpKind, States, Tree};

    fn node(role: Role, name: Option<&str>, b: Rect, clickable: bool) -> Element {
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

    fn masks(t: &Tree, screen: Rect) -> (Vec<bool>, Vec<usize>) {
        let shown = t
            .nodes
            .iter()
            .map(|n| n.bounds.intersects(&screen))
            .collect();
        let ends = (0..t.nodes.len()).map(|i| t.subtree_end(i)).collect();
        (shown, ends)
    }

    #[test]
    fn ios_alert_with_zero_frame_and_keys() {
        let screen = Rect::new(0.0, 0.0, 400.0, 800.0);
        let mut t = Tree::new(DumpKind::WdaXml);
        let app = t.push(node(Role::Application, Some("App"), screen, false), None);
        let al = t.push(
            node(Role::Alert, Some("Allow?"), Rect::default(), false),
            Some(app),
        );
        t.push(
            node(
                Role::Text,
                Some("Allow location?"),
                Rect::new(10.0, 300.0, 300.0, 20.0),
                false,
            ),
            Some(al),
        );
        t.push(
            node(
                Role::Text,
                Some("Needed for maps"),
                Rect::new(10.0, 330.0, 300.0, 20.0),
                false,
            ),
            Some(al),
        );
        t.push(
            node(
                Role::Button,
                Some("Allow"),
                Rect::new(10.0, 360.0, 100.0, 40.0),
                true,
            ),
            Some(al),
        );
        let (shown, ends) = masks(&t, screen);
        let a = alert(&t.nodes, &shown, &ends, screen).unwrap();
        assert_eq!(a.title.as_deref(), Some("Allow location?"));
        assert_eq!(a.message.as_deref(), Some("Needed for maps"));
        assert_eq!(a.buttons, vec![4]);
        assert!(keyboard(&t.nodes, &shown, &ends, screen).is_none());
    }

    #[test]
    fn keys_without_container() {
        let screen = Rect::new(0.0, 0.0, 400.0, 800.0);
        let mut t = Tree::new(DumpKind::Axe);
        let app = t.push(node(Role::Application, None, screen, false), None);
        t.push(
            node(
                Role::Button,
                Some("Back"),
                Rect::new(0.0, 50.0, 40.0, 40.0),
                true,
            ),
            Some(app),
        );
        t.push(
            node(
                Role::Button,
                Some("Q"),
                Rect::new(0.0, 600.0, 40.0, 50.0),
                true,
            ),
            Some(app),
        );
        for (k, id) in ["shift", "delete"].iter().enumerate() {
            let mut e = node(
                Role::Button,
                Some(id),
                Rect::new(k as f64 * 50.0, 700.0, 40.0, 50.0),
                true,
            );
            e.id = Some(id.to_string());
            t.push(e, Some(app));
        }
        let (shown, ends) = masks(&t, screen);
        let k = keyboard(&t.nodes, &shown, &ends, screen).unwrap();
        assert_eq!(k.bounds, Rect::new(0.0, 600.0, 400.0, 200.0));
        assert_eq!(k.members, vec![false, false, true, true, true]);
    }
}
