//! The flow summary (seed 004's `get_flow_summary`): what the app's traffic looked like since a
//! time, in a few lines an agent can read: counts by host and by status class, the failures
//! (newest first) and the slowest exchanges.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Serialize;
use utoipa::ToSchema;

use super::flow::{Flow, FlowLine};

/// At most this many failures are listed.
pub const FAILURES_LISTED: usize = 10;
/// At most this many slowest exchanges are listed.
pub const SLOWEST_LISTED: usize = 5;
const HOSTS_LISTED: usize = 20;

/// Exchanges to one host.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HostCount {
    pub host: String,
    pub flows: usize,
    pub failed: usize,
}

/// Traffic in brief.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FlowSummary {
    /// Exchanges counted.
    pub flows: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_at: Option<String>,
    /// Busiest hosts first (at most 20).
    pub by_host: Vec<HostCount>,
    /// By status class (`2xx`…) and `error` for exchanges without an answer.
    pub by_status: BTreeMap<String, usize>,
    /// Failed exchanges (no answer, 4xx, 5xx), newest first.
    pub failures: Vec<FlowLine>,
    pub failures_total: usize,
    /// Slowest first.
    pub slowest: Vec<FlowLine>,
    /// Exchanges the store evicted since the server started (not counted here).
    pub evicted: u64,
    /// Exchanges a proxy rule or the link's conditions acted on (mocked, failed, delayed…).
    pub mocked: usize,
    /// How many exchanges each rule acted on, by rule id.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_rule: BTreeMap<String, usize>,
}

/// Summarises `flows` (oldest first, already filtered).
pub fn summarise(flows: &[Arc<Flow>], evicted: u64) -> FlowSummary {
    let mut hosts: HashMap<&str, HostCount> = HashMap::new();
    let mut by_status = BTreeMap::new();
    let mut by_rule = BTreeMap::new();
    let mut mocked = 0;
    for f in flows {
        mocked += usize::from(f.mocked);
        if let Some(r) = f.rule_id {
            *by_rule.entry(r.to_string()).or_insert(0) += 1;
        }
        let h = hosts.entry(f.host.as_str()).or_insert_with(|| HostCount {
            host: f.host.clone(),
            flows: 0,
            failed: 0,
        });
        h.flows += 1;
        h.failed += usize::from(f.failed());
        let class = match f.status {
            Some(s) => format!("{}xx", s / 100),
            None => "error".to_string(),
        };
        *by_status.entry(class).or_insert(0) += 1;
    }
    let mut by_host: Vec<HostCount> = hosts.into_values().collect();
    by_host.sort_by(|a, b| b.flows.cmp(&a.flows).then_with(|| a.host.cmp(&b.host)));
    by_host.truncate(HOSTS_LISTED);
    let failed: Vec<&Arc<Flow>> = flows.iter().filter(|f| f.failed()).collect();
    let mut slowest: Vec<&Arc<Flow>> = flows.iter().collect();
    slowest.sort_by(|a, b| b.timing.total_ms.total_cmp(&a.timing.total_ms));
    FlowSummary {
        flows: flows.len(),
        first_at: flows.first().map(|f| super::flow::rfc3339(f.started_at)),
        last_at: flows.last().map(|f| super::flow::rfc3339(f.started_at)),
        by_host,
        by_status,
        failures_total: failed.len(),
        failures: failed
            .iter()
            .rev()
            .take(FAILURES_LISTED)
            .map(|f| f.line())
            .collect(),
        slowest: slowest
            .iter()
            .take(SLOWEST_LISTED)
            .map(|f| f.line())
            .collect(),
        evicted,
        mocked,
        by_rule,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::{Failure, FailureKind, Message, Timing};

    fn flow(id: u64, host: &str, status: Option<u16>, ms: f64) -> Arc<Flow> {
        Arc::new(Flow {
            id,
            started_at: chrono::Utc::now(),
            method: "GET".into(),
            url: format!("http://{host}/{id}"),
            host: host.into(),
            request: Message::default(),
            status,
            response: None,
            timing: Timing {
                total_ms: ms,
                ..Default::default()
            },
            error: status.is_none().then(|| Failure {
                kind: FailureKind::Timeout,
                message: "no answer".into(),
            }),
            tunnel: None,
            rule_id: None,
            mocked: false,
        })
    }

    #[test]
    fn counts_failures_and_slowest() {
        let flows = vec![
            flow(1, "a.com", Some(200), 10.0),
            flow(2, "a.com", Some(500), 30.0),
            flow(3, "b.com", None, 5000.0),
            flow(4, "a.com", Some(201), 1.0),
        ];
        let s = summarise(&flows, 3);
        assert_eq!(s.flows, 4);
        assert_eq!(
            (
                s.by_host[0].host.as_str(),
                s.by_host[0].flows,
                s.by_host[0].failed
            ),
            ("a.com", 3, 1)
        );
        assert_eq!(s.by_status["2xx"], 2);
        assert_eq!(s.by_status["5xx"], 1);
        assert_eq!(s.by_status["error"], 1);
        assert_eq!(s.failures.iter().map(|f| f.id).collect::<Vec<_>>(), [3, 2]);
        assert_eq!(s.slowest[0].id, 3);
        assert_eq!(s.evicted, 3);
        assert!(summarise(&[], 0).first_at.is_none());
    }
}
