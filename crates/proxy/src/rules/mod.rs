//! Rules of the recording proxy: mocks, delays, throttles, failures, rewrites and
//! passthroughs, evaluated in order for each request (the first rule that matches and may
//! act — `nth`, `times` — decides; the others are not consulted). [`spec`] is the rule as the
//! API takes it and its validation, [`matcher`] what a rule matches, [`body`] the bodies the
//! actions shape; [`RuleSet`] holds the list (bounded: [`MAX_RULES`] rules, [`MAX_BYTES`] of
//! bodies) and answers the rule for a request. A rule list swap is atomic: a request sees the
//! list before or after a change, never half of it.
//!
//! A rule added by a request in a session belongs to that session and ends with it
//! ([`RuleSet::forget_sessions`], run when a session ends and at the server's reaper tick).

pub(crate) mod apply;
pub mod body;
pub mod matcher;
pub mod spec;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use serde_json::json;

use matcher::RequestView;
use mobilectl_error::{Error, ErrorCode, Op, Result, Step};
use spec::{compile, ReadBodyFile, Rule, RuleSpec, RuleView};

/// At most this many rules.
pub const MAX_RULES: usize = 1000;
/// At most this many bytes of `respond` bodies over all rules.
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// The rules as one request sees them.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// The rules in evaluation order.
    pub rules: Vec<Arc<Rule>>,
    /// A rule matches on a JSON body field: requests' bodies are read first.
    pub needs_body: bool,
}

impl Snapshot {
    /// The rule that acts on `r`, counted.
    pub fn decide(&self, r: &RequestView<'_>) -> Option<Arc<Rule>> {
        self.rules
            .iter()
            .find(|rule| rule.matcher.matches(r) && rule.claim())
            .cloned()
    }
}

/// The proxy's rules (kept across proxy restarts, cleared with DELETE).
#[derive(Debug, Default)]
pub struct RuleSet {
    current: RwLock<Arc<Snapshot>>,
    next_id: AtomicU64,
}

impl RuleSet {
    /// No rules.
    pub fn new() -> RuleSet {
        RuleSet::default()
    }

    /// The rules as they are now; later changes do not reach it.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Adds `specs` at the end (or at `at`), all or none: each is checked whole first. A
    /// `body_file` is refused (the server's routes read it: [`Self::add_for`]).
    pub fn add(&self, specs: Vec<RuleSpec>, at: Option<usize>) -> Result<Vec<RuleView>> {
        self.add_for(specs, at, None, None)
    }

    /// [`Self::add`], the rules belonging to `session` (they end with it) when one is given,
    /// their body files read by `read` now (the bytes are kept with the rule).
    pub fn add_for(
        &self,
        specs: Vec<RuleSpec>,
        at: Option<usize>,
        session: Option<String>,
        read: Option<ReadBodyFile<'_>>,
    ) -> Result<Vec<RuleView>> {
        let mut compiled = Vec::with_capacity(specs.len());
        for (i, s) in specs.into_iter().enumerate() {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
            let rule = compile(id, s, read).map_err(|e| {
                if i == 0 {
                    e
                } else {
                    let details = json!({ "rule": i, "details": e.details });
                    Error {
                        details: Some(details),
                        message: format!("rule {i}: {}", e.message),
                        ..e
                    }
                }
            })?;
            let mut rule = rule;
            rule.session = session.clone();
            compiled.push(Arc::new(rule));
        }
        let mut w = self.current.write().unwrap_or_else(|e| e.into_inner());
        let mut rules = w.rules.clone();
        if rules.len() + compiled.len() > MAX_RULES {
            return Err(Error::new(
                ErrorCode::ValidationFailed,
                format!(
                    "the proxy holds at most {MAX_RULES} rules ({} now, {} more asked)",
                    rules.len(),
                    compiled.len()
                ),
            )
            .with_next(
                "delete rules no longer needed: {0}, or all of them",
                [Step::call(Op::DeleteProxyRule)],
            )
            .with_details(json!({ "limit": MAX_RULES })));
        }
        let bytes: usize = rules
            .iter()
            .chain(compiled.iter())
            .map(|r| r.footprint())
            .sum();
        if bytes > MAX_BYTES {
            return Err(Error::new(
                ErrorCode::PayloadTooLarge,
                format!("the rules' bodies would hold {bytes} bytes; at most {MAX_BYTES}"),
            )
            .with_details(json!({ "limit": MAX_BYTES })));
        }
        let at = at.unwrap_or(rules.len()).min(rules.len());
        let added: Vec<Arc<Rule>> = compiled.clone();
        rules.splice(at..at, compiled);
        let needs_body = rules.iter().any(|r| r.matcher.needs_body());
        *w = Arc::new(Snapshot { rules, needs_body });
        let views = w
            .rules
            .iter()
            .enumerate()
            .filter(|(_, r)| added.iter().any(|a| a.id == r.id))
            .map(|(i, r)| r.view(i))
            .collect();
        Ok(views)
    }

