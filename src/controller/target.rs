//! Targets of actions: exactly one of a ref, a point or a selector, resolved to a point in the
//! platform's tap coordinates against the device's snapshot — with the checks that keep an
//! agent from acting blind: stale refs, ambiguous selectors, a blocking alert, a target hidden
//! under the keyboard.

use std::sync::Arc;

use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use super::slot::DeviceSlot;
use super::snapshot::Snapshot;
use super::DeviceController;
use crate::api::wire::act::Target;
use crate::device::{Device, Point};
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::ui::select::{self, SelectError, Selector};
use crate::ui::{Rect, Role, Screen};

/// What a target resolved to.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Resolved {
    /// The element's ref (`e12`), when it has one.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    /// The element's role (none: a point or a grid cell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// The element's label, `grid CELL` for a grid cell; none for a point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The element's bounds, in tap units (none: a point or a grid cell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Rect>,
    /// The point acted on: its `x`, in tap units.
    pub x: f64,
    /// The point acted on: its `y`, in tap units.
    pub y: f64,
    /// Index of the element in the snapshot it was resolved against.
    #[serde(skip)]
    pub node: Option<usize>,
    /// The snapshot it was resolved against, if any.
    #[serde(skip)]
    pub snapshot: Option<Arc<Snapshot>>,
}

impl Resolved {
    /// The point acted on.
    pub fn point(&self) -> Point {
        Point {
            x: self.x,
            y: self.y,
        }
    }
}

fn element_resolved(snapshot: &Arc<Snapshot>, node: usize) -> Resolved {
    crate::flows::record::note(&snapshot.screen, node);
    let screen = &snapshot.screen;
    let e = &screen.elements[node];
    let visible = clip(&e.bounds, &screen.screen_rect());
    let (x, y) = visible.center();
    Resolved {
        r#ref: e.r#ref.clone(),
        role: Some(e.role),
        name: screen.name_of(node),
        bounds: Some(e.bounds),
        x: x.round(),
        y: y.round(),
        node: Some(node),
        snapshot: Some(snapshot.clone()),
    }
}

/// The part of `r` inside `screen` (or `r` when they do not meet).
fn clip(r: &Rect, screen: &Rect) -> Rect {
    let x0 = r.x.max(screen.x);
    let y0 = r.y.max(screen.y);
    let x1 = r.right().min(screen.right());
    let y1 = r.bottom().min(screen.bottom());
    if x1 > x0 && y1 > y0 {
        Rect::new(x0, y0, x1 - x0, y1 - y0)
    } else {
        *r
    }
}

/// Turns a selector failure into the API's error.
pub fn select_error(err: SelectError, selector: &Selector) -> Error {
    match err {
        SelectError::EmptySelector => Error::validation(err.to_string()).with_next(
            "e.g. {0} or {1}",
            [
                Step::example(json!({"text": "Sign in"})),
                Step::example(json!({"id": "login_button"})),
            ],
        ),
        SelectError::NotFound | SelectError::IndexOutOfRange { .. } => {
            Error::new(ErrorCode::ElementNotFound, err.to_string())
                .with_next(
                    "check {0}; try {1}, or scroll-to",
                    [Step::call(Op::Snapshot), Step::field_is("contains", true)],
                )
                .with_details(json!({ "selector": selector }))
        }
        SelectError::Ambiguous { candidates } => Error::new(
            ErrorCode::AmbiguousTarget,
            format!("{} elements match the selector", candidates.len()),
        )
        .with_next(
            "act on one candidate's ref, or add {0}, {1} or {2} to the selector",
            [Step::field("index"), Step::field("role"), Step::field("id")],
        )
        .with_details(json!({ "candidates": candidates, "selector": selector })),
    }
}

fn stale(message: String) -> Error {
    Error::new(ErrorCode::StaleReference, message).with_next(
        "read the screen again with {0} and use its refs",
        [Step::call(Op::Snapshot)],
    )
}

