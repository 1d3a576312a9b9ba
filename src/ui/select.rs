//! Selector engine: `{text | label | id | role, contains, case_insensitive, index}` resolved
//! against a [`Screen`], preferring the clickable ancestor (the element with a ref) of a matched
//! label; ambiguity is reported with candidates. Plus a scored free-text [`find_query`]
//! (exact > contains > fuzzy).

use super::model::{Element, Rect, Role};
use super::Screen;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Which element(s) an action targets. All given fields must match.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Selector {
    /// Matches the displayed text or the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Matches the accessibility label (name or content-desc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Matches the resource-id / accessibilityIdentifier, whole or its last segment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// A CSS selector, for web content inside a WebView (`#email`, `button[type=submit]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub css: Option<String>,
    /// The DOM nodes `css` matched in the screen's pages: filled by the controller before
    /// matching (the page answers CSS, the tree does not); unfilled, `css` matches nothing.
    #[serde(skip)]
    pub css_nodes: Option<Vec<u64>>,
    /// Substring instead of exact match for `text` and `label`.
    #[serde(default)]
    pub contains: bool,
    #[serde(default)]
    pub case_insensitive: bool,
    /// Picks the n-th (0-based) match in reading order instead of failing on ambiguity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
}

/// A resolved element.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Match {
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    /// Index into [`Screen::elements`].
    pub node: usize,
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub bounds: Rect,
}

/// A candidate listed when a selector is ambiguous.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Candidate {
    /// The element's ref, when it has one.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    /// The element's role.
    pub role: Role,
    /// The element's label, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The element's bounds, in the tree's coordinate space.
    pub bounds: Rect,
}

/// Why a selector names no single element.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelectError {
    /// None of `text`, `label`, `id`, `role` and `css` was given.
    #[error("the selector is empty: give text, label, id, role or css")]
    EmptySelector,
    /// No element matches.
    #[error("no element matches the selector")]
    NotFound,
    /// More than one element matches and no `index` picks one.
    #[error("{} elements match the selector", candidates.len())]
    Ambiguous {
        /// The matching elements, in reading order.
        candidates: Vec<Candidate>,
    },
    /// The `index` given is not below the number of matches.
    #[error("index {index} is out of range: {count} element(s) match")]
    IndexOutOfRange {
        /// The index asked for (0-based).
        index: usize,
        /// How many elements match.
        count: usize,
    },
}

fn norm(s: &str, ci: bool) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if ci {
        s.to_lowercase()
    } else {
        s
    }
}

fn text_match(hay: Option<&str>, needle: &str, sel: &Selector) -> bool {
    let Some(h) = hay else { return false };
    let h = norm(h, sel.case_insensitive);
    let n = norm(needle, sel.case_insensitive);
    if sel.contains {
        h.contains(&n)
    } else {
        h == n
    }
}

fn matches(e: &Element, sel: &Selector) -> bool {
    if let Some(t) = &sel.text {
        let ok = [e.text.as_deref(), e.name.as_deref(), e.value.as_deref()]
            .into_iter()
            .any(|h| text_match(h, t, sel));
        if !ok {
            return false;
        }
    }
    if let Some(l) = &sel.label {
        let ok = [e.name.as_deref(), e.desc.as_deref()]
            .into_iter()
            .any(|h| text_match(h, l, sel));
        if !ok {
            return false;
        }
    }
    if let Some(id) = &sel.id {
        let ok = e.id.as_deref() == Some(id.as_str()) || e.id_tail() == Some(id.as_str());
        if !ok {
            return false;
        }
    }
    if let Some(r) = sel.role {
        if e.role != r {
            return false;
        }
    }
    if sel.css.is_some() {
        let matched = e
            .dom
            .is_some_and(|d| sel.css_nodes.as_ref().is_some_and(|n| n.contains(&d)));
        if !matched {
            return false;
        }
    }
    true
}

fn to_match(s: &Screen, i: usize) -> Match {
    let e = &s.elements[i];
    Match {
        r#ref: e.r#ref.clone(),
        node: i,
        role: e.role,
        name: s.name_of(i),
        bounds: e.bounds,
    }
}

