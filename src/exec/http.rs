//! The HTTP runner, beside the process runner: every request to a device reached over the
//! network (a WebDriverAgent server) goes through [`HttpClient::send`], as every external
//! command goes through [`super::Command::run`].
//!
//! A request has one time limit covering its attempts, the wait for a slot and the reading of
//! the answer; when it passes, the request is dropped (its connection closed) and the answer
//! is [`HttpError::Timeout`]. Requests share the process runner's bound on outside work in
//! flight ([`super::MAX_RUNNING`]). A request is repeated only where that is safe: an
//! idempotent method (or one marked [`HttpRequest::retry_safe`]) whose connection failed
//! before any answer came. Any status outside 2xx is [`HttpError::Status`] with the body, for
//! the backend to translate into the product's error. Each request is a tracing span with the
//! method, URL, status, attempts and duration.

use std::time::{Duration, Instant};

use reqwest::{Method, Url};
use tracing::Instrument;

use super::{acquire_slot, timing, MAX_RUNNING};

/// Default time limit of a request.
pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// Largest answer read; a larger one is refused (a screenshot in base64 is a few MB).
pub const MAX_BODY: usize = 64 * 1024 * 1024;

/// How many times a request is repeated after a failed connection (where that is safe).
const RETRIES: u32 = 2;

/// Pause before a repeat, times the attempt number.
const BACKOFF: Duration = Duration::from_millis(100);

/// A request to send: method, URL, optional JSON body, time limit.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    method: Method,
    url: String,
    body: Option<Vec<u8>>,
    /// The body is JSON ([`HttpRequest::json`]): sent with its content type.
    json_body: bool,
    headers: Vec<(String, String)>,
    timeout: Duration,
    retry_safe: bool,
    /// Any status is an answer ([`HttpRequest::any_status`]), not only 2xx.
    any_status: bool,
}

/// An answer with a 2xx status (any status, for a request marked [`HttpRequest::any_status`]).
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// The HTTP status code, 200 to 299 unless any status was asked for.
    pub status: u16,
    /// The headers, as the server sent them (names in lower case).
    pub headers: Vec<(String, String)>,
    /// The body's bytes, at most [`MAX_BODY`].
    pub body: Vec<u8>,
    /// Wall time of the whole send: waiting for a slot and any repeats included.
    pub duration: Duration,
}

impl HttpResponse {
    /// The body as text, invalid UTF-8 replaced.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_slice(&self.body)
    }
}

/// Why a request got no 2xx answer.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// No answer came within the request's time limit.
    #[error("`{request}` got no answer within {} ms", timeout.as_millis())]
    Timeout {
        /// The request as `METHOD URL`.
        request: String,
        /// The limit it outran.
        timeout: Duration,
    },
    /// No connection could be made (`connected: false`: nothing was sent), or it broke
    /// before an answer came (the server may have acted on the request).
    #[error("`{request}`: {why}")]
    Unreachable {
        /// The request as `METHOD URL`.
        request: String,
        /// The transport's error, as text.
        why: String,
        /// Whether a connection was made before it failed.
        connected: bool,
    },
    /// The server answered with a status outside 2xx.
    #[error("`{request}` answered {status}")]
    Status {
        /// The request as `METHOD URL`.
        request: String,
        /// The HTTP status code.
        status: u16,
        /// The answer's body, as text (invalid UTF-8 replaced).
        body: String,
    },
    /// Too much outside work is in flight and none finished in time to make room.
    #[error("`{request}` could not start: {why}")]
    Busy {
        /// The request as `METHOD URL`.
        request: String,
        /// What was short: a slot among the outside work in flight.
        why: String,
    },
    /// The request cannot be sent as built (a malformed URL, an answer too large): a bug of
    /// the caller or a misbehaving server, never worth repeating.
    #[error("`{request}`: {why}")]
    Invalid {
        /// The request as `METHOD URL`.
        request: String,
        /// What is wrong with it.
        why: String,
    },
}

impl HttpRequest {
    /// A request with no body and the [`DEFAULT_HTTP_TIMEOUT`].
    pub fn new(method: Method, url: impl Into<String>) -> Self {
        HttpRequest {
            method,
            url: url.into(),
            body: None,
            json_body: false,
            headers: Vec::new(),
            timeout: DEFAULT_HTTP_TIMEOUT,
            retry_safe: false,
            any_status: false,
        }
    }

    /// A `GET` request.
    pub fn get(url: impl Into<String>) -> Self {
        Self::new(Method::GET, url)
    }

    /// A `POST` request (repeated after a broken connection only when [`Self::retry_safe`]).
    pub fn post(url: impl Into<String>) -> Self {
        Self::new(Method::POST, url)
    }

    /// A `DELETE` request.
    pub fn delete(url: impl Into<String>) -> Self {
        Self::new(Method::DELETE, url)
    }

    /// Sends `value` as the JSON body.
    pub fn json(mut self, value: &serde_json::Value) -> Self {
        self.body = Some(value.to_string().into_bytes());
        self.json_body = true;
        self
    }

    /// Sends `bytes` as the body, with only the content type its headers give.
    pub fn body(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.body = Some(bytes.into());
        self.json_body = false;
        self
    }

    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Any status is an answer (a script reads 404 as a response), not [`HttpError::Status`].
    pub fn any_status(mut self) -> Self {
        self.any_status = true;
        self
    }

