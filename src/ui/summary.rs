//! Screen summary (seed 004 §7.3): app, title, counts by role, interactive elements, alert,
//! keyboard, focused field, scroll containers and a one-paragraph description. Deterministic:
//! the same screen gives the same summary.

use super::fingerprint::status_bar_mask;
use super::model::{Rect, Role};
use super::{Alert, Offscreen, Screen};
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// An element an agent can act on.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SummaryElement {
    #[serde(rename = "ref")]
    pub r#ref: String,
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub bounds: Rect,
}

/// What an agent needs to know about a screen at a glance.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ScreenSummary {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub screen_description: String,
    /// Listed elements by role (lowercase role names, sorted).
    pub element_counts: BTreeMap<String, usize>,
    pub interactive_elements: Vec<SummaryElement>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alert: Option<Alert>,
    pub keyboard_visible: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focused: Option<SummaryElement>,
    pub scroll_containers: Vec<SummaryElement>,
    pub offscreen: Offscreen,
    pub fingerprint: String,
}

fn entry(s: &Screen, i: usize) -> Option<SummaryElement> {
    let e = &s.elements[i];
    Some(SummaryElement {
        r#ref: e.r#ref.clone()?,
        role: e.role,
        name: s.name_of(i).or_else(|| e.id_tail().map(str::to_string)),
        bounds: e.bounds,
    })
}

/// The title: a heading or navigation bar, else a title-like text near the top.
pub fn title(s: &Screen) -> Option<String> {
    let screen = s.screen_rect();
    let top = |i: usize| s.elements[i].bounds.y < screen.y + screen.h * 0.3;
    let bar = status_bar_mask(&s.elements, screen);
    let usable = |i: usize| s.shown[i] && !bar[i];
    let n = s.elements.len().min(s.shown.len());
    let heading = (0..n).find(|&i| {
        let e = &s.elements[i];
        usable(i)
            && e.label().is_some()
            && (e.role == Role::Heading
                || (e.role == Role::Toolbar
                    && e.class
                        .as_deref()
                        .is_some_and(|c| c.contains("NavigationBar"))))
    });
    let titled = || {
        (0..n).find(|&i| {
            let e = &s.elements[i];
            usable(i)
                && top(i)
                && e.label().is_some()
                && !e.states.clickable
                && e.id_tail()
                    .is_some_and(|t| t.to_ascii_lowercase().contains("title"))
        })
    };
    let first_text = || {
        s.listed.iter().copied().find(|&i| {
            let e = &s.elements[i];
            i < n && usable(i) && top(i) && e.role == Role::Text && e.label().is_some()
        })
    };
    heading
        .or_else(titled)
        .or_else(first_text)
        .and_then(|i| s.elements[i].label().map(str::to_string))
        .or_else(|| s.alert.as_ref().and_then(|a| a.title.clone()))
}

/// The summary of an analysed screen: the same screen gives the same summary.
pub fn summarize(s: &Screen) -> ScreenSummary {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for &i in &s.listed {
        *counts
            .entry(s.elements[i].role.as_str().to_string())
            .or_default() += 1;
    }
    let interactive: Vec<SummaryElement> = s
        .refs
        .entries
        .iter()
        .filter_map(|r| entry(s, r.node))
        .collect();
    let scroll: Vec<SummaryElement> = s
        .refs
        .entries
        .iter()
        .filter(|r| s.elements[r.node].states.scrollable)
        .filter_map(|r| entry(s, r.node))
        .collect();
    let focused = s
        .focused
        .as_deref()
        .and_then(|r| s.refs.get(r))
        .and_then(|r| entry(s, r.node));
    let title = title(s);
    let mut d = String::new();
    if let Some(app) = &s.foreground {
        d.push_str(app);
        d.push_str(": ");
    }
    match &title {
        Some(t) => d.push_str(&format!("\"{}\". ", super::prune::clean(t))),
        None => d.push_str("untitled screen. "),
    }
    let parts: Vec<String> = counts
        .iter()
        .filter(|(r, _)| r.as_str() != "keyboard")
        .map(|(r, n)| format!("{n} {r}"))
        .collect();
    d.push_str(&parts.join(", "));
    d.push('.');
    if let Some(a) = &s.alert {
        d.push_str(&format!(
            " Alert \"{}\" with {} button(s).",
            a.title.as_deref().unwrap_or(""),
            a.buttons.len()
        ));
    }
    if s.keyboard.is_some() {
        d.push_str(" Keyboard is up.");
    }
    if let Some(f) = &focused {
        d.push_str(&format!(
            " Focus: {} {}.",
            f.role.as_str(),
            f.name.as_deref().unwrap_or(&f.r#ref)
        ));
    }
    let more = s.offscreen.describe();
    if !more.is_empty() {
        d.push_str(&format!(" Off screen: {more}."));
    }
    ScreenSummary {
        app: s.foreground.clone(),
        title,
        screen_description: d,
        element_counts: counts,
        interactive_elements: interactive,
        alert: s.alert.clone(),
        keyboard_visible: s.keyboard.is_some(),
        focused,
        scroll_containers: scroll,
        offscreen: s.offscreen,
        fingerprint: s.fingerprint.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::{analyze, parse, DumpKind, ViewOptions};

    #[test]
    fn summary_of_small_dump() {
        let src = r#"<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="com.app" bounds="[0,0][1000,2000]" enabled="true">
<node class="android.widget.TextView" resource-id="com.app:id/toolbar_title" text="Inbox" package="com.app" bounds="[0,100][500,200]" enabled="true"/>
<node class="android.widget.EditText" text="hi" package="com.app" focused="true" clickable="true" enabled="true" bounds="[0,300][1000,400]"/>
<node class="androidx.recyclerview.widget.RecyclerView" scrollable="true" package="com.app" enabled="true" bounds="[0,400][1000,2000]">
<node class="android.widget.Button" text="Send" clickable="true" package="com.app" enabled="true" bounds="[0,500][300,600]"/></node></node></hierarchy>"#;
        let t = parse(DumpKind::Uiautomator, src).unwrap();
        let s = analyze(&t, None, &ViewOptions::default());
        let sum = summarize(&s);
        assert_eq!(sum.title.as_deref(), Some("Inbox"));
        assert_eq!(sum.app.as_deref(), Some("com.app"));
        assert_eq!(sum.interactive_elements.len(), 3);
        assert_eq!(sum.scroll_containers.len(), 1);
        assert_eq!(sum.focused.as_ref().unwrap().role, Role::Textbox);
        assert_eq!(sum.element_counts.get("button"), Some(&1));
        assert_eq!(summarize(&s), sum);
    }
}
