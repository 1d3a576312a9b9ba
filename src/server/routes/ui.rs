//! Inspect: the screen as a snapshot (JSON or compact text), a summary, and element search.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::backend::Device;
use crate::controller::Snapshot;
use crate::error::{Error, Result};
use crate::server::{ApiErrors, ApiQuery, AppState};
use crate::ui::select::ScoredMatch;
use crate::ui::summary::{summarize, ScreenSummary};
use crate::ui::{Alert, CoordinateSpace, Offscreen, Rect, Role, Size, States, ViewOptions};

/// Output format of `GET /ui`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum UiFormat {
    #[default]
    Json,
    /// The compact tree as `text/plain`, one line per element, refs as `[ref=e12]`.
    Text,
}

/// Query of `GET /ui`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct UiQuery {
    pub udid: Option<String>,
    pub format: Option<UiFormat>,
    /// Only the elements an agent can act on.
    #[serde(default)]
    pub interactive_only: bool,
}

/// One listed element of a snapshot.
#[derive(Debug, Serialize, ToSchema)]
pub struct ElementView {
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// In the platform's tap coordinates (Android pixels, iOS points).
    pub bounds: Rect,
    pub states: States,
}

/// One read of the screen.
#[derive(Debug, Serialize, ToSchema)]
pub struct SnapshotView {
    /// Pass it with a ref to detect a stale read (`409 STALE_REFERENCE`).
    pub snapshot_id: String,
    pub taken_at: String,
    pub device: Device,
    /// Foreground package / bundle id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Focused activity or window (Android).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
    /// The tool that read the screen (`uiautomator`, `axe`, `idb`).
    pub source: String,
    /// `pixels` (Android) or `points` (iOS): the unit of every bounds and tap.
    pub coordinate_space: CoordinateSpace,
    pub screen: Size,
    pub fingerprint: String,
    /// The compact text: one line per element.
    pub tree_text: String,
    /// The listed elements, in reading order.
    pub elements: Vec<ElementView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alert: Option<Alert>,
    pub keyboard_visible: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyboard: Option<Rect>,
    /// Ref of the focused element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focused: Option<String>,
    /// Interactive elements scrolled out of view, by direction.
    pub offscreen: Offscreen,
    /// How long the device took to dump its UI.
    pub dump_ms: u64,
}

fn view(snapshot: &Snapshot, opts: &ViewOptions) -> SnapshotView {
    let screen = snapshot.view(opts);
    let elements = screen
        .listed
        .iter()
        .map(|&i| {
            let e = &screen.elements[i];
            ElementView {
                r#ref: e.r#ref.clone(),
                role: e.role,
                name: e.label().map(str::to_string),
                value: e.value.clone(),
                text: e.text.clone(),
                id: e.id.clone(),
                class: e.class.clone(),
                bounds: e.bounds,
                states: e.states,
            }
        })
        .collect();
    SnapshotView {
        snapshot_id: snapshot.id.clone(),
        taken_at: snapshot.taken_at.clone(),
        device: snapshot.device.clone(),
        app: snapshot.app(),
        activity: snapshot.activity.clone(),
        source: snapshot.tool.to_string(),
        coordinate_space: screen.coordinate_space,
        screen: screen.screen,
        fingerprint: screen.fingerprint.clone(),
        tree_text: screen.tree_text.clone(),
        elements,
        keyboard_visible: screen.keyboard.is_some(),
        keyboard: screen.keyboard,
        alert: screen.alert.clone(),
        focused: screen.focused.clone(),
        offscreen: screen.offscreen,
        dump_ms: snapshot.dump_ms,
    }
}

/// Reads the screen: the canonical tree with refs `e1..eN`, as JSON or compact text.
#[utoipa::path(get, path = "/api/v1/device/ui", tag = "inspect", params(UiQuery),
    responses(
        (status = 200, description = "The screen (JSON)", body = SnapshotView),
        (status = 200, description = "The screen (format=text)", content_type = "text/plain", body = String),
        ApiErrors))]
pub async fn ui(State(s): State<AppState>, ApiQuery(q): ApiQuery<UiQuery>) -> Result<Response> {
    let device = s.controller.resolve_ready(q.udid.as_deref()).await?;
    let snapshot = s.controller.snapshot(&device).await?;
    let opts = ViewOptions {
        interactive_only: q.interactive_only,
    };
    let v = view(&snapshot, &opts);
    Ok(match q.format.unwrap_or_default() {
        UiFormat::Json => Json(v).into_response(),
        UiFormat::Text => {
            let unit = match v.coordinate_space {
                CoordinateSpace::Pixels => "px",
                CoordinateSpace::Points => "pt",
            };
            let head = format!(
                "# {} {} · {} · {}x{} {unit} · fingerprint {}\n",
                v.snapshot_id,
                v.device.udid,
                v.activity.as_deref().or(v.app.as_deref()).unwrap_or("?"),
                v.screen.w,
                v.screen.h,
                v.fingerprint
            );
            (
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                head + &v.tree_text,
            )
                .into_response()
        }
    })
}

/// Query of the summary.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DeviceQuery {
    pub udid: Option<String>,
}

/// A screen summary with its snapshot id.
#[derive(Debug, Serialize, ToSchema)]
pub struct SummaryView {
    pub snapshot_id: String,
    #[serde(flatten)]
    pub summary: ScreenSummary,
}

/// What is on screen, in brief: title, counts by role, interactive elements, alert, keyboard,
/// focused field, scroll containers.
#[utoipa::path(get, path = "/api/v1/device/screen-summary", tag = "inspect", params(DeviceQuery),
    responses((status = 200, description = "Summary", body = SummaryView), ApiErrors))]
pub async fn screen_summary(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<DeviceQuery>,
) -> Result<Json<SummaryView>> {
    let device = s.controller.resolve_ready(q.udid.as_deref()).await?;
    let snapshot = s.controller.snapshot(&device).await?;
    let mut summary = summarize(&snapshot.screen);
    if summary.app.is_none() {
        summary.app = snapshot.app();
    }
    Ok(Json(SummaryView {
        snapshot_id: snapshot.id.clone(),
        summary,
    }))
}

/// Query of `find`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct FindQuery {
    pub udid: Option<String>,
    /// Free text: matched against labels, texts and ids (exact > contains > fuzzy).
    pub query: String,
    /// Most matches to return (default 10).
    pub limit: Option<usize>,
}

/// Matches of a search, best first.
#[derive(Debug, Serialize, ToSchema)]
pub struct FindResult {
    pub snapshot_id: String,
    pub matches: Vec<ScoredMatch>,
}

/// Finds elements by free text; each match names its ref (the clickable ancestor of a text).
#[utoipa::path(get, path = "/api/v1/device/ui/find", tag = "inspect", params(FindQuery),
    responses((status = 200, description = "Matches, best first", body = FindResult), ApiErrors))]
pub async fn find(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<FindQuery>,
) -> Result<Json<FindResult>> {
    if q.query.trim().is_empty() {
        return Err(Error::validation("`query` is empty").with_hint("e.g. ?query=Sign%20in"));
    }
    let device = s.controller.resolve_ready(q.udid.as_deref()).await?;
    let snapshot = s.controller.snapshot(&device).await?;
    let mut matches = crate::ui::select::find_query(&snapshot.screen, &q.query);
    matches.truncate(q.limit.unwrap_or(10).clamp(1, 100));
    Ok(Json(FindResult {
        snapshot_id: snapshot.id.clone(),
        matches,
    }))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(ui))
        .routes(routes!(screen_summary))
        .routes(routes!(find))
}
