//! The session of one MCP connection (DESIGN.md's "each MCP connection is one"): created on the
//! connection's first tool call as a lazy session (its device is leased when its first device
//! operation runs), sent with every call after, made again if the server forgot it (restart,
//! expiry), and ended when the connection closes — explicitly for stdio, on drop for a
//! Streamable HTTP session. Two agents started side by side therefore never act on one device.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::Mutex;

use super::dispatch::{Dispatch, DispatchError};
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
        body
    }
}

/// One connection's session.
pub struct ConnectionSession<D: Dispatch> {
    dispatch: Arc<D>,
    pick: DevicePick,
    id: Mutex<Option<String>>,
}

impl<D: Dispatch> ConnectionSession<D> {
    /// A connection's session, made on its first call.
    pub fn new(dispatch: Arc<D>, pick: DevicePick) -> Self {
        ConnectionSession {
            dispatch,
            pick,
            id: Mutex::new(None),
        }
    }

    /// Sends `request` in the connection's session (made first if needed); when the server no
    /// longer knows the session, makes a new one and sends it once more.
    pub async fn send(&self, mut request: HttpCall) -> Result<ApiAnswer, DispatchError> {
        if self.pick.external {
            return self.dispatch.send(request).await;
        }
        let id = self.id().await?;
        request.session = Some(id.clone());
        let answer = self.dispatch.send(request.clone()).await?;
        if !session_gone(&answer, &id) {
            return Ok(answer);
        }
        *self.id.lock().await = None;
        request.session = Some(self.id().await?);
        self.dispatch.send(request).await
    }

    /// The session's id, made now if the connection has none.
    async fn id(&self) -> Result<String, DispatchError> {
        let mut slot = self.id.lock().await;
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
        match value["id"].as_str() {
            Some(id) if answer.status == 200 => {
                *slot = Some(id.to_string());
                Ok(id.to_string())
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

    /// Ends the session (its lease is released). Once the connection is closed.
    pub async fn end(&self) {
        let Some(id) = self.id.lock().await.take() else {
            return;
        };
        let _ = self.dispatch.send(delete(&id)).await;
    }
}

impl<D: Dispatch> Drop for ConnectionSession<D> {
    fn drop(&mut self) {
        let Some(id) = self.id.get_mut().take() else {
            return;
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let dispatch = self.dispatch.clone();
        rt.spawn(async move {
            let _ = dispatch.send(delete(&id)).await;
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

fn delete(id: &str) -> HttpCall {
    HttpCall {
        method: HttpMethod::Delete,
        path: format!("/api/v1/sessions/{id}"),
        query: vec![],
        body: None,
        session: None,
    }
}

/// The error code of an error answer.
fn error_code(answer: &ApiAnswer) -> Option<String> {
    let v: Value = serde_json::from_slice(&answer.body).ok()?;
    v["error"]["code"].as_str().map(str::to_string)
}

/// Whether the answer says the session `id` is gone (server restarted, or expired), not some
/// other session a tool named.
fn session_gone(answer: &ApiAnswer, id: &str) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(&answer.body) else {
        return false;
    };
    matches!(answer.status, 404 | 410)
        && crate::client::says_session_gone(
            v["error"]["code"].as_str().unwrap_or_default(),
            v["error"]["message"].as_str().unwrap_or_default(),
            id,
        )
}
