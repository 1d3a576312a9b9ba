//! One recorded exchange ([`Flow`]) and how it is shown: a one-line [`FlowLine`] for lists and
//! streams, the whole [`FlowDetail`] with headers and decoded bodies. Secrets are redacted in
//! every view unless the caller may and does ask otherwise ([`Reveal`]; one-line views always
//! redact): the headers `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`,
//! `X-Api-Key`, `X-Auth-Token`, `Api-Key`, and every header or URL query parameter whose name
//! contains `token`, `secret`, `password`, `key`, `signature` or `session` (any case).

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use super::decode;

/// A header as recorded: name (lowercase) and value.
pub type Header = (String, String);

/// A body as it went through: its first bytes (up to the cap) and its true size.
#[derive(Debug, Clone, Default)]
pub struct Captured {
    /// The bytes kept: the first ones, at most the proxy's body cap.
    pub bytes: Vec<u8>,
    /// Bytes that went through, stored or not.
    pub size: u64,
}

impl Captured {
    /// More went through than was kept.
    pub fn truncated(&self) -> bool {
        (self.bytes.len() as u64) < self.size
    }
}

/// One side of an exchange.
#[derive(Debug, Clone, Default)]
pub struct Message {
    /// The headers in the order sent, names lowercase.
    pub headers: Vec<Header>,
    /// The body as it went through (still encoded).
    pub body: Captured,
}

impl Message {
    /// The value of the first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Why an exchange failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The upstream refused the connection.
    Refused,
    /// The upstream's name could not be resolved.
    Dns,
    /// No answer (or no more bytes) within the proxy's upstream timeout.
    Timeout,
    /// A TLS handshake failed: the upstream's certificate, or the app refusing the proxy's.
    Tls,
    /// The connection broke.
    Connection,
    /// The app went away before the answer ended.
    Aborted,
    /// The proxy refused to forward: a destination on this host whose port was not allowed
    /// (`--proxy-allow-local`), the mobilectl API, the adb server, the proxy itself, or a
    /// `CONNECT` tunnel that did not speak TLS (to a host not passed through).
    Blocked,
}

/// A failure with the words of what failed.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
}

/// Where the time of an exchange went, in milliseconds from its start.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct Timing {
    /// Connecting (name lookup and TCP); absent on a reused connection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connect_ms: Option<f64>,
    /// The upstream TLS handshake; absent on plain HTTP or a reused connection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_ms: Option<f64>,
    /// Until the answer's headers arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_byte_ms: Option<f64>,
    pub total_ms: f64,
}

/// Bytes through a tunnel (hosts not intercepted).
#[derive(Debug, Clone, Copy, Default, Serialize, ToSchema)]
pub struct Tunnel {
    /// From the app to the host.
    pub bytes_sent: u64,
    /// From the host to the app.
    pub bytes_received: u64,
}

/// A recorded exchange.
#[derive(Debug, Clone)]
pub struct Flow {
    /// The store's id: one more than the exchange stored before it (0 until stored).
    pub id: u64,
    /// When the app's request reached the proxy.
    pub started_at: DateTime<Utc>,
    /// The HTTP method as sent (`CONNECT` for a tunnel).
    pub method: String,
    /// Absolute URL; `host:port` for a tunnel.
    pub url: String,
    /// The destination host, without port.
    pub host: String,
    /// The app's request.
    pub request: Message,
    /// The answer's HTTP status; `None` when there was no answer.
    pub status: Option<u16>,
    /// The answer; `None` when there was none.
    pub response: Option<Message>,
    /// Where its time went.
    pub timing: Timing,
    /// Why it failed; `None` when an answer came (whatever its status).
    pub error: Option<Failure>,
    /// Bytes through, for a tunnel (a passthrough host); `None` otherwise.
    pub tunnel: Option<Tunnel>,
    /// The rule that acted on it (see [`super::rules`]).
    pub rule_id: Option<u64>,
    /// A rule or the link's conditions changed what the app got: a mocked or failed answer,
    /// a delay, a throttle, a rewrite.
    pub mocked: bool,
}

