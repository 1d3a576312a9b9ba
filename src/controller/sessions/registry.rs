//! The session registry: live sessions by id and name, who leases which device, the sessions
//! that ended or expired (remembered for a while so their callers get a clear answer), and the
//! queue of sessions waiting for a device (first come, first served). It knows nothing of
//! devices beyond their udids: the controller lists them and asks here who holds what.
//!
//! Time is `tokio::time::Instant`, so expiry is tested on paused time.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use serde_json::json;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::matching;
use crate::api::wire::sessions::{CreateSession, DeviceMatch, Lease, SessionInfo};
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};

/// Idle expiry when a session does not say.
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);
/// The longest idle expiry a session may ask for.
pub const MAX_TTL_S: u64 = 86_400;
/// The longest a session may wait for a device.
pub const MAX_WAIT_MS: u64 = 600_000;
/// How many ended or expired sessions are remembered.
const REMEMBERED: usize = 4096;
/// How many sessions may be live at once.
pub const MAX_LIVE: usize = 1024;

/// One caller's context on the server.
#[derive(Debug)]
pub struct Session {
    /// Its id (`ses-…`), unique on this server.
    pub id: String,
    /// The name its creator gave it, unique among live sessions; usable in place of the id.
    pub name: Option<String>,
    /// The device asked for by udid or name, if any.
    pub wanted_udid: Option<String>,
    /// The devices it will take, if it said.
    pub wanted: Option<DeviceMatch>,
    /// Its default app.
    pub app: Option<String>,
    /// How long it lives idle: it expires this long after its last request ended.
    pub ttl: Duration,
    /// How long its (lazy) lease may wait for a free device.
    pub wait: Duration,
    created: SystemTime,
    state: Mutex<SessionState>,
}

#[derive(Debug)]
struct SessionState {
    /// The leased device.
    device: Option<String>,
    last_used: Instant,
    /// Requests in this session that have not answered yet: a session never expires under one.
    inflight: usize,
    requests: u64,
    /// Queued for a device.
    waiting: bool,
}

impl Session {
    fn state(&self) -> MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The udid of the device it leases.
    pub fn device(&self) -> Option<String> {
        self.state().device.clone()
    }

    fn expires(&self) -> Instant {
        self.state().last_used + self.ttl
    }

    fn expired(&self, now: Instant) -> bool {
        let s = self.state();
        s.inflight == 0 && now >= s.last_used + self.ttl
    }

    /// What the caller sees of it (with the leased device as listed, when known).
    pub fn info(&self, device: Option<Device>) -> SessionInfo {
        let (udid, requests, waiting) = {
            let s = self.state();
            (s.device.clone(), s.requests, s.waiting)
        };
        let (expires_at, expires_in_ms) = wall(self.expires());
        SessionInfo {
            id: self.id.clone(),
            name: self.name.clone(),
            device: device.filter(|d| Some(&d.udid) == udid.as_ref()),
            udid,
            r#match: self.wanted.clone(),
            app: self.app.clone(),
            ttl_s: self.ttl.as_secs(),
            created_at: rfc3339(self.created),
            expires_at,
            expires_in_ms,
            requests,
            waiting,
        }
    }

    /// Its lease, if it holds one.
    pub fn lease(&self) -> Option<Lease> {
        let udid = self.device()?;
        let (expires_at, expires_in_ms) = wall(self.expires());
        Some(Lease {
            udid,
            session: self.id.clone(),
            name: self.name.clone(),
            expires_at,
            expires_in_ms,
        })
    }

    /// How the session is named in messages: its name, else its id.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.id)
    }

    /// Whether `device` is one this session would take.
    pub fn wants(&self, device: &Device) -> bool {
        matching::wanted(self.wanted_udid.as_deref(), self.wanted.as_ref(), device)
    }
}

/// An instant as RFC 3339 wall-clock time, and how far ahead it is.
fn wall(at: Instant) -> (String, u64) {
    let ahead = at.saturating_duration_since(Instant::now());
    (rfc3339(SystemTime::now() + ahead), ahead.as_millis() as u64)
}

