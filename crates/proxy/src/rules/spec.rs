//! A rule as the API takes it ([`RuleSpec`], flat: what to match, when, and what to do) and
//! its validation, whole, into a compiled [`Rule`]: patterns compile, values are in range,
//! fields belong to the action named, a body file is read once, now, by the reader the server
//! gives ([`ReadBodyFile`]: under its files root) and kept with the rule, bodies stay within
//! [`MAX_BODY`], and a rule that can never match is refused with the reason.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use base64::Engine;
use hyper::body::Bytes;
use hyper::header::{HeaderName, HeaderValue};
use hyper::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;

use super::matcher::{glob_regex, pointer, HostPattern, Matcher, PathPattern};
use mobilectl_error::{Error, Result};

/// The largest body a `respond` rule serves (inline, JSON, base64 or file).
pub const MAX_BODY: usize = 8 * 1024 * 1024;
/// The longest delay or hold a rule may ask.
pub const MAX_DELAY_MS: u64 = 10 * 60 * 1000;

/// Reads a `respond` rule's `body_file` when the rule is added, at most [`MAX_BODY`] + 1
/// bytes: the server's reader confines it to the files root. Rules compiled without one
/// refuse `body_file`.
pub type ReadBodyFile<'a> = &'a dyn Fn(&str) -> Result<Vec<u8>>;

/// What a rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// Answer without reaching the upstream: `status`, `headers`, a body (`body`,
    /// `body_json`, `body_base64` or `body_file`), after `delay_ms`.
    #[default]
    Respond,
    /// Wait `delay_ms` before forwarding, and/or `first_byte_delay_ms` before the answer.
    Delay,
    /// Pace the bodies: `down_bytes_per_sec` (answer), `up_bytes_per_sec` (request).
    Throttle,
    /// Fail as `fail` says.
    Fail,
    /// Change headers (`set_*`/`remove_*`) and JSON answer fields (`json_patch`).
    Rewrite,
    /// Forward untouched (and stop evaluating: later rules do not act).
    Passthrough,
}

/// How a `fail` rule fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum FailKind {
    /// Close the app's connection without an answer.
    #[serde(rename = "reset")]
    Reset,
    /// Hold the request without answering (`delay_ms`, default the proxy's upstream
    /// timeout), then close the connection.
    #[serde(rename = "timeout")]
    Timeout,
    /// Answer `502 Bad Gateway` without reaching the upstream.
    #[serde(rename = "502")]
    BadGateway,
    /// Answer `503 Service Unavailable` without reaching the upstream.
    #[serde(rename = "503")]
    Unavailable,
    /// Answer `504 Gateway Timeout` without reaching the upstream.
    #[serde(rename = "504")]
    GatewayTimeout,
    /// Forward, then cut the answer's body after `cut_after_bytes` (default 1) and close.
    #[serde(rename = "cut")]
    Cut,
}

/// A rule: what it matches (every field given must hold), when it acts (`nth`, `times`) and
/// what it does (`action` and that action's fields).
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_glob: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_regex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_equals: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1)]
    pub nth: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1)]
    pub times: Option<u64>,
    #[serde(default)]
    pub action: ActionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 100, maximum = 599)]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_json: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_base64: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_byte_delay_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down_bytes_per_sec: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up_bytes_per_sec: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail: Option<FailKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_after_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_headers: Option<BTreeMap<String, Option<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_headers: Option<BTreeMap<String, Option<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_patch: Option<BTreeMap<String, Value>>,
}

/// A rule as shown: its id, how often it matched and acted, and what it is.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RuleView {
    pub id: u64,
    /// Requests it acted on.
    pub hits: u64,
    /// Requests it matched (acted on or not, as `nth` and `times` say).
    pub matched: u64,
    /// Its place in the evaluation order (0 first).
    pub position: usize,
    /// The rule as it was added.
    pub rule: RuleSpec,
    /// The session that added it (the rule ends with it), if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// A `respond` answer, ready.
#[derive(Debug, Clone)]
pub struct Canned {
    /// The answer's status (`200` unless the rule says).
    pub status: StatusCode,
    /// The rule's headers, with a `Content-Type` matching an inline body when it gave none;
    /// never `Content-Length` or `Transfer-Encoding` (the proxy frames the body).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// The body, at most [`MAX_BODY`] bytes.
    pub body: Bytes,
    /// How long to wait before answering.
    pub delay: Duration,
}

