//! Act: tap, tap-element, long-press, swipe, scroll, scroll-to, type, press, hide-keyboard.
//! Each answers the action result of DESIGN.md; targets are a ref, a point or a selector.

use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::backend::types::{Key, Point};
use crate::backend::KeyPress;
use crate::controller::{ActionResult, Direction, Target, TypeOptions};
use crate::error::{Error, Result};
use crate::server::{ApiErrors, ApiJson, AppState};
use crate::ui::select::Selector;
use crate::ui::Role;

/// Tap an element or a point.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TapRequest {
    pub udid: Option<String>,
    #[serde(flatten)]
    pub target: Target,
    /// Read the screen afterwards and report `fingerprint_after` (costs a dump).
    #[serde(default)]
    pub observe: bool,
}

/// Tap the element with this accessibility label, identifier and/or type.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TapElementRequest {
    pub udid: Option<String>,
    /// Accessibility label, text or content-desc.
    pub label: Option<String>,
    /// resource-id (Android) or accessibilityIdentifier (iOS).
    pub identifier: Option<String>,
    /// Role of the element (`button`, `textbox`, `cell`…).
    pub element_type: Option<Role>,
    /// Match the label as a substring.
    #[serde(default)]
    pub contains: bool,
    /// Pick the n-th match (0-based) instead of failing on ambiguity.
    pub index: Option<usize>,
    #[serde(default)]
    pub observe: bool,
}

/// Long-press an element or a point.
#[derive(Debug, Deserialize, ToSchema)]
pub struct LongPressRequest {
    pub udid: Option<String>,
    #[serde(flatten)]
    pub target: Target,
    /// How long to hold, in milliseconds (default 1000).
    pub duration_ms: Option<u64>,
    #[serde(default)]
    pub observe: bool,
}

/// Swipe from a point to a point, or across a target in a direction.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SwipeRequest {
    pub udid: Option<String>,
    pub from: Option<Point>,
    pub to: Option<Point>,
    /// With a target: which way the content should move into view.
    pub direction: Option<Direction>,
    #[serde(flatten)]
    pub target: Target,
    /// Default 300 ms.
    pub duration_ms: Option<u64>,
    #[serde(default)]
    pub observe: bool,
}

/// Scroll a container once.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ScrollRequest {
    pub udid: Option<String>,
    /// The container; default: the biggest scrollable element on screen.
    #[serde(flatten)]
    pub target: Target,
    /// `down` shows what is below (default).
    pub direction: Option<Direction>,
    #[serde(default)]
    pub observe: bool,
}

/// Scroll until an element is in view.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollToRequest {
    pub udid: Option<String>,
    pub selector: Selector,
    /// Default `down`.
    pub direction: Option<Direction>,
    /// Default 10.
    pub max_scrolls: Option<u32>,
}

/// Press a key: a named key, or a raw Android key code.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PressRequest {
    pub udid: Option<String>,
    pub key: Option<Key>,
    /// Raw Android `KEYCODE_*` number.
    pub keycode: Option<u32>,
    #[serde(default)]
    pub observe: bool,
}

/// Which device.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceBody {
    pub udid: Option<String>,
}

/// Taps a ref, a point (`x`, `y`) or the element a selector finds.
#[utoipa::path(post, path = "/api/v1/device/ui/tap", tag = "act", request_body = TapRequest,
    responses((status = 200, description = "Dispatched", body = ActionResult), ApiErrors))]
pub async fn tap(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<TapRequest>,
) -> Result<Json<ActionResult>> {
    Ok(Json(
        s.controller
            .tap(r.udid.as_deref(), &r.target, r.observe)
            .await?,
    ))
}

/// Taps the element with a label / identifier / type; several matches → `409 AMBIGUOUS_TARGET`.
#[utoipa::path(post, path = "/api/v1/device/ui/tap-element", tag = "act", request_body = TapElementRequest,
    responses((status = 200, description = "Dispatched", body = ActionResult), ApiErrors))]
pub async fn tap_element(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<TapElementRequest>,
) -> Result<Json<ActionResult>> {
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
            .tap(r.udid.as_deref(), &target, r.observe)
            .await?,
    ))
}

/// Long-presses a ref, a point or a selector's element.
#[utoipa::path(post, path = "/api/v1/device/ui/long-press", tag = "act", request_body = LongPressRequest,
    responses((status = 200, description = "Dispatched", body = ActionResult), ApiErrors))]
