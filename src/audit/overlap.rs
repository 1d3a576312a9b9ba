//! Overlapping clickable bounds: two controls of one window whose bounds share a region, neither
//! inside the other in the tree, so a tap there may reach the other one. Found by a sweep over
//! the controls sorted by their left edge, with a bound on the pairs compared so that a tree of
//! tens of thousands of controls is still audited in bounded time.

use super::context::Context;
use super::finding::{Finding, Measure, Rule, Severity};

/// Most pairs of controls compared.
const MAX_PAIRS: usize = 2_000_000;
/// Overlaps smaller than this share of the smaller control are rounding, not overlap.
const MIN_SHARE: f64 = 0.1;

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Finding>, skipped: &mut Vec<String>) {
    let screen_area = cx.screen.screen_rect().area();
    let mut cands: Vec<usize> = cx
        .nodes()
        .filter(|&i| {
            let e = cx.el(i);
            cx.control[i] && e.states.enabled && e.bounds.area() < 0.9 * screen_area
        })
        .collect();
    cands.sort_by(|&a, &b| cx.el(a).bounds.x.total_cmp(&cx.el(b).bounds.x));
    let window = |mut i: usize| {
        while let Some(p) = cx.el(i).parent {
            i = p;
        }
        i
    };
    let mut pairs = 0usize;
    let mut found: Vec<(usize, usize)> = Vec::new();
    'outer: for (k, &a) in cands.iter().enumerate() {
        let ba = cx.el(a).bounds;
        for &b in &cands[k + 1..] {
            let bb = cx.el(b).bounds;
            if bb.x >= ba.right() {
                break;
            }
            pairs += 1;
            if pairs > MAX_PAIRS {
                skipped.push(format!(
                    "overlapping-targets: stopped after {MAX_PAIRS} pairs of controls"
                ));
                break 'outer;
            }
            let Some(common) = ba.intersection(&bb) else {
                continue;
            };
            if common.area() < MIN_SHARE * ba.area().min(bb.area())
                || cx.is_ancestor_or_self(a, b)
                || cx.is_ancestor_or_self(b, a)
                || window(a) != window(b)
            {
                continue;
            }
            // Report the one later in the tree (drawn on top).
            found.push(if a > b { (a, b) } else { (b, a) });
        }
    }
    found.sort_unstable();
    // One finding per control on top, naming those it covers (an overlay covers many).
    let mut k = 0;
    while k < found.len() {
        let top = found[k].0;
        let under: Vec<usize> = found[k..]
            .iter()
            .take_while(|(t, _)| *t == top)
            .map(|&(_, u)| u)
            .collect();
        k += under.len();
        let e = cx.el(top);
        let first = cx.el(under[0]);
        let share = e
            .bounds
            .intersection(&first.bounds)
            .map_or(0.0, |c| c.area())
            / e.bounds.area().min(first.bounds.area());
        let refs: Vec<String> = under
            .iter()
            .take(5)
            .map(|&u| {
                cx.screen
                    .ref_owner(u)
                    .and_then(|o| cx.el(o).r#ref.clone())
                    .unwrap_or_else(|| "?".into())
            })
            .collect();
        let more = if under.len() > 5 {
            format!(" and {} more", under.len() - 5)
        } else {
            String::new()
        };
        let detail = if under.len() == 1 {
            format!(
                "overlaps {} ({} \"{}\") over {:.0}% of the smaller",
                refs[0],
                first.role.as_str(),
                cx.spoken(under[0]).unwrap_or_default(),
                share * 100.0
            )
        } else {
            format!(
                "overlaps {} controls: {}{more}",
                under.len(),
                refs.join(" ")
            )
        };
        out.push(cx.finding(
            Rule::OverlappingTargets,
            Severity::Warning,
            top,
            Some(Measure {
                value: under.len() as f64,
                needed: 0.0,
                unit: "controls".into(),
            }),
            detail,
            "Move or resize one of them so each tap reaches one control.",
        ));
    }
}