/// A `rewrite`, ready.
#[derive(Debug, Clone, Default)]
pub struct Rewrite {
    /// Request headers set (replacing any of that name) before it goes on.
    pub set_request: Vec<(HeaderName, HeaderValue)>,
    /// Request headers removed before it goes on.
    pub remove_request: Vec<HeaderName>,
    /// Answer headers set (replacing any of that name) before the app gets it.
    pub set_response: Vec<(HeaderName, HeaderValue)>,
    /// Answer headers removed before the app gets it.
    pub remove_response: Vec<HeaderName>,
    /// (JSON pointer, value)
    pub json_patch: Vec<(String, Value)>,
}

/// How a `fail` rule fails, ready.
#[derive(Debug, Clone, Copy)]
pub enum Failure {
    /// Close the app's connection without an answer.
    Reset,
    /// Hold the request this long (`None`: the proxy's upstream timeout), then close.
    Timeout(Option<Duration>),
    /// Answer this status (502, 503 or 504) without reaching the upstream.
    Status(StatusCode),
    /// Forward, then cut the answer's body after this many bytes.
    Cut(u64),
}

/// What a rule does, ready.
#[derive(Debug, Clone)]
pub enum Action {
    /// Answer with this, without reaching the upstream.
    Respond(Canned),
    /// Wait, then forward.
    Delay {
        /// Before the request goes on.
        before: Duration,
        /// Before the answer's first byte reaches the app.
        first_byte: Duration,
    },
    /// Pace the bodies.
    Throttle {
        /// The answer's bytes per second; `None`: not paced.
        down: Option<u64>,
        /// The request's bytes per second; `None`: not paced.
        up: Option<u64>,
    },
    /// Fail this way.
    Fail(Failure),
    /// Forward with these changes.
    Rewrite(Rewrite),
    /// Forward untouched; later rules are not consulted.
    Passthrough,
}

/// A validated rule with its counters.
#[derive(Debug)]
pub struct Rule {
    /// Its id, unique for the server's life (the first rule is 1).
    pub id: u64,
    /// The rule as it was added.
    pub spec: RuleSpec,
    /// What it matches, compiled.
    pub matcher: Matcher,
    /// What it does, ready.
    pub action: Action,
    /// The session that added it: the rule ends with that session.
    pub session: Option<String>,
    matched: AtomicU64,
    hits: AtomicU64,
}

impl Rule {
    /// Whether it acts on a request it matched (counting both); `nth` and `times` decide.
    pub fn claim(&self) -> bool {
        let n = self.matched.fetch_add(1, Ordering::Relaxed) + 1;
        if self.spec.nth.is_some_and(|nth| nth != n) {
            return false;
        }
        let limit = self.spec.times.unwrap_or(u64::MAX);
        self.hits
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |h| {
                (h < limit).then_some(h + 1)
            })
            .is_ok()
    }

    /// Whether it is used up: it acted its `times`, or its `nth` match has passed.
    pub fn spent(&self) -> bool {
        let hits = self.hits.load(Ordering::Relaxed);
        self.spec.times.is_some_and(|t| hits >= t)
            || self
                .spec
                .nth
                .is_some_and(|n| self.matched.load(Ordering::Relaxed) >= n)
    }

    /// The rule as shown, at `position` in the evaluation order.
    pub fn view(&self, position: usize) -> RuleView {
        RuleView {
            id: self.id,
            hits: self.hits.load(Ordering::Relaxed),
            matched: self.matched.load(Ordering::Relaxed),
            position,
            rule: self.spec.clone(),
            session: self.session.clone(),
        }
    }

    /// The bytes it keeps (its answer's body).
    pub fn footprint(&self) -> usize {
        match &self.action {
            Action::Respond(c) => c.body.len(),
            _ => 0,
        }
    }
}

fn invalid(field: &str, message: impl Into<String>) -> Error {
    Error::validation(message).with_details(json!({ "field": field }))
}

fn never(reason: impl Into<String>) -> Error {
    let reason = reason.into();
    Error::validation(format!("this rule can never match: {reason}"))
        .with_details(json!({ "reason": reason }))
        .with_hint("change the match so that a request can meet it")
}

fn header_name(field: &str, n: &str) -> Result<HeaderName> {
    HeaderName::from_bytes(n.trim().as_bytes())
        .map_err(|_| invalid(field, format!("`{n}` is not a header name")))
}

