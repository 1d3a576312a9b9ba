//! Logs: a page of a device's log, its live stream as Server-Sent Events (an `id` per entry so
//! `Last-Event-ID` resumes, a `dropped` event when the reader fell behind the ring, a
//! heartbeat comment every 15 s), its crashes and ANRs, and the debug bundle. Every query is
//! checked whole before the device's log is read.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use base64::Engine;

use crate::api::wire::logs::*;
use crate::controller::{log_filter, DeviceLogs};
use crate::error::{Error, Op, Result, Step};
use crate::image::{self, RenderOptions};
use crate::logs::{filter, rfc3339, Crash, Cursor, LogEntry, LogFilter, Since};
use crate::server::reply::EventStream;
use crate::server::AppState;

/// Entries a stream reads from the ring at a time (what a slow reader can hold).
const STREAM_BATCH: usize = 256;
/// Heartbeat comment period of a stream.
const HEARTBEAT: Duration = Duration::from_secs(15);

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

pub(crate) fn entry_view(logs: &DeviceLogs, e: &LogEntry) -> LogEntryView {
    LogEntryView {
        time: e.time_ms.map(|t| rfc3339(t, logs.utc_offset_s())),
        level: e.level,
        tag: e.tag.clone(),
        message: e.message.clone(),
        pid: e.pid,
        tid: e.tid,
        app: logs.app_of(e),
    }
}

pub(crate) fn crash_view(logs: &DeviceLogs, c: &Crash, with_text: bool) -> CrashView {
    CrashView {
        id: c.id.clone(),
        kind: c.kind,
        summary: c.summary(),
        time: c.time_ms.map(|t| rfc3339(t, logs.utc_offset_s())),
        app: c.app.clone(),
        process: c.process.clone(),
        pid: c.pid,
        exception: c.exception.clone(),
        message: c.message.clone(),
        cause: c.cause.clone(),
        frames: c.frames.clone(),
        source: c.source,
        text: with_text.then(|| c.text.clone()),
    }
}

fn source_view(logs: &DeviceLogs) -> LogSourceView {
    let st = logs.status();
    let stats = logs.stats();
    LogSourceView {
        state: st.state.as_str().into(),
        entries: stats.entries,
        bytes: stats.bytes,
        dropped: stats.dropped,
        restarts: st.restarts,
        last_error: st.last_error,
    }
}

/// The filters of a query, and the forms of its starting point (`since`, or the id of the
/// last event a stream gave, which wins).
fn filters(q: &LogsQuery) -> Result<(LogFilter, Option<&str>)> {
    let f = log_filter(
        q.level.as_deref(),
        q.tag.as_deref(),
        q.app.as_deref(),
        q.contains.as_deref(),
        q.regex.as_deref(),
    )?;
    let resume = q.last_event_id.as_deref().filter(|v| !v.trim().is_empty());
    if let Some(id) = resume {
        if Cursor::parse(id).is_none() {
            return Err(Error::validation(format!(
                "`Last-Event-ID` {id:?} is not an event id of this stream"
            ))
            .with_next(
                "reconnect without it to read what comes next, or give {0}",
                [Step::field_of(Op::StreamLogs, "since")],
            ));
        }
    }
    let start = resume.or(q.since.as_deref());
    if let Some(s) = start {
        filter::since(s, now_ms(), None)?;
    }
    Ok((f, start))
}

/// A page of the device's log: the newest entries, or those after `since`.
pub async fn tail(s: AppState, q: LogsQuery) -> Result<Json<LogPage>> {
    let (f, start) = filters(&q)?;
    let (limit, capped) = super::limit(q.limit, filter::DEFAULT_LIMIT, filter::MAX_LIMIT)?;
    let device = s.controller.resolve_ready(q.udid.as_deref()).await?;
    let logs = s.controller.device_logs(&device).await?;
    let since = start
        .map(|v| filter::since(v, now_ms(), Some(logs.ring.epoch())))
        .transpose()?;
    let page = s
        .controller
        .read_logs(&device, &logs, &f, since, limit)
        .await;
    Ok(Json(LogPage {
        udid: device.udid.clone(),
        entries: page.entries.iter().map(|e| entry_view(&logs, e)).collect(),
        cursor: logs.ring.cursor(page.next_seq).to_text(),
        more: page.more,
        missed: (page.missed > 0).then_some(page.missed),
        note: capped.then(|| format!("limit lowered to {}", filter::MAX_LIMIT)),
        source: source_view(&logs),
    }))
}

/// What a stream holds between two reads: its position, at most one batch of events.
struct StreamState {
    logs: Arc<DeviceLogs>,
    filter: LogFilter,
    next_seq: u64,
    left: Option<usize>,
    added: tokio::sync::watch::Receiver<u64>,
    ready: std::collections::VecDeque<Event>,
    /// The server is stopping.
    stopping: tokio_util::sync::CancellationToken,
}