impl Flow {
    /// Failed: no answer, or an HTTP error status (4xx, 5xx).
    pub fn failed(&self) -> bool {
        self.error.is_some() || self.status.is_some_and(|s| s >= 400)
    }

    /// What the store counts for it: bodies, headers, URL and a fixed overhead.
    pub fn footprint(&self) -> usize {
        let msg = |m: &Message| {
            m.body.bytes.len()
                + m.headers
                    .iter()
                    .map(|(n, v)| n.len() + v.len() + 48)
                    .sum::<usize>()
        };
        512 + self.url.len()
            + self.host.len()
            + msg(&self.request)
            + self.response.as_ref().map_or(0, msg)
            + self.error.as_ref().map_or(0, |e| e.message.len())
    }

    /// The exchange in one line, secrets redacted.
    pub fn line(&self) -> FlowLine {
        FlowLine {
            id: self.id,
            started_at: rfc3339(self.started_at),
            method: self.method.clone(),
            url: redact_url(&self.url),
            status: self.status,
            error: self.error.as_ref().map(|e| e.kind),
            blocked: self
                .error
                .as_ref()
                .filter(|e| e.kind == FailureKind::Blocked)
                .map(|e| e.message.clone()),
            total_ms: self.timing.total_ms,
            size: self.response.as_ref().map(|r| r.body.size),
            rule_id: self.rule_id,
            mocked: self.mocked,
        }
    }

    /// The whole exchange with headers and decoded bodies, secrets shown as `reveal` says.
    pub fn detail(&self, reveal: Reveal) -> FlowDetail {
        FlowDetail {
            id: self.id,
            started_at: rfc3339(self.started_at),
            method: self.method.clone(),
            url: match reveal {
                Reveal::Redacted => redact_url(&self.url),
                Reveal::Shown => self.url.clone(),
            },
            host: self.host.clone(),
            status: self.status,
            request: view(&self.request, reveal),
            response: self.response.as_ref().map(|m| view(m, reveal)),
            timing: self.timing.clone(),
            error: self.error.clone(),
            tunnel: self.tunnel,
            rule_id: self.rule_id,
            mocked: self.mocked,
        }
    }
}

/// A time as the API writes it: RFC 3339 in UTC, with milliseconds (`2026-01-31T10:00:00.123Z`).
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Milliseconds with two decimals.
pub fn ms(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 100_000.0).round() / 100.0
}

/// An exchange in one line (lists, streams, summaries).
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FlowLine {
    pub id: u64,
    pub started_at: String,
    pub method: String,
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<FailureKind>,
    /// Why the proxy refused it (with `error: blocked`): a destination on this host not
    /// allowed, the API, the adb server or the proxy itself, or a tunnel that was not TLS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
    pub total_ms: f64,
    /// Response body bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The proxy rule that acted on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<u64>,
    /// A rule or the link's conditions changed what the app got.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub mocked: bool,
}

/// An exchange with its headers and bodies.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FlowDetail {
    pub id: u64,
    pub started_at: String,
    pub method: String,
    pub url: String,
    pub host: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    pub request: MessageView,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<MessageView>,
    pub timing: Timing,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Failure>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tunnel: Option<Tunnel>,
    /// The proxy rule that acted on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<u64>,
    /// A rule or the link's conditions changed what the app got.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub mocked: bool,
}

/// Headers (`[name, value]` pairs, in order) and body of one side.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MessageView {
    pub headers: Vec<[String; 2]>,
    pub body: BodyView,
}

/// A body: sizes, and its decoded text when it is text.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BodyView {
    /// Bytes that went through (as sent, encoded).
    pub size: u64,
    /// Bytes kept (at most the cap).
    pub stored: u64,
    /// More went through than was kept.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// The decoded body, when it is text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Why there is no text, or why it is partial.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Whether secrets are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reveal {
    /// Secret header values and query parameters are replaced by a marker.
    Redacted,
    /// Everything as recorded.
    Shown,
}

/// Headers whose values are secrets (besides names with a [`SECRET_WORDS`] word).
pub const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
    "x-auth-token",
    "api-key",
];

/// A header or query parameter whose name contains one of these (any case) is a secret.
pub const SECRET_WORDS: &[&str] = &["token", "secret", "password", "key", "signature", "session"];