    /// Sets the time limit for an answer.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Lowers the timeout to `max` when it is longer.
    pub fn cap_timeout(mut self, max: Option<Duration>) -> Self {
        if let Some(max) = max {
            self.timeout = self.timeout.min(max);
        }
        self
    }

    /// Marks a request of a non-idempotent method as safe to repeat (a read done by POST).
    pub fn retry_safe(mut self) -> Self {
        self.retry_safe = true;
        self
    }

    /// `METHOD URL`, for logs and messages.
    pub fn display(&self) -> String {
        format!("{} {}", self.method, self.url)
    }

    fn repeatable(&self) -> bool {
        self.retry_safe || self.method.is_idempotent()
    }
}

/// A client with its connection pool; clones share it. Proxies configured in the environment
/// are not used: the devices are local or on the local network.
#[derive(Debug, Clone)]
pub struct HttpClient {
    client: reqwest::Client,
}

impl Default for HttpClient {
    fn default() -> Self {
        Self::new()
    }
}

impl HttpClient {
    /// A client with its own connection pool (idle connections closed after 30 s).
    pub fn new() -> Self {
        let client = reqwest::Client::builder()
            .no_proxy()
            .pool_idle_timeout(Duration::from_secs(30))
            .build()
            .unwrap_or_default();
        HttpClient { client }
    }

    /// Sends the request: a 2xx answer, or why not.
    pub async fn send(&self, req: &HttpRequest) -> Result<HttpResponse, HttpError> {
        let span = tracing::debug_span!(
            "http",
            method = %req.method,
            url = %req.url,
            status = tracing::field::Empty,
            attempts = tracing::field::Empty,
            duration_ms = tracing::field::Empty
        );
        self.send_inner(req).instrument(span).await
    }

    async fn send_inner(&self, req: &HttpRequest) -> Result<HttpResponse, HttpError> {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + req.timeout;
        let url = Url::parse(&req.url).map_err(|e| HttpError::Invalid {
            request: req.display(),
            why: format!("not a URL: {e}"),
        })?;
        let timed_out = || HttpError::Timeout {
            request: req.display(),
            timeout: req.timeout,
        };
        let Some(_slot) = acquire_slot(req.timeout).await else {
            return Err(HttpError::Busy {
                request: req.display(),
                why: format!("{MAX_RUNNING} device commands and requests were in flight for its whole time limit"),
            });
        };
        let attempts = 1 + RETRIES;
        let mut attempt = 0;
        let result = loop {
            attempt += 1;
            let once = tokio::time::timeout_at(deadline, self.attempt(req, url.clone())).await;
            match once {
                Err(_) => break Err(timed_out()),
                Ok(Err(HttpError::Unreachable { why, connected, .. }))
                    if attempt < attempts && (req.repeatable() || !connected) =>
                {
                    tracing::debug!(attempt, %why, "connection failed; repeating");
                    let pause = BACKOFF * attempt;
                    if tokio::time::Instant::now() + pause >= deadline {
                        break Err(timed_out());
                    }
                    tokio::time::sleep(pause).await;
                }
                Ok(other) => break other,
            }
        };
        let elapsed = started.elapsed();
        timing::record("device", elapsed);
        let span = tracing::Span::current();
        span.record("duration_ms", elapsed.as_millis() as u64);
        span.record("attempts", attempt);
        match &result {
            Ok(r) => span.record("status", r.status),
            Err(HttpError::Status { status, .. }) => span.record("status", *status),
            Err(HttpError::Timeout { .. }) => span.record("status", "timeout"),
            Err(_) => span.record("status", "unreachable"),
        };
        match &result {
            Err(HttpError::Timeout { .. }) => {
                tracing::warn!(request = %req.display(), "request timed out after {:?}", req.timeout)
            }
            _ => tracing::debug!(ms = elapsed.as_millis() as u64, "http done"),
        }
        result.map(|mut r| {
            r.duration = elapsed;
            r
        })
    }

    /// One attempt: send, then read the whole answer.
    async fn attempt(&self, req: &HttpRequest, url: Url) -> Result<HttpResponse, HttpError> {
        let request = req.display();
        let mut builder = self.client.request(req.method.clone(), url);
        for (name, value) in &req.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        if let Some(body) = &req.body {
            if req.json_body {
                builder = builder.header(reqwest::header::CONTENT_TYPE, "application/json");
            }
            builder = builder.body(body.clone());
        }
        let mut resp = builder.send().await.map_err(|e| transport(&request, &e))?;
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| transport(&request, &e))? {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(HttpError::Invalid {
                    request,
                    why: format!("the answer is larger than {} MiB", MAX_BODY >> 20),
                });
            }
            body.extend_from_slice(&chunk);
        }
        if !req.any_status && !(200..300).contains(&status) {
            return Err(HttpError::Status {
                request,
                status,
                body: String::from_utf8_lossy(&body).into_owned(),
            });
        }
        Ok(HttpResponse {
            status,
            headers,
            body,
            duration: Duration::ZERO,
        })
    }
}

/// A failure of the connection (before or while the answer came).
fn transport(request: &str, e: &reqwest::Error) -> HttpError {
    use std::error::Error as _;
    let mut why = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        why = format!("{why}: {s}");
        source = s.source();
    }
    if e.is_builder() {
        return HttpError::Invalid {
            request: request.to_string(),
            why,
        };
    }
    let connected = !e.is_connect();
    let why = if connected {
        format!("the connection broke before an answer ({why})")
    } else {
        format!("cannot connect ({why})")
    };
    HttpError::Unreachable {
        request: request.to_string(),
        why,
        connected,
    }
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
