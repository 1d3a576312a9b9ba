//! What an audit reports: [`Finding`]s with their [`Rule`], [`Severity`], [`Engine`] and what
//! was measured against what was needed, and the stable [`key`](Finding::key) a baseline
//! matches them by.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::ui::{Rect, Role};

/// How much a finding keeps people out, most severe last so that `>=` reads "at least".
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth a look; may be intended (a target limited by the screen edge).
    Info,
    /// Likely a barrier for some users.
    Warning,
    /// A barrier: a screen reader user cannot tell what it is, or text below the minimum
    /// contrast.
    Error,
}

impl Severity {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Parses `info`, `warning` or `error` (case-insensitive).
    pub fn parse(s: &str) -> Option<Severity> {
        match s.trim().to_ascii_lowercase().as_str() {
            "info" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// The checks, by id.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// A control a screen reader has nothing to say for.
    UnnamedControl,
    /// A touch target under 48×48 dp (Android) or 44×44 pt (iOS).
    TouchTarget,
    /// Text under 4.5:1 (3:1 when large) against its background.
    TextContrast,
    /// An icon or control under 3:1 against its background.
    NonTextContrast,
    /// Controls that a screen reader announces with the same name.
    DuplicateName,
    /// A name that says the role again ("Send button").
    NameRepeatsRole,
    /// An editable field whose label is its content description.
    FieldLabelledByDescription,
    /// Clickable elements whose bounds overlap.
    OverlappingTargets,
    /// A link or control named only "click here", "more" and the like.
    VagueLinkText,
    /// A finding of Apple's own audit (XCUITest's `performAccessibilityAudit`).
    AppleAudit,
}

impl Rule {
    /// Every rule, in the order the documentation lists them.
    pub const ALL: [Rule; 10] = [
        Rule::UnnamedControl,
        Rule::TouchTarget,
        Rule::TextContrast,
        Rule::NonTextContrast,
        Rule::DuplicateName,
        Rule::NameRepeatsRole,
        Rule::FieldLabelledByDescription,
        Rule::OverlappingTargets,
        Rule::VagueLinkText,
        Rule::AppleAudit,
    ];

    /// The id, as findings, SARIF and the text form write it.
    pub fn id(self) -> &'static str {
        match self {
            Rule::UnnamedControl => "unnamed-control",
            Rule::TouchTarget => "touch-target",
            Rule::TextContrast => "text-contrast",
            Rule::NonTextContrast => "non-text-contrast",
            Rule::DuplicateName => "duplicate-name",
            Rule::NameRepeatsRole => "name-repeats-role",
            Rule::FieldLabelledByDescription => "field-labelled-by-description",
            Rule::OverlappingTargets => "overlapping-targets",
            Rule::VagueLinkText => "vague-link-text",
            Rule::AppleAudit => "apple-audit",
        }
    }

    /// One sentence saying what the rule checks (SARIF's rule description).
    pub fn summary(self) -> &'static str {
        match self {
            Rule::UnnamedControl => "A control has no name a screen reader can speak.",
            Rule::TouchTarget => "A touch target is smaller than 48×48 dp (Android) or 44×44 pt (iOS).",
            Rule::TextContrast => "Text contrast is below 4.5:1 (3:1 for large text).",
            Rule::NonTextContrast => "An icon or control has less than 3:1 contrast with its background.",
            Rule::DuplicateName => "Several controls are announced with the same name.",
            Rule::NameRepeatsRole => "A name repeats the role the screen reader already announces.",
            Rule::FieldLabelledByDescription => "An editable field is labelled by its content description, which a screen reader reads instead of the typed text.",
            Rule::OverlappingTargets => "Clickable elements overlap, so a tap may hit the other one.",
            Rule::VagueLinkText => "A link or control is named only \"click here\", \"more\" or the like.",
            Rule::AppleAudit => "Apple's accessibility audit reported an issue.",
        }
    }

    /// The WCAG 2.2 success criterion the rule follows.
    pub fn wcag(self) -> &'static str {
        match self {
            Rule::UnnamedControl => "4.1.2",
            Rule::TouchTarget => "2.5.8",
            Rule::TextContrast => "1.4.3",
            Rule::NonTextContrast => "1.4.11",
            Rule::DuplicateName => "2.4.6",
            Rule::NameRepeatsRole => "2.4.6",
            Rule::FieldLabelledByDescription => "3.3.2",
            Rule::OverlappingTargets => "2.5.8",
            Rule::VagueLinkText => "2.4.4",
            Rule::AppleAudit => "",
        }
    }
}

/// Which engine found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// mobilectl's own rules, over the tree and the screenshot.
    Mobilectl,
    /// Apple's audit, through WebDriverAgent.
    Apple,
}

/// What was measured against what was needed.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Measure {
    pub value: f64,
    pub needed: f64,
    /// `ratio` (contrast), `dp` or `pt` (size), `controls` (a count).
    pub unit: String,
}

/// One finding.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Finding {
    pub rule: Rule,
    pub severity: Severity,
    pub engine: Engine,
    /// The element's ref (or its nearest ancestor's), to act on it.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    pub role: Role,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// In the platform's tap coordinates (Android pixels, iOS points).
    pub bounds: Rect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measure>,
    /// What was found, in words (`"2.49:1, #999999 on #ffffff"`).
    pub detail: String,
    /// The WCAG 2.2 success criterion.
    pub wcag: String,
    /// What would fix it.
    pub fix: String,
    /// Stable identity of the finding (rule and element identity, not the ref): what a
    /// baseline matches.
    pub key: String,
}
