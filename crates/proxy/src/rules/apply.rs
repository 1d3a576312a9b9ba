//! The rules and conditions at work inside the recording handler: which rule acts on a request
//! ([`Recorder::shape`]), the answers made here without an upstream (`respond`, `fail` with a
//! status, a reset, a hold), and the [`Plan`] for a forwarded request (throttles, a delay to
//! the first byte, a cut, a rewrite). Every exchange is recorded with the rule that acted and
//! `mocked`, and what is recorded is what the app got.

use std::sync::Arc;
use std::time::Duration;

use crate::body::Body;
use http_body_util::BodyExt;
use hyper::body::Bytes;
use hyper::header::HeaderValue;
use hyper::http::request::Parts;
use hyper::Response;
use serde_json::Value;

use super::body::{Broken, Cut, Throttled};
use super::matcher::RequestView;
use super::spec::{Action, Canned, Failure, Rewrite, Rule};
use crate::flow::{ms, Captured, FailureKind, Message, Timing};
use crate::record::{headers_of, Draft, InFlight, Recorder};
use crate::tee::Tee;

/// A JSON request body is read for matching up to this size (larger ones are not matched on
/// a JSON field).
pub const MAX_MATCH_BODY: u64 = 1024 * 1024;
/// A JSON answer is patched up to this size (larger ones go on unchanged).
pub const MAX_PATCH_BODY: usize = 8 * 1024 * 1024;

/// What the rules and conditions ask of a forwarded request.
#[derive(Default)]
pub(crate) struct Plan {
    pub rule_id: Option<u64>,
    pub mocked: bool,
    pub up: Option<u64>,
    pub down: Option<u64>,
    pub first_byte: Duration,
    pub cut: Option<u64>,
    pub rewrite: Option<Arc<Rule>>,
}

/// What [`Recorder::shape`] decided: answered here, or forwarded with a plan.
// One per request, made and taken apart once: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Shaped {
    Answered(Response<Body>),
    Forward(Forward),
}

fn min_rate(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A request going on upstream, with what the rules ask of it.
pub(crate) struct Forward {
    pub draft: Draft,
    pub parts: Parts,
    pub body: Body,
    pub plan: Plan,
    pub guard: InFlight,
}

fn forward(draft: Draft, parts: Parts, body: Body, plan: Plan, guard: InFlight) -> Shaped {
    Shaped::Forward(Forward {
        draft,
        parts,
        body,
        plan,
        guard,
    })
}

impl Plan {
    /// The request body as it goes upstream: recorded, then paced.
    pub(crate) fn request_body(&self, body: Body, draft: &Draft, cap: usize) -> Body {
        let tee = Tee::new(body, draft.request_body.clone(), cap);
        match self.up {
            Some(r) => Body::new(Throttled::new(tee, r)),
            None => Body::new(tee),
        }
    }

    /// The answer's body as the app gets it, before the recording: cut, then paced.
    pub fn response_body(&self, body: Body) -> Body {
        let body = match self.cut {
            Some(n) => Body::new(Cut::new(
                body,
                n,
                format!(
                    "the body was cut after {n} bytes by proxy rule {}",
                    self.rule_id.unwrap_or(0)
                ),
            )),
            None => body,
        };
        match self.down {
            Some(r) => Body::new(Throttled::new(body, r)),
            None => body,
        }
    }

    /// The answer's headers as the rewrite says, and its body patched when it asks
    /// `json_patch` (bounded; a body that is not JSON goes on unchanged).
    pub async fn rewrite_response(
        &self,
        parts: &mut hyper::http::response::Parts,
        body: Body,
        timeout: Duration,
    ) -> Body {
        let Some(rule) = &self.rewrite else {
            return body;
        };
        let Action::Rewrite(r) = &rule.action else {
            return body;
        };
        for n in &r.remove_response {
            parts.headers.remove(n);
        }
        for (n, v) in &r.set_response {
            parts.headers.insert(n.clone(), v.clone());
        }
        if r.json_patch.is_empty() || parts.headers.contains_key("content-encoding") {
            return body;
        }
        let small = parts
            .headers
            .get("content-length")
            .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
            .is_none_or(|n| n <= MAX_PATCH_BODY);
        if !small {
            return body;
        }
        let limited = http_body_util::Limited::new(body, MAX_PATCH_BODY);
        let bytes = match tokio::time::timeout(timeout, limited.collect()).await {
            Ok(Ok(c)) => c.to_bytes(),
            // Cut short or too big: the app sees the failure as it would have.
            _ => return Body::new(Broken(Some("the answer to patch failed".into()))),
        };
        let patched = patch_json(&bytes, r).unwrap_or(bytes);
        parts.headers.remove("transfer-encoding");
        parts
            .headers
            .insert("content-length", HeaderValue::from(patched.len()));
        Body::from(patched)
    }
}

/// `bytes` as JSON with the rewrite's fields set; `None` when it is not JSON.
fn patch_json(bytes: &[u8], r: &Rewrite) -> Option<Bytes> {
    let mut v: Value = serde_json::from_slice(bytes).ok()?;
    for (pointer, value) in &r.json_patch {
        set_pointer(&mut v, pointer, value.clone());
    }
    serde_json::to_vec(&v).ok().map(Bytes::from)
}

/// Sets the field at `pointer`, making objects on the way; an array index must exist.
fn set_pointer(root: &mut Value, pointer: &str, value: Value) {
    let parts: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|p| p.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((last, path)) = parts.split_last() else {
        *root = value;
        return;
    };
    let mut at = root;
    for p in path {
        at = match at {
            Value::Object(m) => m
                .entry(p.clone())
                .or_insert_with(|| Value::Object(Default::default())),
            Value::Array(a) => match p.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(x) => x,
                None => return,
            },
            _ => return,
        };
    }
    match at {
        Value::Object(m) => {
            m.insert(last.clone(), value);
        }
        Value::Array(a) => {
            if let Some(x) = last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                *x = value;
            }
        }
        _ => {}
    }
}

