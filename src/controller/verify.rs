//! Verification: actions say a command was dispatched; these say whether the intended outcome
//! happened. `wait` polls until a selector meets a condition, `expect` judges the screen once,
//! `wait_for_change` polls until the fingerprint moves and then confirms the new screen with
//! one more read so a screen in mid-animation is not reported as settled.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::reach::Reach;
use super::snapshot::Snapshot;
use super::DeviceController;
use crate::api::wire::verify::{
    ChangeResult, ChangeStatus, Condition, ExpectResult, Expectation, Observed, WaitResult,
    WaitStatus,
};
use crate::error::{Error, ErrorCode, Result};
use crate::ui::select::{self, Selector};
use crate::ui::Screen;

/// Polling parameters, clamped to sane bounds.
#[derive(Debug, Clone, Copy)]
pub struct Polling {
    /// How long to keep polling, at most `MAX_TIMEOUT_MS` (default 5 s).
    pub timeout: Duration,
    /// The pause between reads, 50 ms..10 s (default 300 ms).
    pub interval: Duration,
}

/// The longest a wait may poll.
pub const MAX_TIMEOUT_MS: u64 = 120_000;

impl Polling {
    /// The polling asked for, defaults filled in and values clamped into range.
    pub fn new(timeout_ms: Option<u64>, interval_ms: Option<u64>) -> Self {
        Polling {
            timeout: Duration::from_millis(timeout_ms.unwrap_or(5_000).min(MAX_TIMEOUT_MS)),
            interval: Duration::from_millis(interval_ms.unwrap_or(300).clamp(50, 10_000)),
        }
    }

    /// The polling a request asks for, refused (not silently clamped) when out of range.
    pub fn checked(timeout_ms: Option<u64>, interval_ms: Option<u64>) -> Result<Self> {
        if timeout_ms.is_some_and(|t| t > MAX_TIMEOUT_MS) {
            return Err(Error::validation(format!(
                "`timeout_ms` is at most {MAX_TIMEOUT_MS}"
            )));
        }
        if interval_ms.is_some_and(|i| !(50..=10_000).contains(&i)) {
            return Err(Error::validation("`poll_interval_ms` is 50 to 10000"));
        }
        Ok(Polling::new(timeout_ms, interval_ms))
    }
}

/// Judges `condition` on a screen: (held, first match, what was observed).
pub fn judge(
    screen: &Screen,
    selector: &Selector,
    condition: Condition,
    text: Option<&str>,
) -> (bool, Option<Observed>, Value) {
    let matches = select::find_all(screen, selector);
    let first = matches.first().map(|m| Observed::of(screen, m.node));
    let held = match condition {
        Condition::Exists => first.is_some(),
        Condition::NotExists => first.is_none(),
        Condition::Visible => matches.iter().any(|m| Observed::of(screen, m.node).visible),
        Condition::Enabled => first.as_ref().is_some_and(|o| o.enabled),
        Condition::TextEquals => first
            .as_ref()
            .is_some_and(|o| o.text.as_deref().or(o.name.as_deref()) == text),
    };
    let observed = json!({ "matches": matches.len(), "first": first });
    (held, first, observed)
}

impl DeviceController {
    /// Polls until `selector` meets `condition` or the timeout passes.
    pub async fn wait(
        &self,
        udid: Option<&str>,
        selector: &Selector,
        condition: Condition,
        text: Option<&str>,
        polling: Polling,
    ) -> Result<WaitResult> {
        if condition == Condition::TextEquals && text.is_none() {
            return Err(Error::validation("`text_equals` needs `text`"));
        }
        let device = self.resolve_ready(udid).await?;
        let started = Instant::now();
        let mut polls = 0;
        loop {
            let snapshot = self.snapshot(&device).await?;
            polls += 1;
            let selector = self.bind_css(&device, selector).await?;
            let (held, matched, observed) = judge(&snapshot.screen, &selector, condition, text);
            let timed_out = started.elapsed() >= polling.timeout;
            if held || timed_out {
                return Ok(WaitResult {
                    status: if held {
                        WaitStatus::Success
                    } else {
                        WaitStatus::Timeout
                    },
                    matched: if held { matched } else { None },
                    observed,
                    elapsed_ms: started.elapsed().as_millis() as u64,
                    polls,
                    snapshot_id: snapshot.id.clone(),
                });
            }
            tokio::time::sleep(polling.interval.min(polling.timeout - started.elapsed())).await;
        }
    }

