//! JUnit XML for CI: one test case per rule, failing with one failure line per finding at or
//! above the chosen severity (findings below it are written as the case's output).

use super::{Audit, Rule, Severity};

use crate::flows::report::xml_text as escape;

/// The audit as a JUnit test suite; a rule's case fails when it has a finding at or above
/// `fail_on`.
pub fn to_junit(audit: &Audit, suite: &str, fail_on: Severity) -> String {
    let mut cases = String::new();
    let mut failures = 0;
    for rule in Rule::ALL {
        let of_rule: Vec<_> = audit.findings.iter().filter(|f| f.rule == rule).collect();
        let failing: Vec<_> = of_rule.iter().filter(|f| f.severity >= fail_on).collect();
        let line = |f: &&&super::Finding| {
            format!(
                "{} {} {} \"{}\": {}",
                f.severity.as_str(),
                f.r#ref.as_deref().unwrap_or("-"),
                f.role.as_str(),
                f.name.as_deref().unwrap_or(""),
                f.detail
            )
        };
        cases.push_str(&format!(
            "  <testcase classname=\"{}\" name=\"{}\">\n",
            escape(suite),
            rule.id()
        ));
        if !failing.is_empty() {
            failures += 1;
            let text: Vec<String> = failing.iter().map(line).collect();
            cases.push_str(&format!(
                "    <failure message=\"{} finding(s) at or above {}\" type=\"{}\">{}</failure>\n",
                failing.len(),
                fail_on.as_str(),
                rule.id(),
                escape(&text.join("\n"))
            ));
        }
        let below: Vec<String> = of_rule
            .iter()
            .filter(|f| f.severity < fail_on)
            .map(|f| line(&f))
            .collect();
        if !below.is_empty() {
            cases.push_str(&format!(
                "    <system-out>{}</system-out>\n",
                escape(&below.join("\n"))
            ));
        }
        cases.push_str("  </testcase>\n");
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">\n{cases}</testsuite>\n",
        escape(suite),
        Rule::ALL.len()
    )
}