fn header_pairs(
    field: &str,
    map: &Option<BTreeMap<String, String>>,
) -> Result<Vec<(HeaderName, HeaderValue)>> {
    map.iter()
        .flatten()
        .map(|(n, v)| {
            let value = HeaderValue::from_str(v)
                .map_err(|_| invalid(field, format!("the value of `{n}` is not a header value")))?;
            Ok((header_name(field, n)?, value))
        })
        .collect()
}

/// The headers a rewrite map sets (those with a value).
fn header_sets(
    field: &str,
    map: &Option<BTreeMap<String, Option<String>>>,
) -> Result<Vec<(HeaderName, HeaderValue)>> {
    let set: BTreeMap<String, String> = map
        .iter()
        .flatten()
        .filter_map(|(n, v)| v.clone().map(|v| (n.clone(), v)))
        .collect();
    header_pairs(field, &Some(set))
}

/// The headers a rewrite map removes (those with `null`).
fn header_removals(
    field: &str,
    map: &Option<BTreeMap<String, Option<String>>>,
) -> Result<Vec<HeaderName>> {
    map.iter()
        .flatten()
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| header_name(field, n))
        .collect()
}

fn delay(field: &str, ms: Option<u64>) -> Result<Duration> {
    let ms = ms.unwrap_or(0);
    if ms > MAX_DELAY_MS {
        return Err(invalid(
            field,
            format!("`{field}` is at most {MAX_DELAY_MS} ms"),
        ));
    }
    Ok(Duration::from_millis(ms))
}

/// The action's fields that were given though the action does not take them.
fn foreign_fields(s: &RuleSpec) -> Vec<&'static str> {
    use ActionKind::*;
    let given: [(&str, bool, &[ActionKind]); 15] = [
        ("status", s.status.is_some(), &[Respond]),
        ("headers", s.headers.is_some(), &[Respond]),
        ("body", s.body.is_some(), &[Respond]),
        ("body_json", s.body_json.is_some(), &[Respond]),
        ("body_base64", s.body_base64.is_some(), &[Respond]),
        ("body_file", s.body_file.is_some(), &[Respond]),
        ("delay_ms", s.delay_ms.is_some(), &[Respond, Delay, Fail]),
        (
            "first_byte_delay_ms",
            s.first_byte_delay_ms.is_some(),
            &[Delay],
        ),
        (
            "down_bytes_per_sec",
            s.down_bytes_per_sec.is_some(),
            &[Throttle],
        ),
        (
            "up_bytes_per_sec",
            s.up_bytes_per_sec.is_some(),
            &[Throttle],
        ),
        ("fail", s.fail.is_some(), &[Fail]),
        ("cut_after_bytes", s.cut_after_bytes.is_some(), &[Fail]),
        ("request_headers", s.request_headers.is_some(), &[Rewrite]),
        ("response_headers", s.response_headers.is_some(), &[Rewrite]),
        ("json_patch", s.json_patch.is_some(), &[Rewrite]),
    ];
    given
        .iter()
        .filter(|(_, set, takes)| *set && !takes.contains(&s.action))
        .map(|(f, _, _)| *f)
        .collect()
}

/// Checks a rule whole and compiles it under `id`, reading its `body_file` (if any) with
/// `read`.
pub fn compile(id: u64, spec: RuleSpec, read: Option<ReadBodyFile<'_>>) -> Result<Rule> {
    let foreign = foreign_fields(&spec);
    if let Some(f) = foreign.first() {
        return Err(invalid(
            f,
            format!(
                "`{f}` is not a field of a `{}` rule",
                serde_json::to_value(spec.action)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            ),
        )
        .with_hint("respond: status, headers, body*, delay_ms; delay: delay_ms, first_byte_delay_ms; throttle: down/up_bytes_per_sec; fail: fail, cut_after_bytes, delay_ms; rewrite: request_headers, response_headers (null removes), json_patch"));
    }
    let matcher = matcher(&spec)?;
    match (spec.nth, spec.times) {
        (Some(0), _) => return Err(never("`nth` counts from 1")),
        (_, Some(0)) => return Err(never("`times` is 0")),
        _ => {}
    }
    let action = action(&spec, read)?;
    Ok(Rule {
        id,
        spec,
        matcher,
        action,
        session: None,
        matched: AtomicU64::new(0),
        hits: AtomicU64::new(0),
    })
}

