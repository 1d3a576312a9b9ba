//! Act: tap, tap-element, long-press, swipe, scroll, scroll-to, type, press, hide-keyboard.
//! Each answers an action result (docs/DESIGN.md "Action results"); targets are a ref, a point
//! or a selector.

use axum::Json;

use crate::api::wire::act::*;
use crate::controller::Observe;
use crate::device::KeyPress;
use crate::error::{Error, Result};
use crate::server::AppState;
use crate::ui::select::Selector;

/// Taps a ref, a point (`x`, `y`) or the element a selector finds.
pub async fn tap(s: AppState, r: TapRequest) -> Result<Json<ActionResult>> {
    Ok(Json(
        s.controller
            .tap(
                r.udid.as_deref(),
                &r.target,
                Observe::checked(r.after.observe, r.after.settle_ms, r.after.measure)?,
            )
            .await?,
    ))
}

/// Taps the element with a label / identifier / type; several matches → `409 AMBIGUOUS_TARGET`.
pub async fn tap_element(s: AppState, r: TapElementRequest) -> Result<Json<ActionResult>> {
    if r.label.is_none() && r.identifier.is_none() && r.element_type.is_none() {
        return Err(Error::validation(
            "give `label`, `identifier` or `element_type`",
        ));
    }
    let target = Target {
        selector: Some(Selector {
            label: r.label,
            id: r.identifier,
            role: r.element_type,
            contains: r.contains,
            case_insensitive: r.contains,
            index: r.index,
            ..Selector::default()
        }),
        ..Target::default()
    };
    Ok(Json(
        s.controller
            .tap(
                r.udid.as_deref(),
                &target,
                Observe::checked(r.after.observe, r.after.settle_ms, r.after.measure)?,
            )
            .await?,
    ))
}

/// Long-presses a ref, a point or a selector's element.
pub async fn long_press(s: AppState, r: LongPressRequest) -> Result<Json<ActionResult>> {
    let ms = r.duration_ms.unwrap_or(1000);
    Ok(Json(
        s.controller
            .long_press(
                r.udid.as_deref(),
                &r.target,
                ms,
                Observe::checked(r.after.observe, r.after.settle_ms, r.after.measure)?,
            )
            .await?,
    ))
}

/// Swipes from `from` to `to`, or across a target in `direction`.
pub async fn swipe(s: AppState, r: SwipeRequest) -> Result<Json<ActionResult>> {
    let ms = r.duration_ms.unwrap_or(300);
    let from_to = match (r.from, r.to) {
        (Some(f), Some(t)) => Some((f, t)),
        (None, None) => None,
        _ => return Err(Error::validation("give both `from` and `to`")),
    };
    let along = match (r.target.is_empty(), r.direction) {
        (true, None) => None,
        (false, Some(d)) => Some((&r.target, d)),
        (true, Some(_)) => {
            return Err(Error::validation(
                "`direction` needs a target (ref, x+y or selector)",
            ))
        }
        (false, None) => return Err(Error::validation("a target needs a `direction`")),
    };
    Ok(Json(
        s.controller
            .swipe(
                r.udid.as_deref(),
                from_to,
                along,
                ms,
                Observe::checked(r.after.observe, r.after.settle_ms, r.after.measure)?,
            )
            .await?,
    ))
}

/// Scrolls a container (default: the biggest scrollable one) once.
pub async fn scroll(s: AppState, r: ScrollRequest) -> Result<Json<ActionResult>> {
    let direction = r.direction.unwrap_or(Direction::Down);
    Ok(Json(
        s.controller
            .scroll(
                r.udid.as_deref(),
                &r.target,
                direction,
                Observe::checked(r.after.observe, r.after.settle_ms, r.after.measure)?,
            )
            .await?,
    ))
}

/// Scrolls until the selector's element is in view; reports the scrolls done.
pub async fn scroll_to(s: AppState, r: ScrollToRequest) -> Result<Json<ActionResult>> {
    let direction = r.direction.unwrap_or(Direction::Down);
    let max = r.max_scrolls.unwrap_or(10).min(50);
    Ok(Json(
        s.controller
            .scroll_to(r.udid.as_deref(), &r.selector, direction, max)
            .await?,
    ))
}

/// Types text into the focused field or a target; `clear`, `submit`; reads the field back.
pub async fn type_text(s: AppState, r: TypeOptions) -> Result<Json<ActionResult>> {
    Ok(Json(s.controller.type_text(&r).await?))
}

/// Presses a key: back, home, enter, delete, tab, escape, dpad_*, volume_*, power, lock,
/// recent_apps… or a raw Android key code.
pub async fn press(s: AppState, r: PressRequest) -> Result<Json<ActionResult>> {
    let key = match (r.key, r.keycode) {
        (Some(k), None) => KeyPress::Named(k),
        (None, Some(c)) if c <= 400 => KeyPress::Code(c),
        (None, Some(c)) => return Err(Error::validation(format!("keycode {c} is out of range"))),
        _ => return Err(Error::validation("give exactly one of `key` or `keycode`")),
    };
    Ok(Json(
        s.controller
            .press(
                r.udid.as_deref(),
                key,
                Observe::checked(r.after.observe, r.after.settle_ms, r.after.measure)?,
            )
            .await?,
    ))
}

/// Hides the on-screen keyboard if it is up.
pub async fn hide_keyboard(s: AppState, r: DeviceBody) -> Result<Json<ActionResult>> {
    Ok(Json(s.controller.hide_keyboard(r.udid.as_deref()).await?))
}
