//! What changed between two reads of a screen, in the words of the compact text: the lines that
//! appeared, disappeared or changed (a line with a ref that kept its ref but reads otherwise),
//! plus the foreground app when it changed. An alert or the keyboard coming or going is a line
//! like any other (`! alert`, `keyboard [e6]`). It is what an action answers
//! with `observe: true`, so an agent can go on without a new snapshot.
//!
//! Lines with a ref are matched by ref when the ref still names the same element (refs of
//! unchanged elements are stable across reads; on another screen numbering starts again, so
//! the element's identity is compared too); lines without one (plain texts) by their text, as
//! a multiset. When no line with a ref survives, the screen was replaced: the new lines are
//! listed and the old ones only counted.

use std::collections::HashMap;

use serde::Serialize;
use utoipa::ToSchema;

use super::Screen;

/// The difference between two reads of a screen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ToSchema)]
pub struct Changes {
    /// Lines of the new read that the old one did not have.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub appeared: Vec<String>,
    /// Lines of the old read that are gone (not listed when the screen was replaced).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disappeared: Vec<String>,
    /// Lines whose element kept its ref but reads otherwise, as they read now.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    /// No line with a ref survived: a new screen. `disappeared` is then the count only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub replaced: bool,
    /// How many old lines are gone when `replaced` (they are not listed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gone: Option<usize>,
    /// The foreground app, when it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
}

impl Changes {
    /// Nothing differs.
    pub fn is_empty(&self) -> bool {
        *self == Changes::default()
    }
}

/// A line of the compact text without its indentation, and its ref if it has one.
fn parse_line(line: &str) -> (&str, Option<&str>) {
    let text = line.trim_start();
    // The ref is the last ` [eN]` followed by the end of the line or a state word: one inside
    // a quoted label is followed by more of the label.
    let r = text.rfind(" [e").and_then(|i| {
        let rest = &text[i + 2..];
        let end = rest.find(']')?;
        let r = &rest[..end];
        let after = &rest[end + 1..];
        let is_ref = r.len() > 1 && r[1..].bytes().all(|b| b.is_ascii_digit());
        (is_ref && (after.is_empty() || after.starts_with(' '))).then_some(r)
    });
    (text, r)
}

/// The lines that have a ref, by ref.
fn by_ref<'a>(lines: &[(&'a str, Option<&'a str>)]) -> HashMap<&'a str, &'a str> {
    lines
        .iter()
        .filter_map(|(t, r)| Some(((*r)?, *t)))
        .collect()
}

