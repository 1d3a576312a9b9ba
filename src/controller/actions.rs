//! UI actions: tap, long press, swipe, scroll, scroll-to, type, press, hide keyboard. Each runs
//! under the device's command lock and answers the action result of DESIGN.md: what was
//! targeted and resolved, the fingerprint before (from the kept snapshot when fresh: no extra
//! dump) and after (only when `observe` asks for it, since a dump costs seconds on a phone).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::OwnedMutexGuard;
use utoipa::ToSchema;

use super::session::DeviceSession;
use super::target::{check_reachable, Resolved, Target};
use super::DeviceController;
use crate::backend::types::Point;
use crate::backend::{Device, KeyPress};
use crate::error::{Error, ErrorCode, Result};

/// What every mutating UI action answers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ActionResult {
    pub action_id: String,
    pub action_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetReport>,
    /// The command was dispatched to the device. Whether the intended outcome happened is
    /// the job of `wait` and `expect`.
    pub success: bool,
    /// Fingerprint of the screen before, when a fresh snapshot was at hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint_before: Option<String>,
    /// Fingerprint after, when `observe: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint_after: Option<String>,
    /// The snapshot read after the action (with `observe: true`), whose refs are current.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_code: Option<ErrorCode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    pub device: Device,
    pub timing_ms: u64,
    /// Action-specific facts (typing method and read-back, scrolls done…).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<Value>,
}

/// The target as asked and as resolved.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TargetReport {
    pub selector: Target,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<Resolved>,
}

/// Scroll and swipe directions: where the content moves into view from (`down` shows what is
/// below, so the finger moves up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
}

static ACTION_SEQ: AtomicU64 = AtomicU64::new(0);

/// An action in progress: the device, its lock, the fingerprint before.
pub(super) struct Action {
    pub device: Device,
    pub session: Arc<DeviceSession>,
    _commands: OwnedMutexGuard<()>,
    started: Instant,
    kind: &'static str,
    pub fingerprint_before: Option<String>,
    log_mark: super::logs::LogMark,
}

impl DeviceController {
    pub(super) async fn begin(&self, udid: Option<&str>, kind: &'static str) -> Result<Action> {
        let device = self.resolve_to_act(udid).await?;
        let session = self.session(&device.udid);
        let commands = session.commands.clone().lock_owned().await;
        let fingerprint_before = session.fresh().map(|s| s.screen.fingerprint.clone());
        let log_mark = self.log_mark(&device, session.last().and_then(|s| s.app()));
        Ok(Action {
            device,
            session,
            _commands: commands,
            started: Instant::now(),
            kind,
            fingerprint_before,
            log_mark,
        })
    }

    /// Resolves a target within an action (may read the screen) and checks it is reachable.
    pub(super) async fn aim(&self, action: &mut Action, target: &Target) -> Result<Resolved> {
        let resolved = self
            .resolve_target_locked(&action.device, &action.session, target)
            .await?;
        if action.fingerprint_before.is_none() {
            action.fingerprint_before =
                action.session.fresh().map(|s| s.screen.fingerprint.clone());
        }
        check_reachable(&resolved)?;
        Ok(resolved)
    }

    /// Ends an action that was refused before any device command ran: `success: false` with
    /// `code`; the screen is untouched, so the kept snapshot stays fresh.
    pub(super) fn refused(
        &self,
        action: Action,
        target: Option<TargetReport>,
        code: ErrorCode,
        details: Value,
    ) -> Result<ActionResult> {
        Ok(ActionResult {
            action_id: format!("a{}", ACTION_SEQ.fetch_add(1, Ordering::Relaxed) + 1),
            action_type: action.kind.to_string(),
            target,
            success: false,
            fingerprint_before: action.fingerprint_before,
            fingerprint_after: None,
            snapshot_id: None,
            failure_code: Some(code),
            retryable: Some(code.retryable()),
            device: action.device,
            timing_ms: action.started.elapsed().as_millis() as u64,
            details: Some(details),
        })
    }

    /// Ends an action that touched the screen.
    pub(super) async fn finish(
        &self,
        action: Action,
        target: Option<TargetReport>,
        observe: bool,
        details: Option<Value>,
    ) -> Result<ActionResult> {
        action.session.touch();
        let (fingerprint_after, snapshot_id) = if observe {
            let s = self.dump_locked(&action.device, &action.session).await?;
            (Some(s.screen.fingerprint.clone()), Some(s.id.clone()))
        } else {
            (None, None)
        };
        let mark = action.log_mark;
        let result = ActionResult {
            action_id: format!("a{}", ACTION_SEQ.fetch_add(1, Ordering::Relaxed) + 1),
            action_type: action.kind.to_string(),
            target,
            success: true,
            fingerprint_before: action.fingerprint_before,
            fingerprint_after,
            snapshot_id,
            failure_code: None,
            retryable: None,
            device: action.device,
            timing_ms: action.started.elapsed().as_millis() as u64,
            details,
        };
        Ok(self.with_crash_outcome(&mark, observe, result).await)
    }