fn matcher(s: &RuleSpec) -> Result<Matcher> {
    let mut m = Matcher::default();
    if let Some(method) = &s.method {
        let ok = !method.is_empty()
            && method.len() <= 32
            && method.bytes().all(|b| b.is_ascii_alphabetic());
        if !ok {
            return Err(never(format!("`{method}` is not an HTTP method")));
        }
        if method.eq_ignore_ascii_case("CONNECT") {
            return Err(never(
                "CONNECT opens tunnels; rules act on the requests inside them",
            ));
        }
        m.method = Some(method.to_ascii_uppercase());
    }
    if let Some(h) = &s.host {
        let h = h.trim().to_ascii_lowercase();
        let (pattern, name) = match h.strip_prefix("*.") {
            Some(rest) => (
                HostPattern::Subdomains(format!(".{rest}")),
                rest.to_string(),
            ),
            None => (HostPattern::Exact(h.clone()), h.clone()),
        };
        let ok = !name.is_empty()
            && name.len() <= 253
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._[]:".contains(&b))
            && (!name.contains(':') || name.starts_with('['));
        if !ok {
            return Err(never(format!(
                "`{h}` is not a host name (no scheme, port or path: api.example.com or *.example.com)"
            )));
        }
        m.host = Some(pattern);
    }
    let paths = [&s.path, &s.path_glob, &s.path_regex]
        .iter()
        .filter(|p| p.is_some())
        .count();
    if paths > 1 {
        return Err(invalid(
            "path",
            "give one of `path`, `path_glob`, `path_regex`",
        ));
    }
    if let Some(p) = &s.path {
        if !p.starts_with('/') {
            return Err(never(format!("every path starts with `/`, not `{p}`")));
        }
        m.path = Some(PathPattern::Prefix(p.clone()));
    }
    if let Some(g) = &s.path_glob {
        if !g.starts_with('/') && !g.starts_with('*') {
            return Err(never(format!("every path starts with `/`, not `{g}`")));
        }
        let re = glob_regex(g).map_err(|e| invalid("path_glob", format!("bad glob: {e}")))?;
        m.path = Some(PathPattern::Regex(re));
    }
    if let Some(r) = &s.path_regex {
        let re = regex::RegexBuilder::new(r)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| {
                invalid("path_regex", format!("`{r}` does not compile: {e}"))
                    .with_hint("Rust regex syntax (no look-around or backreferences)")
            })?;
        m.path = Some(PathPattern::Regex(re));
    }
    for (k, v) in s.query.iter().flatten() {
        m.query.push((k.clone(), (v != "*").then(|| v.clone())));
    }
    if let Some(h) = &s.header {
        let (name, value) = match h.split_once(':') {
            Some((n, v)) => (n, Some(v.trim().to_string())),
            None => (h.as_str(), None),
        };
        let name = header_name("header", name)?;
        m.header = Some((name.as_str().to_string(), value));
    }
    match (&s.json_field, &s.json_equals) {
        (None, Some(_)) => {
            return Err(invalid("json_equals", "`json_equals` needs `json_field`"));
        }
        (Some(f), want) => {
            if f.is_empty() {
                return Err(invalid("json_field", "`json_field` is empty"));
            }
            if let Some(method) = &m.method {
                if matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS") {
                    return Err(never(format!(
                        "a {method} request has no JSON body for `json_field`"
                    )));
                }
            }
            m.json = Some((pointer(f), want.clone()));
        }
        (None, None) => {}
    }
    Ok(m)
}

