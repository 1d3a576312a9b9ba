//! The HTTP client the CLI and the MCP stdio bridge share: base URL and token, the `/health`
//! protocol check, autostart of a local server ([`autostart`]), requests, Server-Sent Events
//! ([`sse`]), and the one mapping from failures to exit codes ([`error`]).

pub mod answer;
pub mod autostart;
pub mod error;
pub mod grid;
pub mod sse;

use std::time::{Duration, Instant};

use reqwest::{Method, Url};
use serde_json::Value;

pub use answer::ApiAnswer;
pub use error::{exit, exit_for_code, says_session_gone, server_error, ClientError};
use error::{unreachable, unusable};
use sse::SseSplitter;

/// How to reach the server.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// The server's base URL (`--url`, `MOBILECTL_URL`).
    pub url: String,
    /// The bearer token sent on every request; None or empty sends none.
    pub token: Option<String>,
    /// Whether to start a local server when none answers on a loopback URL (off with
    /// `--no-autostart`).
    pub autostart: bool,
    /// The session every request runs in (`--session`, `MOBILECTL_SESSION`).
    pub session: Option<String>,
}

/// A successful answer: the body as sent and, when JSON, parsed.
#[derive(Debug)]
pub struct Reply {
    /// The body as sent, decoded as UTF-8 (lossily).
    pub raw: String,
    /// The body parsed as JSON; `Value::Null` when it is not JSON.
    pub value: Value,
    /// The server's time for the request (`Server-Timing: total;dur=…`), in milliseconds.
    pub timing_ms: Option<f64>,
}

/// A connected client: the server answered `/health` with our protocol version.
pub struct Client {
    base: Url,
    token: Option<String>,
    /// Sent as `Mobilectl-Session` on every request, unless a request names its own.
    session: Option<String>,
    http: reqwest::Client,
}

