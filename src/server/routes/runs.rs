//! Runs and their artifacts (`crate::runs`): the listing, one run, one artifact's bytes
//! (found through the run's index only, streamed in its content type), and GC. A session's run
//! is its own: other callers neither list nor read it ([`crate::controller::may_see`]).

use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;

use crate::api::wire::runs::*;
use crate::controller::may_see;
use crate::error::{Error, ErrorCode, Result};
use crate::server::reply::ArtifactFile;
use crate::server::AppState;

/// The newest runs first, at most `limit` (20 unless given, at most 1000).
pub async fn list_runs(s: AppState, q: RunsQuery) -> Result<Json<RunList>> {
    let (limit, _) = super::limit(q.limit, 20, 1000)?;
    let runs = s.controller.runs().clone();
    let mut list = blocking(move || Ok(runs.list())).await?;
    list.runs.retain(|r| may_see(r.session_id.as_deref()));
    list.total = list.runs.len();
    list.runs.truncate(limit);
    Ok(Json(list))
}

/// One run: its result and artifacts.
pub async fn get_run(s: AppState, q: RunPath) -> Result<Json<RunDetail>> {
    let runs = s.controller.runs().clone();
    let id = q.id.clone();
    let detail = blocking(move || runs.get(&id)).await?;
    if !may_see(detail.summary.session_id.as_deref()) {
        return Err(not_yours(&q.id));
    }
    Ok(Json(detail))
}

/// An artifact's bytes, streamed from its file.
pub async fn get_artifact(s: AppState, q: ArtifactPath) -> Result<ArtifactFile> {
    let runs = s.controller.runs().clone();
    let id = q.id.clone();
    let detail = blocking(move || runs.get(&id)).await?;
    if !may_see(detail.summary.session_id.as_deref()) {
        return Err(not_yours(&q.id));
    }
    let (path, entry) = s.controller.runs().artifact(&q.id, &q.name)?;
    let file = tokio::fs::File::open(&path)
        .await
        .map_err(|e| Error::internal(format!("{}: {e}", path.display())))?;
    let len = file.metadata().await.map(|m| m.len()).ok();
    let stream = futures::stream::unfold(file, |mut f| async move {
        use tokio::io::AsyncReadExt;
        let mut buf = vec![0u8; 64 * 1024];
        match f.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok::<_, std::io::Error>(axum::body::Bytes::from(buf)), f))
            }
            Err(e) => Some((Err(e), f)),
        }
    });
    let mut response = (
        [(header::CONTENT_TYPE, entry.content_type.clone())],
        axum::body::Body::from_stream(stream),
    )
        .into_response();
    if let Some(len) = len {
        response
            .headers_mut()
            .insert(header::CONTENT_LENGTH, len.into());
    }
    // An artifact is shown, never run: no script of an SVG or HTML file runs on this origin.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; sandbox"),
    );
    response.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    if let Ok(v) = format!("inline; filename=\"{}\"", entry.name).parse() {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(ArtifactFile(response))
}

/// Deletes one run (not a live one) that this caller may read.
pub async fn delete_run(s: AppState, q: RunPath) -> Result<Json<RunDeleted>> {
    let runs = s.controller.runs().clone();
    let id = q.id.clone();
    let detail = blocking(move || runs.get(&id)).await?;
    if !may_see(detail.summary.session_id.as_deref()) {
        return Err(not_yours(&q.id));
    }
    let runs = s.controller.runs().clone();
    let id = q.id.clone();
    let freed_bytes = blocking(move || runs.delete(&id)).await?;
    Ok(Json(RunDeleted {
        id: q.id,
        freed_bytes,
    }))
}

/// Collects garbage (or plans it, with `dry_run`).
pub async fn gc(s: AppState, r: GcRequest) -> Result<Json<GcPlan>> {
    let runs = s.controller.runs().clone();
    blocking(move || Ok(runs.gc(r.dry_run))).await.map(Json)
}

/// The answer for another session's run: as if there were none.
fn not_yours(id: &str) -> Error {
    Error::new(ErrorCode::RunNotFound, format!("no run `{id}`"))
        .with_hint("list_runs lists the runs this caller may read: a session's runs are its own (the server's admin token reads all)")
}

/// Runs file-system work off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::internal(format!("runs: {e}")))?
}