/// Whether element `i` belongs to the on-screen keyboard.
fn is_keyboard_part(screen: &Screen, mut i: usize) -> bool {
    loop {
        let e = &screen.elements[i];
        if e.role == Role::Keyboard
            || e.package
                .as_deref()
                .is_some_and(|p| p.contains("inputmethod") || p.contains("keyboard"))
        {
            return true;
        }
        match e.parent {
            Some(p) => i = p,
            None => return false,
        }
    }
}

/// Refuses a resolved target (element or point) that a blocking alert or the keyboard covers:
/// while an alert is up, only its buttons can be tapped.
pub fn check_reachable(resolved: &Resolved) -> Result<()> {
    let Some(snapshot) = &resolved.snapshot else {
        return Ok(());
    };
    let screen = &snapshot.screen;
    let (x, y) = (resolved.x, resolved.y);
    if let Some(alert) = &screen.alert {
        let on_alert = alert.buttons.iter().any(|b| b.bounds.contains(x, y));
        if !on_alert {
            return Err(Error::new(
                ErrorCode::AlertBlocking,
                format!(
                    "an alert blocks the screen: {}",
                    alert
                        .title
                        .as_deref()
                        .or(alert.message.as_deref())
                        .unwrap_or("(untitled)")
                ),
            )
            .with_next(
                "answer it first: {0} or {1}, or tap one of its buttons",
                [Step::call(Op::AlertAccept), Step::call(Op::AlertDismiss)],
            )
            .with_details(json!({ "alert": alert })));
        }
    }
    if let Some(kb) = &screen.keyboard {
        // A point on the keyboard is refused unless the target is itself a key (given by ref
        // or selector): coordinates there would silently tap whatever key lies under them.
        if kb.contains(x, y) && !resolved.node.is_some_and(|n| is_keyboard_part(screen, n)) {
            return Err(Error::new(
                ErrorCode::ElementObscured,
                "the target lies under the on-screen keyboard",
            )
            .with_next("hide the keyboard ({0}) or scroll the element into view first; press keys with {1}", [Step::call(Op::HideKeyboard), Step::call(Op::Press)])
            .with_details(json!({ "keyboard": kb, "point": { "x": x, "y": y } })));
        }
    }
    Ok(())
}

/// Refuses a point that is not on a screen of `size`: not a finite, non-negative number, or
/// at or beyond its width or height (`ELEMENT_NOT_INTERACTABLE`, 422, naming the size). A
/// size not known (zero) checks the numbers only.
pub fn check_on_screen(p: Point, size: crate::ui::Size) -> Result<()> {
    let numbers = p.x.is_finite() && p.y.is_finite() && p.x >= 0.0 && p.y >= 0.0;
    let known = size.w > 0.0 && size.h > 0.0;
    if numbers && (!known || (p.x < size.w && p.y < size.h)) {
        return Ok(());
    }
    let (w, h) = (size.w, size.h);
    let point = json!({ "x": p.x, "y": p.y });
    let message = if known {
        format!(
            "the point ({}, {}) is off the screen, which is {w}×{h}",
            p.x, p.y
        )
    } else {
        format!("the point ({}, {}) is not on a screen", p.x, p.y)
    };
    Err(Error::new(ErrorCode::ElementNotInteractable, message)
        .with_next(
            format!(
            "give a point with 0 ≤ x < {w} and 0 ≤ y < {h} ({{0}} reads the screen and its size)"
        ),
            [Step::call(Op::Snapshot)],
        )
        .with_details(json!({ "point": point, "screen": { "w": w, "h": h } })))
}

