//! Reports of flow runs: JUnit XML, one testsuite with one testcase per flow; a failed flow's
//! testcase has a `<failure>` naming its failed step (title, file:line) and why, and its step
//! lines as `system-out`.

use crate::wire::{FlowRunResult, FlowStepStatus, SuiteFlowStatus, SuiteResult};

/// JUnit XML for `runs` (and the flows that could not run: `(file, why)`, as errors).
pub fn junit(runs: &[FlowRunResult], invalid: &[(String, String)]) -> String {
    let failures = runs.iter().filter(|r| !r.success).count();
    let secs: f64 = runs.iter().map(|r| r.duration_ms as f64 / 1000.0).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out += &format!(
        "<testsuites>\n  <testsuite name=\"mobilectl flows\" tests=\"{}\" failures=\"{failures}\" errors=\"{}\" time=\"{secs:.3}\">\n",
        runs.len() + invalid.len(),
        invalid.len()
    );
    for r in runs {
        out += &format!(
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\">\n",
            xml_text(&r.file),
            xml_text(&r.name),
            r.duration_ms as f64 / 1000.0
        );
        if let Some(step) = r.failed_step.and_then(|i| r.steps.get(i)) {
            let why = step.error.clone().unwrap_or_default();
            out += &format!(
                "      <failure message=\"{}\" type=\"{}\">step {}: {} ({}:{}): {}</failure>\n",
                xml_text(&format!("{}: {why}", step.title)),
                xml_text(&step.command),
                r.failed_step.unwrap_or(0) + 1,
                xml_text(&step.title),
                xml_text(&step.file),
                step.line,
                xml_text(&why)
            );
        }
        let lines: Vec<String> = r
            .steps
            .iter()
            .map(|s| {
                let st = match s.status {
                    FlowStepStatus::Passed => "ok",
                    FlowStepStatus::Failed => "FAIL",
                    FlowStepStatus::Warned => "warn",
                    FlowStepStatus::Skipped => "skip",
                };
                format!(
                    "{st} {} ms {}{}",
                    s.duration_ms,
                    "  ".repeat(s.depth),
                    s.title
                )
            })
            .collect();
        let mut sysout = lines.join("\n");
        if let Some(a) = &r.artifacts {
            sysout += &format!("\nartifacts: {a}");
        }
        out += &format!("      <system-out>{}</system-out>\n", xml_text(&sysout));
        out += "    </testcase>\n";
    }
    for (file, why) in invalid {
        out += &format!(
            "    <testcase classname=\"{f}\" name=\"{f}\" time=\"0\">\n      <error message=\"{w}\" type=\"invalid\">{w}</error>\n    </testcase>\n",
            f = xml_text(file),
            w = xml_text(why)
        );
    }
    out += "  </testsuite>\n</testsuites>\n";
    out
}

/// JUnit XML for a suite's result: a testcase per flow selected, a failure with why, an
/// invalid flow as an error, a flow not run as skipped.
pub fn suite_junit(r: &SuiteResult) -> String {
    let secs: f64 = r.flows.iter().filter_map(|f| f.duration_ms).sum::<u64>() as f64 / 1000.0;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out += &format!(
        "<testsuites>\n  <testsuite name=\"mobilectl suite\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{secs:.3}\">\n",
        r.flows.len(),
        r.failed,
        r.invalid,
        r.not_run
    );
    for f in &r.flows {
        out += &format!(
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\">\n",
            xml_text(&f.file),
            xml_text(&f.name),
            f.duration_ms.unwrap_or(0) as f64 / 1000.0
        );
        let why = xml_text(f.error.as_deref().unwrap_or_default());
        match f.status {
            SuiteFlowStatus::Passed => {}
            SuiteFlowStatus::Failed => {
                out +=
                    &format!("      <failure message=\"{why}\" type=\"failed\">{why}</failure>\n")
            }
            SuiteFlowStatus::Invalid => {
                out += &format!("      <error message=\"{why}\" type=\"invalid\">{why}</error>\n")
            }
            SuiteFlowStatus::NotRun => {
                out += "      <skipped message=\"an earlier flow failed\"/>\n"
            }
        }
        if let Some(a) = &f.artifacts {
            out += &format!(
                "      <system-out>artifacts: {}</system-out>\n",
                xml_text(a)
            );
        }
        out += "    </testcase>\n";
    }
    out += "  </testsuite>\n</testsuites>\n";
    out
}

/// XML text escaping (and control characters dropped: XML 1.0 cannot hold them), for JUnit
/// reports (the product's audit writes its own with it too).
pub fn xml_text(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\n' | '\t' | '\r' => o.push(c),
            c if (c as u32) < 0x20 => {}
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::FlowStep;

    #[test]
    fn a_failed_flow_names_its_step() {
        let step = |title: &str, status, error: Option<&str>| FlowStep {
            title: title.into(),
            command: "assertVisible".into(),
            file: "login.yaml".into(),
            line: 7,
            depth: 0,
            status,
            duration_ms: 12,
            error: error.map(Into::into),
            console: vec![],
        };
        let r = FlowRunResult {
            success: false,
            name: "login".into(),
            file: "login.yaml".into(),
            app_id: None,
            udid: "emulator-5554".into(),
            duration_ms: 1500,
            failed_step: Some(1),
            artifacts: Some("/tmp/x".into()),
            steps: vec![
                step("launchApp", FlowStepStatus::Passed, None),
                step(
                    "assertVisible \"<Nope>\"",
                    FlowStepStatus::Failed,
                    Some("not visible"),
                ),
            ],
        };
        let x = junit(
            &[r],
            &[(
                "bad.yaml".into(),
                "bad.yaml:2: `runScript`: not supported".into(),
            )],
        );
        assert!(x.contains("tests=\"2\" failures=\"1\" errors=\"1\""), "{x}");
        assert!(x.contains("<failure message=\"assertVisible &quot;&lt;Nope&gt;&quot;: not visible\" type=\"assertVisible\">step 2: assertVisible &quot;&lt;Nope&gt;&quot; (login.yaml:7): not visible</failure>"), "{x}");
        assert!(x.contains("artifacts: /tmp/x"));
        assert!(x.contains("<error message=\"bad.yaml:2: `runScript`: not supported\""));
    }
}
