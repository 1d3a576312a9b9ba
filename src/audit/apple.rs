//! Apple's own audit (XCUITest's `performAccessibilityAudit`, iOS 17 and later, which
//! WebDriverAgent runs at `POST /session/:id/wda/performAccessibilityAudit`) merged into the
//! findings: one [`Rule::AppleAudit`] finding per issue, marked with its engine, tied to the
//! screen's element of the same frame and label (its ref) when there is one.
//!
//! WDA answers, per issue, `auditType` (`XCUIAccessibilityAuditTypeHitRegion`…),
//! `compactDescription`, `detailedDescription` and `elementAttributes` (the element's `type`,
//! `label`, `rawIdentifier`, `rect`), `{}` when the issue names no element.

use serde_json::Value;

use crate::ui::{roles::ios_type_role, Rect, Role, Screen};

use super::finding::{Engine, Finding, Rule, Severity};
use super::{context, Audit, Counts};

/// The audit type's short name, its WCAG criterion and its severity.
fn kind(audit_type: &str) -> (&str, &'static str, Severity) {
    let short = audit_type
        .strip_prefix("XCUIAccessibilityAuditType")
        .unwrap_or(audit_type);
    let (wcag, severity) = match short {
        "Contrast" => ("1.4.3", Severity::Error),
        "SufficientElementDescription" => ("4.1.2", Severity::Error),
        "ElementDetection" | "Trait" => ("4.1.2", Severity::Warning),
        "HitRegion" => ("2.5.8", Severity::Warning),
        "DynamicType" | "TextClipped" => ("1.4.4", Severity::Warning),
        "ParentChild" => ("1.3.1", Severity::Warning),
        "Action" => ("2.1.1", Severity::Warning),
        _ => ("", Severity::Warning),
    };
    (short, wcag, severity)
}

fn rect(v: &Value) -> Option<Rect> {
    let n = |k: &str| v[k].as_f64();
    let r = Rect::new(n("x")?, n("y")?, n("width")?, n("height")?);
    r.is_valid().then_some(r)
}

/// The screen's element Apple's issue names: the same frame (within a point) and label.
fn element_of(screen: &Screen, bounds: Rect, label: Option<&str>) -> Option<usize> {
    let near = |a: f64, b: f64| (a - b).abs() <= 1.0;
    let same = |r: &Rect| {
        near(r.x, bounds.x) && near(r.y, bounds.y) && near(r.w, bounds.w) && near(r.h, bounds.h)
    };
    let frames: Vec<usize> = (0..screen.elements.len())
        .filter(|&i| same(&screen.elements[i].bounds))
        .collect();
    frames
        .iter()
        .copied()
        .find(|&i| label.is_some() && screen.elements[i].label() == label)
        .or_else(|| frames.first().copied())
}

/// Adds Apple's issues (`issues`: WDA's `value`, an array) to `audit`, recounted and sorted.
pub fn merge(audit: &mut Audit, screen: &Screen, issues: &Value) {
    for issue in issues.as_array().into_iter().flatten() {
        let (short, wcag, severity) = kind(issue["auditType"].as_str().unwrap_or(""));
        let attrs = &issue["elementAttributes"];
        let label = attrs["label"].as_str().filter(|l| !l.is_empty());
        let bounds = rect(&attrs["rect"]);
        let node = bounds.and_then(|b| element_of(screen, b, label));
        let role = attrs["type"]
            .as_str()
            .map(ios_type_role)
            .or_else(|| node.map(|n| screen.elements[n].role))
            .unwrap_or(Role::Other);
        let mut h = blake3::Hasher::new();
        for part in [
            Rule::AppleAudit.id(),
            short,
            attrs["type"].as_str().unwrap_or(""),
            attrs["rawIdentifier"].as_str().or(label).unwrap_or(""),
        ] {
            h.update(part.as_bytes());
            h.update(b"\0");
        }
        let compact = issue["compactDescription"].as_str().unwrap_or("");
        let detailed = issue["detailedDescription"].as_str().unwrap_or("");
        audit.findings.push(Finding {
            rule: Rule::AppleAudit,
            severity,
            engine: Engine::Apple,
            r#ref: node
                .and_then(|n| screen.ref_owner(n))
                .and_then(|o| screen.elements[o].r#ref.clone()),
            role,
            name: label.map(str::to_string),
            bounds: bounds.unwrap_or_default(),
            measured: None,
            detail: format!("{short}: {compact}"),
            wcag: wcag.to_string(),
            fix: if detailed.is_empty() {
                "See Apple's audit type in the Accessibility Inspector.".to_string()
            } else {
                detailed.to_string()
            },
            key: h.finalize().to_hex()[..16].to_string(),
        });
    }
    context::number_keys(&mut audit.findings);
    audit
        .findings
        .sort_by_key(|f| std::cmp::Reverse(f.severity));
    audit.counts = Counts::of(&audit.findings);
}