    /// Every rule as shown, in evaluation order.
    pub fn list(&self) -> Vec<RuleView> {
        self.snapshot()
            .rules
            .iter()
            .enumerate()
            .map(|(i, r)| r.view(i))
            .collect()
    }

    /// How many rules there are.
    pub fn len(&self) -> usize {
        self.snapshot().rules.len()
    }

    /// Whether there are no rules.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes rule `id`; answers it as it was.
    pub fn remove(&self, id: u64) -> Result<RuleView> {
        let snap = self.snapshot();
        let Some(at) = snap.rules.iter().position(|r| r.id == id) else {
            return Err(Error::new(ErrorCode::NotFound, format!("no rule {id}"))
                .with_next("list the rules: {0}", [Step::call(Op::ListProxyRules)]));
        };
        let view = snap.rules[at].view(at);
        let mut w = self.current.write().unwrap_or_else(|e| e.into_inner());
        let rules: Vec<Arc<Rule>> = w.rules.iter().filter(|r| r.id != id).cloned().collect();
        let needs_body = rules.iter().any(|r| r.matcher.needs_body());
        *w = Arc::new(Snapshot { rules, needs_body });
        Ok(view)
    }

    /// Removes the rules of sessions that are no longer live; answers how many.
    pub fn forget_sessions(&self, live: impl Fn(&str) -> bool) -> usize {
        self.remove_where(|session| session.is_some_and(|s| !live(s)))
    }

    /// Removes the rules whose owning session (`None`: added outside any) `gone` picks;
    /// answers how many.
    pub fn remove_where(&self, gone: impl Fn(Option<&str>) -> bool) -> usize {
        let picked = |r: &Arc<Rule>| gone(r.session.as_deref());
        if !self.snapshot().rules.iter().any(picked) {
            return 0;
        }
        let mut w = self.current.write().unwrap_or_else(|e| e.into_inner());
        let before = w.rules.len();
        let rules: Vec<Arc<Rule>> = w.rules.iter().filter(|r| !picked(r)).cloned().collect();
        let removed = before - rules.len();
        let needs_body = rules.iter().any(|r| r.matcher.needs_body());
        *w = Arc::new(Snapshot { rules, needs_body });
        removed
    }

    /// Removes every rule; answers how many there were.
    pub fn clear(&self) -> usize {
        self.remove_where(|_| true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::HeaderMap;

    fn spec(v: serde_json::Value) -> RuleSpec {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn the_first_rule_that_may_act_decides_in_order() {
        let set = RuleSet::new();
        set.add(
            vec![
                spec(json!({"path": "/a", "times": 1, "status": 201})),
                spec(json!({"path": "/a", "status": 202})),
            ],
            None,
        )
        .unwrap();
        let h = HeaderMap::new();
        let r = RequestView {
            method: "GET",
            host: "x.com",
            path: "/a/b",
            query: None,
            headers: &h,
            json: None,
        };
        let ids: Vec<u64> = (0..3)
            .map(|_| set.snapshot().decide(&r).unwrap().id)
            .collect();
        assert_eq!(ids, [1, 2, 2]);
        // A bad rule in a batch adds nothing.
        let e = set
            .add(
                vec![spec(json!({})), spec(json!({"path_regex": "("}))],
                None,
            )
            .unwrap_err();
        assert!(e.message.starts_with("rule 1:"), "{}", e.message);
        assert_eq!(set.len(), 2);
        // Inserted first, it is evaluated first.
        let v = set
            .add(vec![spec(json!({"path": "/a", "status": 203}))], Some(0))
            .unwrap();
        assert_eq!(v[0].position, 0);
        assert_eq!(set.snapshot().decide(&r).unwrap().id, v[0].id);
        assert_eq!(set.remove(v[0].id).unwrap().hits, 1);
        assert!(set.remove(v[0].id).is_err());
        assert_eq!(set.clear(), 2);
        assert!(set.snapshot().decide(&r).is_none());
    }

    #[test]
    fn the_count_is_bounded() {
        let set = RuleSet::new();
        set.add(vec![RuleSpec::default(); MAX_RULES], None).unwrap();
        let e = set.add(vec![RuleSpec::default()], None).unwrap_err();
        assert!(e.message.contains("at most"), "{}", e.message);
        assert_eq!(set.len(), MAX_RULES);
    }
}
