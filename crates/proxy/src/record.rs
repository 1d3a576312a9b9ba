//! The recording handler [`super::listen`] calls for every request it receives (plain HTTP, and
//! HTTPS it decrypted with the proxy's CA): it forwards the request itself with a timed client, tees
//! both bodies ([`super::tee`]), and stores the exchange when the response body has ended —
//! or the failure when there was no answer (refused, DNS, TLS, timeout, blocked).
//!
//! Every request is answered here (the listener only parses), and every upstream
//! connection goes through the [`Connector`], whose [`super::guard`] refuses this host's own
//! services: a refused request is answered `403` and recorded with `error.kind: blocked` and
//! the reason. `CONNECT` tunnels and protocol switches are [`super::tunnel`]'s.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use hyper::header::{HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio_util::sync::CancellationToken;

use super::body::Body;
use super::ca::LeafIssuer;
use super::conditions::ConditionsSlot;
use super::flow::{ms, Captured, Failure, FailureKind, Flow, Header, Message, Timing};
use super::rules::apply::Shaped;
use super::rules::RuleSet;
use super::store::FlowStore;
use super::tee::{End, Tee};
use super::tunnel::{relay_upgrade, TlsWatch};
use super::upstream::{classify, ConnInfo, Connector};

/// What every request handled by one running proxy shares.
pub struct Shared {
    pub store: Arc<FlowStore>,
    pub(super) client: Client<Connector, Body>,
    pub(super) connector: Connector,
    /// The certificates shown to apps in intercepted tunnels.
    pub(super) issuer: Arc<LeafIssuer>,
    pub passthrough: Vec<String>,
    pub body_cap: usize,
    pub timeout: Duration,
    pub in_flight: AtomicUsize,
    /// Cancelled when the proxy stops: ends the tunnels.
    pub stopped: CancellationToken,
    pub rules: Arc<RuleSet>,
    pub conditions: Arc<ConditionsSlot>,
}

impl Shared {
    /// `connector` connects upstream (and says which destinations may be reached).
    pub fn new(
        store: Arc<FlowStore>,
        connector: Connector,
        issuer: Arc<LeafIssuer>,
        passthrough: Vec<String>,
        body_cap: usize,
        timeout: Duration,
        stopped: CancellationToken,
    ) -> Shared {
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .http1_title_case_headers(true)
            .http1_preserve_header_case(true)
            .build(connector.clone());
        Shared {
            store,
            client,
            connector,
            issuer,
            passthrough,
            body_cap,
            timeout,
            in_flight: AtomicUsize::new(0),
            stopped,
            rules: Arc::new(RuleSet::new()),
            conditions: Arc::new(ConditionsSlot::default()),
        }
    }

    /// With these rules and conditions (else none).
    pub fn with_rules(mut self, rules: Arc<RuleSet>, conditions: Arc<ConditionsSlot>) -> Shared {
        self.rules = rules;
        self.conditions = conditions;
        self
    }

    /// Whether `host` is tunnelled, not decrypted: a listed host or a subdomain of one.
    pub fn is_passthrough(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.passthrough
            .iter()
            .any(|p| host == *p || host.ends_with(&format!(".{p}")))
    }
}

/// One exchange being recorded.
pub(super) struct Draft {
    pub(super) started_at: DateTime<Utc>,
    pub(super) started: Instant,
    pub(super) method: String,
    pub(super) url: String,
    pub(super) host: String,
    pub(super) request_headers: Vec<Header>,
    pub(super) request_body: Arc<Mutex<Captured>>,
}

impl Draft {
    pub(super) fn flow(
        self,
        status: Option<u16>,
        response: Option<Message>,
        timing: Timing,
    ) -> Flow {
        let body = take(&self.request_body);
        Flow {
            id: 0,
            started_at: self.started_at,
            method: self.method,
            url: self.url,
            host: self.host,
            request: Message {
                headers: self.request_headers,
                body,
            },
            status,
            response,
            timing,
            error: None,
            tunnel: None,
            rule_id: None,
            mocked: false,
        }
    }

