//! UI actions: tap, long press, swipe, scroll, scroll-to, type, press, hide keyboard. Each runs
//! under the device's command lock in three steps: [`DeviceController::begin`] (the device and
//! its lock), [`DeviceController::aim`] (the target, re-checked against a fresh read when the
//! kept one is stale), [`DeviceController::perform`] (the input step, and with `observe` the
//! screen read after it in the same round trip where the backend can) and
//! [`DeviceController::finish`]. The answer is lean: the device by udid, the target as its ref
//! and point, the fingerprint before (from the kept snapshot: no extra dump) and, with
//! `observe`, the fingerprint after and the [`Changes`] since the last read.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::reach::Reach;
use super::slot::DeviceSlot;
use super::snapshot::Snapshot;
use super::target::{check_on_screen, check_reachable, Resolved};
use super::DeviceController;
use crate::api::wire::act::{ActionResult, ActionTarget, Direction, Target};
use crate::backend::concern;
use crate::backend::{Acted, InputStep};
use crate::device::{Device, KeyPress, Point};
use crate::error::{Error, ErrorCode, Result};
use crate::ui::diff::diff;

impl ActionTarget {
    /// The target asked for, as it resolved.
    pub fn of(asked: &Target, resolved: &Resolved) -> ActionTarget {
        ActionTarget {
            r#ref: resolved.r#ref.clone(),
            name: resolved.name.clone().filter(|_| asked.r#ref.is_none()),
            x: Some(resolved.x),
            y: Some(resolved.y),
        }
    }
}

/// Longest settle time an action may ask for before its read.
pub const MAX_SETTLE_MS: u64 = 5_000;

/// Whether to read the screen after an action (`observe`), and how long to let it settle
/// first (default: the backend's, see `Input::settle_time`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Observe {
    /// Read the screen after the action and answer what changed.
    pub read: bool,
    /// Milliseconds to wait before that read, at most `MAX_SETTLE_MS` (none: the backend's).
    pub settle_ms: Option<u64>,
    /// Sample the app just before the action and just after it (and its read): what the
    /// action cost it, answered in the receipt's `perf`.
    pub measure: bool,
}

impl Observe {
    /// An observation as a request asks it; `settle_ms` beyond [`MAX_SETTLE_MS`], or without
    /// `observe`, is refused.
    pub fn checked(read: bool, settle_ms: Option<u64>, measure: bool) -> Result<Observe> {
        match settle_ms {
            Some(ms) if ms > MAX_SETTLE_MS => Err(Error::validation(format!(
                "`settle_ms` is at most {MAX_SETTLE_MS}"
            ))),
            Some(_) if !read => Err(Error::validation(
                "`settle_ms` is the wait before the read of `observe: true`; set `observe` too",
            )),
            _ => Ok(Observe {
                read,
                settle_ms,
                measure,
            }),
        }
    }

    /// No read after the action.
    pub const NONE: Observe = Observe {
        read: false,
        settle_ms: None,
        measure: false,
    };
}

/// An action in progress: the device, its lock, the reads before and after.
pub(super) struct Action {
    pub device: Device,
    pub session: Arc<DeviceSlot>,
    _commands: Option<super::slot::Hold>,
    kind: &'static str,
    pub fingerprint_before: Option<String>,
    /// The latest read when the action began: what `changes` compare against.
    before: Option<Arc<Snapshot>>,
    /// The read made with the action (`observe`).
    after: Option<Arc<Snapshot>>,
    /// Where the device's log was when the action began (did the app crash meanwhile?).
    log_mark: super::logs::LogMark,
    /// The log's newest lines, read with the action's own read after it.
    log_tail: Option<crate::logs::LogText>,
    /// The read after the action was the action's own (a scroll's, to tell whether anything
    /// moved), not asked with `observe`: its snapshot and changes are not answered.
    read_unasked: bool,
    /// What the action cost the app, when measured.
    cost: Option<crate::perf::ActionCost>,
}

