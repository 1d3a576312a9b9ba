//! A small client of the Chrome DevTools Protocol over its WebSocket: commands
//! (`{"id","method","params","sessionId"}`) answered by id, each within [`CALL_TIMEOUT`];
//! events are not kept. One connection to the browser's endpoint; the page is driven through
//! a flattened session (`Target.attachToTarget` with `flatten`), whose id each call names.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;

/// Longest a command may wait for its answer.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(15);
/// Longest the WebSocket handshake may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

/// A connection to a DevTools endpoint (`ws://127.0.0.1:PORT/devtools/browser/…`).
pub struct Cdp {
    out: mpsc::UnboundedSender<Message>,
    pending: Pending,
    next: AtomicU64,
    tasks: [JoinHandle<()>; 2],
}

impl Drop for Cdp {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn lock(
    p: &Pending,
) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<Result<Value, String>>>> {
    p.lock().unwrap_or_else(|e| e.into_inner())
}

impl Cdp {
    pub async fn connect(url: &str) -> Result<Cdp, String> {
        let (ws, _) = tokio::time::timeout(CONNECT_TIMEOUT, tokio_tungstenite::connect_async(url))
            .await
            .map_err(|_| {
                format!("DevTools WebSocket {url}: no handshake within {CONNECT_TIMEOUT:?}")
            })?
            .map_err(|e| format!("DevTools WebSocket {url}: {e}"))?;
        let (mut sink, mut stream) = ws.split();
        let (out, mut rx) = mpsc::unbounded_channel::<Message>();
        let pending: Pending = Default::default();
        let writer = tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                if sink.send(m).await.is_err() {
                    break;
                }
            }
        });
        let p = pending.clone();
        let reader = tokio::spawn(async move {
            while let Some(Ok(m)) = stream.next().await {
                let Message::Text(text) = m else { continue };
                let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                let Some(id) = v.get("id").and_then(Value::as_u64) else {
                    continue;
                };
                if let Some(tx) = lock(&p).remove(&id) {
                    let answer = match v.get("error") {
                        Some(e) => Err(format!(
                            "{} ({})",
                            e["message"].as_str().unwrap_or("error"),
                            e["code"]
                        )),
                        None => Ok(v.get("result").cloned().unwrap_or(Value::Null)),
                    };
                    let _ = tx.send(answer);
                }
            }
            // The connection is gone: every call still waiting fails now.
            lock(&p).clear();
        });
        Ok(Cdp {
            out,
            pending,
            next: AtomicU64::new(1),
            tasks: [writer, reader],
        })
    }

    /// Sends `method` (to the page's session when given) and waits for its result.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        if self.out.send(Message::text(msg.to_string())).is_err() {
            lock(&self.pending).remove(&id);
            return Err(format!("{method}: the DevTools connection is closed"));
        }
        match tokio::time::timeout(CALL_TIMEOUT, rx).await {
            Ok(Ok(r)) => r.map_err(|e| format!("{method}: {e}")),
            Ok(Err(_)) => Err(format!("{method}: the DevTools connection closed")),
            Err(_) => {
                lock(&self.pending).remove(&id);
                Err(format!("{method}: no answer within {CALL_TIMEOUT:?}"))
            }
        }
    }
}
