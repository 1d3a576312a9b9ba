//! Screen recordings: start, stop, the list, one recording's MP4, delete. A recording made in
//! a session is its own: other callers neither list, read nor delete it
//! ([`crate::controller::may_see`]).

use axum::Json;

use crate::api::wire::recording::*;
use crate::controller::may_see;
use crate::device::recording::parse_size;
use crate::device::RecordingOptions;
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::server::reply::Mp4File;
use crate::server::AppState;

/// Starts recording the device's screen.
pub async fn start(s: AppState, r: RecordingStart) -> Result<Json<RecordingInfo>> {
    let options = RecordingOptions {
        size: r.size.as_deref().map(parse_size).transpose()?,
        scale: r.scale,
        bit_rate: r.bit_rate,
    };
    let info = s
        .controller
        .recording_start(r.udid.as_deref(), &options, r.max_s, None)
        .await?;
    Ok(Json(info))
}

/// Stops the device's recording; answers the finalised file's facts.
pub async fn stop(s: AppState, r: RecordingStop) -> Result<Json<RecordingInfo>> {
    Ok(Json(s.controller.recording_stop(r.udid.as_deref()).await?))
}

/// The recordings this server made, newest first.
pub async fn list(s: AppState) -> Result<Json<RecordingList>> {
    let mut recordings = s.controller.recordings_list();
    recordings.retain(|r| may_see(r.session.as_deref()));
    Ok(Json(RecordingList { recordings }))
}

/// The recording `id`, if the caller may see it; another session's answers as none would.
fn visible(s: &AppState, id: &str) -> Result<RecordingInfo> {
    let r = s.controller.recording(id)?;
    if !may_see(r.session.as_deref()) {
        return Err(
            Error::new(ErrorCode::NotFound, format!("no recording `{id}`")).with_next(
                "{0} lists the ones this caller may read: a session's are its own",
                [Step::call(Op::ListRecordings)],
            ),
        );
    }
    Ok(r)
}

/// One finished recording's MP4.
pub async fn get(s: AppState, q: RecordingPath) -> Result<Mp4File> {
    let r = visible(&s, &q.id)?;
    if r.state != RecordingState::Finished {
        return Err(Error::new(
            ErrorCode::RecordingActive,
            format!("`{}` is {:?}, not finished", q.id, r.state).to_lowercase(),
        )
        .with_next(
            "stop it first ({0}); a failed one has no playable file",
            [Step::call(Op::RecordingStop)],
        ));
    }
    let file = tokio::fs::File::open(&r.path).await.map_err(|e| {
        Error::new(
            ErrorCode::NotFound,
            format!("the file of `{}` is gone: {e}", q.id),
        )
    })?;
    let len = file.metadata().await.map(|m| m.len()).unwrap_or(0);
    Ok(Mp4File(file, len))
}

/// Deletes a finished recording and its file.
pub async fn delete(s: AppState, q: RecordingPath) -> Result<Json<RecordingDeleted>> {
    visible(&s, &q.id)?;
    let r = s.controller.recording_delete(&q.id)?;
    Ok(Json(RecordingDeleted {
        id: r.id,
        deleted: true,
    }))
}
