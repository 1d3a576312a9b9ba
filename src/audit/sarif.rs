//! SARIF 2.1.0, the format code-scanning services and editors read: one run of the tool
//! `mobilectl-audit`, one rule per [`Rule`], one result per finding located on the screen as a
//! region of a logical location (the element's ref), with the finding's key as its fingerprint.

use serde::Serialize;
use serde_json::{json, Value};

use super::{Audit, Rule, Severity};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Value,
    results: Vec<Value>,
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The audit as a SARIF 2.1.0 log. `artifact` names what was audited (a dump's path, or the
/// device), written as each result's location.
pub fn to_sarif(audit: &Audit, artifact: &str) -> String {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|r| {
            let mut rule = json!({
                "id": r.id(),
                "shortDescription": { "text": r.summary() },
            });
            if !r.wcag().is_empty() {
                rule["properties"] =
                    json!({ "tags": ["accessibility", format!("WCAG {}", r.wcag())] });
            }
            rule
        })
        .collect();
    let results = audit
        .findings
        .iter()
        .map(|f| {
            let idx = Rule::ALL.iter().position(|r| *r == f.rule).unwrap_or(0);
            let b = f.bounds;
            let element = format!(
                "{}{} \"{}\"",
                f.r#ref.as_deref().map(|r| format!("{r} ")).unwrap_or_default(),
                f.role.as_str(),
                f.name.as_deref().unwrap_or("")
            );
            json!({
                "ruleId": f.rule.id(),
                "ruleIndex": idx,
                "level": level(f.severity),
                "message": { "text": format!("{}: {}. Fix: {}", element, f.detail, f.fix) },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": artifact },
                        "region": {
                            "startLine": 1,
                            "snippet": { "text": format!("[{},{}][{},{}]", b.x, b.y, b.right(), b.bottom()) },
                        },
                    },
                    "logicalLocations": [{ "name": element, "kind": "element" }],
                }],
                "partialFingerprints": { "mobilectlKey/v1": f.key },
                "properties": {
                    "engine": f.engine,
                    "wcag": f.wcag,
                    "bounds": f.bounds,
                    "measured": f.measured,
                },
            })
        })
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: vec![Run {
            tool: json!({ "driver": {
                "name": "mobilectl-audit",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://www.w3.org/TR/WCAG22/",
                "rules": rules,
            }}),
            results,
        }],
    };
    serde_json::to_string_pretty(&log).unwrap_or_else(|_| "{}".into())
}