impl Action {
    /// The read made with the action, if any.
    pub fn latest(&self) -> Option<Arc<Snapshot>> {
        self.after.clone()
    }

    /// The read after the action is the action's own business: the answer gives its
    /// fingerprint, not its snapshot and changes (which `observe` asks for).
    pub fn read_unasked(&mut self) {
        self.read_unasked = true;
    }
}

impl DeviceController {
    pub(super) async fn begin(&self, udid: Option<&str>, kind: &'static str) -> Result<Action> {
        let on = self.reach_held(udid, Reach::Act).await?;
        let (device, session, commands) = on.into_parts();
        let fingerprint_before = session.fresh().map(|s| s.screen.fingerprint.clone());
        let log_mark = self.log_mark(&device, session.last().and_then(|s| s.app()));
        Ok(Action {
            device,
            before: session.last(),
            session,
            _commands: commands,
            kind,
            fingerprint_before,
            after: None,
            log_mark,
            log_tail: None,
            read_unasked: false,
            cost: None,
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
        if let Some(s) = action.session.fresh() {
            action.before = Some(s);
        }
        if target.x.is_some() || target.y.is_some() {
            let size = self.screen_size(action).await?;
            check_on_screen(resolved.point(), size)?;
        }
        check_reachable(&resolved)?;
        Ok(resolved)
    }

    /// The screen's size: the last read's, else the screen is read now.
    pub(super) async fn screen_size(&self, action: &Action) -> Result<crate::ui::Size> {
        if let Some(s) = action.session.last() {
            return Ok(s.screen.screen);
        }
        let s = self
            .fresh_or_dump_locked(&action.device, &action.session)
            .await?;
        Ok(s.screen.screen)
    }

    /// The area a swipe or a scroll aimed at `resolved` moves in: the element's bounds, or 400
    /// units around a point, cut to the screen ([`within_screen`]).
    pub(super) async fn gesture_area(
        &self,
        action: &Action,
        resolved: &Resolved,
    ) -> Result<crate::ui::Rect> {
        let around = resolved.bounds.unwrap_or_else(|| {
            crate::ui::Rect::new(resolved.x - 200.0, resolved.y - 200.0, 400.0, 400.0)
        });
        Ok(within_screen(around, self.screen_size(action).await?))
    }

    /// Runs the input step; with `observe`, reads the screen after it (in the same round trip
    /// where the backend can), which becomes the device's latest snapshot.
    pub(super) async fn perform(
        &self,
        action: &mut Action,
        step: &InputStep<'_>,
        observe: Observe,
    ) -> Result<Acted> {
        let measured = match observe.measure {
            true => Some(self.measure_before(action).await?),
            false => None,
        };
        let acted = self.perform_step(action, step, observe).await?;
        if let Some(before) = measured {
            action.cost = Some(self.measure_after(action, before).await);
        }
        Ok(acted)
    }

    /// The input step, and with `observe` the read after it.
    async fn perform_step(
        &self,
        action: &mut Action,
        step: &InputStep<'_>,
        observe: Observe,
    ) -> Result<Acted> {
        let backend = self.backend(&action.device)?;
        let input = self.cap(&action.device, concern::Input)?;
        if !observe.read {
            let acted = input.act(&action.device, step).await?;
            action.session.touch();
            return Ok(acted);
        }
        let settle = observe
            .settle_ms
            .map_or_else(|| input.settle_time(), Duration::from_millis);
        // The crash check of an observed action needs the log's newest line: it comes in the
        // same round trip.
        let tail = action.log_mark.tail_read();
        let started = Instant::now();
        let screen = self.cap(&action.device, concern::Screen)?;
        let done = input
            .act_then_read(
                &action.device,
                step,
                settle,
                tail.as_ref(),
                screen,
                backend.logs(),
            )
            .await?;
        action.session.touch();
        let after = self
            .keep(&action.device, &action.session, done.ui, started.elapsed())
            .await?;
        action.after = Some(after);
        action.log_tail = done.log;
        Ok(done.acted)
    }

    /// Ends an action that was refused before any device command ran: `success: false` with
    /// `code`; the screen is untouched, so the kept snapshot stays fresh.
    pub(super) fn refused(
        &self,
        action: Action,
        target: Option<ActionTarget>,
        code: ErrorCode,
        details: Value,
    ) -> Result<ActionResult> {
        let mut result = self.answer(action, target, Some(details));
        result.success = false;
        result.failure_code = Some(code);
        result.retryable = Some(code.retryable());
        Ok(result)
    }

    /// Ends an action that touched the screen (after [`Self::perform`]).
    pub(super) async fn finish(
        &self,
        action: Action,
        target: Option<ActionTarget>,
        details: Option<Value>,
    ) -> Result<ActionResult> {
        if action.after.is_none() {
            action.session.touch();
        }
        // Else the read made with the action is the latest snapshot, and fresh.
        let (mark, observed) = (action.log_mark.clone(), action.after.is_some());
        let (device, mut action) = (action.device.clone(), action);
        let tail = action.log_tail.take();
        let result = self.answer(action, target, details);
        // An app that crashed or stopped responding meanwhile fails the action.
        Ok(self
            .with_crash_outcome(&device, &mark, observed, tail, result)
            .await)
    }

    fn answer(
        &self,
        action: Action,
        target: Option<ActionTarget>,
        details: Option<Value>,
    ) -> ActionResult {
        let (fingerprint_after, snapshot_id, changes) = match &action.after {
            Some(after) if action.read_unasked => {
                (Some(after.screen.fingerprint.clone()), None, None)
            }
            Some(after) => (
                Some(after.screen.fingerprint.clone()),
                Some(after.id.clone()),
                action
                    .before
                    .as_ref()
                    .map(|before| diff(&before.screen, &after.screen)),
            ),
            None => (None, None, None),
        };
        ActionResult {
            action_type: action.kind.to_string(),
            target,
            success: true,
            // With a read after the action, `changes` say what moved: the fingerprint before
            // it would only repeat the last read's.
            fingerprint_before: action
                .fingerprint_before
                .filter(|_| action.after.is_none() || action.read_unasked),
            fingerprint_after,
            snapshot_id,
            changes,
            failure_code: None,
            retryable: None,
            udid: action.device.udid,
            perf: action.cost,
            details,
        }
    }

    /// Taps the target's point.
    pub async fn tap(
        &self,
        udid: Option<&str>,
        target: &Target,
        observe: Observe,
    ) -> Result<ActionResult> {
        let mut action = self.begin(udid, "tap").await?;
        let resolved = self.aim(&mut action, target).await?;
        self.perform(&mut action, &InputStep::Tap(resolved.point()), observe)
            .await?;
        let target = ActionTarget::of(target, &resolved);
        self.finish(action, Some(target), None).await
    }

    /// Presses on the target's point for `duration_ms` (clamped to 100 ms..60 s).
    pub async fn long_press(
        &self,
        udid: Option<&str>,
        target: &Target,
        duration_ms: u64,
        observe: Observe,
    ) -> Result<ActionResult> {
        let mut action = self.begin(udid, "long_press").await?;
        let resolved = self.aim(&mut action, target).await?;
        let step = InputStep::LongPress {
            at: resolved.point(),
            duration_ms: duration_ms.clamp(100, 60_000),
        };
        self.perform(&mut action, &step, observe).await?;
        let target = ActionTarget::of(target, &resolved);
        self.finish(action, Some(target), None).await
    }

    /// A swipe between two points, or across an element in a direction.
    pub async fn swipe(
        &self,
        udid: Option<&str>,
        from_to: Option<(Point, Point)>,
        along: Option<(&Target, Direction)>,
        duration_ms: u64,
        observe: Observe,
    ) -> Result<ActionResult> {
        let mut action = self.begin(udid, "swipe").await?;
        let (from, to, target) = match (from_to, along) {
            (Some((from, to)), None) => {
                let size = self.screen_size(&action).await?;
                check_on_screen(from, size)?;
                check_on_screen(to, size)?;
                (from, to, None)
            }
            (None, Some((target, direction))) => {
                let resolved = self.aim(&mut action, target).await?;
                let area = self.gesture_area(&action, &resolved).await?;
                let (from, to) = swipe_within(&area, direction);
                (from, to, Some(ActionTarget::of(target, &resolved)))
            }
            _ => {
                return Err(Error::validation(
                    "give either `from` and `to`, or a target with `direction`",
                ))
            }
        };
        let step = InputStep::Swipe {
            from,
            to,
            duration_ms: duration_ms.clamp(50, 10_000),
        };
        self.perform(&mut action, &step, observe).await?;
        let details = json!({ "from": from, "to": to });
        self.finish(action, target, Some(details)).await
    }

    /// Presses a key (hardware or keyboard).
    pub async fn press(
        &self,
        udid: Option<&str>,
        key: KeyPress,
        observe: Observe,
    ) -> Result<ActionResult> {
        let mut action = self.begin(udid, "press").await?;
        self.perform(&mut action, &InputStep::Press(key), observe)
            .await?;
        let details = match key {
            KeyPress::Named(k) => json!({ "key": k }),
            KeyPress::Code(c) => json!({ "keycode": c }),
        };
        self.finish(action, None, Some(details)).await
    }

    /// Hides the soft keyboard when it is up (reads the screen if no fresh read says so).
    pub async fn hide_keyboard(&self, udid: Option<&str>) -> Result<ActionResult> {
        let action = self.begin(udid, "hide_keyboard").await?;
        let snapshot = self
            .fresh_or_dump_locked(&action.device, &action.session)
            .await?;
        let was_up = snapshot.screen.keyboard.is_some();
        if was_up {
            self.cap(&action.device, concern::Input)?
                .hide_keyboard(&action.device)
                .await?;
        }
        let details = json!({ "keyboard_was_visible": was_up });
        if !was_up {
            // Nothing was sent: the kept read is still the screen.
            return Ok(self.answer(action, None, Some(details)));
        }
        self.finish(action, None, Some(details)).await
    }
}

/// `area` cut to a screen of `size`, so that a gesture inside it neither starts nor ends off
/// the screen (an element reaching past an edge, a point near one); as it is when it lies
/// wholly off the screen, or the size is unknown.
pub fn within_screen(area: crate::ui::Rect, size: crate::ui::Size) -> crate::ui::Rect {
    area.intersection(&crate::ui::Rect::new(0.0, 0.0, size.w, size.h))
        .unwrap_or(area)
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

    #[test]
    fn a_gesture_near_an_edge_stays_on_the_screen() {
        let screen = crate::ui::Size {
            w: 1080.0,
            h: 2400.0,
        };
        // 400 around a point 10 px above the bottom edge.
        let area = within_screen(crate::ui::Rect::new(340.0, 2190.0, 400.0, 400.0), screen);
        assert_eq!(area, crate::ui::Rect::new(340.0, 2190.0, 400.0, 210.0));
        for direction in [
            Direction::Up,
            Direction::Down,
            Direction::Left,
            Direction::Right,
        ] {
            let (from, to) = swipe_within(&area, direction);
            for p in [from, to] {
                assert!(p.y < 2400.0 && p.x >= 0.0, "{direction:?}: {p:?}");
            }
        }
        // Unknown size or an area wholly off the screen: left as it is.
        let off = crate::ui::Rect::new(0.0, 2500.0, 100.0, 100.0);
        assert_eq!(within_screen(off, screen), off);
        assert_eq!(within_screen(off, crate::ui::Size::default()), off);
    }
}
