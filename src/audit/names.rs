//! The rules on names, what a screen reader speaks: a control with no name, controls announced
//! with the same name, a name repeating the role, an editable field labelled by its content
//! description, a link named "click here".

use std::collections::HashMap;

use crate::ui::Role;

use super::context::Context;
use super::finding::{Finding, Measure, Rule, Severity};

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for i in cx.nodes() {
        let e = cx.el(i);
        if cx.control[i] {
            let spoken = cx.spoken(i);
            if spoken.is_none() && !cx.labelled_below[i] && e.value.is_none() && e.hint.is_none() {
                out.push(cx.finding(
                    Rule::UnnamedControl,
                    Severity::Error,
                    i,
                    None,
                    format!(
                        "{} with no text, no description and no labelled child",
                        e.role.as_str()
                    ),
                    if cx.ios() {
                        "Give it an accessibilityLabel (SwiftUI .accessibilityLabel)."
                    } else {
                        "Give it a contentDescription (Compose: Modifier.semantics { contentDescription }), or visible text."
                    },
                ));
            }
            if let Some(name) = spoken.as_deref() {
                let k = normalise(name);
                if !k.is_empty() {
                    let v = by_name.entry(k.clone()).or_default();
                    if v.is_empty() {
                        order.push(k);
                    }
                    v.push(i);
                }
                if let Some(phrase) = vague(&k_or(name)) {
                    let link = e.role == Role::Link;
                    out.push(cx.finding(
                        Rule::VagueLinkText,
                        if link {
                            Severity::Warning
                        } else {
                            Severity::Info
                        },
                        i,
                        None,
                        format!("named only \"{phrase}\", which says nothing out of context"),
                        "Name it by where it leads or what it does (\"Read the privacy policy\").",
                    ));
                }
            }
        }
        // What the app set as the spoken label: Android's content description, iOS's label.
        let label = if cx.ios() {
            e.name.as_deref()
        } else {
            e.desc.as_deref()
        };
        if let Some(word) = label.and_then(|l| repeated_role(e.role, l)) {
            out.push(cx.finding(
                Rule::NameRepeatsRole,
                Severity::Warning,
                i,
                None,
                format!("the name says \"{word}\", which the screen reader already announces as its role"),
                "Drop the role word from the label; the platform announces the role itself.",
            ));
        }
        if !cx.ios() && e.states.editable && e.desc.is_some() {
            out.push(cx.finding(
                Rule::FieldLabelledByDescription,
                Severity::Error,
                i,
                None,
                format!(
                    "content description \"{}\" is read instead of the field's text",
                    e.desc.as_deref().unwrap_or("")
                ),
                "Remove the contentDescription; label the field with a hint or a visible label (android:labelFor).",
            ));
        }
    }
    for k in order {
        let nodes = &by_name[&k];
        // Nested controls (a row and its own button) are one place, not two.
        let distinct: Vec<usize> = nodes
            .iter()
            .copied()
            .filter(|&a| {
                !nodes
                    .iter()
                    .any(|&b| b != a && cx.is_ancestor_or_self(b, a))
            })
            .collect();
        if distinct.len() < 2 {
            continue;
        }
        let first = distinct[0];
        let others: Vec<String> = distinct[1..]
            .iter()
            .map(|&o| {
                cx.screen
                    .ref_owner(o)
                    .and_then(|r| cx.el(r).r#ref.clone())
                    .unwrap_or_else(|| "?".into())
            })
            .collect();
        out.push(cx.finding(
            Rule::DuplicateName,
            Severity::Warning,
            first,
            Some(Measure {
                value: distinct.len() as f64,
                needed: 1.0,
                unit: "controls".into(),
            }),
            format!(
                "{} controls are announced as \"{}\" (also {})",
                distinct.len(),
                cx.spoken(first).unwrap_or_default(),
                others.join(" ")
            ),
            "Give each a name that says where it leads (\"Delete message from Ann\").",
        ));
    }
}

/// Lowercase, without surrounding spaces and punctuation.
fn normalise(s: &str) -> String {
    s.trim()
        .trim_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace() || c == '…')
        .to_lowercase()
}

fn k_or(s: &str) -> String {
    normalise(s)
}

/// Names that say nothing out of context (WCAG 2.4.4, link purpose).
const VAGUE: [&str; 11] = [
    "click here",
    "tap here",
    "here",
    "click",
    "more",
    "read more",
    "learn more",
    "link",
    "this link",
    "go",
    "details",
];

fn vague(normalised: &str) -> Option<&'static str> {
    VAGUE.iter().copied().find(|v| *v == normalised)
}

/// The words that name each role in English, as a screen reader already announces them.
fn role_words(r: Role) -> &'static [&'static str] {
    match r {
        Role::Button => &["button", "btn"],
        Role::Image => &["image", "picture", "graphic"],
        Role::Checkbox => &["checkbox", "check box"],
        Role::Switch => &["switch", "toggle"],
        Role::Radio => &["radio button"],
        Role::Link => &["link"],
        Role::Tab => &["tab"],
        Role::Slider => &["slider"],
        Role::Textbox => &["text field", "textbox", "edit text", "edit box"],
        Role::Heading => &["heading"],
        Role::Menuitem => &["menu item"],
        _ => &[],
    }
}

/// The role word `label` repeats, as a whole word (`"Send button"`, not `"Buttonwood"`).
fn repeated_role(r: Role, label: &str) -> Option<&'static str> {
    let l = label.to_lowercase();
    let words: Vec<&str> = l
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let joined = words.join(" ");
    role_words(r).iter().copied().find(|w| {
        let n = w.split(' ').count();
        words.windows(n).any(|win| win.join(" ") == *w) && !joined.is_empty()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_word_counts_only_as_a_whole_word_of_the_roles_own_vocabulary() {
        assert_eq!(repeated_role(Role::Button, "Send button"), Some("button"));
        assert_eq!(repeated_role(Role::Button, "BUTTON"), Some("button"));
        assert_eq!(repeated_role(Role::Button, "Buttonwood farm"), None);
        assert_eq!(repeated_role(Role::Image, "Image of a cat"), Some("image"));
        assert_eq!(repeated_role(Role::Text, "Image of a cat"), None);
        assert_eq!(
            repeated_role(Role::Radio, "Small radio button"),
            Some("radio button")
        );
        assert_eq!(repeated_role(Role::Radio, "Radio Caroline"), None);
    }

    #[test]
    fn vague_names_are_matched_whole_after_trimming_punctuation() {
        assert_eq!(vague(&normalise("  Click here! ")), Some("click here"));
        assert_eq!(vague(&normalise("Learn more…")), Some("learn more"));
        assert_eq!(vague(&normalise("Learn more about billing")), None);
    }
}