fn action(s: &RuleSpec, read: Option<ReadBodyFile<'_>>) -> Result<Action> {
    Ok(match s.action {
        ActionKind::Respond => Action::Respond(canned(s, read)?),
        ActionKind::Delay => {
            let before = delay("delay_ms", s.delay_ms)?;
            let first_byte = delay("first_byte_delay_ms", s.first_byte_delay_ms)?;
            if before.is_zero() && first_byte.is_zero() {
                return Err(invalid(
                    "delay_ms",
                    "a delay rule needs `delay_ms` or `first_byte_delay_ms` above 0",
                ));
            }
            Action::Delay { before, first_byte }
        }
        ActionKind::Throttle => {
            let (down, up) = (s.down_bytes_per_sec, s.up_bytes_per_sec);
            if down.is_none() && up.is_none() || down == Some(0) || up == Some(0) {
                return Err(invalid(
                    "down_bytes_per_sec",
                    "a throttle rule needs `down_bytes_per_sec` and/or `up_bytes_per_sec`, above 0",
                )
                .with_hint("to stop answers altogether use `fail`"));
            }
            Action::Throttle { down, up }
        }
        ActionKind::Fail => {
            let kind = s.fail.ok_or_else(|| {
                invalid(
                    "fail",
                    "a fail rule needs `fail`: reset, timeout, 502, 503, 504 or cut",
                )
            })?;
            if s.cut_after_bytes.is_some() && kind != FailKind::Cut {
                return Err(invalid(
                    "cut_after_bytes",
                    "`cut_after_bytes` is for `fail: cut`",
                ));
            }
            if s.delay_ms.is_some() && kind != FailKind::Timeout {
                return Err(invalid(
                    "delay_ms",
                    "`delay_ms` of a fail rule is for `fail: timeout` (how long to hold)",
                ));
            }
            Action::Fail(match kind {
                FailKind::Reset => Failure::Reset,
                FailKind::Timeout => Failure::Timeout(match s.delay_ms {
                    Some(_) => Some(delay("delay_ms", s.delay_ms)?),
                    None => None,
                }),
                FailKind::BadGateway => Failure::Status(StatusCode::BAD_GATEWAY),
                FailKind::Unavailable => Failure::Status(StatusCode::SERVICE_UNAVAILABLE),
                FailKind::GatewayTimeout => Failure::Status(StatusCode::GATEWAY_TIMEOUT),
                FailKind::Cut => Failure::Cut(s.cut_after_bytes.unwrap_or(1)),
            })
        }
        ActionKind::Rewrite => {
            let r = Rewrite {
                set_request: header_sets("request_headers", &s.request_headers)?,
                remove_request: header_removals("request_headers", &s.request_headers)?,
                set_response: header_sets("response_headers", &s.response_headers)?,
                remove_response: header_removals("response_headers", &s.response_headers)?,

                json_patch: s
                    .json_patch
                    .iter()
                    .flatten()
                    .map(|(k, v)| (pointer(k), v.clone()))
                    .collect(),
            };
            if r.set_request.is_empty()
                && r.remove_request.is_empty()
                && r.set_response.is_empty()
                && r.remove_response.is_empty()
                && r.json_patch.is_empty()
            {
                return Err(invalid(
                    "set_response_headers",
                    "a rewrite rule needs a header to set or remove, or a `json_patch`",
                ));
            }
            Action::Rewrite(r)
        }
        ActionKind::Passthrough => Action::Passthrough,
    })
}

fn canned(s: &RuleSpec, read: Option<ReadBodyFile<'_>>) -> Result<Canned> {
    let status = s.status.unwrap_or(200);
    let status = StatusCode::from_u16(status)
        .ok()
        .filter(|_| (100..=599).contains(&status) && status != 101)
        .ok_or_else(|| {
            invalid(
                "status",
                format!("`{status}` is not a status to answer (200–599)"),
            )
        })?;
    let bodies = [
        s.body.is_some(),
        s.body_json.is_some(),
        s.body_base64.is_some(),
        s.body_file.is_some(),
    ];
    if bodies.iter().filter(|b| **b).count() > 1 {
        return Err(invalid(
            "body",
            "give one of `body`, `body_json`, `body_base64`, `body_file`",
        ));
    }
    let mut headers = header_pairs("headers", &s.headers)?;
    let (body, ctype): (Vec<u8>, Option<&str>) = if let Some(b) = &s.body {
        (b.clone().into_bytes(), Some("text/plain; charset=utf-8"))
    } else if let Some(j) = &s.body_json {
        (
            serde_json::to_vec(j).map_err(|e| invalid("body_json", e.to_string()))?,
            Some("application/json"),
        )
    } else if let Some(b) = &s.body_base64 {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b.trim())
            .map_err(|e| invalid("body_base64", format!("not base64: {e}")))?;
        (bytes, Some("application/octet-stream"))
    } else if let Some(f) = &s.body_file {
        (read_body_file(f, read)?, None)
    } else {
        (Vec::new(), None)
    };
    if body.len() > MAX_BODY {
        return Err(Error::new(
            mobilectl_error::ErrorCode::PayloadTooLarge,
            format!(
                "the body is {} bytes; a rule serves at most {MAX_BODY}",
                body.len()
            ),
        )
        .with_details(json!({ "field": "body", "limit": MAX_BODY })));
    }
    if let Some(ct) = ctype {
        if !headers.iter().any(|(n, _)| n == "content-type") {
            headers.push((
                HeaderName::from_static("content-type"),
                HeaderValue::from_static(ct),
            ));
        }
    }
    // Framing is the proxy's: the body's own length, never a header's word.
    headers.retain(|(n, _)| n != "content-length" && n != "transfer-encoding");
    Ok(Canned {
        status,
        headers,
        body: Bytes::from(body),
        delay: delay("delay_ms", s.delay_ms)?,
    })
}