/// The changes from `before` to `after`.
pub fn diff(before: &Screen, after: &Screen) -> Changes {
    let old: Vec<(&str, Option<&str>)> = before.tree_text.lines().map(parse_line).collect();
    let new: Vec<(&str, Option<&str>)> = after.tree_text.lines().map(parse_line).collect();
    let old_by_ref = by_ref(&old);
    let new_refs = by_ref(&new);
    let identities = |screen: &Screen| -> HashMap<String, u64> {
        screen
            .refs
            .entries
            .iter()
            .map(|e| (e.r#ref.clone(), e.identity))
            .collect()
    };
    let (old_ids, new_ids) = (identities(before), identities(after));
    // The ref names the same element in both reads.
    let same = |r: &str| matches!((old_ids.get(r), new_ids.get(r)), (Some(a), Some(b)) if a == b);

    // Plain lines, counted: what the new read has more of appeared, what it has less of left.
    let mut plain: HashMap<&str, i64> = HashMap::new();
    for (t, r) in &old {
        if r.is_none() {
            *plain.entry(t).or_default() -= 1;
        }
    }
    let mut changes = Changes::default();
    for (t, r) in &new {
        match r {
            Some(r) => match old_by_ref.get(r).filter(|_| same(r)) {
                None => changes.appeared.push(t.to_string()),
                Some(was) if was != t => changes.changed.push(t.to_string()),
                Some(_) => {}
            },
            None => {
                let n = plain.entry(t).or_default();
                if *n < 0 {
                    *n += 1;
                } else {
                    changes.appeared.push(t.to_string());
                }
            }
        }
    }
    let mut gone = Vec::new();
    for (t, r) in &old {
        match r {
            Some(r) if !new_refs.contains_key(r) || !same(r) => gone.push(t.to_string()),
            Some(_) => {}
            None => {
                let n = plain.entry(t).or_default();
                if *n < 0 {
                    *n += 1;
                    gone.push(t.to_string());
                }
            }
        }
    }
    let old_had_refs = !old_by_ref.is_empty();
    changes.replaced = old_had_refs
        && old_by_ref
            .keys()
            .all(|r| !new_refs.contains_key(r) || !same(r));
    if changes.replaced {
        changes.gone = Some(gone.len());
    } else {
        changes.disappeared = gone;
    }
    if before.foreground != after.foreground {
        changes.app = after.foreground.clone();
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::{analyze, ViewOptions};

    fn screen(xml: &str) -> Screen {
        let tree = crate::ui::parse_any(xml).unwrap();
        analyze(&tree, None, &ViewOptions::default())
    }

    fn text(tree: &str) -> Screen {
        let mut s = screen(LOGIN);
        s.tree_text = tree.to_string();
        s
    }

    const LOGIN: &str = r#"<?xml version="1.0"?><hierarchy rotation="0">
<node class="android.widget.FrameLayout" package="com.demo" bounds="[0,0][1080,2400]">
<node class="android.widget.EditText" resource-id="com.demo:id/user" text="" clickable="true" focusable="true" bounds="[80,700][1000,840]"/>
<node class="android.widget.Button" text="LOG IN" clickable="true" bounds="[80,1220][1000,1360]"/>
</node></hierarchy>"#;

    #[test]
    fn a_line_that_kept_its_ref_is_changed_not_new() {
        let before = text("\"Welcome\"\ntextbox #user [e1]\nbutton \"LOG IN\" [e2]\n");
        let after = text("\"Welcome\"\ntextbox #user [e1] = \"alice\"\nbutton \"LOG IN\" [e2]\n");
        let c = diff(&before, &after);
        assert_eq!(c.changed, ["textbox #user [e1] = \"alice\""]);
        assert!(c.appeared.is_empty() && c.disappeared.is_empty(), "{c:?}");
        assert!(!c.replaced);
        assert!(diff(&after, &after).is_empty());
    }

    #[test]
    fn plain_lines_are_counted_and_indentation_ignored() {
        let before = text("\"Total\"\n\"1\"\n\"1\"\nbutton \"Add\" [e1]\n");
        let after =
            text("  \"Total\"\n\"1\"\n\"2\"\nbutton \"Add\" [e1]\n  button \"Undo\" [e2]\n");
        let c = diff(&before, &after);
        assert_eq!(c.appeared, ["\"2\"", "button \"Undo\" [e2]"]);
        assert_eq!(c.disappeared, ["\"1\""]);
        assert!(c.changed.is_empty());
    }

    #[test]
    fn a_new_screen_lists_the_new_lines_and_counts_the_old() {
        let before = text("\"Welcome\"\ntextbox #user [e1]\nbutton \"LOG IN\" [e2]\n\"12:00\"\n");
        // Another screen numbers its refs from e1 again: other elements under the same refs.
        let mut after = text(
            "alert \"Allow access?\"\nbutton \"Allow\" [e1]\nbutton \"Deny\" [e2]\n\"12:00\"\n",
        );
        after.refs.entries.iter_mut().for_each(|e| e.identity ^= 1);
        let c = diff(&before, &after);
        assert!(c.replaced);
        assert_eq!(c.gone, Some(3));
        assert!(c.disappeared.is_empty());
        assert_eq!(c.appeared.len(), 3, "{c:?}");
        let json = serde_json::to_value(&c).unwrap();
        assert!(
            json.get("disappeared").is_none() && json.get("changed").is_none(),
            "{json}"
        );
    }

    #[test]
    fn refs_are_read_only_from_the_end_of_a_line() {
        assert_eq!(
            parse_line("  button \"A\" [e12] focused"),
            ("button \"A\" [e12] focused", Some("e12"))
        );
        assert_eq!(parse_line("\"see [e3]\"").1, None);
        assert_eq!(parse_line("button \"x [e9]\" [e10]").1, Some("e10"));
        assert_eq!(parse_line("\"[ex]\"").1, None);
    }

    #[test]
    fn the_app_is_named_when_it_changed() {
        let before = screen(LOGIN);
        let mut after = before.clone();
        after.foreground = Some("com.other".into());
        let c = diff(&before, &after);
        assert_eq!(c.app.as_deref(), Some("com.other"));
        assert!(diff(&before, &before).app.is_none());
    }
}
