//! The accessibility audit of one screen: rules over the canonical tree ([`crate::ui::Screen`])
//! and, for contrast, the screenshot's pixels. Pure code: no I/O, no async.
//!
//! [`audit`] runs every rule on an [`Input`] and answers an [`Audit`]: the [`Finding`]s, most
//! severe first, and the rules it could not run with the reason (no screenshot, no density).
//! The rules follow the definitions of Google's Accessibility Test Framework and WCAG 2.2:
//! - `names`: unnamed controls, duplicate spoken names, names repeating the role, fields
//!   labelled by their content description, vague link text;
//! - `targets`: touch targets under 48 dp (Android) or 44 pt (iOS);
//! - `overlap`: clickable elements whose bounds overlap;
//! - `pixels`: text and non-text contrast measured from the screenshot ([`contrast`]).
//!
//! [`apple`] merges Apple's own audit (through WebDriverAgent) into the same findings.
//! [`baseline`] keeps the findings new against a saved audit; [`sarif`] and [`junit`] write
//! them for code scanning and CI; [`picture`] draws them on the screenshot.

pub mod apple;
pub mod baseline;
mod context;
pub mod contrast;
mod finding;
pub mod junit;
mod names;
mod overlap;
pub mod picture;
mod pixels;
pub mod sarif;
mod targets;

pub use finding::{Engine, Finding, Measure, Rule, Severity};

use image::RgbImage;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::ui::{CoordinateSpace, Screen, Size};
use context::Context;

/// Most elements an audit looks at; a larger tree is audited up to there, and says so.
pub const MAX_ELEMENTS: usize = 50_000;

/// What an audit looks at.
pub struct Input<'a> {
    /// The analysed screen.
    pub screen: &'a Screen,
    /// The screenshot taken with it, for the contrast rules.
    pub screenshot: Option<&'a RgbImage>,
    /// Android's screen density in dots per inch (160 = 1 px a dp), for the touch target rule.
    /// iOS trees are in points already and need none.
    pub density: Option<f64>,
}

/// Why an audit could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AuditError {
    /// No element of the dump has bounds: nothing can be measured or located.
    #[error("the dump has no element with bounds (a dump without coordinates cannot be audited)")]
    NoBounds,
    /// The screenshot is not a picture of the dumped screen.
    #[error(
        "the screenshot is {image_w}x{image_h} pixels but the dump's screen is {screen_w}x{screen_h} {unit}: not the same screen (or not the same orientation)"
    )]
    ScreenshotSize {
        /// Width of the screenshot, pixels.
        image_w: u32,
        /// Height of the screenshot, pixels.
        image_h: u32,
        /// Width of the dump's screen.
        screen_w: f64,
        /// Height of the dump's screen.
        screen_h: f64,
        /// `px` or `pt`.
        unit: &'static str,
    },
    /// The screenshot could not be decoded or encoded.
    #[error("the screenshot is not a picture I can read: {0}")]
    Screenshot(String),
    /// A density that is not a number of dots per inch.
    #[error("density {0} is not a screen density (dots per inch, 100 to 1000)")]
    Density(f64),
}

/// Counts of findings by severity.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Counts {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
}

impl Counts {
    /// Counts `findings`.
    pub fn of(findings: &[Finding]) -> Counts {
        let mut c = Counts::default();
        for f in findings {
            match f.severity {
                Severity::Error => c.error += 1,
                Severity::Warning => c.warning += 1,
                Severity::Info => c.info += 1,
            }
        }
        c
    }
}

/// The audit of one screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Audit {
    /// The screen's size, in the tree's coordinate space.
    pub screen: Size,
    /// The space bounds are in (Android pixels, iOS points).
    pub coordinate_space: CoordinateSpace,
    /// Android density used for sizes (dpi), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// Elements on screen that the rules looked at.
    pub elements: usize,
    /// Findings by severity.
    pub counts: Counts,
    /// The findings, most severe first, then in reading order.
    pub findings: Vec<Finding>,
    /// Rules not run, or run in part, with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

/// Audits one screen.
pub fn audit(input: &Input<'_>) -> Result<Audit, AuditError> {
    let s = input.screen;
    let bounded = s.elements.iter().any(|e| e.bounds.is_valid());
    if !(bounded && s.screen.w > 0.0 && s.screen.h > 0.0) {
        return Err(AuditError::NoBounds);
    }
    let density = match (s.coordinate_space, input.density) {
        (_, Some(d)) if !(100.0..=1000.0).contains(&d) => return Err(AuditError::Density(d)),
        (CoordinateSpace::Pixels, d) => d,
        (CoordinateSpace::Points, _) => None,
    };
    let mut skipped = Vec::new();
    let cx = Context::new(s, density);
    if cx.truncated {
        skipped.push(format!(
            "all rules: only the first {MAX_ELEMENTS} of {} elements were audited",
            s.elements.len()
        ));
    }
    let mut findings = Vec::new();
    names::check(&cx, &mut findings);
    match cx.units_per_dp() {
        Some(_) => targets::check(&cx, &mut findings),
        None => skipped.push(
            "touch-target: the Android screen density is not known (give the density in dpi)"
                .to_string(),
        ),
    }
    overlap::check(&cx, &mut findings, &mut skipped);
    match input.screenshot {
        Some(img) => pixels::check(&cx, img, &mut findings, &mut skipped)?,
        None => skipped.push("text-contrast, non-text-contrast: no screenshot".to_string()),
    }
    context::number_keys(&mut findings);
    findings.sort_by(|a, b| {
        b.severity.cmp(&a.severity).then(
            (a.bounds.y, a.bounds.x)
                .partial_cmp(&(b.bounds.y, b.bounds.x))
                .unwrap_or(std::cmp::Ordering::Equal),
        )
    });
    Ok(Audit {
        screen: s.screen,
        coordinate_space: s.coordinate_space,
        density,
        elements: cx.audited_count(),
        counts: Counts::of(&findings),
        findings,
        skipped,
    })
}

impl Audit {
    /// Whether a finding at or above `level` is among the findings.
    pub fn fails(&self, level: Severity) -> bool {
        self.findings.iter().any(|f| f.severity >= level)
    }
}

#[cfg(test)]
mod tests;
