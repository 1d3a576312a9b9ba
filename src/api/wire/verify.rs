//! Wire types of the verify operations: wait, expect, wait-for-change, and answering alerts.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::audit::saved_audit;
use super::diff::{check_masks, Area, Baseline, DEFAULT_TOLERANCE};
use crate::audit::{Audit, Severity};
use crate::error::{Error, ErrorCode, Result};
use crate::ui::select::Selector;
pub use crate::ui::Observed;

/// Wait until an element meets a condition.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitRequest {
    pub udid: Option<String>,
    pub selector: Selector,
    pub condition: Condition,
    /// For `text_equals`.
    pub text: Option<String>,
    /// Default 5000, at most 120000.
    #[schema(maximum = 120000)]
    pub timeout_ms: Option<u64>,
    /// Default 300.
    #[schema(minimum = 50, maximum = 10000)]
    pub poll_interval_ms: Option<u64>,
}

/// What `expect` asserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExpectKind {
    /// An element matching `selector` is on screen.
    ElementVisible,
    /// No element matching `selector` is on screen.
    ElementNotVisible,
    /// The first element matching `selector` shows exactly `text`.
    ElementHasText,
    /// The screen's fingerprint is `fingerprint`.
    Screen,
    /// The foreground app (package / bundle id) is `app`.
    ForegroundApp,
    /// The focused activity (Android) ends with `activity`.
    ForegroundActivity,
    /// The screen looks like `baseline`: at most `tolerance` of its pixels changed.
    ScreenMatches,
    /// An accessibility audit finds nothing at or above `fail_on` (default error); with
    /// `audit_baseline`, nothing it did not have.
    Accessible,
}

/// Assert something about the screen now: `kind` plus the fields that kind names.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectRequest {
    pub udid: Option<String>,
    pub kind: ExpectKind,
    /// For `element_visible`, `element_not_visible`, `element_has_text`.
    pub selector: Option<Selector>,
    /// For `element_has_text`.
    pub text: Option<String>,
    /// For `screen`.
    pub fingerprint: Option<String>,
    /// For `foreground_app`.
    pub app: Option<String>,
    /// For `foreground_activity`.
    pub activity: Option<String>,
    /// For `screen_matches`.
    pub baseline: Option<Baseline>,
    /// For `screen_matches`: share of pixels that may differ (default 0.001).
    pub tolerance: Option<f64>,
    /// For `screen_matches`.
    pub mask: Option<Vec<Area>>,
    /// For `screen_matches` (default true).
    pub mask_status_bar: Option<bool>,
    /// For `screen_matches`: retry until it matches.
    #[schema(maximum = 120000)]
    pub timeout_ms: Option<u64>,
    /// For `accessible`: a saved audit.
    #[schema(value_type = Option<Object>)]
    pub audit_baseline: Option<Value>,
    /// For `accessible` (default error).
    pub fail_on: Option<Severity>,
}

impl ExpectRequest {
    /// The expectation, once the fields its kind needs (and only those) are given.
    pub fn expectation(self) -> Result<Expectation> {
        use ExpectKind::*;
        let needs: &[&str] = match self.kind {
            ElementVisible | ElementNotVisible => &["selector"],
            ElementHasText => &["selector", "text"],
            Screen => &["fingerprint"],
            ForegroundApp => &["app"],
            ForegroundActivity => &["activity"],
            ScreenMatches => &["baseline"],
            Accessible => &[],
        };
        // Fields a kind may take without needing them.
        let may: &[&str] = match self.kind {
            ScreenMatches => &["tolerance", "mask", "mask_status_bar", "timeout_ms"],
            Accessible => &["audit_baseline", "fail_on"],
            _ => &[],
        };
        let given = [
            ("selector", self.selector.is_some()),
            ("text", self.text.is_some()),
            ("fingerprint", self.fingerprint.is_some()),
            ("app", self.app.is_some()),
            ("activity", self.activity.is_some()),
            ("baseline", self.baseline.is_some()),
            ("tolerance", self.tolerance.is_some()),
            ("mask", self.mask.is_some()),
            ("mask_status_bar", self.mask_status_bar.is_some()),
            ("timeout_ms", self.timeout_ms.is_some()),
            ("audit_baseline", self.audit_baseline.is_some()),
            ("fail_on", self.fail_on.is_some()),
        ];
        for (field, present) in given {
            if may.contains(&field) {
                continue;
            }
            if present != needs.contains(&field) {
                let kind = serde_json::to_value(self.kind).unwrap_or_default();
                let verb = if present { "does not take" } else { "needs" };
                return Err(
                    Error::validation(format!("`kind: {kind}` {verb} `{field}`"))
                        .with_hint(takes(&kind, needs, may)),
                );
            }
        }
        let selector = || self.selector.clone().unwrap_or_default();
        Ok(match self.kind {
            ElementVisible => Expectation::ElementVisible {
                selector: selector(),
            },
            ElementNotVisible => Expectation::ElementNotVisible {
                selector: selector(),
            },
            ElementHasText => Expectation::ElementHasText {
                selector: selector(),
                text: self.text.unwrap_or_default(),
            },
            Screen => Expectation::Screen {
                fingerprint: self.fingerprint.unwrap_or_default(),
            },
            ForegroundApp => Expectation::ForegroundApp {
                app: self.app.unwrap_or_default(),
            },
            ForegroundActivity => Expectation::ForegroundActivity {
                activity: self.activity.unwrap_or_default(),
            },
            Accessible => Expectation::Accessible {
                baseline: self
                    .audit_baseline
                    .as_ref()
                    .map(|v| saved_audit(v, "audit_baseline"))
                    .transpose()?,
                fail_on: self.fail_on.unwrap_or(Severity::Error),
            },
            ScreenMatches => {
                let tolerance = self.tolerance.unwrap_or(DEFAULT_TOLERANCE);
                if !(0.0..=1.0).contains(&tolerance) {
                    return Err(Error::validation(format!(
                        "`tolerance` is a share of the screen's pixels, 0 to 1; got {tolerance}"
                    ))
                    .with_hint("for example 0.001 (0.1% of the pixels may differ)"));
                }
                if self.timeout_ms.is_some_and(|t| t > MAX_EXPECT_TIMEOUT_MS) {
                    return Err(Error::validation(format!(
                        "`timeout_ms` is at most {MAX_EXPECT_TIMEOUT_MS}"
                    )));
                }
                let mask = self.mask.unwrap_or_default();
                check_masks(&mask)?;
                let baseline = self.baseline.unwrap_or_default();
                baseline.spec()?;
                Expectation::ScreenMatches {
                    baseline,
                    tolerance,
                    mask,
                    mask_status_bar: self.mask_status_bar.unwrap_or(true),
                    timeout_ms: self.timeout_ms.unwrap_or(0),
                }
            }
        })
    }
}

