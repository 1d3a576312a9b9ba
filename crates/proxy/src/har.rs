//! HAR 1.2 (<http://www.softwareishard.com/blog/har-12-spec/>): the recorded flows exported
//! for browser devtools, Charles and Proxyman ([`export`], secrets redacted as in every view),
//! and a HAR turned into `respond` rules ([`rules_from`]) so an app can be replayed against
//! recorded answers with no backend. Bodies are decoded (`Content-Encoding` undone) and given
//! as text, or base64 when binary.

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine;
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::ToSchema;

use super::decode;
use super::flow::{is_secret_header, redact_url, rfc3339, Flow, Message};
use super::rules::spec::{ActionKind, RuleSpec};
use mobilectl_error::{Error, Result};

/// A HAR document.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct Har {
    pub log: HarLog,
}

// The HAR `log`: the version, the creator and the entries. Its fields are HAR 1.2's. The type and
// its fields are described by the API schema, where descriptions are kept short on purpose (token
// budget): a doc comment here would become one more.
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct HarLog {
    /// `1.2`
    pub version: String,
    pub creator: HarCreator,
    pub pages: Vec<Value>,
    pub entries: Vec<HarEntry>,
}

// The HAR `creator`: the program that wrote the log (mobilectl and its version). Its fields are
// HAR 1.2's. The type and its fields are described by the API schema, where descriptions are kept
// short on purpose (token budget): a doc comment here would become one more.
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct HarCreator {
    pub name: String,
    pub version: String,
}

/// One exchange.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HarEntry {
    pub started_date_time: String,
    /// Milliseconds, whole exchange.
    pub time: f64,
    pub request: HarRequest,
    pub response: HarResponse,
    pub cache: BTreeMap<String, Value>,
    pub timings: HarTimings,
    /// The flow's id in mobilectl.
    #[serde(rename = "_flowId")]
    pub flow_id: u64,
    /// The proxy rule that acted on it.
    #[serde(rename = "_ruleId", skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<u64>,
    /// Why it failed (no answer).
    #[serde(rename = "_error", skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

// A HAR name/value pair: a header or a query parameter. Its fields are HAR 1.2's. The type and its
// fields are described by the API schema, where descriptions are kept short on purpose (token
// budget): a doc comment here would become one more.
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct HarPair {
    pub name: String,
    pub value: String,
}

// A HAR `request`. Its fields are HAR 1.2's. The type and its fields are described by the API
// schema, where descriptions are kept short on purpose (token budget): a doc comment here would
// become one more.
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HarRequest {
    pub method: String,
    pub url: String,
    pub http_version: String,
    pub cookies: Vec<Value>,
    pub headers: Vec<HarPair>,
    pub query_string: Vec<HarPair>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_data: Option<HarPostData>,
    pub headers_size: i64,
    pub body_size: i64,
}

