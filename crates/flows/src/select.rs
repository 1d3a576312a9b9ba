//! Maestro's element selectors on a screen read: `text` and `id` are regular expressions
//! matched whole (text against the element's text, name and content description (accessibility label); `id` against
//! the resource-id whole or its last segment), then the state filters, the relations
//! (`below`, `childOf`…) and `index`, in reading order. Points are pixels or percents. A
//! screen read is what implements [`Screen`]: the product's own, or a list of [`Node`]s.

use regex::Regex;

use super::model::{Point, Selector};

/// Where an element is: its top-left corner, width and height, in the screen's coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bounds {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Bounds {
    /// Its centre, rounded to whole coordinates.
    pub fn center(&self) -> (i64, i64) {
        (
            (self.x + self.w / 2.0).round() as i64,
            (self.y + self.h / 2.0).round() as i64,
        )
    }
}

/// One element as selectors (and recordings) read it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Node<'a> {
    /// The displayed text (Android `text`, an iOS text or field's).
    pub text: Option<&'a str>,
    /// The best human label (Android text or content-desc, iOS label).
    pub name: Option<&'a str>,
    /// Android `content-desc`; iOS accessibility label when it differs from `name`.
    pub desc: Option<&'a str>,
    /// Android resource-id, iOS accessibilityIdentifier.
    pub id: Option<&'a str>,
    /// Where it is.
    pub bounds: Bounds,
    /// Enabled.
    pub enabled: bool,
    /// Checked.
    pub checked: bool,
    /// Focused.
    pub focused: bool,
    /// Selected.
    pub selected: bool,
    /// A password field (its text is masked).
    pub password: bool,
}

/// A screen read, as selectors see it: its elements in document order, its size, and a
/// fingerprint that is the same when the same screen is read twice.
pub trait Screen {
    /// How many elements it has.
    fn count(&self) -> usize;
    /// Element `i` (`i < count()`).
    fn node(&self, i: usize) -> Node<'_>;
    /// The screen's width and height, in the elements' coordinates.
    fn size(&self) -> (f64, f64);
    /// The same for the same screen read twice.
    fn fingerprint(&self) -> &str;
}

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
fn texts<'a>(e: &Node<'a>) -> impl Iterator<Item = &'a str> {
    [e.text, e.name, e.desc].into_iter().flatten()
}

fn id_matches(re: &Regex, e: &Node) -> bool {
    e.id.is_some_and(|id| {
        re.is_match(id) || id.rsplit('/').next().is_some_and(|last| re.is_match(last))
    })
}

/// The indices of the elements of `screen` that `sel` matches, in reading order
/// (`index` not applied).
pub fn candidates(screen: &(impl Screen + ?Sized), sel: &Selector) -> Result<Vec<usize>, String> {
    let text = sel.text.as_deref().map(whole).transpose()?;
    let id = sel.id.as_deref().map(whole).transpose()?;
    let rel = |s: &Option<Box<Selector>>| -> Result<Option<Vec<Bounds>>, String> {
        s.as_deref()
            .map(|s| {
                Ok(pick(screen, s)?
                    .into_iter()
                    .map(|i| screen.node(i).bounds)
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
    for i in 0..screen.count() {
        let e = screen.node(i);
        let b = e.bounds;
        let ok = text
            .as_ref()
            .is_none_or(|re| texts(&e).any(|t| re.is_match(t)))
            && id.as_ref().is_none_or(|re| id_matches(re, &e))
            && sel.enabled.is_none_or(|v| e.enabled == v)
            && sel.checked.is_none_or(|v| e.checked == v)
            && sel.focused.is_none_or(|v| e.focused == v)
            && sel.selected.is_none_or(|v| e.selected == v)
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

fn inside(a: Bounds, outer: Bounds) -> bool {
    a.x >= outer.x
        && a.y >= outer.y
        && a.x + a.w <= outer.x + outer.w
        && a.y + a.h <= outer.y + outer.h
}

/// The matches after `index` (Maestro: the n-th in reading order; without it, all).
pub fn pick(screen: &(impl Screen + ?Sized), sel: &Selector) -> Result<Vec<usize>, String> {
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
pub(crate) mod tests {
    use super::*;

    /// A screen of hand-made elements, for the crate's own tests.
    pub(crate) struct Made {
        pub nodes: Vec<Node<'static>>,
        pub fingerprint: String,
    }

    impl Screen for Made {
        fn count(&self) -> usize {
            self.nodes.len()
        }
        fn node(&self, i: usize) -> Node<'_> {
            self.nodes[i]
        }
        fn size(&self) -> (f64, f64) {
            (1080.0, 2400.0)
        }
        fn fingerprint(&self) -> &str {
            &self.fingerprint
        }
    }

    /// An element with `text` at (`x`, `y`), 100 by 50.
    pub(crate) fn at(
        text: &'static str,
        id: Option<&'static str>,
        x: f64,
        y: f64,
    ) -> Node<'static> {
        Node {
            text: Some(text),
            id,
            bounds: Bounds {
                x,
                y,
                w: 100.0,
                h: 50.0,
            },
            enabled: true,
            ..Node::default()
        }
    }

    fn sel(text: Option<&str>, id: Option<&str>) -> Selector {
        Selector {
            text: text.map(Into::into),
            id: id.map(Into::into),
            ..Selector::default()
        }
    }

    #[test]
    fn whole_matches_states_relations_and_index_on_a_made_screen() {
        let mut off = at("Off", Some("com.x:id/switch"), 0.0, 300.0);
        off.enabled = false;
        let s = Made {
            nodes: vec![
                at("Name", None, 0.0, 0.0),
                at("Field", Some("com.x:id/field"), 0.0, 100.0),
                at("Name", None, 200.0, 200.0),
                off,
                // Of no size: never matched.
                Node {
                    bounds: Bounds::default(),
                    ..at("Name", None, 0.0, 0.0)
                },
            ],
            fingerprint: "f".into(),
        };
        let got = |sel: &Selector| pick(&s, sel).expect("pick");
        assert_eq!(got(&sel(Some("Name"), None)), [0, 2]);
        assert!(got(&sel(Some("Nam"), None)).is_empty());
        assert_eq!(got(&sel(Some("(?i)name"), None)), [0, 2]);
        assert_eq!(got(&sel(None, Some("field"))), [1]);
        assert_eq!(got(&sel(None, Some("com.x:id/field"))), [1]);
        let enabled = Selector {
            enabled: Some(false),
            ..Selector::default()
        };
        assert_eq!(got(&enabled), [3]);
        let below = Selector {
            below: Some(Box::new(sel(None, Some("field")))),
            ..sel(Some("Name"), None)
        };
        assert_eq!(got(&below), [2]);
        let right = Selector {
            right_of: Some(Box::new(sel(Some("Field"), None))),
            ..Selector::default()
        };
        assert_eq!(got(&right), [2]);
        let second = Selector {
            index: Some("1".into()),
            ..sel(Some("Name"), None)
        };
        assert_eq!(got(&second), [2]);
        assert!(candidates(&s, &sel(Some("("), None)).is_err());
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