impl StreamState {
    /// The next event: from the batch, else the ring, else waiting for new entries; `None`
    /// when the limit is reached or the device's log stopped.
    async fn next(mut self) -> Option<(Result<Event, Infallible>, StreamState)> {
        loop {
            if let Some(ev) = self.ready.pop_front() {
                return Some((Ok(ev), self));
            }
            if self.left == Some(0) {
                return None;
            }
            let from = Since::Cursor(self.logs.ring.cursor(self.next_seq));
            let page = self.logs.read(&self.filter, Some(from), STREAM_BATCH);
            if page.missed > 0 {
                let at = self.logs.ring.cursor(self.next_seq + page.missed).to_text();
                let notice = DroppedNotice {
                    dropped: page.missed,
                    cursor: at.clone(),
                };
                let data = serde_json::to_string(&notice).unwrap_or_default();
                self.ready
                    .push_back(Event::default().event("dropped").id(at).data(data));
            }
            for e in &page.entries {
                if let Some(left) = self.left.as_mut() {
                    if *left == 0 {
                        break;
                    }
                    *left -= 1;
                }
                let view = entry_view(&self.logs, e);
                let data = serde_json::to_string(&view).unwrap_or_default();
                let id = self.logs.ring.cursor(e.seq).to_text();
                self.ready
                    .push_back(Event::default().event("entry").id(id).data(data));
            }
            self.next_seq = page.next_seq;
            if !self.ready.is_empty() {
                continue;
            }
            tokio::select! {
                changed = self.added.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                }
                _ = self.logs.ended.cancelled() => return None,
                _ = self.stopping.cancelled() => return None,
            }
        }
    }
}

/// The device's log as Server-Sent Events, from `since` or `Last-Event-ID` (default: what
/// comes next).
pub async fn stream(s: AppState, q: LogsQuery) -> Result<EventStream<LogEvent>> {
    let (f, start) = filters(&q)?;
    if q.limit == Some(0) {
        return Err(Error::validation("`limit` must be at least 1")
            .with_hint("leave it out to follow the log until you disconnect"));
    }
    let device = s.controller.resolve_ready(q.udid.as_deref()).await?;
    let logs = s.controller.device_logs(&device).await?;
    let epoch = logs.ring.epoch();
    let start = match start {
        Some(v) => filter::since(v, now_ms(), Some(epoch))?,
        None => Since::Cursor(logs.ring.cursor(logs.stats().newest_seq)),
    };
    let next_seq = match start {
        Since::Cursor(c) => c.seq,
        Since::Time(t) => {
            // The entry before the first at or after `t`.
            let first = logs.ring.after(0, 1, |e| e.time_ms.is_some_and(|m| m >= t));
            first
                .entries
                .first()
                .map_or(first.next_seq, |e| e.seq.saturating_sub(1))
        }
    };
    let state = StreamState {
        added: logs.ring.subscribe(),
        logs,
        filter: f,
        next_seq,
        left: q.limit.map(|l| l as usize),
        ready: Default::default(),
        stopping: crate::server::shutting_down(),
    };
    let events = futures_util::stream::unfold(state, StreamState::next);
    Ok(EventStream::new(Sse::new(events).keep_alive(
        KeepAlive::new().interval(HEARTBEAT).text("heartbeat"),
    )))
}

/// Crashes and ANRs of the device, newest first.
pub async fn crashes(s: AppState, q: CrashesQuery) -> Result<Json<CrashList>> {
    let since_ms = q
        .since
        .as_deref()
        .map(|v| match filter::since(v, now_ms(), None)? {
            Since::Time(t) => Ok(t),
            Since::Cursor(_) => Err(Error::validation(
                "`since` of crashes is a time or a duration",
            )
            .with_hint("e.g. since=1h or since=2025-06-17T16:23:18Z")),
        })
        .transpose()?;
    let (limit, _) = super::limit(q.limit, 20, 200)?;
    let device = s.controller.resolve_ready(q.udid.as_deref()).await?;
    let (logs, mut list) = s
        .controller
        .device_crashes(
            &device,
            since_ms,
            q.app.as_deref().filter(|a| !a.is_empty()),
        )
        .await?;
    list.truncate(limit);
    Ok(Json(CrashList {
        udid: device.udid.clone(),
        crashes: list.iter().map(|c| crash_view(&logs, c, false)).collect(),
    }))
}