/// Reads a JSON request body for matching when it is small enough (and says so by its
/// length); answers the parsed value and the body to forward.
async fn read_json(parts: &Parts, body: Body, timeout: Duration) -> (Option<Value>, Body) {
    let json = parts
        .headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().contains("json"));
    let len = parts
        .headers
        .get("content-length")
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if !json || len.is_none_or(|n| n > MAX_MATCH_BODY) {
        return (None, body);
    }
    match tokio::time::timeout(timeout, body.collect()).await {
        Ok(Ok(c)) => {
            let bytes = c.to_bytes();
            (serde_json::from_slice(&bytes).ok(), Body::from(bytes))
        }
        // The app's body failed or stalled: forwarding an empty one fails as it should.
        _ => (
            None,
            Body::new(Broken(Some("the request body failed".into()))),
        ),
    }
}

impl Recorder {
    /// Applies the link's conditions and the first rule that acts on the request: answers it
    /// here, or says how to forward it.
    pub(crate) async fn shape(
        &self,
        mut draft: Draft,
        mut parts: Parts,
        body: Body,
        guard: InFlight,
    ) -> Shaped {
        let s = &self.shared;
        let cond = s.conditions.get();
        let snap = s.rules.snapshot();
        let mut plan = Plan::default();
        if cond.is_none() && snap.rules.is_empty() {
            return forward(draft, parts, body, plan, guard);
        }
        let (json, body) = if snap.needs_body {
            read_json(&parts, body, s.timeout).await
        } else {
            (None, body)
        };
        let rule = {
            let uri = parts.uri.clone();
            let view = RequestView {
                method: parts.method.as_str(),
                host: &draft.host,
                path: uri.path(),
                query: uri.query(),
                headers: &parts.headers,
                json: json.as_ref(),
            };
            snap.decide(&view)
        };
        if let Some(c) = &cond {
            plan.mocked = true;
            if c.offline || c.lost() {
                let why = if c.offline {
                    "the link is offline (proxy conditions)"
                } else {
                    "the request was lost (proxy conditions: loss)"
                };
                return Shaped::Answered(self.reset(draft, &plan, why.into()));
            }
            let latency = c.latency();
            if !latency.is_zero() {
                tokio::time::sleep(latency).await;
            }
            plan.down = c.down_bytes_per_sec();
            plan.up = c.up_bytes_per_sec();
        }
        let Some(rule) = rule else {
            return forward(draft, parts, body, plan, guard);
        };
        plan.rule_id = Some(rule.id);
        plan.mocked |= !matches!(rule.action, Action::Passthrough);
        match &rule.action {
            Action::Respond(c) => {
                return Shaped::Answered(self.respond(draft, body, c, &plan).await);
            }
            Action::Fail(Failure::Status(status)) => {
                let c = Canned {
                    status: *status,
                    headers: vec![(
                        hyper::header::CONTENT_TYPE,
                        HeaderValue::from_static("text/plain; charset=utf-8"),
                    )],
                    body: Bytes::from(format!(
                        "mobilectl proxy: {} (proxy rule {})\n",
                        status.canonical_reason().unwrap_or(""),
                        rule.id
                    )),
                    delay: Duration::ZERO,
                };
                return Shaped::Answered(self.respond(draft, body, &c, &plan).await);
            }
            Action::Fail(Failure::Reset) => {
                let why = format!("closed without an answer by proxy rule {}", rule.id);
                return Shaped::Answered(self.reset(draft, &plan, why));
            }
            Action::Fail(Failure::Timeout(hold)) => {
                let hold = hold.unwrap_or(s.timeout);
                return Shaped::Answered(self.hold(draft, &plan, hold, rule.id).await);
            }
            Action::Fail(Failure::Cut(n)) => plan.cut = Some(*n),
            Action::Delay { before, first_byte } => {
                if !before.is_zero() {
                    tokio::time::sleep(*before).await;
                }
                plan.first_byte = *first_byte;
            }
            Action::Throttle { down, up } => {
                plan.down = min_rate(plan.down, *down);
                plan.up = min_rate(plan.up, *up);
            }
            Action::Rewrite(r) => {
                for n in &r.remove_request {
                    parts.headers.remove(n);
                }
                for (n, v) in &r.set_request {
                    parts.headers.insert(n.clone(), v.clone());
                }
                if !r.json_patch.is_empty() {
                    // The answer comes unencoded, so that it can be patched.
                    parts.headers.remove("accept-encoding");
                }
                draft.request_headers = headers_of(&parts.headers);
                plan.rewrite = Some(rule.clone());
            }
            Action::Passthrough => {}
        }
        forward(draft, parts, body, plan, guard)
    }