    /// Reads the screen now (or uses a fresh read) for `expect`.
    pub async fn current(&self, udid: Option<&str>) -> Result<std::sync::Arc<Snapshot>> {
        let on = self.reach_held(udid, Reach::Read).await?;
        self.fresh_or_dump_locked(&on.device, &on.slot).await
    }

    /// Polls until the fingerprint differs from `from` (default: the current screen's), then
    /// confirms with one more read that the new screen has settled.
    pub async fn wait_for_change(
        &self,
        udid: Option<&str>,
        from: Option<String>,
        polling: Polling,
    ) -> Result<ChangeResult> {
        let device = self.resolve_ready(udid).await?;
        let started = Instant::now();
        let before = match from {
            Some(f) => f,
            None => self
                .current(Some(&device.udid))
                .await?
                .screen
                .fingerprint
                .clone(),
        };
        let mut polls = 0;
        let mut candidate: Option<String> = None;
        loop {
            let snapshot = self.snapshot(&device).await?;
            polls += 1;
            let now = snapshot.screen.fingerprint.clone();
            let settled = now != before && candidate.as_deref() == Some(now.as_str());
            if settled || started.elapsed() >= polling.timeout {
                return Ok(ChangeResult {
                    status: if settled {
                        ChangeStatus::Changed
                    } else {
                        ChangeStatus::Timeout
                    },
                    fingerprint_before: before,
                    fingerprint_after: now,
                    elapsed_ms: started.elapsed().as_millis() as u64,
                    polls,
                    snapshot_id: snapshot.id.clone(),
                });
            }
            // A new fingerprint is confirmed by the next read straight away; otherwise wait.
            if now != before {
                candidate = Some(now);
            } else {
                candidate = None;
                tokio::time::sleep(polling.interval.min(polling.timeout - started.elapsed())).await;
            }
        }
    }
}

/// Judges an expectation on one snapshot.
pub fn expect_on(snapshot: &Snapshot, expectation: &Expectation) -> ExpectResult {
    let screen = &snapshot.screen;
    let (success, code, observed) = match expectation {
        Expectation::ElementVisible { selector } => {
            let (ok, _, obs) = judge(screen, selector, Condition::Visible, None);
            (ok, ErrorCode::ElementNotFound, obs)
        }
        Expectation::ElementNotVisible { selector } => {
            let (visible, _, obs) = judge(screen, selector, Condition::Visible, None);
            (!visible, ErrorCode::ElementVisible, obs)
        }
        Expectation::ElementHasText { selector, text } => {
            let (ok, first, obs) = judge(screen, selector, Condition::TextEquals, Some(text));
            let code = match first {
                Some(_) => ErrorCode::TextMismatch,
                None => ErrorCode::ElementNotFound,
            };
            (ok, code, obs)
        }
        Expectation::Screen { fingerprint } => (
            &screen.fingerprint == fingerprint,
            ErrorCode::NavigationNoChange,
            json!({ "fingerprint": screen.fingerprint }),
        ),
        Expectation::ForegroundApp { app } => {
            let now = snapshot.app();
            (
                now.as_deref() == Some(app.as_str()),
                ErrorCode::NavigationNoChange,
                json!({ "app": now }),
            )
        }
        // Judged on screenshots (an audit reads both), not on a read alone:
        // `DeviceController::expect`.
        Expectation::ScreenMatches { .. } | Expectation::Accessible { .. } => (
            false,
            ErrorCode::Internal,
            json!({ "note": "DeviceController::expect judges this kind on screenshots" }),
        ),
        Expectation::ForegroundActivity { activity } => {
            let now = snapshot.activity.clone();
            let ok = now
                .as_deref()
                .is_some_and(|a| a.ends_with(activity.as_str()));
            (
                ok,
                ErrorCode::NavigationNoChange,
                json!({ "activity": now, "app": snapshot.app() }),
            )
        }
    };
    ExpectResult {
        success,
        failure_code: (!success).then_some(code),
        retryable: (!success).then_some(code.retryable()),
        observed,
        snapshot_id: Some(snapshot.id.clone()),
    }
}