    pub async fn tap(
        &self,
        udid: Option<&str>,
        target: &Target,
        observe: bool,
    ) -> Result<ActionResult> {
        let mut action = self.begin(udid, "tap").await?;
        let resolved = self.aim(&mut action, target).await?;
        self.backend(&action.device)
            .tap(&action.device, resolved.point())
            .await?;
        let report = report(target, resolved);
        self.finish(action, Some(report), observe, None).await
    }

    pub async fn long_press(
        &self,
        udid: Option<&str>,
        target: &Target,
        duration_ms: u64,
        observe: bool,
    ) -> Result<ActionResult> {
        let mut action = self.begin(udid, "long_press").await?;
        let resolved = self.aim(&mut action, target).await?;
        self.backend(&action.device)
            .long_press(
                &action.device,
                resolved.point(),
                duration_ms.clamp(100, 60_000),
            )
            .await?;
        let report = report(target, resolved);
        self.finish(action, Some(report), observe, None).await
    }

    /// A swipe between two points, or across an element in a direction.
    pub async fn swipe(
        &self,
        udid: Option<&str>,
        from_to: Option<(Point, Point)>,
        along: Option<(&Target, Direction)>,
        duration_ms: u64,
        observe: bool,
    ) -> Result<ActionResult> {
        let mut action = self.begin(udid, "swipe").await?;
        let (from, to, target) = match (from_to, along) {
            (Some((from, to)), None) => (from, to, None),
            (None, Some((target, direction))) => {
                let resolved = self.aim(&mut action, target).await?;
                let area = resolved.bounds.unwrap_or_else(|| {
                    crate::ui::Rect::new(resolved.x - 200.0, resolved.y - 200.0, 400.0, 400.0)
                });
                let (from, to) = swipe_within(&area, direction);
                (from, to, Some(report(target, resolved)))
            }
            _ => {
                return Err(Error::validation(
                    "give either `from` and `to`, or a target with `direction`",
                ))
            }
        };
        self.backend(&action.device)
            .swipe(&action.device, from, to, duration_ms.clamp(50, 10_000))
            .await?;
        let details = json!({ "from": from, "to": to });
        self.finish(action, target, observe, Some(details)).await
    }

    pub async fn press(
        &self,
        udid: Option<&str>,
        key: KeyPress,
        observe: bool,
    ) -> Result<ActionResult> {
        let action = self.begin(udid, "press").await?;
        self.backend(&action.device)
            .press_key(&action.device, key)
            .await?;
        let details = match key {
            KeyPress::Named(k) => json!({ "key": k }),
            KeyPress::Code(c) => json!({ "keycode": c }),
        };
        self.finish(action, None, observe, Some(details)).await
    }

    /// Hides the soft keyboard when it is up (reads the screen if no fresh read says so).
    pub async fn hide_keyboard(&self, udid: Option<&str>) -> Result<ActionResult> {
        let action = self.begin(udid, "hide_keyboard").await?;
        let snapshot = self
            .fresh_or_dump_locked(&action.device, &action.session)
            .await?;
        let was_up = snapshot.screen.keyboard.is_some();
        if was_up {
            self.backend(&action.device)
                .hide_keyboard(&action.device)
                .await?;
        }
        self.finish(
            action,
            None,
            false,
            Some(json!({ "keyboard_was_visible": was_up })),
        )
        .await
    }
}

pub(super) fn report(target: &Target, resolved: Resolved) -> TargetReport {
    TargetReport {
        selector: target.clone(),
        resolved: Some(resolved),
    }
}

/// A swipe inside `area` that scrolls its content in `direction`: the finger travels 60 % of
/// the area, away from the edge the content comes from.
pub fn swipe_within(area: &crate::ui::Rect, direction: Direction) -> (Point, Point) {
    let (cx, cy) = area.center();
    let (dx, dy) = (area.w * 0.3, area.h * 0.3);
    let p = |x: f64, y: f64| Point {
        x: x.round(),
        y: y.round(),
    };
    match direction {
        Direction::Down => (p(cx, cy + dy), p(cx, cy - dy)),
        Direction::Up => (p(cx, cy - dy), p(cx, cy + dy)),
        Direction::Right => (p(cx + dx, cy), p(cx - dx, cy)),
        Direction::Left => (p(cx - dx, cy), p(cx + dx, cy)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrolling_down_moves_the_finger_up_inside_the_area() {
        let area = crate::ui::Rect::new(0.0, 200.0, 1080.0, 1000.0);
        let (from, to) = swipe_within(&area, Direction::Down);
        assert!(from.y > to.y);
        assert_eq!(from.x, 540.0);
        for p in [from, to] {
            assert!(area.contains(p.x, p.y));
        }
        let (from, to) = swipe_within(&area, Direction::Left);
        assert!(from.x < to.x);
    }
}
