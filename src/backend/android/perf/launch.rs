//! `am start -W`: what Android measured of an activity start (Status, LaunchState, Activity,
//! ThisTime, TotalTime, WaitTime, Complete), and its `Error:` lines as typed errors.

use super::leading_u64;
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::perf::{LaunchState, MeasuredBy, StartupMeasure};

/// Reads the output of `am start -W`. An `Error:` line (the activity was not started) is an
/// error: `NOT_FOUND` when the app or activity does not exist, else `COMMAND_FAILED`.
pub fn parse_am_start(text: &str) -> Result<StartupMeasure> {
    let lines = || text.lines().map(str::trim);
    // `Error type 3` may come first; the `Error:` line says what went wrong.
    let error = lines()
        .find(|l| l.starts_with("Error:"))
        .or_else(|| lines().find(|l| l.starts_with("Error")));
    if let Some(line) = error {
        return Err(start_error(line, text));
    }
    let value = |key: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key)?.strip_prefix(':'))
            .map(str::trim)
    };
    let ms = |key: &str| value(key).and_then(leading_u64);
    Ok(StartupMeasure {
        measured_by: MeasuredBy::Platform,
        status: value("Status").map(str::to_string),
        launch_state: value("LaunchState").and_then(launch_state),
        activity: value("Activity").map(str::to_string),
        total_time_ms: ms("TotalTime"),
        wait_time_ms: ms("WaitTime"),
        this_time_ms: ms("ThisTime"),
        earliest_ms: None,
        reads: None,
        warning: value("Warning").map(str::to_string),
        complete: text.lines().any(|l| l.trim() == "Complete"),
    })
}

fn launch_state(word: &str) -> Option<LaunchState> {
    match word.split_whitespace().next()? {
        "COLD" => Some(LaunchState::Cold),
        "WARM" => Some(LaunchState::Warm),
        "HOT" => Some(LaunchState::Hot),
        "RELAUNCH" => Some(LaunchState::Relaunch),
        _ => None,
    }
}

fn start_error(line: &str, text: &str) -> Error {
    let missing = [
        "does not exist",
        "unable to resolve Intent",
        "Unknown package",
    ]
    .iter()
    .any(|m| line.contains(m));
    let err = if missing {
        Error::new(
            ErrorCode::NotFound,
            format!("the activity was not started: {line}"),
        )
        .with_next("check the app with {0}", [Step::call(Op::ListApps)])
    } else {
        Error::new(
            ErrorCode::CommandFailed,
            format!("the activity was not started: {line}"),
        )
    };
    err.with_details(serde_json::json!({ "output": text }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::android::perf::fixture;

    #[test]
    fn hot_start_brought_to_front() {
        let text = fixture("android_perf/am_start_W_hot_brought_to_front_calculator_aosp.txt");
        let m = parse_am_start(&text).unwrap();
        assert_eq!(m.status.as_deref(), Some("ok"));
        assert_eq!(
            m.activity.as_deref(),
            Some("com.google.android.calculator/com.android.calculator2.CalculatorGoogle")
        );
        assert_eq!(
            (m.this_time_ms, m.total_time_ms, m.wait_time_ms),
            (Some(60), Some(60), Some(67))
        );
        assert_eq!(m.launch_state, None);
        assert!(m.complete);
        assert!(m.warning.unwrap().contains("brought to the front"));
    }

    #[test]
    fn start_without_wait_measures_nothing() {
        let m = parse_am_start(&fixture("android_misc/am_start_output.txt")).unwrap();
        assert_eq!(
            (m.status, m.total_time_ms, m.wait_time_ms),
            (None, None, None)
        );
        assert!(!m.complete);
    }

    #[test]
    fn launch_state_of_android10_and_later() {
        // The layout of Android 10+ (AOSP `ActivityManagerShellCommand`): no ThisTime.
        let text = "Starting: Intent { cmp=com.example/.Main }\nStatus: ok\n\
                    LaunchState: COLD\nActivity: com.example/.Main\nTotalTime: 812\n\
                    WaitTime: 830\nComplete\n";
        let m = parse_am_start(text).unwrap();
        assert_eq!(m.launch_state, Some(LaunchState::Cold));
        assert_eq!(
            (m.this_time_ms, m.total_time_ms, m.wait_time_ms),
            (None, Some(812), Some(830))
        );
        assert_eq!(launch_state("UNKNOWN (0)"), None);
        assert_eq!(launch_state("HOT"), Some(LaunchState::Hot));
    }

    #[test]
    fn errors_are_typed() {
        let e = parse_am_start(
            "Starting: Intent { cmp=com.x/.Y }\nError type 3\n\
             Error: Activity class {com.x/com.x.Y} does not exist.\n",
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        let e = parse_am_start("Error: Activity not started, unable to resolve Intent { }\n")
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        let e = parse_am_start("Error: Activity not started, unknown error code 42\n").unwrap_err();
        assert_eq!(e.code, ErrorCode::CommandFailed);
        let m = parse_am_start("").unwrap();
        assert_eq!((m.total_time_ms, m.complete), (None, false));
    }
}