/// All matches in reading order, each resolved to its element with a ref when it has one
/// (a matched label inside a button resolves to the button), duplicates removed.
pub fn find_all(s: &Screen, sel: &Selector) -> Vec<Match> {
    let n = s.shown.len().min(s.elements.len());
    let mut out: Vec<Match> = Vec::new();
    for i in 0..n {
        if !s.shown[i] || !matches(&s.elements[i], sel) {
            continue;
        }
        // With a role or CSS filter the matched element itself is the target.
        let target = if sel.role.is_some() || sel.css.is_some() {
            i
        } else {
            s.ref_owner(i).unwrap_or(i)
        };
        if !out.iter().any(|m| m.node == target) {
            out.push(to_match(s, target));
        }
    }
    out
}

/// Resolves a selector to exactly one element.
pub fn find(s: &Screen, sel: &Selector) -> Result<Match, SelectError> {
    if sel.text.is_none()
        && sel.label.is_none()
        && sel.id.is_none()
        && sel.role.is_none()
        && sel.css.is_none()
    {
        return Err(SelectError::EmptySelector);
    }
    let mut all = find_all(s, sel);
    if let Some(k) = sel.index {
        let count = all.len();
        if k < count {
            return Ok(all.swap_remove(k));
        }
        return Err(if count == 0 {
            SelectError::NotFound
        } else {
            SelectError::IndexOutOfRange { index: k, count }
        });
    }
    match all.len() {
        0 => Err(SelectError::NotFound),
        1 => Ok(all.remove(0)),
        _ => Err(SelectError::Ambiguous {
            candidates: all
                .into_iter()
                .map(|m| Candidate {
                    r#ref: m.r#ref,
                    role: m.role,
                    name: m.name,
                    bounds: m.bounds,
                })
                .collect(),
        }),
    }
}

/// A scored match of a free-text query.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ScoredMatch {
    #[serde(flatten)]
    pub element: Match,
    /// 0..1: 1.0 exact, 0.6–0.9 contains, below 0.6 fuzzy.
    pub score: f64,
    /// `exact`, `contains` or `fuzzy`.
    pub kind: String,
}

