//! Inspect: the screen as a snapshot (JSON or compact text), a summary, and element search.

use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;

use crate::api::wire::inspect::*;
use crate::controller::Snapshot;
use crate::error::{Error, Result};
use crate::server::reply::{JsonOrText, Tagged};
use crate::server::AppState;
use crate::ui::summary::summarize;
use crate::ui::{CoordinateSpace, ViewOptions};

fn view(snapshot: &Snapshot, opts: &ViewOptions) -> SnapshotView {
    let screen = snapshot.view(opts);
    let elements = crate::ui::view::listed(&screen);
    SnapshotView {
        snapshot_id: snapshot.id.clone(),
        taken_at: snapshot.taken_at.clone(),
        device: snapshot.device.clone(),
        app: snapshot.app(),
        activity: snapshot.activity.clone(),
        source: snapshot.tool.to_string(),
        notes: snapshot.notes.clone(),
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
pub async fn ui(s: AppState, q: UiQuery) -> Result<Tagged<JsonOrText<SnapshotView>>> {
    let device = s.controller.resolve_ready(q.udid.as_deref()).await?;
    let snapshot = s.controller.snapshot(&device).await?;
    let opts = ViewOptions {
        interactive_only: q.interactive_only,
    };
    let v = view(&snapshot, &opts);
    // The screen's fingerprint is the tag of every view of it (the view's parameters are in
    // the URL, which scopes a tag): an action's `fingerprint_after` can be sent as is.
    let etag = v.fingerprint.clone();
    Ok(Tagged(
        JsonOrText::new(match q.format.unwrap_or_default() {
            UiFormat::Json => Json(v).into_response(),
            UiFormat::Text => {
                let unit = match v.coordinate_space {
                    CoordinateSpace::Pixels => "px",
                    CoordinateSpace::Points => "pt",
                };
                let mut head = format!(
                    "# {} {} · {} · {}x{} {unit} · {} · fingerprint {}\n",
                    v.snapshot_id,
                    v.device.udid,
                    v.activity.as_deref().or(v.app.as_deref()).unwrap_or("?"),
                    v.screen.w,
                    v.screen.h,
                    v.source,
                    v.fingerprint
                );
                for note in &v.notes {
                    head += &format!("# note: {note}\n");
                }
                (
                    [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    head + &v.tree_text,
                )
                    .into_response()
            }
        }),
        etag,
    ))
}

/// What is on screen, in brief: title, counts by role, interactive elements, alert, keyboard,
/// focused field, scroll containers.
pub async fn screen_summary(s: AppState, q: DeviceQuery) -> Result<Tagged<Json<SummaryView>>> {
    let device = s.controller.resolve_ready(q.udid.as_deref()).await?;
    let snapshot = s.controller.snapshot(&device).await?;
    let mut summary = summarize(&snapshot.screen);
    if summary.app.is_none() {
        summary.app = snapshot.app();
    }
    let etag = snapshot.screen.fingerprint.clone();
    Ok(Tagged(
        Json(SummaryView {
            snapshot_id: snapshot.id.clone(),
            summary,
        }),
        etag,
    ))
}

/// Finds elements by free text; each match names its ref (the clickable ancestor of a text).
pub async fn find(s: AppState, q: FindQuery) -> Result<Json<FindResult>> {
    if q.query.trim().is_empty() {
        return Err(Error::validation("`query` is empty").with_hint("e.g. ?query=Sign%20in"));
    }
    let device = s.controller.resolve_ready(q.udid.as_deref()).await?;
    let snapshot = s.controller.snapshot(&device).await?;
    let mut matches = crate::ui::select::find_query(&snapshot.screen, &q.query);
    matches.truncate(q.limit.unwrap_or(10).clamp(1, 100));
    Ok(Json(FindResult {
        snapshot_id: snapshot.id.clone(),
        found: matches.iter().any(|m| m.kind != "fuzzy"),
        matches,
    }))
}

/// Audits the screen's accessibility: a new snapshot and screenshot, the device's density
/// (Android), the rules of [`crate::audit`]; against a saved audit only the new findings.
pub async fn audit(
    s: AppState,
    r: crate::api::wire::audit::AuditRequest,
) -> Result<Json<crate::api::wire::audit::AuditResult>> {
    use crate::api::wire::audit::saved_audit;
    use crate::controller::AuditAsk;
    let ask = AuditAsk {
        density: r.density,
        baseline: r
            .baseline
            .as_ref()
            .map(|v| saved_audit(v, "baseline"))
            .transpose()?,
        fail_on: r.fail_on,
        annotate: r.annotate,
    };
    Ok(Json(s.controller.audit(r.udid.as_deref(), ask).await?))
}
