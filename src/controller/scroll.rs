//! Scrolling: one swipe inside a scroll container, read after to tell whether the content
//! moved (`details.moved`: false at its end), and scroll-to, which swipes until a selector
//! matches an element on screen, stops at the end of the content (the screen stops changing),
//! and reports the scrolls done.

use std::time::{Duration, Instant};

use serde_json::json;

use super::actions::{swipe_within, Observe};
use super::target::select_error;
use super::DeviceController;
use crate::api::wire::act::{ActionResult, ActionTarget, Direction, Target};
use crate::backend::InputStep;
use crate::error::{Error, ErrorCode, Result, Step};
use crate::ui::select::{self, Selector};
use crate::ui::{Rect, Screen};

/// How long web content that looks unmoved after a scroll is read again before scroll-to
/// calls it the end: a browser moves the page on its compositor and tells the page (whose
/// tree a read sees) later, and a fling goes on after the finger lifts.
const WEB_SETTLE: Duration = Duration::from_millis(1500);
/// The pause between those reads.
const WEB_SETTLE_POLL: Duration = Duration::from_millis(150);

/// The biggest scrollable element on screen, else the screen without its edges.
fn default_scroll_area(screen: &Screen) -> Rect {
    screen
        .elements
        .iter()
        .enumerate()
        .filter(|(i, e)| e.states.scrollable && screen.shown.get(*i).copied().unwrap_or(false))
        .map(|(_, e)| e.bounds)
        .max_by(|a, b| a.area().total_cmp(&b.area()))
        .unwrap_or_else(|| {
            let s = screen.screen_rect();
            Rect::new(s.x, s.y + s.h * 0.15, s.w, s.h * 0.7)
        })
}

/// Whether element `node` is on screen and not under the keyboard.
fn in_view(screen: &Screen, node: usize) -> bool {
    let (x, y) = screen.elements[node].bounds.center();
    screen.is_on_screen(node) && !screen.keyboard.is_some_and(|k| k.contains(x, y))
}

impl DeviceController {
    /// One scroll of `target`'s area (default: the biggest scroll container).
    pub async fn scroll(
        &self,
        udid: Option<&str>,
        target: &Target,
        direction: Direction,
        observe: Observe,
    ) -> Result<ActionResult> {
        let mut action = self.begin(udid, "scroll").await?;
        let (area, report_target, before) = if target.is_empty() {
            let s = self
                .fresh_or_dump_locked(&action.device, &action.session)
                .await?;
            let before = s.screen.fingerprint.clone();
            (default_scroll_area(&s.screen), None, Some(before))
        } else {
            let r = self.aim(&mut action, target).await?;
            let area = self.gesture_area(&action, &r).await?;
            let before = action.session.fresh().map(|s| s.screen.fingerprint.clone());
            (area, Some(ActionTarget::of(target, &r)), before)
        };
        let (from, to) = swipe_within(&area, direction);
        let step = InputStep::Swipe {
            from,
            to,
            duration_ms: 400,
        };
        // The screen is read after every scroll (in the same round trip on Android), so that
        // the answer says whether the content moved: at its end, it does not.
        if !observe.read {
            action.read_unasked();
        }
        let read = Observe {
            read: true,
            settle_ms: observe.settle_ms,
            measure: observe.measure,
        };
        self.perform(&mut action, &step, read).await?;
        let after = action.latest().map(|s| s.screen.fingerprint.clone());
        let mut details = json!({ "direction": direction, "from": from, "to": to });
        if let (Some(before), Some(after)) = (before, after) {
            details["moved"] = json!(before != after);
        }
        self.finish(action, report_target, Some(details)).await
    }

    /// Scrolls until `selector` matches an element in view, at most `max_scrolls` times. Each
    /// scroll and the read after it are one step (one adb round trip on Android).
    pub async fn scroll_to(
        &self,
        udid: Option<&str>,
        selector: &Selector,
        direction: Direction,
        max_scrolls: u32,
    ) -> Result<ActionResult> {
        let mut action = self.begin(udid, "scroll_to").await?;
        let mut scrolls = 0u32;
        let mut previous_fingerprint: Option<String> = None;
        let mut snapshot = self
            .fresh_or_dump_locked(&action.device, &action.session)
            .await?;
        loop {
            let bound = self.bind_css(&action.device, selector).await?;
            match select::find(&snapshot.screen, &bound) {
                Ok(m) if in_view(&snapshot.screen, m.node) => {
                    let target = Target {
                        r#ref: m.r#ref.clone(),
                        snapshot_id: Some(snapshot.id.clone()),
                        ..Target::default()
                    };
                    let resolved = self.aim(&mut action, &target).await?;
                    let mut report = ActionTarget::of(&target, &resolved);
                    report.name = resolved.name.clone();
                    let details =
                        json!({ "scrolls": scrolls, "found": true, "snapshot_id": snapshot.id });
                    return self.finish(action, Some(report), Some(details)).await;
                }
                Err(e @ select::SelectError::Ambiguous { .. }) => {
                    return Err(select_error(e, selector));
                }
                _ => {}
            }
            let mut end_reached =
                previous_fingerprint.as_deref() == Some(&snapshot.screen.fingerprint);
            if end_reached && snapshot.tree.nodes.iter().any(crate::ui::web::is_web) {
                // A page scrolls on its own time (the browser's compositor, a fling after the
                // finger lifts, the page's main thread told last): what looks unmoved may not
                // have moved yet. Read again until it has, for a short while.
                let deadline = Instant::now() + WEB_SETTLE;
                while end_reached && Instant::now() < deadline {
                    tokio::time::sleep(WEB_SETTLE_POLL).await;
                    snapshot = self.dump_locked(&action.device, &action.session).await?;
                    end_reached =
                        previous_fingerprint.as_deref() == Some(&snapshot.screen.fingerprint);
                }
                if !end_reached {
                    continue;
                }
            }
            if scrolls >= max_scrolls || end_reached {
                let why = if end_reached {
                    format!("the content stopped moving after {scrolls} scroll(s)")
                } else {
                    format!("not found within {max_scrolls} scroll(s)")
                };
                return Err(Error::new(ErrorCode::ElementNotFound, why)
                    .with_next(
                        "try the other direction, a looser selector ({0}), or more {1}",
                        [Step::field_is("contains", true), Step::field("max_scrolls")],
                    )
                    .with_details(json!({ "scrolls": scrolls, "selector": selector, "end_reached": end_reached })));
            }
            previous_fingerprint = Some(snapshot.screen.fingerprint.clone());
            let (from, to) = swipe_within(&default_scroll_area(&snapshot.screen), direction);
            let step = InputStep::Swipe {
                from,
                to,
                duration_ms: 400,
            };
            let read = Observe {
                read: true,
                settle_ms: None,
                measure: false,
            };
            self.perform(&mut action, &step, read).await?;
            scrolls += 1;
            snapshot = match action.latest() {
                Some(s) => s,
                None => self.dump_locked(&action.device, &action.session).await?,
            };
        }
    }
}