fn rfc3339(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Why a session is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gone {
    /// Idle longer than its TTL.
    Expired,
    /// Ended by its caller (DELETE, or its MCP connection closed).
    Ended,
}

/// A session that is no longer live.
#[derive(Debug, Clone)]
struct Remembered {
    id: String,
    name: Option<String>,
    why: Gone,
    when: SystemTime,
}

/// A session waiting for a device, in arrival order.
#[derive(Debug)]
struct Waiter {
    ticket: u64,
    session: Arc<Session>,
}

/// A request's hold on its session: renews the session when the request ends too, and keeps
/// it from expiring while the request runs.
#[derive(Debug)]
pub struct Entered {
    /// The session the request runs in.
    pub session: Arc<Session>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let mut s = self.session.state();
        s.inflight = s.inflight.saturating_sub(1);
        s.last_used = Instant::now();
    }
}

/// A place in the queue for a device; leaving it (drop) leaves the queue, so a waiter whose
/// caller went away never holds up the ones behind it.
#[derive(Debug)]
pub struct Queued<'a> {
    registry: &'a SessionRegistry,
    pub ticket: u64,
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.registry.dequeue(self.ticket);
    }
}

/// A session that ended, with the lease it released.
#[derive(Debug, Clone)]
pub struct Ended {
    pub session: Arc<Session>,
    pub released: Option<String>,
    pub why: Gone,
}

/// Every session of the server.
#[derive(Debug, Default)]
pub struct SessionRegistry {
    inner: Mutex<Inner>,
    /// Wakes the sessions waiting for a device when a lease is released.
    released: Notify,
}

#[derive(Debug, Default)]
struct Inner {
    live: HashMap<String, Arc<Session>>,
    /// name → id, of live sessions.
    names: HashMap<String, String>,
    /// udid → id of the session that leases it.
    leases: HashMap<String, String>,
    gone: VecDeque<Remembered>,
    queue: Vec<Waiter>,
    next_ticket: u64,
}

impl Inner {
    fn find(&self, key: &str) -> Option<&Arc<Session>> {
        self.live
            .get(key)
            .or_else(|| self.names.get(key).and_then(|id| self.live.get(id)))
    }

    /// Takes `session` out of the live ones; the lease it held is released.
    fn remove(&mut self, session: &Arc<Session>, why: Gone) -> Ended {
        self.live.remove(&session.id);
        if let Some(n) = &session.name {
            if self.names.get(n) == Some(&session.id) {
                self.names.remove(n);
            }
        }
        self.queue.retain(|w| w.session.id != session.id);
        let released = session.state().device.take();
        if let Some(u) = &released {
            self.leases.remove(u);
        }
        self.gone.push_back(Remembered {
            id: session.id.clone(),
            name: session.name.clone(),
            why,
            when: SystemTime::now(),
        });
        while self.gone.len() > REMEMBERED {
            self.gone.pop_front();
        }
        Ended {
            session: session.clone(),
            released,
            why,
        }
    }

    /// The error for a key that names no live session.
    fn not_live(&self, key: &str) -> Error {
        let gone = self
            .gone
            .iter()
            .rev()
            .find(|g| g.id == key || g.name.as_deref() == Some(key));
        match gone {
            Some(g) if g.why == Gone::Expired => Error::new(
                ErrorCode::SessionExpired,
                format!("session `{key}` expired at {} (idle past its TTL); its lease was released", rfc3339(g.when)),
            )
            .with_hint("start a new session with POST /api/v1/sessions (a longer ttl_s keeps it alive while idle)")
            .with_details(json!({ "session": g.id, "name": g.name })),
            Some(g) => Error::new(
                ErrorCode::SessionNotFound,
                format!("session `{key}` was ended at {}", rfc3339(g.when)),
            )
            .with_hint("start a new session with POST /api/v1/sessions")
            .with_details(json!({ "session": g.id, "name": g.name })),
            None => Error::new(ErrorCode::SessionNotFound, format!("no session `{key}`"))
                .with_hint("list the live ones with GET /api/v1/sessions, or start one with POST /api/v1/sessions"),
        }
    }
}

