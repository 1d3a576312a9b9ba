//! Regressions against a saved audit: the findings whose key (rule and element identity, not
//! the ref) the baseline does not have. An unchanged screen has none; one broken label is one.

use std::collections::HashSet;

use super::{Audit, Counts, Finding};

/// Keeps in `now` only the findings new against `before`, and recounts them.
pub fn new_findings(now: &Audit, before: &Audit) -> Audit {
    let known: HashSet<&str> = before.findings.iter().map(|f| f.key.as_str()).collect();
    let findings: Vec<Finding> = now
        .findings
        .iter()
        .filter(|f| !known.contains(f.key.as_str()))
        .cloned()
        .collect();
    Audit {
        counts: Counts::of(&findings),
        findings,
        ..now.clone()
    }
}

/// Reads a saved audit: the JSON an audit answered (its `findings` with their keys).
pub fn parse(text: &str) -> Result<Audit, String> {
    serde_json::from_str(text).map_err(|e| format!("not a saved audit (the JSON of an audit): {e}"))
}
