//! Touch target size: a control smaller than 48×48 dp on Android or 44×44 pt on iOS, in the
//! platform's own units (Android pixels divided by the density's dp). Under 24 is below WCAG
//! 2.2's minimum (2.5.8) and an error; between 24 and the platform's size a warning. A target cut
//! short by the screen edge or by a scrolling container (its bounds are what is visible now) is
//! reported as such, as information.

use crate::ui::{Rect, Role};

use super::context::Context;
use super::finding::{Finding, Measure, Rule, Severity};

/// WCAG 2.2's minimum target size (2.5.8), in CSS pixels, taken as dp or pt.
const WCAG_MINIMUM: f64 = 24.0;
/// Edge tolerance, in tree units: bounds within this of an edge touch it.
const TOUCH: f64 = 1.0;

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(per_dp) = cx.units_per_dp() else {
        return;
    };
    let needed = if cx.ios() { 44.0 } else { 48.0 };
    let unit = cx.size_unit();
    let screen = cx.screen.screen_rect();
    for i in cx.nodes() {
        let e = cx.el(i);
        if !cx.control[i] || !e.states.enabled {
            continue;
        }
        let b = e.bounds;
        let (w, h) = (b.w / per_dp, b.h / per_dp);
        if w >= needed && h >= needed {
            continue;
        }
        let short_w = w < needed;
        let short_h = h < needed;
        let limit = if cut(&b, &screen, short_w, short_h) {
            Some("limited by the screen edge")
        } else if scrolling_parent(cx, i).is_some_and(|p| cut(&b, &p, short_w, short_h)) {
            Some("limited by a scrolling container; it may be larger when scrolled into view")
        } else {
            None
        };
        let smallest = w.min(h);
        let severity = match limit {
            Some(_) => Severity::Info,
            None if smallest < WCAG_MINIMUM => Severity::Error,
            None => Severity::Warning,
        };
        let mut detail = format!(
            "{}×{} {unit}, needs {needed}×{needed} {unit}",
            round1(w),
            round1(h)
        );
        if let Some(l) = limit {
            detail.push_str(" (");
            detail.push_str(l);
            detail.push(')');
        }
        out.push(cx.finding(
            Rule::TouchTarget,
            severity,
            i,
            Some(Measure {
                value: round1(smallest),
                needed,
                unit: unit.into(),
            }),
            detail,
            if cx.ios() {
                "Make the tappable area at least 44×44 pt (a larger frame or contentShape), even if the icon stays small."
            } else {
                "Make the tappable area at least 48×48 dp (minHeight/minWidth or padding; Compose: Modifier.minimumInteractiveComponentSize)."
            },
        ));
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// Whether `b` touches an edge of `frame` on a side it is short in.
fn cut(b: &Rect, frame: &Rect, short_w: bool, short_h: bool) -> bool {
    let touches = |a: f64, f: f64| (a - f).abs() <= TOUCH;
    (short_w && (touches(b.x, frame.x) || touches(b.right(), frame.right())))
        || (short_h && (touches(b.y, frame.y) || touches(b.bottom(), frame.bottom())))
}

/// The bounds of the nearest scrolling ancestor.
fn scrolling_parent(cx: &Context<'_>, i: usize) -> Option<Rect> {
    let mut c = cx.el(i).parent;
    let mut steps = 0;
    while let Some(p) = c {
        let e = cx.el(p);
        if e.states.scrollable || e.role == Role::List {
            return Some(e.bounds);
        }
        steps += 1;
        if steps > 256 {
            return None;
        }
        c = e.parent;
    }
    None
}