/// Checks a session name: 1–64 of letters, digits, `.`, `_`, `-` (it names a CLI state file).
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && !name.starts_with('.')
        && !name.starts_with("ses-");
    if ok {
        return Ok(());
    }
    Err(
        Error::validation(format!("`{name}` is not a session name")).with_hint(
            "1–64 letters, digits, `.`, `_` or `-`, not starting with `.` or `ses-` (ids do)",
        ),
    )
}

/// A new id: `ses-` and 16 hex digits from the OS's random source.
fn new_id() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::getrandom(&mut bytes).is_err() {
        // No OS randomness: still unique (time and a counter), if guessable.
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let t = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos() as u64;
        bytes = (t ^ n.rotate_left(48)).to_be_bytes();
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("ses-{hex}")
}

impl SessionRegistry {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Checks and registers a new session (without a lease: the controller takes it).
    pub fn create(&self, req: &CreateSession) -> Result<Arc<Session>> {
        if let Some(n) = &req.name {
            check_name(n)?;
        }
        let ttl_s = req.ttl_s.unwrap_or(DEFAULT_TTL.as_secs());
        if !(1..=MAX_TTL_S).contains(&ttl_s) {
            return Err(Error::validation(format!("ttl_s {ttl_s} is out of range"))
                .with_hint(format!("1 to {MAX_TTL_S} seconds; the default is 600")));
        }
        let wait_ms = req.wait_ms.unwrap_or(0);
        if wait_ms > MAX_WAIT_MS {
            return Err(
                Error::validation(format!("wait_ms {wait_ms} is out of range"))
                    .with_hint(format!("0 to {MAX_WAIT_MS} ms")),
            );
        }
        let udid = req.udid.clone().filter(|u| !u.is_empty());
        if udid.is_some() && req.r#match.is_some() {
            return Err(Error::validation("give `udid` or `match`, not both")
                .with_hint("`udid` names one device; `match` takes the first free one that fits"));
        }
        if let Some(m) = &req.r#match {
            matching::check(m)?;
        }
        let mut inner = self.inner();
        if let Some(n) = &req.name {
            if let Some(holder) = inner.find(n) {
                return Err(Error::new(
                    ErrorCode::SessionNameTaken,
                    format!("a live session is named `{n}`"),
                )
                .with_hint("use it (Mobilectl-Session: NAME), end it (DELETE /api/v1/sessions/NAME), or choose another name")
                .with_details(json!({ "session": holder.id })));
            }
        }
        if inner.live.len() >= MAX_LIVE {
            return Err(Error::new(
                ErrorCode::Busy,
                format!("{MAX_LIVE} sessions are live, the most this server keeps"),
            )
            .with_hint("end sessions you no longer use (DELETE /api/v1/sessions/{id})"));
        }
        let session = Arc::new(Session {
            id: new_id(),
            name: req.name.clone(),
            wanted_udid: udid,
            wanted: req.r#match.clone(),
            app: req.app.clone().filter(|a| !a.is_empty()),
            ttl: Duration::from_secs(ttl_s),
            wait: Duration::from_millis(wait_ms),
            created: SystemTime::now(),
            state: Mutex::new(SessionState {
                device: None,
                last_used: Instant::now(),
                inflight: 0,
                requests: 0,
                waiting: false,
            }),
        });
        inner.live.insert(session.id.clone(), session.clone());
        if let Some(n) = &session.name {
            inner.names.insert(n.clone(), session.id.clone());
        }
        Ok(session)
    }

    /// The live session named `key` (id or name), renewed; a request holds it until the
    /// returned guard drops. An expired one is expired now (and answers 410).
    pub fn enter(&self, key: &str) -> Result<Entered> {
        let mut inner = self.inner();
        let Some(session) = inner.find(key).cloned() else {
            return Err(inner.not_live(key));
        };
        let now = Instant::now();
        if session.expired(now) {
            let ended = inner.remove(&session, Gone::Expired);
            drop(inner);
            self.released.notify_waiters();
            let err = self.inner().not_live(key);
            log_ended(&ended);
            return Err(err);
        }
        {
            let mut s = session.state();
            s.inflight += 1;
            s.requests += 1;
            s.last_used = now;
        }
        Ok(Entered { session })
    }

    /// The live session named `key`, without renewing it.
    pub fn get(&self, key: &str) -> Result<Arc<Session>> {
        let inner = self.inner();
        match inner.find(key) {
            Some(s) if !s.expired(Instant::now()) => Ok(s.clone()),
            _ => Err(inner.not_live(key)),
        }
    }

    /// Ends the session named `key`; answers what it released.
    pub fn end(&self, key: &str, why: Gone) -> Result<Ended> {
        let mut inner = self.inner();
        let Some(session) = inner.find(key).cloned() else {
            return Err(inner.not_live(key));
        };
        let ended = inner.remove(&session, why);
        drop(inner);
        self.released.notify_waiters();
        log_ended(&ended);
        Ok(ended)
    }

    /// Gives back the session's lease and keeps the session (its next device operation may
    /// lease again). Answers the device released.
    pub fn release(&self, session: &Session) -> Option<String> {
        let mut inner = self.inner();
        let released = session.state().device.take();
        if let Some(u) = &released {
            inner.leases.remove(u);
        }
        drop(inner);
        if let Some(u) = &released {
            tracing::info!(session = %session.id, name = session.name.as_deref().unwrap_or(""), udid = %u, reason = "released", "lease released");
            self.released.notify_waiters();
        }
        released
    }

    /// Expires the sessions idle past their TTL; answers them.
    pub fn sweep(&self) -> Vec<Ended> {
        let now = Instant::now();
        let mut inner = self.inner();
        let expired: Vec<Arc<Session>> = inner
            .live
            .values()
            .filter(|s| s.expired(now))
            .cloned()
            .collect();
        let ended: Vec<Ended> = expired
            .iter()
            .map(|s| inner.remove(s, Gone::Expired))
            .collect();
        drop(inner);
        if !ended.is_empty() {
            self.released.notify_waiters();
        }
        for e in &ended {
            log_ended(e);
        }
        ended
    }

    /// When the next live session expires, if any does.
    pub fn next_expiry(&self) -> Option<Instant> {
        self.inner().live.values().map(|s| s.expires()).min()
    }

    /// The live sessions, oldest first.
    pub fn list(&self) -> Vec<Arc<Session>> {
        let mut all: Vec<Arc<Session>> = self.inner().live.values().cloned().collect();
        all.sort_by_key(|s| s.created);
        all
    }

    /// The live session that leases `udid`.
    /// An expired holder is expired now, and the device is free.
    pub fn holder(&self, udid: &str) -> Option<Arc<Session>> {
        let mut inner = self.inner();
        let id = inner.leases.get(udid)?.clone();
        let session = inner.live.get(&id)?.clone();
        if !session.expired(Instant::now()) {
            return Some(session);
        }
        let ended = inner.remove(&session, Gone::Expired);
        drop(inner);
        self.released.notify_waiters();
        log_ended(&ended);
        None
    }

    /// Joins the queue of sessions waiting for a device, until the answer drops.
    pub fn enqueue(&self, session: &Arc<Session>) -> Queued<'_> {
        let mut inner = self.inner();
        inner.next_ticket += 1;
        let ticket = inner.next_ticket;
        inner.queue.push(Waiter {
            ticket,
            session: session.clone(),
        });
        session.state().waiting = true;
        Queued {
            registry: self,
            ticket,
        }
    }

    /// Leaves the queue.
    fn dequeue(&self, ticket: u64) {
        self.inner().queue.retain(|w| {
            let mine = w.ticket == ticket;
            if mine {
                w.session.state().waiting = false;
            }
            !mine
        });
    }

    /// Leases to `session` the first of `candidates` (ready devices it would take, in listing
    /// order) that no live session holds and no session ahead of `ticket` in the queue would
    /// take first. Answers the udid, or `None` when every candidate is taken.
    pub fn try_take(
        &self,
        session: &Arc<Session>,
        candidates: &[Device],
        ticket: Option<u64>,
    ) -> Result<Option<String>> {
        // Leases of sessions past their TTL do not count.
        self.sweep();
        let mut inner = self.inner();
        if !inner.live.contains_key(&session.id) {
            return Err(inner.not_live(&session.id));
        }
        if let Some(held) = session.device() {
            return Ok(Some(held));
        }
        let mut free: Vec<&Device> = candidates
            .iter()
            .filter(|d| !inner.leases.contains_key(&d.udid))
            .collect();
        // Earlier waiters choose first, in order, each the first free device it would take.
        // A session that is not queued comes after every queued one.
        for w in inner.queue.iter().take_while(|w| Some(w.ticket) != ticket) {
            if let Some(i) = free.iter().position(|d| w.session.wants(d)) {
                free.remove(i);
            }
        }
        let Some(device) = free.first() else {
            return Ok(None);
        };
        let udid = device.udid.clone();
        inner.leases.insert(udid.clone(), session.id.clone());
        session.state().device = Some(udid.clone());
        drop(inner);
        tracing::info!(session = %session.id, name = session.name.as_deref().unwrap_or(""), udid = %udid, "lease taken");
        Ok(Some(udid))
    }

    /// Resolves when a lease is next released. Take it before checking for a free device,
    /// then await it, so a release in between is not missed.
    pub fn released_soon(&self) -> tokio::sync::futures::Notified<'_> {
        self.released.notified()
    }
}