/// One crash, with its whole text.
pub async fn crash(s: AppState, q: CrashQuery) -> Result<Json<CrashDetail>> {
    let id = q.id.trim();
    if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(
            Error::validation(format!("`{id}` is not a crash id")).with_next(
                "crash ids look like c1a2b3c4d5e6f; list them with {0}",
                [Step::call(Op::ListCrashes)],
            ),
        );
    }
    let device = s.controller.resolve_ready(q.udid.as_deref()).await?;
    let (logs, c) = s.controller.device_crash(&device, id).await?;
    Ok(Json(CrashDetail {
        udid: device.udid.clone(),
        crash: crash_view(&logs, &c, true),
    }))
}

/// The debug bundle: device, foreground app, tree, screenshot, the app's warnings and errors,
/// recent crashes.
pub async fn bundle(s: AppState, q: BundleQuery) -> Result<Json<DebugBundle>> {
    let since_ms = match filter::since(q.since.as_deref().unwrap_or("15m"), now_ms(), None)? {
        Since::Time(t) => t,
        Since::Cursor(_) => {
            return Err(
                Error::validation("`since` of a bundle is a time or a duration")
                    .with_hint("e.g. since=15m"),
            )
        }
    };
    let lines = match q.lines {
        None => 50,
        Some(n) => (n as usize).clamp(1, 500),
    };
    let max_size = q.max_size.unwrap_or(720);
    let opts = RenderOptions {
        format: image::Format::Jpeg,
        quality: 70,
        scale: None,
        max_size: Some(max_size),
    };
    if max_size > 0 {
        opts.validate()
            .map_err(|e| Error::validation(e.to_string()))?;
    }
    let b = s
        .controller
        .debug_bundle(q.udid.as_deref(), since_ms, lines, max_size > 0)
        .await?;
    let mut problems = b.problems;
    let screenshot = match b.shot {
        Some(shot) => {
            let png = shot.png;
            match super::screenshot::blocking(move || image::render(&png, &opts)).await {
                Ok(r) => Some(BundleImage {
                    content_type: r.content_type.to_string(),
                    width: r.size.0,
                    height: r.size.1,
                    base64: base64::engine::general_purpose::STANDARD.encode(&r.bytes),
                }),
                Err(e) => {
                    problems.push(format!("screenshot: {}", e.message));
                    None
                }
            }
        }
        None => None,
    };
    let (logs, crashes) = match &b.logs {
        Some(l) => (
            b.entries.iter().map(|e| entry_view(l, e)).collect(),
            b.crashes.iter().map(|c| crash_view(l, c, false)).collect(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    let snap = b.snapshot.as_ref();
    let perf = match s.controller.perf_of(&b.device.udid) {
        (None, None) => None,
        (reading, window) => Some(crate::api::wire::perf::BundlePerf { reading, window }),
    };
    let mut bundle = DebugBundle {
        device: b.device.clone(),
        taken_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        app: snap.and_then(|s| s.app()),
        activity: snap.and_then(|s| s.activity.clone()),
        snapshot_id: snap.map(|s| s.id.clone()),
        fingerprint: snap.map(|s| s.screen.fingerprint.clone()),
        tree_text: snap.map(|s| s.view(&crate::ui::ViewOptions::default()).tree_text.clone()),
        screenshot,
        logs,
        crashes,
        network: network_since(&s, since_ms),
        perf,
        problems,
        lease: s
            .controller
            .sessions()
            .holder(&b.device.udid)
            .and_then(|h| h.lease()),
        artifact: None,
    };
    // Also kept as an artifact of the caller's run (its failure does not fail the bundle).
    if let Ok(json) = serde_json::to_vec_pretty(&bundle) {
        let session = crate::controller::current_session().map(|c| c.id.clone());
        match s.controller.runs().save_artifact(
            session.as_deref(),
            "debug-bundle.json",
            crate::api::wire::runs::ArtifactKind::DebugBundle,
            &json,
        ) {
            Ok(a) => bundle.artifact = Some(format!("{}/{}", a.run, a.name)),
            Err(e) => tracing::warn!("debug bundle not saved: {}", e.message),
        }
    }
    Ok(Json(bundle))
}

/// The proxy's failed or mocked exchanges since `since_ms` (the newest [`BUNDLE_FLOWS`]).
fn network_since(s: &AppState, since_ms: i64) -> Vec<crate::proxy::flow::FlowLine> {
    let flows: Vec<_> = s
        .proxy
        .store()
        .after(0)
        .into_iter()
        .filter(|f| f.started_at.timestamp_millis() >= since_ms)
        .filter(|f| f.failed() || f.mocked)
        .collect();
    let skip = flows.len().saturating_sub(BUNDLE_FLOWS);
    flows[skip..].iter().map(|f| f.line()).collect()
}

/// At most this many exchanges in a bundle.
const BUNDLE_FLOWS: usize = 20;
