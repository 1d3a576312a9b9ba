//! An app's performance ([`crate::device::Capability::Perf`]): one sample of its process,
//! taken in one round trip, which the controller turns into readings and windows; and the
//! answers every backend gives when there is no process to sample or its tools' output is not
//! what was expected.

use async_trait::async_trait;

use crate::device::Device;
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::perf::{PerfSample, SampleAsk};

/// Sampling a running app's CPU time, memory, threads and frames.
#[async_trait]
pub trait Perf: Send + Sync {
    /// One sample of `app`'s process with what `ask` names. An app without a process is
    /// `404 NOT_FOUND` ([`not_running`]; never a sample of zeros).
    async fn perf_sample(&self, device: &Device, app: &str, ask: SampleAsk) -> Result<PerfSample>;
}

/// The answer for an app whose process is not running: `404 NOT_FOUND`, pointing at a launch
/// (a reading of zeros would pass for an idle app).
pub fn not_running(app: &str) -> Error {
    Error::new(
        ErrorCode::NotFound,
        format!("`{app}` is not running: it has no process to measure"),
    )
    .with_next(
        "start it with {0}, then read again",
        [Step::call(Op::LaunchApp)],
    )
    .with_details(serde_json::json!({ "app": app }))
}

/// The answer for output a reader does not recognise: `502 COMMAND_FAILED`, its start in the
/// details.
pub fn unrecognised(what: &str, text: &str) -> Error {
    let head: String = text.chars().take(300).collect();
    Error::new(
        ErrorCode::CommandFailed,
        format!("the output of {what} was not recognised"),
    )
    .with_details(serde_json::json!({ "output": head }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_running_points_at_a_launch() {
        let e = not_running("com.example.app");
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("com.example.app"), "{}", e.message);
        assert!(e.hint.is_some());
    }

    #[test]
    fn unrecognised_output_keeps_its_start() {
        let e = unrecognised("launchctl list", &"x".repeat(1000));
        assert_eq!(e.code, ErrorCode::CommandFailed);
        let details = e.details.expect("details");
        assert_eq!(details["output"].as_str().map(str::len), Some(300));
    }
}
