//! Requests to one WebDriverAgent endpoint through the HTTP runner, and its session: created on
//! first use with W3C capabilities, kept in the [`Endpoint`] and reused by every later command,
//! recreated once when WDA answers `invalid session id` (WDA restarted, or another client
//! replaced the session — WDA holds one at a time). Reads that need no session (`/source`,
//! `/screenshot`, `/status`, `/wda/screen`) never create one.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use super::endpoint::Endpoint;
use super::errors::{from_status, read_answer, to_error, Failure};
use crate::error::{Error, ErrorCode, Result};
use crate::exec::{HttpClient, HttpRequest};

/// Time limit of ordinary WDA commands.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
/// Time limit of creating a session.
pub const SESSION_TIMEOUT: Duration = Duration::from_secs(60);

/// The capabilities of mobilectl's session: no app (WDA attaches to whatever is in front,
/// SpringBoard when nothing is), W3C form (WDA refuses JSONWP's `desiredCapabilities` alone).
pub fn session_request() -> Value {
    json!({ "capabilities": { "alwaysMatch": {}, "firstMatch": [{}] } })
}

/// The session id of a `POST /session` answer (`value.sessionId`, else the envelope's).
pub fn session_id(answer: &Value) -> Option<String> {
    answer["value"]["sessionId"]
        .as_str()
        .or_else(|| answer["sessionId"].as_str())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Sends WDA requests, with the server's cap on time limits.
#[derive(Debug, Clone)]
pub(super) struct Transport {
    http: HttpClient,
    max: Option<Duration>,
}

impl Transport {
    pub fn new(max: Option<Duration>) -> Self {
        Transport {
            http: HttpClient::new(),
            max,
        }
    }

    /// One request; the whole envelope, or why not.
    pub async fn send(
        &self,
        ep: &Endpoint,
        method: Method,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> std::result::Result<Value, Failure> {
        let mut req = HttpRequest::new(method, format!("{}{path}", ep.spec.url))
            .timeout(timeout)
            .cap_timeout(self.max);
        if let Some(b) = body {
            req = req.json(b);
        }
        match self.http.send(&req).await {
            Ok(resp) => read_answer(&resp.body, resp.status),
            Err(e) => Err(from_status(e)),
        }
    }

    fn error(ep: &Endpoint, method: &Method, path: &str, f: Failure) -> Error {
        to_error(
            f,
            &format!("{method} {path}"),
            &ep.spec.url,
            ep.spec.udid.as_deref(),
        )
    }

    /// One request outside any session; WDA's failures translated.
    pub async fn call(
        &self,
        ep: &Endpoint,
        method: Method,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<Value> {
        self.send(ep, method.clone(), path, body, timeout)
            .await
            .map_err(|f| Self::error(ep, &method, path, f))
    }

    /// The endpoint's session, created when there is none.
    pub async fn session(&self, ep: &Endpoint) -> Result<String> {
        let mut held = ep.session.lock().await;
        if let Some(id) = held.as_ref() {
            return Ok(id.clone());
        }
        let answer = self
            .call(
                ep,
                Method::POST,
                "/session",
                Some(&session_request()),
                SESSION_TIMEOUT,
            )
            .await?;
        let id = session_id(&answer).ok_or_else(|| {
            Error::new(
                ErrorCode::CommandFailed,
                "WebDriverAgent opened a session without saying its id",
            )
            .with_details(json!({ "answer": answer }))
        })?;
        tracing::debug!(url = %ep.spec.url, session = %id, "WDA session created");
        *held = Some(id.clone());
        Ok(id)
    }

    /// Forgets `id` if it is still the endpoint's session.
    async fn forget(&self, ep: &Endpoint, id: &str) {
        let mut held = ep.session.lock().await;
        if held.as_deref() == Some(id) {
            *held = None;
        }
    }

    /// A request in the endpoint's session (`/session/:id{path}`), made in a new session once
    /// when WDA no longer knows the current one.
    pub async fn in_session(
        &self,
        ep: &Endpoint,
        method: Method,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<Value> {
        let id = self.session(ep).await?;
        let full = format!("/session/{id}{path}");
        match self.send(ep, method.clone(), &full, body, timeout).await {
            Ok(v) => Ok(v),
            Err(Failure::Wda(e)) if e.invalid_session() => {
                tracing::info!(url = %ep.spec.url, session = %id, "WDA forgot the session; opening a new one");
                self.forget(ep, &id).await;
                let id = self.session(ep).await?;
                let full = format!("/session/{id}{path}");
                self.send(ep, method.clone(), &full, body, timeout)
                    .await
                    .map_err(|f| Self::error(ep, &method, &full, f))
            }
            Err(f) => Err(Self::error(ep, &method, &full, f)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::backend::wda::recorded_wda as fixture;

    #[test]
    fn session_ids_of_recorded_session_answers() {
        for (f, id) in [
            (
                "wda_post_session_springboard_fallback_real_iphone_ios13.2.3.json",
                "01C14CF6-A745-4E05-85C8-905DCEC61424",
            ),
            (
                "wda_post_session_w3c_caps_wda5.9_sim_ios15.2_appiumlog_compact.json",
                "8B295A66-779A-4C88-B6B9-2C1179C18592",
            ),
            (
                "wda_post_session_phone_app_real_iphone_ios13.2.3.json",
                "3819C587-EFE2-4246-A3E4-73C5B3EAD994",
            ),
        ] {
            assert_eq!(session_id(&fixture(f)).as_deref(), Some(id), "{f}");
        }
        assert_eq!(session_id(&json!({"value": null, "sessionId": null})), None);
        assert!(session_request()["capabilities"].is_object());
    }
}
