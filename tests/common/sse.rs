//! Reading a Server-Sent Events answer of the in-process app event by event.

use std::time::Duration;

use axum::body::Body;
use http_body_util::BodyExt;
use serde_json::Value;

/// One event: its name, id and JSON data.
#[derive(Debug, Clone)]
pub struct SseEvent {
    pub event: String,
    pub id: String,
    pub data: Value,
}

/// The events of a streaming body, as they come.
pub struct SseReader {
    body: Body,
    pending: String,
}

/// Posts `body` to the streaming route `path` of `app`: the answer's status and its events.
pub async fn post_stream(
    app: &axum::Router,
    path: &str,
    body: Value,
) -> (axum::http::StatusCode, SseReader) {
    use tower::ServiceExt;
    let res = app.clone().oneshot(super::post(path, body)).await.unwrap();
    (res.status(), SseReader::new(res.into_body()))
}

impl SseReader {
    pub fn new(body: Body) -> Self {
        SseReader {
            body,
            pending: String::new(),
        }
    }

    /// The next event (heartbeat comments skipped); `None` when the stream ended or nothing
    /// came within `limit`.
    pub async fn next(&mut self, limit: Duration) -> Option<SseEvent> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            while let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                let mut ev = SseEvent {
                    event: "message".into(),
                    id: String::new(),
                    data: Value::Null,
                };
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        ev.event = v.trim().into();
                    } else if let Some(v) = line.strip_prefix("id:") {
                        ev.id = v.trim().into();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if !data.is_empty() {
                    ev.data = serde_json::from_str(&data).expect("JSON data");
                    return Some(ev);
                }
            }
            let frame = tokio::time::timeout_at(deadline, self.body.frame()).await;
            match frame {
                Ok(Some(Ok(f))) => {
                    if let Some(bytes) = f.data_ref() {
                        self.pending.push_str(&String::from_utf8_lossy(bytes));
                    }
                }
                _ => return None,
            }
        }
    }
}
