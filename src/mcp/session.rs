//! The session of one MCP connection (docs/DESIGN.md "Sessions and leases": each MCP
//! connection is one): created on the connection's first tool call as a lazy session (its
//! device is leased when its first device operation runs), sent with every call after by its
//! secret (the only thing that acts in it), made again if the server forgot it (restart,
//! expiry), and ended when the connection closes — explicitly for stdio, on drop for a
//! Streamable HTTP session. Two agents started side by side therefore never act on one device.
//! A Streamable HTTP session that goes quiet gives its lease back ([`super::idle`]).
//! A stdio bridge's session has a short idle expiry that the bridge renews while it lives
//! ([`DevicePick::ttl_s`]): a bridge killed without closing holds its device no longer than that.

use std::sync::{Arc, Weak};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use tokio::sync::Mutex;

use super::dispatch::{Dispatch, DispatchError};
use super::idle::Lessee;
use crate::api::call::HttpCall;
use crate::api::HttpMethod;
use crate::client::ApiAnswer;

/// Which device the connection's session asks for (`mobilectl mcp --device/--platform`).
#[derive(Debug, Clone, Default)]
pub struct DevicePick {
    /// A udid or device name.
    pub udid: Option<String>,
    /// `android` or `ios`.
    pub platform: Option<String>,
    /// How long the first device operation may wait for a matching device to be free.
    pub wait_ms: Option<u64>,
    /// The session's name (stdio bridges name theirs after their process).
    pub name: Option<String>,
    /// The connection reaches the API under a session made elsewhere (a Grid session: the
    /// URL ends in `/session/{id}`), so it makes none of its own.
    pub external: bool,
    /// The session's idle expiry, in seconds, renewed every third of it while the connection
    /// lives; none: the server's default, not renewed (`/mcp`, whose server sees it end).
    pub ttl_s: Option<u64>,
}

impl DevicePick {
    /// The body of `POST /api/v1/sessions` for this pick.
    fn create_body(&self) -> Value {
        let mut body = json!({ "lazy": true });
        if let Some(u) = &self.udid {
            body["udid"] = json!(u);
        }
        if let Some(p) = &self.platform {
            body["match"] = json!({ "platform": p });
        }
        if let Some(w) = self.wait_ms {
            body["wait_ms"] = json!(w);
        }
        if let Some(n) = &self.name {
            body["name"] = json!(n);
        }
        if let Some(t) = self.ttl_s {
            body["ttl_s"] = json!(t);
        }
        body
    }

    /// How often a live connection renews its session: a third of its expiry.
    fn renew_every(&self) -> Option<Duration> {
        self.ttl_s.map(|t| {
            Duration::from_millis(t.saturating_mul(1000) / 3).max(Duration::from_millis(300))
        })
    }
}

/// One connection's session.
pub struct ConnectionSession<D: Dispatch> {
    dispatch: Arc<D>,
    pick: DevicePick,
    /// The session's secret, once made.
    secret: Arc<Mutex<Option<String>>>,
}

impl<D: Dispatch> ConnectionSession<D> {
    /// A connection's session, made on its first call.
    pub fn new(dispatch: Arc<D>, pick: DevicePick) -> Self {
        ConnectionSession {
            dispatch,
            pick,
            secret: Arc::new(Mutex::new(None)),
        }
    }

    /// Sends `request` in the connection's session (made first if needed); when the server no
    /// longer knows the session, makes a new one and sends it once more.
    pub async fn send(&self, request: HttpCall) -> Result<ApiAnswer, DispatchError> {
        self.in_session(request, |r| self.dispatch.send(r)).await
    }

    /// Sends `request`, whose answer is a stream of Server-Sent Events, as [`Self::send`]
    /// sends a request: each event's `data` goes to `events` as it comes
    /// ([`Dispatch::send_streamed`]).
    pub async fn send_streamed(
        &self,
        request: HttpCall,
        events: tokio::sync::mpsc::UnboundedSender<String>,
    ) -> Result<ApiAnswer, DispatchError> {
        self.in_session(request, |r| self.dispatch.send_streamed(r, events.clone()))
            .await
    }

    /// Sends `request` with `send` in the connection's session (made first if needed); when
    /// the server no longer knows the session (an answer before any stream), makes a new one
    /// and sends it once more.
    async fn in_session<F, Fut>(
        &self,
        mut request: HttpCall,
        send: F,
    ) -> Result<ApiAnswer, DispatchError>
    where
        F: Fn(HttpCall) -> Fut,
        Fut: std::future::Future<Output = Result<ApiAnswer, DispatchError>>,
    {
        if self.pick.external {
            return send(request).await;
        }
        let secret = self.secret().await?;
        request.session = Some(secret);
        let answer = send(request.clone()).await?;
        if !session_gone(&answer) {
            return Ok(answer);
        }
        *self.secret.lock().await = None;
        request.session = Some(self.secret().await?);
        send(request).await
    }