impl DeviceController {
    /// Resolves `target` for the device whose command lock the caller holds. Element targets
    /// use the kept snapshot when no action ran since it, else read the screen again.
    pub(super) async fn resolve_target_locked(
        &self,
        device: &Device,
        session: &DeviceSlot,
        target: &Target,
    ) -> Result<Resolved> {
        let forms = [
            target.r#ref.is_some(),
            target.x.is_some() || target.y.is_some(),
            target.selector.is_some(),
            target.grid.is_some(),
        ];
        if forms.iter().filter(|f| **f).count() != 1 {
            return Err(Error::validation(
                "give exactly one target: `ref`, `x`+`y`, `selector` or `grid`",
            )
            .with_next(
                "e.g. {0} or {1} or {2}",
                [
                    Step::example(json!({"ref": "e12"})),
                    Step::example(json!({"x": 120, "y": 540})),
                    Step::example(json!({"selector": {"text": "Sign in"}})),
                ],
            ));
        }
        if let Some(r) = &target.r#ref {
            return self
                .resolve_ref(device, session, r, target.snapshot_id.as_deref())
                .await;
        }
        if let Some(cell) = &target.grid {
            let snapshot = self.fresh_or_dump_locked(device, session).await?;
            let size = snapshot.screen.screen;
            let spec = crate::image::GridSpec::for_size(size.w, size.h);
            let (x, y) = crate::image::grid_cell_center(cell, size.w, size.h, spec)
                .map_err(|e| Error::validation(e.to_string()))?;
            return Ok(Resolved {
                r#ref: None,
                role: None,
                name: Some(format!("grid {cell}")),
                bounds: None,
                x: x.round(),
                y: y.round(),
                node: None,
                snapshot: None,
            });
        }
        if let Some(selector) = &target.selector {
            let snapshot = self.fresh_or_dump_locked(device, session).await?;
            let selector = self.bind_css(device, selector).await?;
            let m = select::find(&snapshot.screen, &selector)
                .map_err(|e| select_error(e, &selector))?;
            return Ok(element_resolved(&snapshot, m.node));
        }
        match (target.x, target.y) {
            (Some(x), Some(y)) if x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0 => {
                Ok(Resolved {
                    r#ref: None,
                    role: None,
                    name: None,
                    bounds: None,
                    x,
                    y,
                    node: None,
                    // Checked against a fresh read when one is at hand (no extra dump).
                    snapshot: session.fresh(),
                })
            }
            _ => Err(Error::validation(
                "`x` and `y` must both be given, as non-negative numbers",
            )),
        }
    }

    async fn resolve_ref(
        &self,
        device: &Device,
        session: &DeviceSlot,
        r: &str,
        snapshot_id: Option<&str>,
    ) -> Result<Resolved> {
        let r = r.strip_prefix('@').unwrap_or(r);
        let Some(base) = session.last() else {
            return Err(stale(format!(
                "`{r}` cannot be resolved: the screen was not read yet"
            )));
        };
        if let Some(id) = snapshot_id {
            let same_screen = session
                .fingerprint_of(id)
                .is_some_and(|fp| fp == base.screen.fingerprint);
            if id != base.id && !same_screen {
                return Err(stale(format!(
                    "`{r}` is from snapshot {id}, but the screen was read again since (now {})",
                    base.id
                )));
            }
        }
        let Some(entry) = base.screen.refs.get(r) else {
            return Err(Error::new(
                ErrorCode::ElementNotFound,
                format!("snapshot {} has no ref `{r}`", base.id),
            )
            .with_next(
                "use a ref listed by the latest {0}",
                [Step::call(Op::Snapshot)],
            ));
        };
        if session.fresh().is_some_and(|f| Arc::ptr_eq(&f, &base)) {
            return Ok(element_resolved(&base, entry.node));
        }
        // An action ran since the ref was read: read again and require the same element.
        let identity = entry.identity;
        let now = self.dump_locked(device, session).await?;
        match now.screen.refs.get(r) {
            Some(e) if e.identity == identity => Ok(element_resolved(&now, e.node)),
            _ => Err(stale(format!(
                "the screen changed since snapshot {}: `{r}` is gone (now {})",
                base.id, now.id
            ))),
        }
    }
}
