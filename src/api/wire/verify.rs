//! Wire types of the verify operations: wait, expect, wait-for-change, and answering alerts.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::error::{Error, ErrorCode, Result};
use crate::ui::select::Selector;
pub use crate::ui::Observed;

/// Wait until an element meets a condition.
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
}

/// Assert something about the screen now: `kind` plus the fields that kind names.
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
        };
        let given = [
            ("selector", self.selector.is_some()),
            ("text", self.text.is_some()),
            ("fingerprint", self.fingerprint.is_some()),
            ("app", self.app.is_some()),
            ("activity", self.activity.is_some()),
        ];
        for (field, present) in given {
            if present != needs.contains(&field) {
                let kind = serde_json::to_value(self.kind).unwrap_or_default();
                let verb = if present { "does not take" } else { "needs" };
                return Err(
                    Error::validation(format!("`kind: {kind}` {verb} `{field}`"))
                        .with_hint(format!("`{kind}` takes: {}", needs.join(", "))),
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
        })
    }
}

/// Wait until the screen differs from a fingerprint.
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
    Exists,
    NotExists,
    Visible,
    Enabled,
    TextEquals,
}

/// Whether a wait ended because its condition held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WaitStatus {
    Success,
    Timeout,
}

/// The answer of `wait` (a timeout is an answer, not an error).
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
    Changed,
    Timeout,
}

/// The answer of `wait-for-change`.
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
}

/// The binary answer of `expect`.
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
    pub snapshot_id: String,
}