    /// The session's secret, the session made now if the connection has none.
    async fn secret(&self) -> Result<String, DispatchError> {
        let mut slot = self.secret.lock().await;
        if let Some(id) = slot.as_ref() {
            return Ok(id.clone());
        }
        let mut body = self.pick.create_body();
        let mut answer = self.dispatch.send(create(body.clone())).await?;
        if answer.status == 409 && error_code(&answer).as_deref() == Some("SESSION_NAME_TAKEN") {
            // A bridge of the same process before (a restarted server keeps no names, so this
            // is a live one of ours that was lost): go on unnamed.
            body.as_object_mut().map(|b| b.remove("name"));
            answer = self.dispatch.send(create(body)).await?;
        }
        let value: Value = serde_json::from_slice(&answer.body).unwrap_or_default();
        match value["secret"].as_str() {
            Some(secret) if answer.status == 200 => {
                *slot = Some(secret.to_string());
                if let Some(every) = self.pick.renew_every() {
                    tokio::spawn(renew(
                        self.dispatch.clone(),
                        Arc::downgrade(&self.secret),
                        secret.to_string(),
                        every,
                    ));
                }
                Ok(secret.to_string())
            }
            _ => Err(DispatchError {
                code: error_code(&answer).unwrap_or_else(|| "INTERNAL".into()),
                message: value["error"]["message"]
                    .as_str()
                    .unwrap_or("the server did not start a session for this connection")
                    .to_string(),
                hint: value["error"]["hint"].as_str().map(str::to_string),
            }),
        }
    }

    /// Gives back the session's lease, if it has a session; the session goes on, and its next
    /// device operation leases again.
    pub async fn release(&self) {
        let Some(secret) = self.secret.lock().await.clone() else {
            return;
        };
        let _ = self.dispatch.send(release(&secret)).await;
    }

    /// Ends the session (its lease is released). Once the connection is closed.
    pub async fn end(&self) {
        let Some(secret) = self.secret.lock().await.take() else {
            return;
        };
        let _ = self.dispatch.send(delete(&secret)).await;
    }
}

/// Renews the session of `secret` every `every` (a request in it, which restarts its idle
/// clock) while it is still the connection's: until the connection goes (`slot` dropped),
/// makes another session or ends this one, or the server no longer knows it.
async fn renew<D: Dispatch>(
    dispatch: Arc<D>,
    slot: Weak<Mutex<Option<String>>>,
    secret: String,
    every: Duration,
) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tick.tick().await;
        let Some(slot) = slot.upgrade() else {
            return;
        };
        if slot.lock().await.as_deref() != Some(secret.as_str()) {
            return;
        }
        drop(slot);
        // A server that does not answer now may later: only a forgotten session ends this.
        if let Ok(answer) = dispatch.send(info(&secret)).await {
            if session_gone(&answer) {
                return;
            }
        }
    }
}

impl<D: Dispatch> Lessee for ConnectionSession<D> {
    fn give_back(self: Arc<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move { self.release().await })
    }
}

impl<D: Dispatch> Drop for ConnectionSession<D> {
    fn drop(&mut self) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        // The slot may be held a moment (its renewal looking at it): taken once it is free.
        let (slot, dispatch) = (self.secret.clone(), self.dispatch.clone());
        rt.spawn(async move {
            let Some(secret) = slot.lock().await.take() else {
                return;
            };
            let _ = dispatch.send(delete(&secret)).await;
        });
    }
}

fn create(body: Value) -> HttpCall {
    HttpCall {
        method: HttpMethod::Post,
        path: "/api/v1/sessions".into(),
        query: vec![],
        body: Some(body),
        session: None,
    }
}

/// `session_info` in the session of `secret`: a request that renews it and changes nothing.
fn info(secret: &str) -> HttpCall {
    HttpCall {
        method: HttpMethod::Get,
        path: "/api/v1/session".into(),
        query: vec![],
        body: None,
        session: Some(secret.to_string()),
    }
}

/// `release_device` in the session of `secret`.
fn release(secret: &str) -> HttpCall {
    HttpCall {
        method: HttpMethod::Post,
        path: "/api/v1/session/release".into(),
        query: vec![],
        body: None,
        session: Some(secret.to_string()),
    }
}

/// Ends the session of `secret` (its holder names it by its secret).
fn delete(secret: &str) -> HttpCall {
    HttpCall {
        method: HttpMethod::Delete,
        path: format!("/api/v1/sessions/{secret}"),
        query: vec![],
        body: None,
        session: Some(secret.to_string()),
    }
}

/// The error code of an error answer.
fn error_code(answer: &ApiAnswer) -> Option<String> {
    let v: Value = serde_json::from_slice(&answer.body).ok()?;
    v["error"]["code"].as_str().map(str::to_string)
}

/// Whether the answer says the connection's session is gone (server restarted, or expired),
/// not some other session a tool named.
fn session_gone(answer: &ApiAnswer) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(&answer.body) else {
        return false;
    };
    matches!(answer.status, 404 | 410)
        && crate::client::says_session_gone(
            v["error"]["code"].as_str().unwrap_or_default(),
            &v["error"]["details"],
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pick_with_an_expiry_asks_for_it_and_renews_thrice_within_it() {
        let pick = DevicePick {
            platform: Some("android".into()),
            ttl_s: Some(60),
            ..DevicePick::default()
        };
        assert_eq!(
            pick.create_body(),
            json!({"lazy": true, "match": {"platform": "android"}, "ttl_s": 60})
        );
        assert_eq!(pick.renew_every(), Some(Duration::from_secs(20)));
        // `/mcp`'s connections keep the server's default and are not renewed.
        assert_eq!(DevicePick::default().renew_every(), None);
        assert!(DevicePick::default().create_body().get("ttl_s").is_none());
    }
}
