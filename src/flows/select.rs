//! Maestro's element selectors on a screen read: `text` and `id` are regular expressions
//! matched whole (text against the element's text, name and content description (accessibility label); `id` against
//! the resource-id whole or its last segment), then the state filters, the relations
//! (`below`, `childOf`…) and `index`, in reading order. Points are pixels or percents.

use regex::Regex;

use super::model::{Point, Selector};
use crate::ui::{Element, Rect, Screen};

/// Parses Maestro's `"x, y"` point (pixels) or `"x%, y%"` (percent of the screen).
pub fn point(s: &str) -> Result<Point, String> {
    let bad = || format!("a point is `x, y` in pixels or `x%, y%`, not `{s}`");
    let (x, y) = s.split_once(',').ok_or_else(bad)?;
    let (x, y) = (x.trim(), y.trim());
    let percent = x.ends_with('%') && y.ends_with('%');
    let num = |v: &str| {
        v.trim_end_matches('%')
            .trim()
            .parse::<f64>()
            .map_err(|_| bad())
    };
    let p = Point {
        x: num(x)?,
        y: num(y)?,
        percent,
    };
    if p.x < 0.0 || p.y < 0.0 || (percent && (p.x > 100.0 || p.y > 100.0)) {
        return Err(bad());
    }
    Ok(p)
}

/// The point on a screen of `size` (width, height) in pixels.
pub fn to_pixels(p: Point, size: (f64, f64)) -> (i64, i64) {
    match p.percent {
        true => (
            (p.x * size.0 / 100.0).round() as i64,
            (p.y * size.1 / 100.0).round() as i64,
        ),
        false => (p.x.round() as i64, p.y.round() as i64),
    }
}

fn whole(re: &str) -> Result<Regex, String> {
    Regex::new(&format!("^(?s:{re})$"))
        .map_err(|e| format!("`{re}` is not a regular expression: {e}"))
}

/// The texts Maestro matches `text` against.
fn texts(e: &Element) -> impl Iterator<Item = &str> {
    [e.text.as_deref(), e.name.as_deref(), e.desc.as_deref()]
        .into_iter()
        .flatten()
}

fn id_matches(re: &Regex, e: &Element) -> bool {
    e.id.as_deref().is_some_and(|id| {
        re.is_match(id) || id.rsplit('/').next().is_some_and(|last| re.is_match(last))
    })
}

/// The indices of the elements of `screen` that `sel` matches, in reading order
/// (`index` not applied).
pub fn candidates(screen: &Screen, sel: &Selector) -> Result<Vec<usize>, String> {
    let text = sel.text.as_deref().map(whole).transpose()?;
    let id = sel.id.as_deref().map(whole).transpose()?;
    let rel = |s: &Option<Box<Selector>>| -> Result<Option<Vec<Rect>>, String> {
        s.as_deref()
            .map(|s| {
                Ok(pick(screen, s)?
                    .into_iter()
                    .map(|i| screen.elements[i].bounds)
                    .collect())
            })
            .transpose()
    };
    let (below, above, left_of, right_of) = (
        rel(&sel.below)?,
        rel(&sel.above)?,
        rel(&sel.left_of)?,
        rel(&sel.right_of)?,
    );
    let child_of = rel(&sel.child_of)?;
    let contains = rel(&sel.contains_child)?;
    let mut out = vec![];
    for (i, e) in screen.elements.iter().enumerate() {
        let b = e.bounds;
        let ok = text
            .as_ref()
            .is_none_or(|re| texts(e).any(|t| re.is_match(t)))
            && id.as_ref().is_none_or(|re| id_matches(re, e))
            && sel.enabled.is_none_or(|v| e.states.enabled == v)
            && sel.checked.is_none_or(|v| e.states.checked == v)
            && sel.focused.is_none_or(|v| e.states.focused == v)
            && sel.selected.is_none_or(|v| e.states.selected == v)
            && below
                .as_ref()
                .is_none_or(|rs| rs.iter().any(|r| b.y >= r.y + r.h))
            && above
                .as_ref()
                .is_none_or(|rs| rs.iter().any(|r| b.y + b.h <= r.y))
            && left_of
                .as_ref()
                .is_none_or(|rs| rs.iter().any(|r| b.x + b.w <= r.x))
            && right_of
                .as_ref()
                .is_none_or(|rs| rs.iter().any(|r| b.x >= r.x + r.w))
            && child_of
                .as_ref()
                .is_none_or(|rs| rs.iter().any(|r| inside(b, *r) && b != *r))
            && contains
                .as_ref()
                .is_none_or(|rs| rs.iter().any(|r| inside(*r, b) && b != *r));
        if ok && b.w > 0.0 && b.h > 0.0 {
            out.push(i);
        }
    }
    Ok(out)
}

