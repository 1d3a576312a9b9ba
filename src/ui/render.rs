//! Compact text rendering of a pruned view: one line per item, two spaces of indentation per
//! nesting level, `role "label" [eN] = "value" states`. Plain texts are written as a bare
//! quoted label; absorbed labels are joined with ` · `; a label-less control shows its id tail.

use super::model::{Element, Role};
use super::prune::{clean, Item, Offscreen};
use super::refs::RefTable;
use std::fmt::Write;

/// Joins label pieces the way the text does.
pub const PIECE_SEP: &str = " · ";

/// Deeper nesting is drawn at this depth (keeps hostile trees from blowing up the text).
pub const MAX_INDENT: usize = 24;

/// The label a listed item's line prints (its absorbed pieces joined), if it has one. The
/// keyboard prints none: its keys are not targets (typing goes through `type`), and listing
/// them cost more tokens than the rest of a login screen.
pub fn item_label(e: &Element, it: &Item) -> Option<String> {
    if it.pieces.is_empty() || e.role == Role::Keyboard {
        return None;
    }
    Some(it.pieces.join(PIECE_SEP))
}

/// Renders the items. `alert_line` goes first when a blocking alert was detected.
pub fn render(
    els: &[Element],
    items: &[Item],
    refs: &RefTable,
    offscreen: &Offscreen,
    alert_line: Option<&str>,
) -> String {
    let mut out = String::with_capacity(items.len() * 40);
    if let Some(a) = alert_line {
        out.push_str(a);
        out.push('\n');
    }
    let by_node: std::collections::HashMap<usize, &str> = refs
        .entries
        .iter()
        .map(|e| (e.node, e.r#ref.as_str()))
        .collect();
    for it in items {
        let e = &els[it.node];
        for _ in 0..it.depth.min(MAX_INDENT) {
            out.push_str("  ");
        }
        let role = e.role;
        let bare = !it.actionable && matches!(role, Role::Text | Role::Group | Role::Other);
        if !bare {
            out.push_str(role.as_str());
        }
        if let Some(label) = item_label(e, it) {
            if !bare {
                out.push(' ');
            }
            out.push('"');
            out.push_str(&label);
            out.push('"');
        } else if let Some(t) = e
            .id_tail()
            .filter(|_| it.actionable && role != Role::Keyboard)
        {
            let _ = write!(out, " #{t}");
        }
        if let Some(r) = by_node.get(&it.node) {
            let _ = write!(out, " [{r}]");
        }
        if let Some(v) = e.value.as_deref().map(clean).filter(|v| !v.is_empty()) {
            let show = matches!(
                role,
                Role::Textbox | Role::Slider | Role::Picker | Role::Progress
            ) && !it.pieces.iter().any(|p| p == &v);
            if show {
                let v = if e.states.password {
                    "•••".to_string()
                } else {
                    v
                };
                let _ = write!(out, " = \"{v}\"");
            }
        }
        states(&mut out, e);
        out.push('\n');
    }
    let more = offscreen.describe();
    if !more.is_empty() {
        let _ = writeln!(out, "… {more}");
    }
    out
}

fn states(out: &mut String, e: &Element) {
    let s = &e.states;
    if matches!(e.role, Role::Switch | Role::Checkbox | Role::Radio) || s.checkable {
        out.push_str(if s.checked { " checked" } else { " unchecked" });
    }
    if !s.enabled {
        out.push_str(" disabled");
    }
    if s.selected {
        out.push_str(" selected");
    }
    if s.focused {
        out.push_str(" focused");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::model::{Rect, States};
    use crate::ui::refs::RefEntry;

    #[test]
    fn lines() {
        let els = vec![
            Element {
                role: Role::Switch,
                name: Some("Wi-Fi".into()),
                states: States {
                    checkable: true,
                    checked: true,
                    clickable: true,
                    ..States::default()
                },
                ..Element::default()
            },
            Element {
                role: Role::Text,
                name: Some("Hello".into()),
                ..Element::default()
            },
            Element {
                role: Role::Button,
                id: Some("com.app:id/send".into()),
                states: States {
                    clickable: true,
                    enabled: false,
                    ..States::default()
                },
                ..Element::default()
            },
        ];
        let items = vec![
            Item {
                node: 0,
                depth: 0,
                actionable: true,
                pieces: vec!["Wi-Fi".into(), "On".into()],
            },
            Item {
                node: 1,
                depth: 1,
                actionable: false,
                pieces: vec!["Hello".into()],
            },
            Item {
                node: 2,
                depth: 0,
                actionable: true,
                pieces: vec![],
            },
        ];
        let entry = |r: &str, node| RefEntry {
            r#ref: r.into(),
            node,
            role: Role::Button,
            name: None,
            bounds: Rect::default(),
            identity: 0,
        };
        let refs = RefTable {
            entries: vec![entry("e1", 0), entry("e2", 2)],
        };
        let off = Offscreen {
            below: 4,
            ..Offscreen::default()
        };
        let t = render(&els, &items, &refs, &off, None);
        assert_eq!(
            t,
            "switch \"Wi-Fi · On\" [e1] checked\n  \"Hello\"\nbutton #send [e2] disabled\n… 4 more below\n"
        );
    }
}