/// What an expectation kind takes, for a hint: `"screen_matches"` takes baseline; optional:
/// tolerance, mask….
fn takes(kind: &Value, needs: &[&str], may: &[&str]) -> String {
    let mut said = format!("`{kind}` takes");
    match needs {
        [] => said += " no other field",
        _ => said += &format!(": {}", needs.join(", ")),
    }
    if !may.is_empty() {
        said += &format!("; optional: {}", may.join(", "));
    }
    said
}

/// The longest `screen_matches` may compare again.
pub const MAX_EXPECT_TIMEOUT_MS: u64 = 120_000;

/// Wait until the screen differs from a fingerprint.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitForChangeRequest {
    pub udid: Option<String>,
    /// The fingerprint to move away from (default: the screen's now).
    pub fingerprint: Option<String>,
    /// Default 5000, at most 120000.
    #[schema(maximum = 120000)]
    pub timeout_ms: Option<u64>,
    /// Default 300.
    #[schema(minimum = 50, maximum = 10000)]
    pub poll_interval_ms: Option<u64>,
}

/// Answer the alert on screen.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AlertRequest {
    pub udid: Option<String>,
    /// Tap the button with this label instead of guessing the accepting/dismissing one.
    pub button: Option<String>,
}

/// What `wait` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// An element matches.
    Exists,
    /// No element matches.
    NotExists,
    /// A matching element is visible on screen.
    Visible,
    /// The first match is enabled.
    Enabled,
    /// The first match's text (or name) equals `text`.
    TextEquals,
}

/// Whether a wait ended because its condition held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WaitStatus {
    /// The condition held.
    Success,
    /// The time ran out first.
    Timeout,
}

/// The answer of `wait` (a timeout is an answer, not an error).
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WaitResult {
    pub status: WaitStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<Observed>,
    /// What the last read showed: how many elements matched and the first one's state.
    #[schema(value_type = Object)]
    pub observed: Value,
    pub elapsed_ms: u64,
    pub polls: u32,
    pub snapshot_id: String,
}

/// Whether the screen changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    /// The screen changed.
    Changed,
    /// The time ran out first.
    Timeout,
}

/// The answer of `wait-for-change`.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChangeResult {
    pub status: ChangeStatus,
    pub fingerprint_before: String,
    pub fingerprint_after: String,
    pub elapsed_ms: u64,
    pub polls: u32,
    pub snapshot_id: String,
}

/// What `expect` asserts.
// Its variants are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Expectation {
    /// An element matching `selector` is on screen.
    ElementVisible { selector: Selector },
    /// No element matching `selector` is on screen.
    ElementNotVisible { selector: Selector },
    /// The first element matching `selector` shows exactly `text`.
    ElementHasText { selector: Selector, text: String },
    /// The screen's fingerprint is `fingerprint`.
    Screen { fingerprint: String },
    /// The foreground app (package / bundle id) is `app`.
    ForegroundApp { app: String },
    /// The focused activity (Android) ends with `activity`.
    ForegroundActivity { activity: String },
    /// The screen looks like `baseline`: at most `tolerance` of its compared pixels changed.
    ScreenMatches {
        baseline: Baseline,
        tolerance: f64,
        #[serde(default)]
        mask: Vec<Area>,
        #[serde(default = "yes")]
        mask_status_bar: bool,
        #[serde(default)]
        timeout_ms: u64,
    },
    /// An accessibility audit finds nothing at or above `fail_on` (new against `baseline`).
    Accessible {
        baseline: Option<Audit>,
        fail_on: Severity,
    },
}

fn yes() -> bool {
    true
}

/// The binary answer of `expect`.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ExpectResult {
    pub success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_code: Option<ErrorCode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// What the screen showed.
    #[schema(value_type = Object)]
    pub observed: Value,
    /// The read judged (none for `screen_matches`, which compares screenshots).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_id: Option<String>,
}