fn inside(a: Rect, outer: Rect) -> bool {
    a.x >= outer.x
        && a.y >= outer.y
        && a.x + a.w <= outer.x + outer.w
        && a.y + a.h <= outer.y + outer.h
}

/// The matches after `index` (Maestro: the n-th in reading order; without it, all).
pub fn pick(screen: &Screen, sel: &Selector) -> Result<Vec<usize>, String> {
    let all = candidates(screen, sel)?;
    match &sel.index {
        None => Ok(all),
        Some(i) => {
            let n: usize = i
                .trim()
                .parse()
                .map_err(|_| format!("`index` is a number, not `{i}`"))?;
            Ok(all.get(n).map(|&e| vec![e]).unwrap_or_default())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(path: &str) -> Screen {
        let text =
            std::fs::read_to_string(format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR")))
                .expect("fixture");
        let tree = crate::ui::parse::parse_any(&text).expect("dump");
        crate::ui::analyze_owned(tree, None, &Default::default())
    }

    fn sel(text: Option<&str>, id: Option<&str>) -> Selector {
        Selector {
            text: text.map(Into::into),
            id: id.map(Into::into),
            ..Selector::default()
        }
    }

    #[test]
    fn maestro_semantics_on_a_real_uiautomator_dump() {
        let s = screen("android_uiautomator/fdroid_app_list.xml");
        let count = |sel: &Selector| candidates(&s, sel).expect("regex").len();
        let cases: &[(Selector, usize)] = &[
            // Whole match: a prefix alone matches nothing; a regex spanning it does.
            (sel(Some("Send usage data"), None), 1),
            (sel(Some("Send usage"), None), 0),
            (sel(Some("Send usage.*"), None), 1),
            (sel(Some("(?i)send USAGE data"), None), 1),
            (sel(Some("Force old .*"), None), 2),
            // id: whole, or its last segment.
            (sel(None, Some("org.fdroid.fdroid:id/switchWidget")), 7),
            (sel(None, Some("switchWidget")), 7),
            (sel(None, Some("switch")), 0),
        ];
        for (sel, want) in cases {
            assert_eq!(count(sel), *want, "{}", sel.describe());
        }
        // index: the n-th match in reading order; out of range matches nothing.
        let force = sel(Some("Force old .*"), None);
        let all = candidates(&s, &force).expect("regex");
        let second = Selector {
            index: Some("1".into()),
            ..force.clone()
        };
        assert_eq!(pick(&s, &second).expect("pick"), vec![all[1]]);
        let tenth = Selector {
            index: Some("9".into()),
            ..force.clone()
        };
        assert!(pick(&s, &tenth).expect("pick").is_empty());
        // below: the second "Force old" is below the first.
        let below = Selector {
            below: Some(Box::new(sel(Some("Force old index format"), None))),
            ..force
        };
        assert_eq!(pick(&s, &below).expect("pick"), vec![all[1]]);
        // A bad regex is an error, not a panic.
        assert!(candidates(&s, &sel(Some("("), None)).is_err());
    }

    #[test]
    fn maestro_semantics_on_a_real_axe_tree() {
        let s = screen(
            "ios_axe/axe_describe_ui_contacts_search_subtree_ios18.5_axe1.8_reformatted.json",
        );
        let count = |sel: &Selector| candidates(&s, sel).expect("regex").len();
        let cases: &[(Selector, usize)] = &[
            // text: the accessibility label (the image's "Search"), whole.
            (sel(Some("Dictate"), None), 1),
            (sel(Some("Dict"), None), 0),
            (sel(Some("Dict.*"), None), 1),
            (sel(Some("(?i)dictate"), None), 1),
            // id: the accessibility identifier, whole.
            (sel(None, Some("magnifyingglass")), 1),
            (sel(None, Some("magnifying.*")), 1),
            (sel(None, Some("magnifying")), 0),
            (sel(Some("Nothing like it"), None), 0),
        ];
        for (sel, want) in cases {
            assert_eq!(count(sel), *want, "{}", sel.describe());
        }
        // Relations in points: the dictation button is right of the magnifying glass.
        let right = Selector {
            right_of: Some(Box::new(sel(None, Some("magnifyingglass")))),
            ..sel(None, Some("Dictate"))
        };
        assert_eq!(pick(&s, &right).expect("pick").len(), 1);
        let left = Selector {
            left_of: Some(Box::new(sel(None, Some("magnifyingglass")))),
            ..sel(None, Some("Dictate"))
        };
        assert!(pick(&s, &left).expect("pick").is_empty());
    }

    #[test]
    fn points_in_pixels_and_percent() {
        assert_eq!(
            to_pixels(point("50%, 20%").expect("pct"), (1080.0, 2400.0)),
            (540, 480)
        );
        assert_eq!(
            to_pixels(point("100,200").expect("px"), (0.0, 0.0)),
            (100, 200)
        );
        assert!(point("150%, 2%").is_err() && point("x").is_err());
    }
}
