//! Contrast measured from the screenshot: each text element's and each meaningful image's
//! pixels inside its bounds, separated into background and foreground ([`super::contrast`]).
//! Text needs 4.5:1, or 3:1 when large (18 sp/pt or more); icons and image controls 3:1.
//!
//! The dump does not say a text's size, so it is estimated from the pixels: the tallest run of
//! rows holding foreground ink is one line's ink, about [`INK_PER_EM`] of the font size. Sampling
//! is strided so that no element costs more than [`MAX_SAMPLES`] pixels, and the whole screen
//! no more than [`MAX_TOTAL`]: a huge tree is audited in bounded time.

use image::RgbImage;

use crate::ui::{CoordinateSpace, Rect, Role};

use super::context::Context;
use super::contrast::{self, Rgb};
use super::finding::{Finding, Measure, Rule, Severity};
use super::AuditError;

/// Ink height of a line of text as a share of the font size (ascender to descender of mixed
/// text; capitals alone are about 0.72).
pub(super) const INK_PER_EM: f64 = 0.85;
/// Text at or above this size (sp or pt) is large (WCAG: 18 pt; ATF: 18 sp).
const LARGE_TEXT: f64 = 18.0;
/// Most pixels sampled from one element.
const MAX_SAMPLES: u64 = 40_000;
/// Most pixels sampled on one screen.
const MAX_TOTAL: u64 = 8_000_000;

/// How tree units map to screenshot pixels.
#[derive(Debug, Clone, Copy)]
pub(super) struct Mapping {
    pub sx: f64,
    pub sy: f64,
}

/// The scale from tree units to the screenshot's pixels, refused when the two are not the same
/// screen (another aspect ratio, or another orientation).
pub(super) fn mapping(cx: &Context<'_>, img: &RgbImage) -> Result<Mapping, AuditError> {
    let s = cx.screen.screen;
    let sx = f64::from(img.width()) / s.w;
    let sy = f64::from(img.height()) / s.h;
    let unit = match cx.screen.coordinate_space {
        CoordinateSpace::Pixels => "px",
        CoordinateSpace::Points => "pt",
    };
    if !(sx.is_finite() && sy.is_finite()) || (sx - sy).abs() > 0.02 * sx.max(sy) || sx <= 0.0 {
        return Err(AuditError::ScreenshotSize {
            image_w: img.width(),
            image_h: img.height(),
            screen_w: s.w,
            screen_h: s.h,
            unit,
        });
    }
    Ok(Mapping { sx, sy })
}

pub(super) fn check(
    cx: &Context<'_>,
    img: &RgbImage,
    out: &mut Vec<Finding>,
    skipped: &mut Vec<String>,
) -> Result<(), AuditError> {
    let map = mapping(cx, img)?;
    let per_dp = cx.units_per_dp();
    let mut budget = MAX_TOTAL;
    let mut unmeasured = 0usize;
    let kb = cx.screen.keyboard;
    for i in cx.nodes() {
        let e = cx.el(i);
        let kind = if is_text(cx, i) {
            Kind::Text
        } else if is_icon(cx, i) {
            Kind::Icon
        } else {
            continue;
        };
        if !e.states.enabled || kb.is_some_and(|k| k.intersects(&e.bounds)) {
            continue;
        }
        if budget == 0 {
            unmeasured += 1;
            continue;
        }
        let Some(m) = measure(img, &e.bounds, map, &mut budget) else {
            continue;
        };
        let (rule, needed, severity, what) = match kind {
            Kind::Text => {
                // Ink rows → font size in sp/pt; unknown density: not large.
                let size = per_dp.map(|u| m.ink_rows as f64 / map.sy / u / INK_PER_EM);
                let large = size.is_some_and(|s| s >= LARGE_TEXT);
                let what = match size {
                    Some(s) => format!(", text ≈ {:.0} {}", s, if cx.ios() { "pt" } else { "sp" }),
                    None => String::new(),
                };
                (
                    Rule::TextContrast,
                    if large { 3.0 } else { 4.5 },
                    Severity::Error,
                    what,
                )
            }
            Kind::Icon => (Rule::NonTextContrast, 3.0, Severity::Warning, String::new()),
        };
        let r = contrast::rounded(m.swatch.ratio);
        if r >= needed {
            continue;
        }
        out.push(cx.finding(
            rule,
            severity,
            i,
            Some(Measure {
                value: r,
                needed,
                unit: "ratio".into(),
            }),
            format!(
                "{r}:1, {} on {}{what}",
                contrast::hex(m.swatch.foreground),
                contrast::hex(m.swatch.background)
            ),
            match kind {
                Kind::Text => {
                    "Darken the text or lighten its background (or the reverse) to reach the ratio."
                }
                Kind::Icon => "Give the icon a colour that stands out from its background by 3:1.",
            },
        ));
    }
    if unmeasured > 0 {
        skipped.push(format!(
            "text-contrast, non-text-contrast: {unmeasured} elements not measured (pixel budget of {MAX_TOTAL} spent)"
        ));
    }
    Ok(())
}

