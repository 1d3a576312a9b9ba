//! One API request sent as it was built ([`HttpCall`]) and its answer taken as it came
//! ([`ApiAnswer`]: status, content type, `x-*` headers, body), errors included: how the MCP
//! stdio bridge reaches the server. Only a failure to get an answer at all is an error.

use std::time::Duration;

use reqwest::header::HeaderMap;

use super::{Client, ClientError};
use crate::api::call::HttpCall;
use crate::api::HttpMethod;

/// The API's answer, unchanged.
#[derive(Debug, Clone)]
pub struct ApiAnswer {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type` header, empty when absent.
    pub content_type: String,
    /// The answer's `x-*` headers (screenshots carry their geometry in them).
    pub headers: Vec<(String, String)>,
    /// The body's bytes, unchanged.
    pub body: Vec<u8>,
}

impl ApiAnswer {
    /// The parts of an answer a caller reads from its status and headers, body aside.
    pub fn from_parts(status: u16, headers: &HeaderMap, body: Vec<u8>) -> Self {
        ApiAnswer {
            status,
            content_type: content_type(headers),
            headers: x_headers(headers),
            body,
        }
    }
}

/// The answer's `x-*` headers.
pub fn x_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(name, _)| name.as_str().starts_with("x-"))
        .filter_map(|(name, v)| Some((name.as_str().to_string(), v.to_str().ok()?.to_string())))
        .collect()
}

/// The answer's content type (empty when it has none).
pub fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string()
}

fn reqwest_method(m: HttpMethod) -> reqwest::Method {
    match m {
        HttpMethod::Get => reqwest::Method::GET,
        HttpMethod::Post => reqwest::Method::POST,
        HttpMethod::Put => reqwest::Method::PUT,
        HttpMethod::Delete => reqwest::Method::DELETE,
    }
}

impl Client {
    /// Sends `call` and returns the answer whatever its status, within `timeout`.
    pub async fn send_call(
        &self,
        call: &HttpCall,
        timeout: Duration,
    ) -> Result<ApiAnswer, ClientError> {
        let resp = self
            .request(
                reqwest_method(call.method),
                &call.path,
                &call.query,
                call.body.as_ref(),
                call.session.as_deref(),
                timeout,
            )
            .await?;
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp.bytes().await.map_err(|e| {
            ClientError::local(
                super::exit::UNREACHABLE,
                "SERVER_UNREACHABLE",
                format!("the answer was cut off: {e}"),
                None,
            )
        })?;
        Ok(ApiAnswer::from_parts(status, &headers, body.to_vec()))
    }

    /// Sends `call`, whose answer is a stream of Server-Sent Events: each event's `data` goes
    /// to `on_event` as it arrives, and the answer (its body empty) is returned when the server
    /// ends the stream. An answer that is not a stream (an error before the stream started) is
    /// returned whole, as [`Client::send_call`] returns it. No time limit: the server bounds
    /// what it streams (a flow's own `timeout_ms`), and heartbeats keep the stream alive.
    pub async fn send_call_streamed(
        &self,
        call: &HttpCall,
        mut on_event: impl FnMut(&str),
    ) -> Result<ApiAnswer, ClientError> {
        let req = self
            .http
            .request(reqwest_method(call.method), self.url(&call.path))
            .query(&call.query)
            .header(reqwest::header::ACCEPT, "text/event-stream");
        let mut resp = self
            .send_built(req, call.body.as_ref(), call.session.as_deref())
            .await?;
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let cut = |e: reqwest::Error| {
            ClientError::local(
                super::exit::UNREACHABLE,
                "SERVER_UNREACHABLE",
                format!("the answer was cut off: {e}"),
                None,
            )
        };
        if !resp.status().is_success() || !is_event_stream(&headers) {
            let body = resp.bytes().await.map_err(cut)?;
            return Ok(ApiAnswer::from_parts(status, &headers, body.to_vec()));
        }
        let mut events = super::sse::SseSplitter::default();
        while let Some(chunk) = resp.chunk().await.map_err(cut)? {
            for data in events.push(&chunk) {
                on_event(&data);
            }
        }
        Ok(ApiAnswer::from_parts(status, &headers, Vec::new()))
    }
}

/// Whether an answer is a stream of Server-Sent Events (`text/event-stream`).
pub fn is_event_stream(headers: &HeaderMap) -> bool {
    is_event_stream_type(&content_type(headers))
}

/// Whether a content type is that of Server-Sent Events.
pub fn is_event_stream_type(content_type: &str) -> bool {
    content_type.starts_with("text/event-stream")
}