// A HAR `postData`: a request's body. Its fields are HAR 1.2's. The type and its fields are
// described by the API schema, where descriptions are kept short on purpose (token budget): a doc
// comment here would become one more.
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HarPostData {
    pub mime_type: String,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

// A HAR `response`. Its fields are HAR 1.2's. The type and its fields are described by the API
// schema, where descriptions are kept short on purpose (token budget): a doc comment here would
// become one more.
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HarResponse {
    /// 0 when there was no answer.
    pub status: u16,
    pub status_text: String,
    pub http_version: String,
    pub cookies: Vec<Value>,
    pub headers: Vec<HarPair>,
    pub content: HarContent,
    #[serde(rename = "redirectURL")]
    pub redirect_url: String,
    pub headers_size: i64,
    pub body_size: i64,
}

// A HAR `content`: a response's body, decoded. Its fields are HAR 1.2's. The type and its fields
// are described by the API schema, where descriptions are kept short on purpose (token budget): a
// doc comment here would become one more.
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HarContent {
    /// Decoded bytes.
    pub size: u64,
    pub mime_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// Milliseconds of each phase (-1: does not apply).
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct HarTimings {
    pub blocked: f64,
    pub dns: f64,
    pub connect: f64,
    pub ssl: f64,
    pub send: f64,
    pub wait: f64,
    pub receive: f64,
}

const REDACTED: &str = "[redacted]";

fn pairs(m: &Message) -> Vec<HarPair> {
    m.headers
        .iter()
        .map(|(n, v)| HarPair {
            name: n.clone(),
            value: if is_secret_header(n) {
                REDACTED.into()
            } else {
                v.clone()
            },
        })
        .collect()
}

/// A body as HAR gives it: decoded text, or base64; with a comment when partial.
fn content(m: &Message) -> HarContent {
    let d = decode::decode(&m.body.bytes, m.header("content-encoding"));
    let mime = m.header("content-type").unwrap_or("").to_string();
    let text = decode::is_text(Some(&mime), &d.bytes);
    let partial = m.body.truncated() || !d.complete;
    HarContent {
        size: d.bytes.len() as u64,
        mime_type: mime,
        text: (!d.bytes.is_empty()).then(|| {
            if text {
                String::from_utf8_lossy(&d.bytes).into_owned()
            } else {
                base64::engine::general_purpose::STANDARD.encode(&d.bytes)
            }
        }),
        encoding: (!text && !d.bytes.is_empty()).then(|| "base64".into()),
        comment: partial.then(|| {
            format!(
                "partial: {} of {} bytes stored{}",
                m.body.bytes.len(),
                m.body.size,
                d.problem.map(|p| format!("; {p}")).unwrap_or_default()
            )
        }),
    }
}

fn entry(f: &Flow) -> HarEntry {
    let url = redact_url(&f.url);
    let query_string = url
        .split_once('?')
        .map(|(_, q)| {
            form_urlencoded::parse(q.split('#').next().unwrap_or("").as_bytes())
                .map(|(n, v)| HarPair {
                    name: n.into_owned(),
                    value: v.into_owned(),
                })
                .collect()
        })
        .unwrap_or_default();
    let post_data = (f.request.body.size > 0).then(|| {
        let c = content(&f.request);
        HarPostData {
            mime_type: c.mime_type,
            text: c.text.unwrap_or_default(),
            encoding: c.encoding,
        }
    });
    let response = match &f.response {
        Some(r) => HarResponse {
            status: f.status.unwrap_or(0),
            status_text: f
                .status
                .and_then(|s| hyper::StatusCode::from_u16(s).ok())
                .and_then(|s| s.canonical_reason())
                .unwrap_or("")
                .into(),
            http_version: "HTTP/1.1".into(),
            cookies: Vec::new(),
            headers: pairs(r),
            content: content(r),
            redirect_url: r.header("location").unwrap_or("").into(),
            headers_size: -1,
            body_size: r.body.size as i64,
        },
        None => HarResponse {
            status: f.status.unwrap_or(0),
            status_text: String::new(),
            http_version: "HTTP/1.1".into(),
            cookies: Vec::new(),
            headers: Vec::new(),
            content: HarContent {
                size: 0,
                mime_type: String::new(),
                text: None,
                encoding: None,
                comment: None,
            },
            redirect_url: String::new(),
            headers_size: -1,
            body_size: -1,
        },
    };
    let t = &f.timing;
    let connect = t.connect_ms.unwrap_or(-1.0);
    let ssl = t.tls_ms.unwrap_or(-1.0);
    let wait = t.first_byte_ms.map_or(t.total_ms, |fb| {
        (fb - connect.max(0.0) - ssl.max(0.0)).max(0.0)
    });
    let receive = t.first_byte_ms.map_or(0.0, |fb| (t.total_ms - fb).max(0.0));
    HarEntry {
        started_date_time: rfc3339(f.started_at),
        time: t.total_ms,
        request: HarRequest {
            method: f.method.clone(),
            url,
            http_version: "HTTP/1.1".into(),
            cookies: Vec::new(),
            headers: pairs(&f.request),
            query_string,
            post_data,
            headers_size: -1,
            body_size: f.request.body.size as i64,
        },
        response,
        cache: BTreeMap::new(),
        timings: HarTimings {
            blocked: -1.0,
            dns: -1.0,
            connect,
            ssl,
            send: 0.0,
            wait,
            receive,
        },
        flow_id: f.id,
        rule_id: f.rule_id,
        error: f.error.as_ref().map(|e| e.message.clone()),
    }
}

/// The flows (oldest first) as a HAR 1.2 document; tunnels (`CONNECT`) are left out.
pub fn export(flows: &[Arc<Flow>]) -> Har {
    Har {
        log: HarLog {
            version: "1.2".into(),
            creator: HarCreator {
                name: "mobilectl".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            pages: Vec::new(),
            entries: flows
                .iter()
                .filter(|f| f.method != "CONNECT")
                .map(|f| entry(f))
                .collect(),
        },
    }
}

/// Headers a recorded answer carries that a replayed one must not (framing, encoding: the
/// body given is decoded).
const NOT_REPLAYED: &[&str] = &[
    "content-length",
    "transfer-encoding",
    "content-encoding",
    "connection",
    "keep-alive",
];

fn bad(message: impl Into<String>) -> Error {
    Error::validation(message).with_hint("pass a HAR 1.2 document: {\"log\": {\"entries\": [...]}}")
}

/// `respond` rules replaying the answers of a HAR's entries (those with a status), for the
/// entries to `host` (or a subdomain) when given. Several entries for one method and URL
/// replay in order: each acts once, the last from then on.
pub fn rules_from(har: &Value, host: Option<&str>) -> Result<Vec<RuleSpec>> {
    let entries = har
        .pointer("/log/entries")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("the HAR has no `log.entries`"))?;
    let host = host.map(|h| h.trim_start_matches("*.").to_ascii_lowercase());
    let mut specs: Vec<(String, RuleSpec)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let at = |what: &str| bad(format!("entry {i}: {what}"));
        let method = e
            .pointer("/request/method")
            .and_then(Value::as_str)
            .ok_or_else(|| at("no request.method"))?;
        let url = e
            .pointer("/request/url")
            .and_then(Value::as_str)
            .ok_or_else(|| at("no request.url"))?;
        let uri: hyper::Uri = url.parse().map_err(|_| at("request.url is not a URL"))?;
        let Some(h) = uri.host().map(str::to_ascii_lowercase) else {
            return Err(at("request.url has no host"));
        };
        if let Some(want) = &host {
            if h != *want && !h.ends_with(&format!(".{want}")) {
                continue;
            }
        }
        let status = e
            .pointer("/response/status")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if method.eq_ignore_ascii_case("CONNECT") || !(100..=599).contains(&status) || status == 101
        {
            continue; // no answer to replay
        }
        let mut headers = BTreeMap::new();
        for p in e
            .pointer("/response/headers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (Some(n), Some(v)) = (
                p.get("name").and_then(Value::as_str),
                p.get("value").and_then(Value::as_str),
            ) else {
                continue;
            };
            let n = n.to_ascii_lowercase();
            if NOT_REPLAYED.contains(&n.as_str()) || n.starts_with(':') || v == REDACTED {
                continue;
            }
            headers.insert(n, v.to_string());
        }
        let content = e.pointer("/response/content");
        let text = content
            .and_then(|c| c.get("text"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let base64 = content
            .and_then(|c| c.get("encoding"))
            .and_then(Value::as_str)
            == Some("base64");
        if let Some(mime) = content
            .and_then(|c| c.get("mimeType"))
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
        {
            headers
                .entry("content-type".into())
                .or_insert_with(|| mime.to_string());
        }
        let query: BTreeMap<String, String> =
            form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
        let spec = RuleSpec {
            method: Some(method.to_ascii_uppercase()),
            host: Some(h),
            path_regex: Some(format!("^{}$", regex::escape(uri.path()))),
            query: (!query.is_empty()).then_some(query),
            action: ActionKind::Respond,
            status: Some(status as u16),
            headers: (!headers.is_empty()).then_some(headers),
            body: text.clone().filter(|_| !base64),
            body_base64: text.filter(|_| base64),
            ..Default::default()
        };
        let key = format!("{} {}", method.to_ascii_uppercase(), url);
        specs.push((key, spec));
    }
    // Repeats replay in order: all but the last of a method and URL act once.
    let n = specs.len();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let later = specs[i + 1..].iter().any(|(k, _)| *k == specs[i].0);
        let mut s = specs[i].1.clone();
        if later {
            s.times = Some(1);
        }
        out.push(s);
    }
    if out.is_empty() {
        return Err(bad("the HAR has no entry with an answer to replay")
            .with_details(json!({ "entries": entries.len() })));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_har_becomes_rules_in_order() {
        let har = json!({"log": {"version": "1.2", "entries": [
            {"request": {"method": "GET", "url": "https://api.x.com/v1/a?id=1"},
             "response": {"status": 200, "headers": [{"name": "Content-Length", "value": "3"},
                                                     {"name": "X-A", "value": "1"}],
                          "content": {"mimeType": "application/json", "text": "{}"}}},
            {"request": {"method": "GET", "url": "https://api.x.com/v1/a?id=1"},
             "response": {"status": 500, "content": {"text": "AAE=", "encoding": "base64"}}},
            {"request": {"method": "GET", "url": "https://cdn.y.com/i.png"},
             "response": {"status": 0}}
        ]}});
        let r = rules_from(&har, None).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].times, Some(1));
        assert_eq!(r[1].times, None);
        assert_eq!(r[0].headers.as_ref().unwrap().get("content-length"), None);
        assert_eq!(r[0].path_regex.as_deref(), Some("^/v1/a$"));
        assert_eq!(r[1].body_base64.as_deref(), Some("AAE="));
        assert!(rules_from(&har, Some("other.com")).is_err());
        assert!(rules_from(&json!({"x": 1}), None).is_err());
    }
}