    /// Reads (and records) the app's request body, bounded by the proxy's timeout.
    async fn drain(&self, body: Body, draft: &Draft) {
        let tee = Tee::new(body, draft.request_body.clone(), self.shared.body_cap);
        let _ = tokio::time::timeout(self.shared.timeout, tee.collect()).await;
    }

    /// A `respond` answer (or a failure status), recorded as the app gets it.
    async fn respond(&self, draft: Draft, body: Body, c: &Canned, plan: &Plan) -> Response<Body> {
        self.drain(body, &draft).await;
        if !c.delay.is_zero() {
            tokio::time::sleep(c.delay).await;
        }
        let mut r = Response::new(Body::from(c.body.clone()));
        *r.status_mut() = c.status;
        for (n, v) in &c.headers {
            r.headers_mut().append(n.clone(), v.clone());
        }
        r.headers_mut()
            .insert("content-length", HeaderValue::from(c.body.len()));
        let first_byte = ms(draft.started.elapsed());
        let cap = self.shared.body_cap.min(c.body.len());
        let response = Message {
            headers: headers_of(r.headers()),
            body: Captured {
                bytes: c.body[..cap].to_vec(),
                size: c.body.len() as u64,
            },
        };
        let timing = Timing {
            first_byte_ms: Some(first_byte),
            total_ms: first_byte,
            ..Default::default()
        };
        let mut flow = draft.flow(Some(c.status.as_u16()), Some(response), timing);
        flow.rule_id = plan.rule_id;
        flow.mocked = true;
        self.shared.store.push(flow);
        match plan.down {
            Some(rate) => {
                let (parts, body) = r.into_parts();
                Response::from_parts(parts, Body::new(Throttled::new(body, rate)))
            }
            None => r,
        }
    }

    /// Closes the app's connection without an answer, recorded as a connection failure.
    fn reset(&self, draft: Draft, plan: &Plan, why: String) -> Response<Body> {
        let mut flow = draft.failed(FailureKind::Connection, why.clone());
        flow.rule_id = plan.rule_id;
        flow.mocked = true;
        self.shared.store.push(flow);
        Response::new(Body::new(Broken(Some(why))))
    }

    /// Holds the request without answering for `hold` (or until the proxy stops), then closes
    /// the connection; recorded as a timeout when it ends (or the app gives up).
    async fn hold(&self, draft: Draft, plan: &Plan, hold: Duration, rule: u64) -> Response<Body> {
        let record = Held {
            draft: Some(draft),
            shared: self.shared.clone(),
            rule_id: plan.rule_id,
            why: format!("held without an answer by proxy rule {rule}"),
        };
        tokio::select! {
            _ = tokio::time::sleep(hold) => {}
            _ = self.shared.stopped.cancelled() => {}
        }
        let why = record.why.clone();
        drop(record);
        Response::new(Body::new(Broken(Some(why))))
    }
}

/// Records a held request when the hold ends or the app goes.
struct Held {
    draft: Option<Draft>,
    shared: Arc<crate::record::Shared>,
    rule_id: Option<u64>,
    why: String,
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(d) = self.draft.take() {
            let mut flow = d.failed(FailureKind::Timeout, self.why.clone());
            flow.rule_id = self.rule_id;
            flow.mocked = true;
            self.shared.store.push(flow);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_fields_are_set_on_the_way() {
        let r = Rewrite {
            json_patch: vec![
                ("/user/name".into(), json!("bob")),
                ("/items/0/price".into(), json!(0)),
                ("/new/deep".into(), json!(true)),
                ("/items/9/x".into(), json!(1)),
            ],
            ..Default::default()
        };
        let out = patch_json(br#"{"user":{"name":"ann"},"items":[{"price":9}]}"#, &r).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            v,
            json!({"user":{"name":"bob"},"items":[{"price":0}],"new":{"deep":true}})
        );
        assert!(patch_json(b"not json", &r).is_none());
    }
}
