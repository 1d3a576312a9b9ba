//! The CLI's HTTP client: base URL and token, the `/health` protocol check, autostart of a
//! local server, and the one mapping from failures to exit codes ([`exit_for_code`]).

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode, Url};
use serde_json::{json, Value};

use super::autostart;

/// Exit codes of the client commands (seed 000 §4).
pub mod exit {
    pub const OK: i32 = 0;
    /// The command ran but did not succeed (action failed, expect false, wait timed out…).
    pub const FAILED: i32 = 1;
    /// Usage error, including the server's validation errors.
    pub const USAGE: i32 = 2;
    /// No usable server: unreachable, not mobilectl, or another protocol version.
    pub const UNREACHABLE: i32 = 3;
    /// A device tool the server needs is missing (`TOOL_MISSING`).
    pub const TOOL_MISSING: i32 = 127;
}

/// The exit code for a server error code. The one place that decides.
pub fn exit_for_code(code: &str) -> i32 {
    match code {
        "BAD_REQUEST"
        | "VALIDATION_FAILED"
        | "UNSUPPORTED_MEDIA_TYPE"
        | "ROUTE_NOT_FOUND"
        | "METHOD_NOT_ALLOWED"
        | "PAYLOAD_TOO_LARGE"
        | "URI_TOO_LONG"
        | "HEADERS_TOO_LARGE"
        | "UNAUTHORIZED"
        | "FORBIDDEN_HOST" => exit::USAGE,
        "TOOL_MISSING" => exit::TOOL_MISSING,
        _ => exit::FAILED,
    }
}

/// A failure of a client command, ready to print.
#[derive(Debug)]
pub struct CliError {
    pub exit: i32,
    /// Error code: the server's, or a client-side one (`SERVER_UNREACHABLE`, `USAGE`…).
    pub code: String,
    pub message: String,
    pub hint: Option<String>,
    /// The server's error body, printed unchanged with `--json`.
    pub raw: Option<String>,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> Self {
        Self::local(exit::USAGE, "USAGE", message, None)
    }

    pub fn local(exit: i32, code: &str, message: impl Into<String>, hint: Option<String>) -> Self {
        CliError {
            exit,
            code: code.into(),
            message: message.into(),
            hint,
            raw: None,
        }
    }

    /// The JSON printed on stdout with `--json`: the server's envelope, or one in its shape.
    pub fn json(&self) -> String {
        match &self.raw {
            Some(raw) => raw.clone(),
            None => json!({"error": {"code": self.code, "message": self.message,
                "retryable": false, "hint": self.hint}})
            .to_string(),
        }
    }
}

/// How to reach the server.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    pub url: String,
    pub token: Option<String>,
    pub autostart: bool,
}

/// A successful answer: the body as sent and, when JSON, parsed.
#[derive(Debug)]
pub struct Reply {
    pub raw: String,
    pub value: Value,
    /// The server's time for the request (`Server-Timing: total;dur=…`), in milliseconds.
    pub timing_ms: Option<f64>,
}

/// A connected client: the server answered `/health` with our protocol version.
pub struct Client {
    base: Url,
    token: Option<String>,
    http: reqwest::Client,
}

