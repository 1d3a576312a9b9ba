//! Network capture: the recording proxy (start, stop, status, its CA), devices pointed at it
//! (attach, detach), and what it recorded (list, one flow or its raw body, summary, clear, and
//! the stream of new flows as Server-Sent Events).

use std::convert::Infallible;
use std::time::Duration;

use axum::http::{header, HeaderValue};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::Json;

use crate::api::wire::proxy::*;
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::proxy::attach::ProxySetup;
use crate::proxy::filter::{FilterArgs, FlowFilter, Since};
use crate::proxy::flow::{decoded, Reveal};
use crate::server::reply::{EventStream, JsonOrBytes, Pem};
use crate::server::AppState;

/// How long each device may take to detach when the proxy stops or the server shuts down.
pub const DETACH_LIMIT: Duration = Duration::from_secs(10);
/// Largest `limit` of a flow list.
pub const MAX_LIST: u32 = 1000;
const DEFAULT_LIST: u32 = 100;

async fn status_of(s: &AppState) -> ProxyStatus {
    let run = s.proxy.running().await;
    ProxyStatus {
        running: run.is_some(),
        address: run.as_ref().map(|r| r.address.to_string()),
        started_at: run
            .as_ref()
            .map(|r| crate::proxy::flow::rfc3339(r.started_at)),
        passthrough: run.as_ref().map_or_else(
            || s.proxy.options().passthrough.clone(),
            |r| r.passthrough.clone(),
        ),
        in_flight: run.as_ref().map_or(0, |r| r.in_flight),
        store: s.proxy.store().stats(),
        ca: s.proxy.ca_info(),
        attached: s.controller.proxy_attached(),
        rules: s.proxy.rules().len(),
        conditions: s.proxy.conditions().get().map(|c| (*c).clone()),
        repaired: s.controller.proxy_repaired(),
        stale: s.controller.proxy_stale(),
        note: None,
    }
}

/// Starts the proxy (already running: answers its status, with a note).
pub async fn start(s: AppState, r: ProxyStartRequest) -> Result<Json<ProxyStatus>> {
    let passthrough = r.passthrough.unwrap_or_default();
    let started = s.proxy.start(r.port, &passthrough, s.bound).await?;
    let mut st = status_of(&s).await;
    if !started {
        st.note = Some(
            "it was running already; stop it first to change its port or passthrough hosts".into(),
        );
    }
    Ok(Json(st))
}

/// Detaches every attached device, then stops the proxy; refused, changing nothing, while
/// another session leases one of those devices.
pub async fn stop(s: AppState, _: ProxyStopRequest) -> Result<Json<ProxyStatus>> {
    s.controller.proxy_check_stop()?;
    let failed = detach_all(&s).await;
    let was_running = s.proxy.stop().await;
    let mut st = status_of(&s).await;
    let mut notes = failed;
    if !was_running {
        notes.push("it was not running".into());
    }
    if !notes.is_empty() {
        st.note = Some(notes.join("; "));
    }
    Ok(Json(st))
}

/// Detaches every attached device (bounded); returns what could not be undone.
async fn detach_all(s: &AppState) -> Vec<String> {
    let mut failed = Vec::new();
    for (udid, r) in s.controller.proxy_detach_all(DETACH_LIMIT).await {
        match r {
            Ok(_) => tracing::info!(udid, "detached from the proxy"),
            Err(e) => {
                tracing::warn!(udid, error = %e.message, "could not detach from the proxy");
                failed.push(format!("{udid} could not be detached: {}", e.message));
            }
        }
    }
    failed
}

/// What the server does on SIGINT/SIGTERM: no device is left pointing at a dead proxy.
pub async fn on_shutdown(s: AppState) {
    detach_all(&s).await;
    s.proxy.stop().await;
}

/// The proxy's state: its address, CA, the devices attached.
pub async fn status(s: AppState) -> Result<Json<ProxyStatus>> {
    Ok(Json(status_of(&s).await))
}

/// The CA certificate (PEM), made on first use.
pub async fn ca_pem(s: AppState) -> Result<Pem> {
    Ok(Pem(s.proxy.ca()?.cert_pem().to_string()))
}