fn tokens(s: &str) -> Vec<String> {
    s.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

fn score_one(hay: &str, q: &str) -> Option<(f64, &'static str)> {
    let h = norm(hay, true);
    let qn = norm(q, true);
    if h.is_empty() || qn.is_empty() {
        return None;
    }
    if h == qn {
        return Some((1.0, "exact"));
    }
    if h.contains(&qn) {
        let ratio = qn.chars().count() as f64 / h.chars().count() as f64;
        return Some((0.6 + 0.3 * ratio, "contains"));
    }
    let ht = tokens(&h);
    let qt = tokens(&qn);
    if qt.is_empty() {
        return None;
    }
    // Every word of the query is a word of the text, punctuation aside ("order 1003" in
    // "Order #1003 · Delivered"): the text holds what was asked for.
    if qt.iter().all(|t| ht.contains(t)) {
        let ratio = qn.chars().count() as f64 / h.chars().count() as f64;
        return Some((0.6 + 0.3 * ratio.min(1.0), "contains"));
    }
    // A look-alike: at least half the query's words begin words of the text ("set" for
    // "Settings"). A word of the text that only begins a query word does not count: "1007"
    // is not "100 percent".
    let hit = qt
        .iter()
        .filter(|t| ht.iter().any(|w| w.starts_with(t.as_str())))
        .count();
    let f = hit as f64 / qt.len() as f64;
    (f >= 0.5).then_some((0.5 * f, "fuzzy"))
}

/// Scores every visible element against `query` (text, label, id, value); labels inside a
/// clickable element score for that element, which gets a small bonus. Best first; ties in
/// reading order.
pub fn find_query(s: &Screen, query: &str) -> Vec<ScoredMatch> {
    let n = s.shown.len().min(s.elements.len());
    let mut best: Vec<ScoredMatch> = Vec::new();
    for i in 0..n {
        if !s.shown[i] {
            continue;
        }
        let e = &s.elements[i];
        let fields = [
            e.name.as_deref(),
            e.text.as_deref(),
            e.desc.as_deref(),
            e.value.as_deref(),
            e.id_tail(),
        ];
        let Some((score, kind)) = fields
            .into_iter()
            .flatten()
            .filter_map(|h| score_one(h, query))
            .max_by(|a, b| a.0.total_cmp(&b.0))
        else {
            continue;
        };
        let target = s.ref_owner(i).unwrap_or(i);
        let bonus = if s.elements[target].r#ref.is_some() {
            0.05
        } else {
            0.0
        };
        let score = (score + bonus).min(1.0);
        match best.iter_mut().find(|m| m.element.node == target) {
            Some(m) if m.score >= score => {}
            Some(m) => {
                m.score = score;
                m.kind = kind.into();
            }
            None => best.push(ScoredMatch {
                element: to_match(s, target),
                score,
                kind: kind.into(),
            }),
        }
    }
    best.sort_by(|a, b| b.score.total_cmp(&a.score));
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_the_query_make_a_match_and_look_alikes_need_their_beginnings() {
        assert_eq!(score_one("Settings", "settings"), Some((1.0, "exact")));
        let (score, kind) = score_one("Order #1003 · Delivered · 5 items", "Order 1003").unwrap();
        assert_eq!(kind, "contains");
        assert!((0.6..0.9).contains(&score), "{score}");
        // A query word that only begins with a word of the text is no look-alike.
        assert_eq!(score_one("Battery 100 percent.", "1007"), None);
        assert_eq!(score_one("Order #1001 · 1 item", "1007"), None);
        assert_eq!(score_one("Settings", "set up"), Some((0.25, "fuzzy")));
        assert_eq!(score_one("Dark mode", "dark theme"), Some((0.25, "fuzzy")));
    }
    use crate::ui::{analyze, parse, DumpKind, ViewOptions};

    fn screen() -> Screen {
        let src = r#"<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="a" bounds="[0,0][1000,2000]" enabled="true">
<node class="android.widget.LinearLayout" clickable="true" resource-id="a:id/row" package="a" enabled="true" bounds="[0,0][1000,200]"><node class="android.widget.TextView" text="Wi-Fi" package="a" enabled="true" bounds="[0,0][500,100]"/></node>
<node class="android.widget.LinearLayout" clickable="true" resource-id="a:id/row" package="a" enabled="true" bounds="[0,200][1000,400]"><node class="android.widget.TextView" text="Bluetooth" package="a" enabled="true" bounds="[0,200][500,300]"/></node>
<node class="android.widget.Button" text="Wi-Fi calling" clickable="true" package="a" enabled="true" bounds="[0,400][1000,600]"/>
</node></hierarchy>"#;
        analyze(
            &parse(DumpKind::Uiautomator, src).unwrap(),
            None,
            &ViewOptions::default(),
        )
    }

    #[test]
    fn exact_text_resolves_to_clickable_row() {
        let s = screen();
        let m = find(
            &s,
            &Selector {
                text: Some("wi-fi".into()),
                case_insensitive: true,
                ..Selector::default()
            },
        )
        .unwrap();
        assert_eq!(m.r#ref.as_deref(), Some("e1"));
        assert_eq!(m.role, Role::Button);
        assert_eq!(m.bounds.h, 200.0);
        // The row has no label of its own: it goes by the text its line prints.
        assert_eq!(m.name.as_deref(), Some("Wi-Fi"));
    }

    #[test]
    fn ambiguity_not_found_and_index() {
        let s = screen();
        let sel = Selector {
            text: Some("Wi-Fi".into()),
            contains: true,
            ..Selector::default()
        };
        match find(&s, &sel) {
            Err(SelectError::Ambiguous { candidates }) => {
                let names: Vec<_> = candidates.iter().map(|c| c.name.as_deref()).collect();
                assert_eq!(names, [Some("Wi-Fi"), Some("Wi-Fi calling")]);
            }
            other => panic!("{other:?}"),
        }
        let m = find(
            &s,
            &Selector {
                index: Some(1),
                ..sel.clone()
            },
        )
        .unwrap();
        assert_eq!(m.name.as_deref(), Some("Wi-Fi calling"));
        let nf = Selector {
            text: Some("Nope".into()),
            ..Selector::default()
        };
        assert_eq!(find(&s, &nf), Err(SelectError::NotFound));
        let by_id = Selector {
            id: Some("row".into()),
            ..Selector::default()
        };
        assert!(matches!(
            find(&s, &by_id),
            Err(SelectError::Ambiguous { .. })
        ));
        assert_eq!(
            find(&s, &Selector::default()),
            Err(SelectError::EmptySelector)
        );
    }

    #[test]
    fn scored_query() {
        let s = screen();
        let r = find_query(&s, "wi-fi");
        assert_eq!(r[0].kind, "exact");
        assert_eq!(r[0].element.r#ref.as_deref(), Some("e1"));
        assert_eq!(r[1].kind, "contains");
        assert!(r[0].score > r[1].score);
        let f = find_query(&s, "blue tooth");
        assert!(f.is_empty() || f[0].kind == "fuzzy");
        let f = find_query(&s, "bluetooth settings");
        assert_eq!(f[0].kind, "fuzzy");
    }
}