impl Client {
    /// Checks the server, starting one when allowed and none answers on a loopback URL.
    pub async fn connect(opts: &ConnectOptions) -> Result<Client, CliError> {
        let base = Url::parse(&opts.url).map_err(|e| {
            CliError::usage(format!(
                "MOBILECTL_URL/--url `{}` is not a URL: {e}",
                opts.url
            ))
        })?;
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| CliError::local(exit::FAILED, "CLIENT", e.to_string(), None))?;
        let client = Client {
            base,
            token: opts.token.clone().filter(|t| !t.is_empty()),
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

    fn check_protocol(self, h: Value) -> Result<Client, CliError> {
        let theirs = h["api_protocol_version"].as_u64();
        if theirs != Some(u64::from(crate::API_PROTOCOL_VERSION)) {
            let version = h["version"].as_str().unwrap_or("?");
            return Err(CliError::local(
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
    pub async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<Reply, CliError> {
        let req = self.http.get(self.url(path)).query(query);
        Ok(reply(self.send(req).await?))
    }

    /// GET answering bytes (screenshots); also returns the content type.
    pub async fn get_bytes(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<(Vec<u8>, String), CliError> {
        let req = self.http.get(self.url(path)).query(query);
        let sent = self.send(req).await?;
        Ok((sent.bytes, sent.content_type))
    }

    /// A JSON request with a body (POST, PUT).
    pub async fn call(&self, method: Method, path: &str, body: &Value) -> Result<Reply, CliError> {
        let req = self.http.request(method, self.url(path)).json(body);
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
        timeout: Duration,
    ) -> Result<reqwest::Response, CliError> {
        let mut req = self
            .http
            .request(method, self.url(path))
            .query(query)
            .timeout(timeout);
        if let Some(b) = body {
            req = req.json(b);
        }
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        req.send().await.map_err(|e| {
            CliError::local(
                exit::UNREACHABLE,
                "SERVER_UNREACHABLE",
                format!("the server at {} did not answer: {e}", self.base),
                None,
            )
        })
    }

    /// A Server-Sent Events stream: `on_event` gets each event's `data` (lines joined) as it
    /// arrives, until the server ends the stream. Comment lines (heartbeats) are skipped.
    pub async fn stream(
        &self,
        path: &str,
        query: &[(&str, String)],
        mut on_event: impl FnMut(&str),
    ) -> Result<(), CliError> {
        let mut req = self
            .http
            .get(self.url(path))
            .query(query)
            .header(reqwest::header::ACCEPT, "text/event-stream");
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        let cut = |e: reqwest::Error| {
            CliError::local(
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

    async fn send(&self, mut req: reqwest::RequestBuilder) -> Result<Sent, CliError> {
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        let resp = req.send().await.map_err(|e| {
            CliError::local(
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
            CliError::local(exit::UNREACHABLE, "SERVER_UNREACHABLE", e.to_string(), None)
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

/// Splits a Server-Sent Events byte stream into the `data` of its events.
#[derive(Default)]
struct SseSplitter {
    pending: Vec<u8>,
}

impl SseSplitter {
    /// Takes the next bytes; returns the data of every event they completed. Works on bytes,
    /// so a character split across chunks is decoded whole.
    fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        // Lines may end with CRLF; JSON data never holds a raw CR.
        self.pending.extend(bytes.iter().filter(|b| **b != b'\r'));
        let mut out = Vec::new();
        while let Some(end) = self.pending.windows(2).position(|w| w == b"\n\n") {
            let block: Vec<u8> = self.pending.drain(..end + 2).collect();
            let block = String::from_utf8_lossy(&block[..end]);
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            if !data.is_empty() {
                out.push(data.join("\n"));
            }
        }
        out
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

fn unreachable(url: &str, why: &str) -> CliError {
    CliError::local(
        exit::UNREACHABLE,
        "SERVER_UNREACHABLE",
        format!("no mobilectl server answers at {url} ({why})"),
        Some("start one with `mobilectl serve`, or set MOBILECTL_URL / --url".into()),
    )
}

fn unusable(url: &str, why: String) -> CliError {
    CliError::local(
        exit::UNREACHABLE,
        "NOT_MOBILECTL",
        format!("what answers at {url} is not a mobilectl server: {why}"),
        None,
    )
}

/// Turns a non-2xx answer into an error, reading the envelope when there is one.
pub fn server_error(status: StatusCode, body: &[u8]) -> CliError {
    let raw = String::from_utf8_lossy(body).into_owned();
    let v: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
    let e = &v["error"];
    let Some(code) = e["code"].as_str() else {
        let exit = if status.is_client_error() {
            exit::USAGE
        } else {
            exit::FAILED
        };
        return CliError {
            exit,
            code: format!("HTTP_{}", status.as_u16()),
            message: format!("the server answered {status}: {}", raw.trim()),
            hint: None,
            raw: None,
        };
    };
    CliError {
        exit: exit_for_code(code),
        code: code.to_string(),
        message: e["message"].as_str().unwrap_or("").to_string(),
        hint: e["hint"].as_str().map(str::to_string),
        raw: Some(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_by_error_code() {
        for (code, want) in [
            ("BAD_REQUEST", 2),
            ("VALIDATION_FAILED", 2),
            ("UNSUPPORTED_MEDIA_TYPE", 2),
            ("TOOL_MISSING", 127),
            ("ELEMENT_NOT_FOUND", 1),
            ("AMBIGUOUS_TARGET", 1),
            ("STALE_REFERENCE", 1),
            ("TIMEOUT", 1),
            ("NO_DEVICE", 1),
            ("COMMAND_FAILED", 1),
        ] {
            assert_eq!(exit_for_code(code), want, "{code}");
        }
        // Every code the server knows has a deliberate mapping.
        for c in crate::error::ErrorCode::ALL {
            assert!([1, 2, 127].contains(&exit_for_code(c.as_str())));
        }
    }

    #[test]
    fn envelopes_and_bare_statuses() {
        let body =
            br#"{"error":{"code":"ELEMENT_NOT_FOUND","message":"no match","hint":"refresh"}}"#;
        let e = server_error(StatusCode::NOT_FOUND, body);
        assert_eq!((e.exit, e.code.as_str()), (1, "ELEMENT_NOT_FOUND"));
        assert_eq!(e.hint.as_deref(), Some("refresh"));
        assert_eq!(e.json(), String::from_utf8_lossy(body));
        assert_eq!(server_error(StatusCode::BAD_REQUEST, b"nope").exit, 2);
        assert_eq!(server_error(StatusCode::BAD_GATEWAY, b"").exit, 1);
    }
}

#[cfg(test)]
mod sse_tests {
    use super::{total_ms, SseSplitter};

    #[test]
    fn the_total_of_server_timing() {
        assert_eq!(
            total_ms("device;dur=3.1, parse;dur=0.4, total;dur=12.5"),
            Some(12.5)
        );
        assert_eq!(total_ms("total;dur=7"), Some(7.0));
        assert_eq!(total_ms("device;dur=3"), None);
    }

    #[test]
    fn events_are_split_across_chunks_and_comments_skipped() {
        let mut s = SseSplitter::default();
        assert!(s.push(b": heartbeat\n\nid: 1\ndata: {\"a\"").is_empty());
        assert_eq!(
            s.push(b":1}\n\nid: 2\r\ndata: x\r\ndata: y\r\n\r\n"),
            [r#"{"a":1}"#, "x\ny"]
        );
        assert!(s.push(b"event: dropped\n").is_empty());
        assert_eq!(s.push(b"data:{}\n\n"), ["{}"]);
        // A character split across chunks arrives whole.
        let e = "data: é\n\n".as_bytes();
        assert!(s.push(&e[..7]).is_empty());
        assert_eq!(s.push(&e[7..]), ["é"]);
    }
}