fn log_ended(e: &Ended) {
    let reason = match e.why {
        Gone::Expired => "expired",
        Gone::Ended => "ended",
    };
    tracing::info!(
        session = %e.session.id,
        name = e.session.name.as_deref().unwrap_or(""),
        udid = e.released.as_deref().unwrap_or(""),
        reason,
        "session {reason}{}",
        if e.released.is_some() { "; lease released" } else { "" }
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{DeviceKind, DeviceState, Platform};

    fn device(udid: &str, platform: Platform) -> Device {
        Device {
            udid: udid.into(),
            name: format!("{udid} phone"),
            platform,
            kind: DeviceKind::Emulator,
            state: DeviceState::Online,
            os_version: Some("14".into()),
            api_level: None,
            model: None,
            backend: "android",
        }
    }

    fn req(ttl_s: u64) -> CreateSession {
        CreateSession {
            ttl_s: Some(ttl_s),
            ..Default::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_expires_after_its_ttl_idle_and_each_request_renews_it() {
        let r = SessionRegistry::default();
        let s = r.create(&req(10)).unwrap();
        let d = [device("a", Platform::Android)];
        assert_eq!(r.try_take(&s, &d, None).unwrap().as_deref(), Some("a"));
        tokio::time::advance(Duration::from_secs(8)).await;
        drop(r.enter(&s.id).unwrap());
        tokio::time::advance(Duration::from_secs(8)).await;
        assert!(r.sweep().is_empty(), "renewed 8 s ago, TTL 10 s");
        assert!(r.holder("a").is_some());
        tokio::time::advance(Duration::from_secs(3)).await;
        let ended = r.sweep();
        assert_eq!(ended.len(), 1);
        assert_eq!(ended[0].released.as_deref(), Some("a"));
        assert!(r.holder("a").is_none(), "expiry released the lease");
        let e = r.enter(&s.id).unwrap_err();
        assert_eq!(e.code, ErrorCode::SessionExpired);
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_in_flight_keeps_its_session_alive() {
        let r = SessionRegistry::default();
        let s = r.create(&req(1)).unwrap();
        let held = r.enter(&s.id).unwrap();
        tokio::time::advance(Duration::from_secs(5)).await;
        assert!(r.sweep().is_empty());
        drop(held);
        tokio::time::advance(Duration::from_millis(999)).await;
        assert!(r.sweep().is_empty(), "the answer renewed it");
        tokio::time::advance(Duration::from_millis(2)).await;
        assert_eq!(r.sweep().len(), 1);
    }

    #[tokio::test]
    async fn the_queue_serves_waiters_in_arrival_order() {
        let r = SessionRegistry::default();
        let first = r.create(&req(60)).unwrap();
        let second = r.create(&req(60)).unwrap();
        let d = [device("a", Platform::Android)];
        let q1 = r.enqueue(&first);
        let q2 = r.enqueue(&second);
        let (t1, t2) = (q1.ticket, q2.ticket);
        assert_eq!(
            r.try_take(&second, &d, Some(t2)).unwrap(),
            None,
            "the first waiter goes first"
        );
        assert_eq!(
            r.try_take(&first, &d, Some(t1)).unwrap().as_deref(),
            Some("a")
        );
        drop(q1);
        assert_eq!(r.try_take(&second, &d, Some(t2)).unwrap(), None, "leased");
        r.end(&first.id, Gone::Ended).unwrap();
        assert_eq!(
            r.try_take(&second, &d, Some(t2)).unwrap().as_deref(),
            Some("a")
        );
    }

    #[test]
    fn a_waiter_ahead_that_wants_another_device_does_not_block() {
        let r = SessionRegistry::default();
        let ios = r
            .create(&CreateSession {
                r#match: Some(DeviceMatch {
                    platform: Some(Platform::Ios),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .unwrap();
        let any = r.create(&req(60)).unwrap();
        let _ahead = r.enqueue(&ios);
        let q = r.enqueue(&any);
        let d = [device("a", Platform::Android)];
        assert_eq!(
            r.try_take(&any, &d, Some(q.ticket)).unwrap().as_deref(),
            Some("a")
        );
    }

    #[test]
    fn a_waiter_that_went_away_holds_up_no_one() {
        let r = SessionRegistry::default();
        let gone = r.create(&req(60)).unwrap();
        let next = r.create(&req(60)).unwrap();
        let d = [device("a", Platform::Android)];
        drop(r.enqueue(&gone));
        assert!(!gone.info(None).waiting);
        assert_eq!(r.try_take(&next, &d, None).unwrap().as_deref(), Some("a"));
    }

    #[test]
    fn names_are_unique_among_live_sessions_and_checked() {
        let r = SessionRegistry::default();
        let named = CreateSession {
            name: Some("ci-1".into()),
            ..Default::default()
        };
        let s = r.create(&named).unwrap();
        assert_eq!(
            r.create(&named).unwrap_err().code,
            ErrorCode::SessionNameTaken
        );
        assert_eq!(r.get("ci-1").unwrap().id, s.id);
        r.end("ci-1", Gone::Ended).unwrap();
        assert_eq!(r.get("ci-1").unwrap_err().code, ErrorCode::SessionNotFound);
        r.create(&named).unwrap();
        for bad in ["", "../x", "a b", ".hidden", &"x".repeat(65)] {
            let e = r
                .create(&CreateSession {
                    name: Some(bad.to_string()),
                    ..Default::default()
                })
                .unwrap_err();
            assert_eq!(e.code, ErrorCode::ValidationFailed, "{bad:?}");
        }
    }

    #[test]
    fn out_of_range_options_are_refused_and_nothing_is_registered() {
        let r = SessionRegistry::default();
        for bad in [
            CreateSession {
                ttl_s: Some(0),
                ..Default::default()
            },
            CreateSession {
                ttl_s: Some(MAX_TTL_S + 1),
                ..Default::default()
            },
            CreateSession {
                wait_ms: Some(MAX_WAIT_MS + 1),
                ..Default::default()
            },
            CreateSession {
                udid: Some("a".into()),
                r#match: Some(DeviceMatch::default()),
                ..Default::default()
            },
        ] {
            assert_eq!(
                r.create(&bad).unwrap_err().code,
                ErrorCode::ValidationFailed
            );
        }
        assert!(r.list().is_empty());
    }

    #[test]
    fn unknown_and_ended_sessions_answer_not_found() {
        let r = SessionRegistry::default();
        assert_eq!(
            r.enter("ses-0").unwrap_err().code,
            ErrorCode::SessionNotFound
        );
        let s = r.create(&req(60)).unwrap();
        r.end(&s.id, Gone::Ended).unwrap();
        let e = r.enter(&s.id).unwrap_err();
        assert_eq!(e.code, ErrorCode::SessionNotFound);
        assert!(e.message.contains("was ended"), "{}", e.message);
    }
}