pub async fn long_press(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<LongPressRequest>,
) -> Result<Json<ActionResult>> {
    let ms = r.duration_ms.unwrap_or(1000);
    Ok(Json(
        s.controller
            .long_press(r.udid.as_deref(), &r.target, ms, r.observe)
            .await?,
    ))
}

/// Swipes from `from` to `to`, or across a target in `direction`.
#[utoipa::path(post, path = "/api/v1/device/ui/swipe", tag = "act", request_body = SwipeRequest,
    responses((status = 200, description = "Dispatched", body = ActionResult), ApiErrors))]
pub async fn swipe(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<SwipeRequest>,
) -> Result<Json<ActionResult>> {
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
            .swipe(r.udid.as_deref(), from_to, along, ms, r.observe)
            .await?,
    ))
}

/// Scrolls a container (default: the biggest scrollable one) once.
#[utoipa::path(post, path = "/api/v1/device/ui/scroll", tag = "act", request_body = ScrollRequest,
    responses((status = 200, description = "Dispatched", body = ActionResult), ApiErrors))]
pub async fn scroll(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<ScrollRequest>,
) -> Result<Json<ActionResult>> {
    let direction = r.direction.unwrap_or(Direction::Down);
    Ok(Json(
        s.controller
            .scroll(r.udid.as_deref(), &r.target, direction, r.observe)
            .await?,
    ))
}

/// Scrolls until the selector's element is in view; reports the scrolls done.
#[utoipa::path(post, path = "/api/v1/device/ui/scroll-to", tag = "act", request_body = ScrollToRequest,
    responses((status = 200, description = "In view", body = ActionResult), ApiErrors))]
pub async fn scroll_to(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<ScrollToRequest>,
) -> Result<Json<ActionResult>> {
    let direction = r.direction.unwrap_or(Direction::Down);
    let max = r.max_scrolls.unwrap_or(10).min(50);
    Ok(Json(
        s.controller
            .scroll_to(r.udid.as_deref(), &r.selector, direction, max)
            .await?,
    ))
}

/// Types text into the focused field or a target; `clear`, `submit`; reads the field back.
#[utoipa::path(post, path = "/api/v1/device/ui/type", tag = "act", request_body = TypeOptions,
    responses((status = 200, description = "Typed; `details` says how and whether the field holds the text", body = ActionResult), ApiErrors))]
pub async fn type_text(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<TypeOptions>,
) -> Result<Json<ActionResult>> {
    Ok(Json(s.controller.type_text(&r).await?))
}

/// Presses a key: back, home, enter, delete, tab, escape, dpad_*, volume_*, power, lock,
/// recent_apps… or a raw Android key code.
#[utoipa::path(post, path = "/api/v1/device/ui/press", tag = "act", request_body = PressRequest,
    responses((status = 200, description = "Dispatched", body = ActionResult), ApiErrors))]
pub async fn press(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<PressRequest>,
) -> Result<Json<ActionResult>> {
    let key = match (r.key, r.keycode) {
        (Some(k), None) => KeyPress::Named(k),
        (None, Some(c)) if c <= 400 => KeyPress::Code(c),
        (None, Some(c)) => return Err(Error::validation(format!("keycode {c} is out of range"))),
        _ => return Err(Error::validation("give exactly one of `key` or `keycode`")),
    };
    Ok(Json(
        s.controller
            .press(r.udid.as_deref(), key, r.observe)
            .await?,
    ))
}

/// Hides the on-screen keyboard if it is up.
#[utoipa::path(post, path = "/api/v1/device/ui/hide-keyboard", tag = "act", request_body = DeviceBody,
    responses((status = 200, description = "Hidden (or was not up)", body = ActionResult), ApiErrors))]
pub async fn hide_keyboard(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<DeviceBody>,
) -> Result<Json<ActionResult>> {
    Ok(Json(s.controller.hide_keyboard(r.udid.as_deref()).await?))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(tap))
        .routes(routes!(tap_element))
        .routes(routes!(long_press))
        .routes(routes!(swipe))
        .routes(routes!(scroll))
        .routes(routes!(scroll_to))
        .routes(routes!(type_text))
        .routes(routes!(press))
        .routes(routes!(hide_keyboard))
}