    pub(super) fn failed(self, kind: FailureKind, message: String) -> Flow {
        let total = ms(self.started.elapsed());
        let mut f = self.flow(
            None,
            None,
            Timing {
                total_ms: total,
                ..Default::default()
            },
        );
        f.error = Some(Failure { kind, message });
        f
    }
}

pub(super) fn take(c: &Arc<Mutex<Captured>>) -> Captured {
    std::mem::take(&mut *c.lock().unwrap_or_else(|e| e.into_inner()))
}

pub(super) fn headers_of(h: &HeaderMap) -> Vec<Header> {
    h.iter()
        .map(|(n, v)| {
            (
                n.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// Counts an exchange in flight until dropped.
pub(super) struct InFlight(Arc<Shared>);

impl InFlight {
    pub(super) fn new(s: &Arc<Shared>) -> InFlight {
        s.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(s.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Hop-by-hop headers, which concern one connection and are not forwarded.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "proxy-connection",
    "keep-alive",
    "proxy-authorization",
    "te",
    "trailer",
    "upgrade",
];

/// An answer of the proxy itself (the upstream gave none).
pub(super) fn proxy_answer(status: StatusCode, kind: &str, text: String) -> Response<Body> {
    let mut r = Response::new(Body::from(format!("mobilectl proxy: {text}\n")));
    *r.status_mut() = status;
    r.headers_mut().insert(
        "content-type",
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(kind) {
        r.headers_mut().insert("x-mobilectl-proxy-error", v);
    }
    r
}

/// The answer to a request that got no upstream answer: `403` when the guard refused its
/// destination, else `502`, naming the failure's kind.
pub(super) fn failure_answer(kind: FailureKind, text: String) -> Response<Body> {
    let status = if kind == FailureKind::Blocked {
        StatusCode::FORBIDDEN
    } else {
        StatusCode::BAD_GATEWAY
    };
    proxy_answer(status, &kind_name(kind), text)
}

pub(super) fn kind_name(k: FailureKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The handler the listener clones for every connection (and for every request inside an
/// intercepted tunnel, from the clone that saw its `CONNECT`).
#[derive(Clone)]
pub struct Recorder {
    pub(super) shared: Arc<Shared>,
    pub(super) tunnel: Option<Arc<TlsWatch>>,
}

impl Recorder {
    pub fn new(shared: Arc<Shared>) -> Recorder {
        Recorder {
            shared,
            tunnel: None,
        }
    }

    /// Handles one request the app sent: a `CONNECT`, or a request to forward.
    pub(super) async fn handle(&self, req: Request<Body>) -> Response<Body> {
        if req.method() == Method::CONNECT {
            return self.connect(req).await;
        }
        self.forward(req).await
    }

    /// Handles one request inside an intercepted tunnel.
    pub(super) async fn handle_inner(&self, req: Request<Body>) -> Response<Body> {
        if let Some(w) = &self.tunnel {
            w.saw_request.store(true, Ordering::Relaxed);
        }
        if req.method() == Method::CONNECT {
            return proxy_answer(
                StatusCode::METHOD_NOT_ALLOWED,
                "bad_request",
                "CONNECT inside a tunnel".into(),
            );
        }
        self.forward(req).await
    }

    async fn forward(&self, mut req: Request<Body>) -> Response<Body> {
        // A protocol switch (WebSocket…) is relayed once the upstream agrees to it.
        let app_upgrade = req
            .headers()
            .contains_key("upgrade")
            .then(|| hyper::upgrade::on(&mut req));
        let started_at = Utc::now();
        let started = Instant::now();
        let uri = req.uri().clone();
        let Some(host) = uri.host().map(str::to_string) else {
            return proxy_answer(
                StatusCode::BAD_REQUEST,
                "not_a_proxy_request",
                "this is an HTTP proxy: send absolute URLs (configure it as the proxy)".into(),
            );
        };
        let (mut parts, body) = req.into_parts();
        let draft = Draft {
            started_at,
            started,
            method: parts.method.to_string(),
            url: uri.to_string(),
            host: host.clone(),
            request_headers: headers_of(&parts.headers),
            request_body: Arc::new(Mutex::new(Captured::default())),
        };
        let s = &self.shared;
        let guard = InFlight::new(s);
        for h in HOP_BY_HOP {
            if app_upgrade.is_some() && matches!(*h, "connection" | "upgrade") {
                continue;
            }
            parts.headers.remove(*h);
        }
        parts.version = hyper::Version::HTTP_11;
        let (draft, parts, body, plan, guard) = match self.shape(draft, parts, body, guard).await {
            Shaped::Answered(r) => return r,
            Shaped::Forward(f) => (f.draft, f.parts, f.body, f.plan, f.guard),
        };
        let body = plan.request_body(body, &draft, s.body_cap);
        let up = Request::from_parts(parts, body);
        let answer = tokio::time::timeout(s.timeout, s.client.request(up)).await;
        let mark = |mut f: Flow| {
            f.rule_id = plan.rule_id;
            f.mocked = plan.mocked;
            f
        };
        let resp = match answer {
            Err(_) => {
                let msg = format!("no answer within {} ms", s.timeout.as_millis());
                s.store
                    .push(mark(draft.failed(FailureKind::Timeout, msg.clone())));
                return proxy_answer(StatusCode::GATEWAY_TIMEOUT, "timeout", msg);
            }
            Ok(Err(e)) => {
                let (kind, msg) = classify(&e);
                s.store.push(mark(draft.failed(kind, msg.clone())));
                return failure_answer(kind, msg);
            }
            Ok(Ok(r)) => r,
        };
        if !plan.first_byte.is_zero() {
            tokio::time::sleep(plan.first_byte).await;
        }
        let first_byte = started.elapsed();
        let (connect, tls) = match resp
            .extensions()
            .get::<ConnInfo>()
            .and_then(|c| c.0.first_use())
        {
            Some((c, t)) => (Some(ms(c)), t.map(ms)),
            None => (None, None),
        };
        if resp.status() == StatusCode::SWITCHING_PROTOCOLS {
            if let Some(app) = app_upgrade {
                return relay_upgrade(s.clone(), guard, draft, resp, app, connect, tls);
            }
        }
        let (mut parts, incoming) = resp.into_parts();
        let incoming = plan
            .rewrite_response(&mut parts, Body::from(incoming), s.timeout)
            .await;
        let incoming = plan.response_body(incoming);
        let status = parts.status.as_u16();
        let response_headers = headers_of(&parts.headers);
        let (rule_id, mocked) = (plan.rule_id, plan.mocked);
        let kept = Arc::new(Mutex::new(Captured::default()));
        let store = s.store.clone();
        let kept_at_end = kept.clone();
        let finish = move |end: End| {
            let _guard = guard;
            let timing = Timing {
                connect_ms: connect,
                tls_ms: tls,
                first_byte_ms: Some(ms(first_byte)),
                total_ms: ms(draft.started.elapsed()),
            };
            let error = match end {
                End::Complete => None,
                End::Failed(e) => {
                    let (kind, message) = classify(&e);
                    Some(Failure { kind, message })
                }
                End::Stalled(limit) => Some(Failure {
                    kind: FailureKind::Timeout,
                    message: format!("the response body stopped for {} ms", limit.as_millis()),
                }),
                End::Dropped => Some(Failure {
                    kind: FailureKind::Aborted,
                    message: "the app closed the connection before the response body ended".into(),
                }),
            };
            let response = Message {
                headers: response_headers,
                body: take(&kept_at_end),
            };
            let mut flow = draft.flow(Some(status), Some(response), timing);
            flow.error = error;
            flow.rule_id = rule_id;
            flow.mocked = mocked;
            store.push(flow);
        };
        let body = Tee::new(incoming, kept, s.body_cap)
            .idle_limit(s.timeout)
            .on_end(finish);
        Response::from_parts(parts, Body::new(body))
    }
}
