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
    use crate::api::wire::audit::{AuditBaseline, AuditResult};
    use crate::audit::{self as a11y, AuditError};
    let before = match &r.baseline {
        Some(v) => Some(
            serde_json::from_value::<a11y::Audit>(v.clone()).map_err(|e| {
                Error::validation(format!("`baseline` is not a saved audit: {e}")).with_hint(
                    "send the JSON an earlier audit answered (its `findings` with their `key`s)",
                )
            })?,
        ),
        None => None,
    };
    let (shot, device_density, platform) = s.controller.audit_shot(r.udid.as_deref()).await?;
    let density = r.density.or(device_density);
    let Some(snapshot) = shot.snapshot.clone() else {
        return Err(Error::internal("an audit's shot carries its snapshot"));
    };
    let (annotate, png) = (r.annotate, shot.png);
    // Decoding, measuring and drawing are CPU work: on a blocking thread, within the bound on
    // concurrent image work.
    let _slot = crate::image::WORK_SLOTS
        .acquire()
        .await
        .map_err(|e| Error::internal(e.to_string()))?;
    let work = tokio::task::spawn_blocking(move || -> std::result::Result<_, AuditError> {
        let pixels = a11y::picture::decode(&png)?;
        let mut found = a11y::audit(&a11y::Input {
            screen: &snapshot.screen,
            screenshot: Some(&pixels),
            density,
        })?;
        match platform {
            Some(Ok(issues)) => a11y::apple::merge(&mut found, &snapshot.screen, &issues),
            Some(Err(e)) => found.skipped.push(format!(
                "apple-audit: WebDriverAgent's audit failed: {}",
                e.message
            )),
            None => {}
        }
        let baseline = before.map(|b| {
            let now = found.findings.len();
            found = a11y::baseline::new_findings(&found, &b);
            AuditBaseline {
                known: b.findings.len(),
                unchanged: now - found.findings.len(),
            }
        });
        let image = match annotate {
            true => {
                use base64::Engine as _;
                let drawn = a11y::picture::png(&a11y::picture::annotate(&found, &pixels)?)?;
                Some(base64::engine::general_purpose::STANDARD.encode(drawn))
            }
            false => None,
        };
        Ok((found, baseline, image))
    });
    let (found, baseline, image) = work
        .await
        .map_err(|e| Error::internal(format!("the audit stopped: {e}")))?
        .map_err(|e| match e {
            AuditError::Density(_) => Error::validation(e.to_string()),
            other => Error::new(crate::error::ErrorCode::CommandFailed, other.to_string())
                .with_hint("read the screen again: it may have turned or changed between the dump and the screenshot"),
        })?;
    Ok(Json(AuditResult {
        snapshot_id: shot
            .snapshot
            .as_ref()
            .map(|s| s.id.clone())
            .unwrap_or_default(),
        device: shot.device,
        fails: r.fail_on.map(|l| found.fails(l)),
        audit: found,
        baseline,
        image,
    }))
}