enum Kind {
    Text,
    Icon,
}

/// Text a user reads: an element showing text of its own (an empty field: its hint), with no
/// labelled child (whose bounds would mix several texts).
fn is_text(cx: &Context<'_>, i: usize) -> bool {
    let e = cx.el(i);
    // A password's text is masked dots; its hint, when empty, is text.
    let masked = e.states.password && e.text.is_some();
    if cx.labelled_below[i] || masked || matches!(e.role, Role::Image | Role::Switch) {
        return false;
    }
    if cx.ios() {
        matches!(
            e.role,
            Role::Text | Role::Heading | Role::Link | Role::Button
        ) && e.label().is_some()
            && e.children.is_empty()
    } else {
        // An empty field shows its hint, which is text to read too.
        let shown = e
            .text
            .as_deref()
            .or(e.hint.as_deref().filter(|_| e.states.editable));
        shown.is_some_and(|t| !t.trim().is_empty())
    }
}

/// A meaningful image: an Android image view that is clickable or described, an iOS image with a
/// label. Decorative images (no description) are not checked.
fn is_icon(cx: &Context<'_>, i: usize) -> bool {
    let e = cx.el(i);
    if !e.children.is_empty() {
        return false;
    }
    if cx.ios() {
        e.role == Role::Image && e.label().is_some()
    } else {
        let class = e.class.as_deref().unwrap_or("");
        class.contains("Image") && (cx.control[i] || e.desc.is_some())
    }
}

/// A region's colours and the height of its tallest run of ink rows, in screenshot pixels.
pub(super) struct Measured {
    pub swatch: contrast::Swatch,
    pub ink_rows: usize,
}

/// Samples the pixels of `b` (tree units) on the screenshot.
pub(super) fn measure(
    img: &RgbImage,
    b: &Rect,
    map: Mapping,
    budget: &mut u64,
) -> Option<Measured> {
    let clamp = |v: f64, max: u32| v.max(0.0).min(f64::from(max)) as u32;
    let x0 = clamp((b.x * map.sx).round(), img.width());
    let x1 = clamp((b.right() * map.sx).round(), img.width());
    let y0 = clamp((b.y * map.sy).round(), img.height());
    let y1 = clamp((b.bottom() * map.sy).round(), img.height());
    if x1 <= x0 + 5 || y1 <= y0 + 5 {
        return None;
    }
    // A margin where a box's outline is, left out: an outline would be the most frequent
    // colour after the background in a field or a button and hide its text's colour.
    let (ix, iy) = (((x1 - x0) / 33).max(2), ((y1 - y0) / 33).max(2));
    let (x0, x1, y0, y1) = (x0 + ix, x1 - ix, y0 + iy, y1 - iy);
    if x1 <= x0 + 1 || y1 <= y0 + 1 {
        return None;
    }
    let area = u64::from(x1 - x0) * u64::from(y1 - y0);
    let stride = ((area as f64 / MAX_SAMPLES as f64).sqrt().ceil() as u32).max(1);
    let row = |y: u32| {
        (x0..x1)
            .step_by(stride as usize)
            .map(move |x| img.get_pixel(x, y).0)
    };
    let rows = || (y0..y1).step_by(stride as usize);
    let sampled = rows().count() as u64 * (x0..x1).step_by(stride as usize).count() as u64;
    if sampled > *budget {
        *budget = 0;
        return None;
    }
    *budget -= sampled;
    let swatch = contrast::separate(rows().flat_map(row))?;
    let (fl, bl) = (
        contrast::luminance(swatch.foreground),
        contrast::luminance(swatch.background),
    );
    let inky = |c: Rgb| {
        let l = contrast::luminance(c);
        (l - fl).abs() < (l - bl).abs()
    };
    // Inside the margin, too: an outline runs down every row and would make any text look as
    // tall as its box.
    let (mut best, mut run) = (0usize, 0usize);
    for y in rows() {
        if row(y).any(inky) {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    Some(Measured {
        swatch,
        ink_rows: best * stride as usize,
    })
}