/// Whether a header's value is a secret.
pub fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    SECRET_HEADERS.contains(&n.as_str()) || SECRET_WORDS.iter().any(|w| n.contains(w))
}

/// `url` with the values of secret query parameters replaced (names stay).
pub fn redact_url(url: &str) -> String {
    let Some((base, rest)) = url.split_once('?') else {
        return url.to_string();
    };
    let (query, fragment) = match rest.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (rest, None),
    };
    let query = query
        .split('&')
        .map(|pair| {
            let name = pair.split_once('=').map_or(pair, |(n, _)| n);
            let n = name.to_ascii_lowercase();
            if SECRET_WORDS.iter().any(|w| n.contains(w)) {
                format!("{name}=[redacted]")
            } else {
                pair.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("&");
    match fragment {
        Some(f) => format!("{base}?{query}#{f}"),
        None => format!("{base}?{query}"),
    }
}

/// The value shown for a secret header: its scheme or cookie names stay, values go.
pub fn redact(name: &str, value: &str) -> String {
    const R: &str = "[redacted]";
    match name.to_ascii_lowercase().as_str() {
        "authorization" | "proxy-authorization" => match value.split_once(' ') {
            Some((scheme, _)) if !scheme.is_empty() => format!("{scheme} {R}"),
            _ => R.to_string(),
        },
        "cookie" => value
            .split(';')
            .map(|c| match c.trim().split_once('=') {
                Some((n, _)) => format!("{n}={R}"),
                None => R.to_string(),
            })
            .collect::<Vec<_>>()
            .join("; "),
        "set-cookie" => {
            let mut parts = value.split(';');
            let first = match parts.next().and_then(|c| c.trim().split_once('=')) {
                Some((n, _)) => format!("{n}={R}"),
                None => R.to_string(),
            };
            std::iter::once(first)
                .chain(parts.map(|a| a.trim().to_string()))
                .collect::<Vec<_>>()
                .join("; ")
        }
        _ if is_secret_header(name) => R.to_string(),
        _ => value.to_string(),
    }
}

fn view(m: &Message, reveal: Reveal) -> MessageView {
    let headers = m
        .headers
        .iter()
        .map(|(n, v)| {
            let secret = is_secret_header(n);
            let v = if secret && reveal == Reveal::Redacted {
                redact(n, v)
            } else {
                v.clone()
            };
            [n.clone(), v]
        })
        .collect();
    MessageView {
        headers,
        body: body_view(m),
    }
}

/// The body of `m` decoded for display (see [`decode`]).
pub fn decoded(m: &Message) -> decode::Decoded {
    decode::decode(&m.body.bytes, m.header("content-encoding"))
}

fn body_view(m: &Message) -> BodyView {
    let body = &m.body;
    let mut v = BodyView {
        size: body.size,
        stored: body.bytes.len() as u64,
        truncated: body.truncated(),
        encoding: m
            .header("content-encoding")
            .map(str::to_string)
            .filter(|e| !e.eq_ignore_ascii_case("identity")),
        text: None,
        note: None,
    };
    if body.size == 0 {
        return v;
    }
    let d = decoded(m);
    let mut notes = Vec::new();
    if let Some(p) = &d.problem {
        notes.push(p.clone());
    }
    if decode::is_text(m.header("content-type"), &d.bytes) {
        v.text = Some(String::from_utf8_lossy(&d.bytes).into_owned());
        if body.truncated() {
            notes.push(format!(
                "the first {} of {} bytes",
                body.bytes.len(),
                body.size
            ));
        }
    } else {
        notes.push(format!(
            "binary ({}): ask body=request|response for the bytes",
            m.header("content-type").unwrap_or("no content type")
        ));
    }
    if !notes.is_empty() {
        v.note = Some(notes.join("; "));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_keep_their_shape_and_lose_their_values() {
        assert_eq!(
            redact("Authorization", "Bearer abc.def"),
            "Bearer [redacted]"
        );
        assert_eq!(redact("authorization", "opaque"), "[redacted]");
        assert_eq!(
            redact("cookie", "sid=123; theme=dark"),
            "sid=[redacted]; theme=[redacted]"
        );
        assert_eq!(
            redact("set-cookie", "sid=123; Path=/; HttpOnly"),
            "sid=[redacted]; Path=/; HttpOnly"
        );
        assert_eq!(redact("accept", "*/*"), "*/*");
    }

    #[test]
    fn api_keys_tokens_and_named_secrets_are_redacted_too() {
        for name in [
            "X-Api-Key",
            "x-auth-token",
            "Api-Key",
            "X-CSRF-Token",
            "x-client-secret",
            "X-Password",
            "x-amz-signature",
            "X-Session-Id",
            "X-Goog-Api-KEY",
        ] {
            assert!(is_secret_header(name), "{name}");
            assert_eq!(redact(name, "s3cret"), "[redacted]", "{name}");
        }
        for name in [
            "accept",
            "content-type",
            "user-agent",
            "x-request-id",
            "keep-alive",
        ] {
            assert!(!is_secret_header(name), "{name}");
        }
        assert_eq!(
            redact_url("https://h/p?access_token=s3&q=shoes&Signature=s4&sessionId=s5#top"),
            "https://h/p?access_token=[redacted]&q=shoes&Signature=[redacted]&sessionId=[redacted]#top"
        );
        assert_eq!(
            redact_url("https://h/p?apiKey=s3&flag&password"),
            "https://h/p?apiKey=[redacted]&flag&password=[redacted]"
        );
        assert_eq!(redact_url("https://h/p"), "https://h/p");
    }

    #[test]
    fn urls_and_new_secret_headers_redact_in_every_view_unless_shown() {
        let mut f = flow();
        f.url = "https://api.example.com/items?api_key=s3cret&page=2".into();
        f.request
            .headers
            .push(("x-api-key".into(), "s3cret".into()));
        f.request
            .headers
            .push(("x-auth-token".into(), "s3cret".into()));
        let line = serde_json::to_string(&f.line()).unwrap();
        assert!(!line.contains("s3cret"), "{line}");
        assert!(line.contains("page=2"), "{line}");
        let text = serde_json::to_string(&f.detail(Reveal::Redacted)).unwrap();
        assert!(!text.contains("s3cret"), "{text}");
        let shown = serde_json::to_string(&f.detail(Reveal::Shown)).unwrap();
        assert!(shown.contains("api_key=s3cret"), "{shown}");
        assert!(shown.contains(r#"["x-api-key","s3cret"]"#), "{shown}");
    }

    fn flow() -> Flow {
        Flow {
            id: 7,
            started_at: Utc::now(),
            method: "GET".into(),
            url: "https://api.example.com/items".into(),
            host: "api.example.com".into(),
            request: Message {
                headers: vec![
                    ("authorization".into(), "Bearer s3cret".into()),
                    ("accept".into(), "application/json".into()),
                ],
                body: Captured::default(),
            },
            status: Some(200),
            response: Some(Message {
                headers: vec![
                    ("content-type".into(), "application/json".into()),
                    ("set-cookie".into(), "sid=s3cret; Path=/".into()),
                ],
                body: Captured {
                    bytes: br#"{"a":"#.to_vec(),
                    size: 12,
                },
            }),
            timing: Timing::default(),
            error: None,
            tunnel: None,
            rule_id: None,
            mocked: false,
        }
    }

    #[test]
    fn details_redact_unless_shown() {
        let f = flow();
        let text = serde_json::to_string(&f.detail(Reveal::Redacted)).unwrap();
        assert!(!text.contains("s3cret"), "{text}");
        assert!(text.contains("Bearer [redacted]"), "{text}");
        let shown = serde_json::to_string(&f.detail(Reveal::Shown)).unwrap();
        assert!(shown.contains("Bearer s3cret"));
        let d = f.detail(Reveal::Redacted);
        let body = d.response.unwrap().body;
        assert_eq!((body.size, body.stored, body.truncated), (12, 5, true));
        assert_eq!(body.text.as_deref(), Some(r#"{"a":"#));
        assert!(body.note.unwrap().contains("first 5 of 12"));
        assert!(!f.failed());
    }
}