/// Points the target device at the proxy, starting it if needed.
pub async fn attach(s: AppState, r: ProxyDeviceRequest) -> Result<Json<ProxyAttachResult>> {
    // The device first: a request for a device that is not there starts nothing.
    s.controller.resolve_ready(r.udid.as_deref()).await?;
    if s.proxy.running().await.is_none() {
        s.proxy.start(None, &[], s.bound).await?;
    }
    let port = s
        .proxy
        .running()
        .await
        .map(|r| r.address.port())
        .ok_or_else(|| Error::internal("the proxy stopped while attaching"))?;
    let setup = ProxySetup {
        port,
        ca_file: s.proxy.ca_file()?,
    };
    let a = s.controller.proxy_attach(r.udid.as_deref(), &setup).await?;
    Ok(Json(ProxyAttachResult {
        device: a.device,
        proxy: format!("127.0.0.1:{}", a.attached.port),
        already: a.already,
        previous: a.attached.previous,
        done: if a.already {
            Vec::new()
        } else {
            a.attached.done
        },
        todo: a.attached.todo,
    }))
}

/// Undoes an attach of the target device.
pub async fn detach(s: AppState, r: ProxyDeviceRequest) -> Result<Json<ProxyDetachResult>> {
    let configured = match s.proxy.options().port {
        0 => crate::proxy::DEFAULT_PORT,
        p => p,
    };
    let port = s
        .proxy
        .running()
        .await
        .map_or(configured, |r| r.address.port());
    let (device, d, was_attached) = s.controller.proxy_detach(r.udid.as_deref(), port).await?;
    Ok(Json(ProxyDetachResult {
        device,
        was_attached,
        done: d.done,
        todo: d.todo,
    }))
}

fn filter_of(q: &FlowsQuery) -> Result<FlowFilter> {
    FlowFilter::parse(&FilterArgs {
        host: q.host.as_deref(),
        method: q.method.as_deref(),
        status: q.status.as_deref(),
        failed: q.failed,
        contains: q.contains.as_deref(),
        since: q.since.as_deref(),
    })
}

/// Recorded exchanges: the newest `limit`, or the first `limit` after `since`.
pub async fn list(s: AppState, q: FlowsQuery) -> Result<Json<FlowList>> {
    let filter = filter_of(&q)?;
    let limit = q.limit.unwrap_or(DEFAULT_LIST);
    if limit == 0 || limit > MAX_LIST {
        return Err(Error::validation(format!("`limit` is 1 to {MAX_LIST}"))
            .with_hint("page with `since=<next_cursor>`")
            .with_details(serde_json::json!({ "field": "limit" })));
    }
    let store = s.proxy.store();
    let stats = store.stats();
    let mut flows: Vec<_> = store
        .after(filter.cursor())
        .into_iter()
        .filter(|f| filter.matches(f))
        .collect();
    let limit = limit as usize;
    let cut = flows.len() > limit;
    if cut {
        if filter.since == Since::Beginning {
            flows.drain(..flows.len() - limit);
        } else {
            flows.truncate(limit);
        }
    }
    let next_cursor = match (cut, filter.since, flows.last()) {
        (true, Since::Beginning, _) | (false, _, _) => stats.latest_id,
        (true, _, Some(last)) => last.id,
        (true, _, None) => stats.latest_id,
    };
    let missed =
        matches!(filter.since, Since::Cursor(c) if stats.evicted_through.is_some_and(|e| e > c));
    Ok(Json(FlowList {
        flows: flows.iter().map(|f| f.line()).collect(),
        next_cursor,
        evicted: stats.evicted,
        missed,
    }))
}

