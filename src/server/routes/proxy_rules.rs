//! Shaping what goes through the recording proxy: its rules (add, list, remove one, clear,
//! replay a HAR as rules), the link's conditions (set, clear), and the recorded flows as HAR.
//! What a session adds or sets is its own: other callers neither see nor change its rules, nor
//! change the conditions it set ([`crate::controller::may_see`]), and they end with it.
//! A rule's `body_file` is read here, once, under the files root ([`read_body_file`]).

use axum::Json;

use crate::api::wire::proxy::*;
use crate::controller::may_see;
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::proxy::conditions::LinkConditions;
use crate::proxy::rules::spec::MAX_BODY;
use crate::proxy::rules::MAX_RULES;
use crate::server::AppState;

/// Adds a rule at the end of the list.
/// In a session, the rule belongs to it and ends with it.
pub async fn add(s: AppState, r: RuleSpec) -> Result<Json<RuleView>> {
    let read = |f: &str| read_body_file(&s, f);
    let mut added = s
        .proxy
        .rules()
        .add_for(vec![r], None, session_id(), Some(&read))?;
    added
        .pop()
        .map(Json)
        .ok_or_else(|| crate::error::Error::internal("the rule added is not listed"))
}

/// Every rule, in the order they are tried, and the most there may be.
pub async fn list(s: AppState) -> Result<Json<RuleList>> {
    let mut rules = s.proxy.rules().list();
    rules.retain(|r| may_see(r.session.as_deref()));
    Ok(Json(RuleList {
        rules,
        limit: MAX_RULES,
    }))
}

/// Removes one rule by id; answers it. Another session's rule answers as none would.
pub async fn delete(s: AppState, q: RuleQuery) -> Result<Json<RuleView>> {
    let theirs = s
        .proxy
        .rules()
        .list()
        .into_iter()
        .any(|r| r.id == q.id && !may_see(r.session.as_deref()));
    if theirs {
        return Err(
            Error::new(ErrorCode::NotFound, format!("no rule {}", q.id)).with_next(
                "list the rules this caller may change: {0} (a session's rules are its own)",
                [Step::call(Op::ListProxyRules)],
            ),
        );
    }
    Ok(Json(s.proxy.rules().remove(q.id)?))
}

/// Removes every rule the caller may change (its session's, or the session-less ones);
/// answers how many.
pub async fn clear(s: AppState) -> Result<Json<Cleared>> {
    Ok(Json(Cleared {
        cleared: s.proxy.rules().remove_where(may_see),
    }))
}

/// A HAR's answers as `respond` rules, all or none.
pub async fn from_har(s: AppState, r: RulesFromHarRequest) -> Result<Json<RulesAdded>> {
    let specs = crate::proxy::har::rules_from(&r.har, r.host.as_deref())?;
    let read = |f: &str| read_body_file(&s, f);
    let added = s
        .proxy
        .rules()
        .add_for(specs, None, session_id(), Some(&read))?;
    Ok(Json(RulesAdded {
        added,
        total: s.proxy.rules().len(),
    }))
}

/// Sets the link's conditions (latency, bandwidth, loss…), replacing any; answers them and the
/// previous ones.
pub async fn set_conditions(s: AppState, r: ConditionsRequest) -> Result<Json<ConditionsState>> {
    let c = LinkConditions::from_request(&r)?;
    conditions_are_mine(&s)?;
    let previous = s.proxy.conditions().set_by(Some(c), session_id());
    Ok(Json(ConditionsState {
        conditions: s.proxy.conditions().get().map(|c| (*c).clone()),
        previous: previous.map(|c| (*c).clone()),
    }))
}

/// Lifts the link's conditions; answers the previous ones.
pub async fn clear_conditions(s: AppState) -> Result<Json<ConditionsState>> {
    conditions_are_mine(&s)?;
    let previous = s.proxy.conditions().set_by(None, None);
    Ok(Json(ConditionsState {
        conditions: None,
        previous: previous.map(|c| (*c).clone()),
    }))
}

/// Every recorded flow as HAR 1.2.
pub async fn har(s: AppState) -> Result<Json<Har>> {
    let flows = s.proxy.store().after(0);
    Ok(Json(crate::proxy::har::export(&flows)))
}

/// Refuses to change the link's conditions that another session set (they are its own until
/// it lifts them or ends).
fn conditions_are_mine(s: &AppState) -> Result<()> {
    match s.proxy.conditions().owner() {
        Some(owner) if !may_see(Some(&owner)) => Err(Error::new(
            ErrorCode::SessionForbidden,
            "the link's conditions were set by another session",
        )
        .with_hint("they are that session's until it lifts them or ends; the server's admin token (`Mobilectl-Admin`) may change them")),
        _ => Ok(()),
    }
}

/// A rule's body file, read now: a path under the files root (relative to it, or absolute
/// inside it), resolved as a push's file is (symlinks on the way included), a regular file,
/// never in the state directory (the proxy CA's key); at most [`MAX_BODY`] + 1 bytes.
fn read_body_file(s: &AppState, f: &str) -> Result<Vec<u8>> {
    let state_dir = s.proxy.options().state_dir.as_deref();
    let root = s.options.files_root();
    crate::controller::read_under(&root, f, MAX_BODY as u64, state_dir).map(|(_, bytes)| bytes)
}

/// The id of the request's session, if it runs in one.
fn session_id() -> Option<String> {
    crate::controller::current_session().map(|s| s.id.clone())
}