/// A body file's bytes, read now by `read` (under the server's files root), at most
/// [`MAX_BODY`].
fn read_body_file(f: &str, read: Option<ReadBodyFile<'_>>) -> Result<Vec<u8>> {
    let read = read.ok_or_else(|| {
        invalid("body_file", "rules added here take no `body_file`")
            .with_hint("send the file's bytes as `body_base64`")
    })?;
    let bytes = read(f).map_err(|mut e| {
        match &mut e.details {
            Some(Value::Object(d)) => {
                d.entry("field").or_insert_with(|| json!("body_file"));
            }
            Some(_) => {}
            None => e.details = Some(json!({ "field": "body_file" })),
        }
        e
    })?;
    if bytes.len() > MAX_BODY {
        return Err(Error::new(
            mobilectl_error::ErrorCode::PayloadTooLarge,
            format!("`{f}` is larger than {MAX_BODY} bytes, the most a rule serves"),
        )
        .with_details(json!({ "field": "body_file", "limit": MAX_BODY })));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(v: Value) -> RuleSpec {
        serde_json::from_value(v).unwrap()
    }

    fn refused(v: Value) -> String {
        match compile(1, spec(v), None) {
            Ok(_) => panic!("accepted"),
            Err(e) => e.message,
        }
    }

    #[test]
    fn bad_rules_are_refused_with_their_reason() {
        assert!(refused(json!({"path_regex": "(["})).contains("does not compile"));
        assert!(refused(json!({"path": "api"})).contains("never match"));
        assert!(refused(json!({"method": "GET", "json_field": "a"})).contains("never match"));
        assert!(refused(json!({"host": "http://x.com/"})).contains("never match"));
        assert!(refused(json!({"times": 0})).contains("never match"));
        assert!(refused(json!({"nth": 0})).contains("never match"));
        assert!(refused(json!({"status": 99})).contains("status"));
        assert!(refused(json!({"action": "delay"})).contains("delay_ms"));
        assert!(refused(json!({"action": "fail"})).contains("fail"));
        assert!(
            refused(json!({"action": "delay", "delay_ms": 5, "status": 500}))
                .contains("not a field")
        );
        assert!(refused(json!({"body": "a", "body_json": {}})).contains("one of"));
        // Without the server's reader, no file is read.
        assert!(refused(json!({"body_file": "/etc/passwd"})).contains("no `body_file`"));
    }

    #[test]
    fn a_body_file_is_read_once_by_the_servers_reader_and_kept() {
        let asked = std::sync::Mutex::new(Vec::new());
        let read = |f: &str| -> Result<Vec<u8>> {
            asked.lock().unwrap().push(f.to_string());
            match f {
                "big" => Ok(vec![0; MAX_BODY + 1]),
                "out" => Err(Error::new(mobilectl_error::ErrorCode::Forbidden, "outside")),
                _ => Ok(b"{}".to_vec()),
            }
        };
        let r = compile(1, spec(json!({"body_file": "t.json"})), Some(&read)).unwrap();
        assert!(matches!(&r.action, Action::Respond(c) if &c.body[..] == b"{}"));
        let e = compile(1, spec(json!({"body_file": "out"})), Some(&read)).unwrap_err();
        assert_eq!(e.code, mobilectl_error::ErrorCode::Forbidden);
        assert_eq!(e.details, Some(json!({"field": "body_file"})));
        let e = compile(1, spec(json!({"body_file": "big"})), Some(&read)).unwrap_err();
        assert_eq!(e.code, mobilectl_error::ErrorCode::PayloadTooLarge);
        assert_eq!(*asked.lock().unwrap(), ["t.json", "out", "big"]);
    }

    #[test]
    fn nth_and_times_decide_which_matches_act() {
        let r = compile(1, spec(json!({"nth": 2})), None).unwrap();
        assert_eq!((r.claim(), r.claim(), r.claim()), (false, true, false));
        assert!(r.spent());
        let r = compile(1, spec(json!({"times": 2})), None).unwrap();
        assert_eq!((r.claim(), r.claim(), r.claim()), (true, true, false));
        assert_eq!(r.view(0).hits, 2);
        assert_eq!(r.view(0).matched, 3);
    }
}