/// One exchange with headers and bodies, or one body's raw bytes.
pub async fn get(s: AppState, q: FlowQuery) -> Result<JsonOrBytes<FlowDetail>> {
    let reveal = if q.reveal == Some(true) {
        if !s.bound.is_some_and(|b| b.ip().is_loopback()) {
            return Err(Error::new(
                ErrorCode::Forbidden,
                "secret header values are shown only by a server bound to loopback",
            )
            .with_next(
                "ask without {0}, or run the server on 127.0.0.1",
                [Step::field_of(Op::GetFlow, "reveal")],
            ));
        }
        Reveal::Shown
    } else {
        Reveal::Redacted
    };
    let flow = s.proxy.store().get(q.id).ok_or_else(|| {
        Error::new(
            ErrorCode::NotFound,
            format!("flow {} is not in the store", q.id),
        )
        .with_next(
            "list the flows: {0} (old ones are evicted, or were cleared)",
            [Step::call(Op::ListFlows)],
        )
    })?;
    let Some(part) = q.body else {
        return Ok(JsonOrBytes::new(Json(flow.detail(reveal))));
    };
    let message = match part {
        BodyPart::Request => Some(&flow.request),
        BodyPart::Response => flow.response.as_ref(),
    }
    .ok_or_else(|| {
        Error::new(
            ErrorCode::NotFound,
            format!("flow {} has no response", q.id),
        )
        .with_hint("it failed before an answer: see its `error`")
    })?;
    let d = decoded(message);
    let ctype = message
        .header("content-type")
        .unwrap_or("application/octet-stream");
    let mut r = d.bytes.into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(ctype)
            .unwrap_or(HeaderValue::from_static("application/octet-stream")),
    );
    h.insert("x-body-size", HeaderValue::from(message.body.size));
    h.insert(
        "x-body-truncated",
        HeaderValue::from_static(if message.body.truncated() {
            "true"
        } else {
            "false"
        }),
    );
    if let Some(p) = d.problem.and_then(|p| HeaderValue::from_str(&p).ok()) {
        h.insert("x-body-note", p);
    }
    Ok(JsonOrBytes::new(r))
}

/// Traffic in brief since a time.
pub async fn summary(s: AppState, q: SummaryQuery) -> Result<Json<FlowSummary>> {
    let filter = FlowFilter::parse(&FilterArgs {
        host: q.host.as_deref(),
        since: q.since.as_deref(),
        ..Default::default()
    })?;
    let store = s.proxy.store();
    let flows: Vec<_> = store
        .after(filter.cursor())
        .into_iter()
        .filter(|f| filter.matches(f))
        .collect();
    Ok(Json(crate::proxy::summary::summarise(
        &flows,
        store.stats().evicted,
    )))
}

/// Forgets every recorded exchange; answers how many.
pub async fn clear(s: AppState) -> Result<Json<Cleared>> {
    Ok(Json(Cleared {
        cleared: s.proxy.store().clear(),
    }))
}

/// New exchanges as they are recorded (after `since` first, when given), until the client
/// goes, `limit` were sent, or the server stops.
pub async fn stream(s: AppState, q: FlowsQuery) -> Result<EventStream<FlowLine>> {
    let filter = filter_of(&q)?;
    let limit = q.limit.map(|l| l as usize);
    if limit == Some(0) {
        return Err(
            Error::validation("`limit` is at least 1 (or absent: no end)")
                .with_details(serde_json::json!({ "field": "limit" })),
        );
    }
    let cursor = match filter.since {
        Since::Cursor(c) => c,
        Since::Time(_) => 0,
        Since::Beginning => s.proxy.store().stats().latest_id,
    };
    let state = Follow {
        proxy: s.proxy.clone(),
        changes: s.proxy.store().subscribe(),
        filter,
        cursor,
        left: limit,
        pending: std::collections::VecDeque::new(),
        stop: crate::server::shutdown_token(),
    };
    let events = futures::stream::unfold(state, |mut f| async move {
        f.next().await.map(|e| (Ok::<_, Infallible>(e), f))
    });
    Ok(EventStream::new(
        Sse::new(events).keep_alive(KeepAlive::default()),
    ))
}

/// A follower of the store.
struct Follow {
    proxy: std::sync::Arc<crate::proxy::ProxyService>,
    changes: tokio::sync::watch::Receiver<u64>,
    filter: FlowFilter,
    cursor: u64,
    left: Option<usize>,
    pending: std::collections::VecDeque<Event>,
    stop: tokio_util::sync::CancellationToken,
}

impl Follow {
    async fn next(&mut self) -> Option<Event> {
        loop {
            if self.left == Some(0) {
                return None;
            }
            if let Some(e) = self.pending.pop_front() {
                self.left = self.left.map(|n| n - 1);
                return Some(e);
            }
            self.changes.borrow_and_update();
            for f in self.proxy.store().after(self.cursor) {
                self.cursor = f.id;
                if self.filter.matches(&f) {
                    let e = Event::default().id(f.id.to_string()).json_data(f.line());
                    if let Ok(e) = e {
                        self.pending.push_back(e);
                    }
                }
            }
            if !self.pending.is_empty() {
                continue;
            }
            tokio::select! {
                changed = self.changes.changed() => changed.ok()?,
                _ = self.stop.cancelled() => return None,
            }
        }
    }
}
