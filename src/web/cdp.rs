//! The Chrome DevTools Protocol's client: JSON requests with ids over one WebSocket
//! (`tokio-tungstenite`), answers matched to their callers, events handed to whoever listens.
//! A reader task owns the socket's incoming half and a writer task its outgoing half, so a
//! call never waits for another's answer; when the socket ends, every waiting call learns why
//! at once and later calls fail without waiting. Every call has a time limit.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

/// The largest message taken: a page of tens of thousands of nodes answers its accessibility
/// tree in tens of megabytes.
const MAX_MESSAGE: usize = 256 << 20;
/// Events kept for a listener that falls behind.
const EVENT_BACKLOG: usize = 1024;

/// Why a call did not answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CdpError {
    /// The WebSocket could not be opened.
    #[error("the DevTools WebSocket could not be opened: {0}")]
    Connect(String),
    /// The WebSocket ended (the page or the browser went away).
    #[error("the DevTools connection ended: {0}")]
    Closed(String),
    /// No answer in time.
    #[error("`{method}` got no answer in {} ms", after.as_millis())]
    TimedOut {
        /// The method called.
        method: String,
        /// How long it waited.
        after: Duration,
    },
    /// The browser answered with an error.
    #[error("`{method}` was refused: {message} ({code})")]
    Refused {
        /// The method called.
        method: String,
        /// The protocol's error code.
        code: i64,
        /// The protocol's message.
        message: String,
    },
}

/// An event the browser sent (`Runtime.consoleAPICalled`, `Page.frameNavigated`…).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's method name.
    pub method: String,
    /// Its parameters.
    pub params: Value,
}

type Answer = Result<Value, CdpError>;
type Waiting = Arc<Mutex<HashMap<u64, oneshot::Sender<Answer>>>>;

/// One WebSocket to one target (a page).
pub struct Cdp {
    next_id: AtomicU64,
    waiting: Waiting,
    outgoing: mpsc::UnboundedSender<Message>,
    events: broadcast::Sender<Event>,
    ended: watch::Receiver<Option<String>>,
    tasks: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Cdp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cdp")
            .field("ended", &*self.ended.borrow())
            .finish_non_exhaustive()
    }
}

impl Drop for Cdp {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// The lock of the waiting calls; a panic elsewhere does not lose them.
fn lock(w: &Waiting) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<Answer>>> {
    w.lock().unwrap_or_else(|e| e.into_inner())
}

impl Cdp {
    /// Opens the WebSocket at `url` (`ws://127.0.0.1:PORT/devtools/page/ID`).
    pub async fn connect(url: &str, limit: Duration) -> Result<Cdp, CdpError> {
        let config = WebSocketConfig::default()
            .max_message_size(Some(MAX_MESSAGE))
            .max_frame_size(Some(MAX_MESSAGE));
        let (socket, _) = tokio::time::timeout(
            limit,
            tokio_tungstenite::connect_async_with_config(url, Some(config), false),
        )
        .await
        .map_err(|_| CdpError::Connect(format!("no answer in {} ms", limit.as_millis())))?
        .map_err(|e| CdpError::Connect(e.to_string()))?;
        let (mut sink, mut stream) = socket.split();
        let waiting: Waiting = Arc::default();
        let (events, _) = broadcast::channel(EVENT_BACKLOG);
        let (ended_tx, ended) = watch::channel(None);
        let (outgoing, mut to_send) = mpsc::unbounded_channel::<Message>();

        let writer = tokio::spawn(async move {
            while let Some(m) = to_send.recv().await {
                if sink.send(m).await.is_err() {
                    break;
                }
            }
            let _ = sink.close().await;
        });
        let reader = {
            let waiting = waiting.clone();
            let events = events.clone();
            tokio::spawn(async move {
                let why = loop {
                    match stream.next().await {
                        Some(Ok(Message::Text(text))) => dispatch(text.as_str(), &waiting, &events),
                        Some(Ok(Message::Binary(bytes))) => {
                            dispatch(&String::from_utf8_lossy(&bytes), &waiting, &events)
                        }
                        Some(Ok(Message::Close(frame))) => {
                            break frame
                                .map(|f| format!("closed by the browser ({})", f.reason))
                                .unwrap_or_else(|| "closed by the browser".into());
                        }
                        Some(Ok(_)) => {}
                        Some(Err(e)) => break e.to_string(),
                        None => break "the socket ended".into(),
                    }
                };
                let _ = ended_tx.send(Some(why.clone()));
                for (_, w) in lock(&waiting).drain() {
                    let _ = w.send(Err(CdpError::Closed(why.clone())));
                }
            })
        };
        Ok(Cdp {
            next_id: AtomicU64::new(1),
            waiting,
            outgoing,
            events,
            ended,
            tasks: vec![reader, writer],
        })
    }

