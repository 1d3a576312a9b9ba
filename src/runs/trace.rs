//! `trace.jsonl`: one JSON line per operation of a run (time, operation, duration, session,
//! device, target, outcome, error code, artifacts saved for it), appended with one write per
//! line to a file kept open by the run (no fsync per line).

use serde::Serialize;
use serde_json::Value;

/// How an operation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// It answered success.
    Ok,
    /// It answered an error.
    Error,
    /// It answered, and the answer says the outcome failed (`success: false`: an `expect`
    /// that did not hold, an act whose checks did not).
    Failed,
}

/// One line of `trace.jsonl`.
#[derive(Debug, Clone, Serialize)]
pub struct TraceLine {
    /// RFC 3339 with milliseconds, when the operation started.
    pub time: String,
    /// The operation's name (`tap`, `expect`).
    pub op: &'static str,
    /// How long the operation took, in milliseconds.
    pub duration_ms: u64,
    /// The id of the session the operation ran in; None outside a session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The device, where known (the session's, the one named, or the active one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub udid: Option<String>,
    /// An act's target as asked (`ref`, `selector`, `x`/`y`), where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Value>,
    /// How the operation ended.
    pub outcome: Outcome,
    /// The error code (or the outcome's failure code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Artifacts saved because of this operation (a failure's screenshot and tree).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<String>,
    /// What a flow's scripts wrote with `console.log` while the operation ran (`flow_run`,
    /// `flow_test`), a line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub console: Vec<String>,
    /// An act or verify operation: its failure makes the run failed.
    #[serde(skip)]
    pub act: bool,
}

impl TraceLine {
    /// Whether it failed.
    pub fn failed(&self) -> bool {
        self.outcome != Outcome::Ok
    }

    /// Whether it makes its run failed: an act or verify operation that failed for another
    /// reason than a malformed request (`BAD_REQUEST`, `VALIDATION_FAILED`).
    pub fn fails_the_run(&self) -> bool {
        self.act
            && self.failed()
            && !matches!(
                self.code.as_deref(),
                Some("BAD_REQUEST" | "VALIDATION_FAILED")
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(act: bool, outcome: Outcome, code: Option<&str>) -> TraceLine {
        TraceLine {
            time: "2026-01-01T00:00:00.000Z".into(),
            op: "tap",
            duration_ms: 1,
            session: None,
            udid: None,
            target: None,
            outcome,
            code: code.map(str::to_string),
            artifacts: vec![],
            console: vec![],
            act,
        }
    }

    #[test]
    fn only_acts_that_failed_on_the_device_fail_the_run() {
        assert!(line(true, Outcome::Error, Some("ELEMENT_NOT_FOUND")).fails_the_run());
        assert!(line(true, Outcome::Failed, Some("TEXT_MISMATCH")).fails_the_run());
        assert!(line(true, Outcome::Failed, None).fails_the_run());
        assert!(!line(true, Outcome::Error, Some("VALIDATION_FAILED")).fails_the_run());
        assert!(!line(true, Outcome::Error, Some("BAD_REQUEST")).fails_the_run());
        assert!(!line(false, Outcome::Error, Some("NO_DEVICE")).fails_the_run());
        assert!(!line(true, Outcome::Ok, None).fails_the_run());
        let json = serde_json::to_value(line(true, Outcome::Failed, Some("X"))).unwrap();
        assert_eq!(json["outcome"], "failed");
        assert!(
            json.get("act").is_none() && json.get("artifacts").is_none(),
            "{json}"
        );
    }
}