impl Client {
    /// Checks the server, starting one when allowed and none answers on a loopback URL.
    pub async fn connect(opts: &ConnectOptions) -> Result<Client, ClientError> {
        let base = Url::parse(&opts.url).map_err(|e| {
            ClientError::usage(format!(
                "MOBILECTL_URL/--url `{}` is not a URL: {e}",
                opts.url
            ))
        })?;
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| ClientError::local(exit::FAILED, "CLIENT", e.to_string(), None))?;
        let client = Client {
            base,
            token: opts.token.clone().filter(|t| !t.is_empty()),
            session: opts.session.clone().filter(|s| !s.is_empty()),
            http,
        };
        match client.health().await {
            Ok(h) => return client.check_protocol(h),
            Err(HealthError::NotMobilectl(msg)) => return Err(unusable(&opts.url, msg)),
            Err(HealthError::Unreachable(_)) => {}
        }
        let Some(addr) = autostart::loopback_addr(&client.base) else {
            return Err(unreachable(
                &opts.url,
                "not a loopback URL, so none was started",
            ));
        };
        if !opts.autostart {
            return Err(unreachable(&opts.url, "--no-autostart is set"));
        }
        let _lock = autostart::lock(&addr)
            .await
            .map_err(|e| unreachable(&opts.url, &format!("cannot start a server: {e}")))?;
        // Another client may have started it while this one waited for the lock.
        if let Ok(h) = client.health().await {
            return client.check_protocol(h);
        }
        let started = autostart::spawn_server(&addr)
            .map_err(|e| unreachable(&opts.url, &format!("starting a server failed: {e}")))?;
        let deadline = Instant::now() + autostart::STARTUP_DEADLINE;
        loop {
            match client.health().await {
                Ok(h) => {
                    started.confirm();
                    return client.check_protocol(h);
                }
                Err(HealthError::NotMobilectl(msg)) => return Err(unusable(&opts.url, msg)),
                Err(HealthError::Unreachable(e)) if Instant::now() >= deadline => {
                    return Err(unreachable(
                        &opts.url,
                        &format!(
                            "a server was started but did not answer /health in time ({e}); \
                             see {}",
                            started.log.display()
                        ),
                    ));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    fn check_protocol(self, h: Value) -> Result<Client, ClientError> {
        let theirs = h["api_protocol_version"].as_u64();
        if theirs != Some(u64::from(crate::API_PROTOCOL_VERSION)) {
            let version = h["version"].as_str().unwrap_or("?");
            return Err(ClientError::local(
                exit::UNREACHABLE,
                "PROTOCOL_MISMATCH",
                format!(
                    "the server at {} (mobilectl {version}) speaks API protocol {}, this client \
                     speaks {}",
                    self.base,
                    theirs.map_or("?".to_string(), |v| v.to_string()),
                    crate::API_PROTOCOL_VERSION
                ),
                Some("restart the server with this mobilectl, or point --url elsewhere".into()),
            ));
        }
        Ok(self)
    }

    async fn health(&self) -> Result<Value, HealthError> {
        let url = self.url("/health");
        let resp = self
            .http
            .get(url)
            .timeout(Duration::from_secs(3))
            .send()
            .await
            .map_err(|e| HealthError::Unreachable(e.to_string()))?;
        let status = resp.status();
        let body: Value = resp.json().await.map_err(|_| {
            HealthError::NotMobilectl(format!("/health answered {status} without JSON"))
        })?;
        if !status.is_success() || body.get("api_protocol_version").is_none() {
            return Err(HealthError::NotMobilectl(format!(
                "/health answered {status}: {body}"
            )));
        }
        Ok(body)
    }

    fn url(&self, path: &str) -> Url {
        let mut u = self.base.clone();
        let prefix = u.path().trim_end_matches('/').to_string();
        u.set_path(&format!("{prefix}{path}"));
        u
    }

    /// GET with query parameters; JSON or text answer.
    pub async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<Reply, ClientError> {
        let req = self.http.get(self.url(path)).query(query);
        Ok(reply(self.send(req).await?))
    }

    /// GET answering bytes (screenshots); also returns the content type.
    pub async fn get_bytes(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<(Vec<u8>, String), ClientError> {
        let req = self.http.get(self.url(path)).query(query);
        let sent = self.send(req).await?;
        Ok((sent.bytes, sent.content_type))
    }

    /// A JSON request with a body (POST, PUT).
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: &Value,
    ) -> Result<Reply, ClientError> {
        let req = json_body(self.http.request(method, self.url(path)), body);
        Ok(reply(self.send(req).await?))
    }

    /// Any request, answered as it comes — status, headers and body, errors included — for
    /// callers that read answers themselves (the MCP server). Only a failure to get an answer
    /// at all is an error.
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        query: &[(String, String)],
        body: Option<&Value>,
        session: Option<&str>,
        timeout: Duration,
    ) -> Result<reqwest::Response, ClientError> {
        let req = self
            .http
            .request(method, self.url(path))
            .query(query)
            .timeout(timeout);
        self.send_built(req, body, session).await
    }

    /// Sends `req` with `body` as JSON, authorized in `session`; only a failure to get an
    /// answer at all is an error.
    async fn send_built(
        &self,
        mut req: reqwest::RequestBuilder,
        body: Option<&Value>,
        session: Option<&str>,
    ) -> Result<reqwest::Response, ClientError> {
        if let Some(b) = body {
            req = json_body(req, b);
        }
        req = self.authorized(req, session);
        req.send().await.map_err(|e| {
            ClientError::local(
                exit::UNREACHABLE,
                "SERVER_UNREACHABLE",
                format!("the server at {} did not answer: {e}", self.base),
                None,
            )
        })
    }

    /// A Server-Sent Events stream (a GET, or a POST of `body`): `on_event` gets each event's
    /// `data` (lines joined) as it arrives, until the server ends the stream. Comment lines
    /// (heartbeats) are skipped.
    pub async fn stream(
        &self,
        path: &str,
        query: &[(&str, String)],
        body: Option<&serde_json::Value>,
        mut on_event: impl FnMut(&str),
    ) -> Result<(), ClientError> {
        let req = match body {
            Some(b) => json_body(self.http.post(self.url(path)), b),
            None => self.http.get(self.url(path)),
        };
        let mut req = req
            .query(query)
            .header(reqwest::header::ACCEPT, "text/event-stream");
        req = self.authorized(req, None);
        let cut = |e: reqwest::Error| {
            ClientError::local(
                exit::UNREACHABLE,
                "SERVER_UNREACHABLE",
                format!("the stream from {} broke: {e}", self.base),
                None,
            )
        };
        let mut resp = req.send().await.map_err(cut)?;
        if !resp.status().is_success() {
            let status = resp.status();
            let bytes = resp.bytes().await.map_err(cut)?;
            return Err(server_error(status, &bytes));
        }
        let mut events = SseSplitter::default();
        while let Some(chunk) = resp.chunk().await.map_err(cut)? {
            for data in events.push(&chunk) {
                on_event(&data);
            }
        }
        Ok(())
    }

    /// `req` with the token and the session (`session`, else the client's).
    fn authorized(
        &self,
        mut req: reqwest::RequestBuilder,
        session: Option<&str>,
    ) -> reqwest::RequestBuilder {
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        if let Some(s) = session.or(self.session.as_deref()) {
            req = req.header(crate::api::wire::sessions::SESSION_HEADER, s);
        }
        req
    }

    async fn send(&self, req: reqwest::RequestBuilder) -> Result<Sent, ClientError> {
        let req = self.authorized(req, None);
        let resp = req.send().await.map_err(|e| {
            ClientError::local(
                exit::UNREACHABLE,
                "SERVER_UNREACHABLE",
                format!("the server at {} stopped answering: {e}", self.base),
                None,
            )
        })?;
        let status = resp.status();
        let ctype = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let timing_ms = resp
            .headers()
            .get("server-timing")
            .and_then(|v| v.to_str().ok())
            .and_then(total_ms);
        let bytes = resp.bytes().await.map_err(|e| {
            ClientError::local(exit::UNREACHABLE, "SERVER_UNREACHABLE", e.to_string(), None)
        })?;
        if status.is_success() {
            return Ok(Sent {
                bytes: bytes.to_vec(),
                content_type: ctype,
                timing_ms,
            });
        }
        Err(server_error(status, &bytes))
    }
}

enum HealthError {
    Unreachable(String),
    NotMobilectl(String),
}

/// A successful answer as received.
struct Sent {
    bytes: Vec<u8>,
    content_type: String,
    timing_ms: Option<f64>,
}

fn reply(sent: Sent) -> Reply {
    let raw = String::from_utf8_lossy(&sent.bytes).into_owned();
    let value = serde_json::from_str(&raw).unwrap_or(Value::Null);
    Reply {
        raw,
        value,
        timing_ms: sent.timing_ms,
    }
}

/// The `total` of a `Server-Timing` header (`device;dur=3.1, total;dur=12.5` → 12.5).
fn total_ms(header: &str) -> Option<f64> {
    header.split(',').find_map(|metric| {
        let mut parts = metric.trim().split(';');
        (parts.next()? == "total")
            .then(|| parts.find_map(|p| p.trim().strip_prefix("dur=")?.parse().ok()))
            .flatten()
    })
}

/// `req` with `body` as JSON, declared UTF-8 (`application/json; charset=utf-8`): Selenium
/// Grid's router refuses a JSON body whose content type does not say so, and the server takes
/// both.
fn json_body(req: reqwest::RequestBuilder, body: &Value) -> reqwest::RequestBuilder {
    req.header(
        reqwest::header::CONTENT_TYPE,
        "application/json; charset=utf-8",
    )
    .body(body.to_string())
}

#[cfg(test)]
mod tests {
    use super::total_ms;

    #[test]
    fn the_total_of_server_timing() {
        assert_eq!(
            total_ms("device;dur=3.1, parse;dur=0.4, total;dur=12.5"),
            Some(12.5)
        );
        assert_eq!(total_ms("total;dur=7"), Some(7.0));
        assert_eq!(total_ms("device;dur=3"), None);
    }
}