    /// Why the connection ended, once it has.
    pub fn ended(&self) -> Option<String> {
        self.ended.borrow().clone()
    }

    /// Events from now on.
    pub fn events(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Calls `method` and waits at most `limit` for its `result`.
    pub async fn call(&self, method: &str, params: Value, limit: Duration) -> Answer {
        if let Some(why) = self.ended() {
            return Err(CdpError::Closed(why));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(id, tx);
        let request = json!({"id": id, "method": method, "params": params});
        if self
            .outgoing
            .send(Message::Text(request.to_string().into()))
            .is_err()
        {
            lock(&self.waiting).remove(&id);
            return Err(CdpError::Closed(
                self.ended().unwrap_or_else(|| "the writer stopped".into()),
            ));
        }
        let answer = match tokio::time::timeout(limit, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(CdpError::Closed(
                self.ended().unwrap_or_else(|| "the reader stopped".into()),
            )),
            Err(_) => Err(CdpError::TimedOut {
                method: method.to_string(),
                after: limit,
            }),
        };
        lock(&self.waiting).remove(&id);
        answer.map_err(|e| match e {
            CdpError::Refused { code, message, .. } => CdpError::Refused {
                method: method.to_string(),
                code,
                message,
            },
            e => e,
        })
    }
}

/// One incoming message: an answer to its caller, or an event to the listeners.
fn dispatch(text: &str, waiting: &Waiting, events: &broadcast::Sender<Event>) {
    let Ok(mut v) = serde_json::from_str::<Value>(text) else {
        return;
    };
    if let Some(id) = v["id"].as_u64() {
        let answer = match v.get_mut("error") {
            Some(e) => Err(CdpError::Refused {
                method: String::new(),
                code: e["code"].as_i64().unwrap_or(0),
                message: e["message"].as_str().unwrap_or("").to_string(),
            }),
            None => Ok(v.get_mut("result").map(Value::take).unwrap_or(Value::Null)),
        };
        if let Some(w) = lock(waiting).remove(&id) {
            let _ = w.send(answer);
        }
    } else if let Some(method) = v["method"].as_str() {
        let _ = events.send(Event {
            method: method.to_string(),
            params: v.get_mut("params").map(Value::take).unwrap_or(Value::Null),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_reach_their_callers_errors_are_refusals_and_events_are_broadcast() {
        let waiting: Waiting = Arc::default();
        let (events, mut listener) = broadcast::channel(4);
        let (tx1, mut rx1) = oneshot::channel();
        let (tx2, mut rx2) = oneshot::channel();
        lock(&waiting).insert(1, tx1);
        lock(&waiting).insert(2, tx2);
        dispatch(
            r#"{"id":2,"error":{"code":-32000,"message":"No node with given id found"}}"#,
            &waiting,
            &events,
        );
        dispatch(r#"{"id":1,"result":{"nodes":[]}}"#, &waiting, &events);
        dispatch(
            r#"{"method":"Runtime.consoleAPICalled","params":{"type":"log"}}"#,
            &waiting,
            &events,
        );
        dispatch("not json", &waiting, &events);
        dispatch(r#"{"id":99,"result":{}}"#, &waiting, &events);
        assert_eq!(rx1.try_recv().unwrap(), Ok(json!({"nodes": []})));
        assert!(matches!(
            rx2.try_recv().unwrap(),
            Err(CdpError::Refused { code: -32000, .. })
        ));
        let e = listener.try_recv().unwrap();
        assert_eq!(e.method, "Runtime.consoleAPICalled");
        assert_eq!(e.params["type"], "log");
        assert!(lock(&waiting).is_empty());
    }

    #[tokio::test]
    async fn nothing_listening_is_a_connect_error_without_waiting_long() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let err = Cdp::connect(
            &format!("ws://127.0.0.1:{port}/devtools/page/X"),
            Duration::from_secs(5),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, CdpError::Connect(_)), "{err}");
    }
}
