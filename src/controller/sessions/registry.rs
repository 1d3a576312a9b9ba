//! The session registry: live sessions by id, name and secret, who leases which device, the
//! sessions that ended or expired (remembered for a while so their callers get a clear answer),
//! and the queue of sessions waiting for a device (first come, first served). It knows nothing
//! of devices beyond their udids: the controller lists them and asks here who holds what.
//!
//! A session is a capability (docs/DESIGN.md "Security defaults"): its id and name are public
//! labels that listings, leases and errors show; only its [`Secret`], answered once to its
//! creator, puts a request in it ([`SessionRegistry::enter`]). The table cannot be filled by one
//! caller: a session that leases nothing lives idle at most [`UNLEASED_IDLE`], and when every
//! place is taken the unleased session idle the longest gives its place to the new one.
//!
//! Time is `tokio::time::Instant`, so expiry is tested on paused time.

use crate::api::wire::build::BuildDefaults;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use serde_json::json;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::matching;
use crate::api::wire::sessions::{
    CreateSession, DeviceMatch, Lease, SessionInfo, REQUEST_SESSION, SECRET_PREFIX,
};
use crate::device::Device;
use crate::error::{Error, ErrorCode, Op, Result, Step};

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
/// The longest a session that leases no device (and waits for none) lives idle, whatever its
/// TTL: what a caller can hold without a device is bounded in time as well as in count.
pub const UNLEASED_IDLE: Duration = Duration::from_secs(300);

/// A session's secret: 256 bits from the OS's random source, `mss-` and 64 hex digits. Only its
/// creator is answered it; its `Debug` form hides it, so a log line never carries it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A new secret, or an error when the OS has no random source (a guessable secret is
    /// worse than none).
    fn new() -> Result<Secret> {
        let mut bytes = [0u8; 32];
        getrandom::getrandom(&mut bytes)
            .map_err(|e| Error::internal(format!("no random source for a session secret: {e}")))?;
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Ok(Secret(format!("{SECRET_PREFIX}{hex}")))
    }

    /// The secret as sent in `Mobilectl-Session`.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// One caller's context on the server.
#[derive(Debug)]
pub struct Session {
    /// Its id (`ses-…`), unique on this server.
    pub id: String,
    /// The name its creator gave it, unique among live sessions: a label, like the id.
    pub name: Option<String>,
    /// What puts a request in it: answered to its creator only.
    secret: Secret,
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
    /// What its builds fall back on (set at creation, and by each build).
    build: BuildDefaults,
}

impl Session {
    fn state(&self) -> MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The udid of the device it leases.
    pub fn device(&self) -> Option<String> {
        self.state().device.clone()
    }

    /// Its secret, for the creator's answer and the server's own calls in it.
    pub fn secret(&self) -> &Secret {
        &self.secret
    }

    fn expires(&self) -> Instant {
        let s = self.state();
        s.last_used + self.idle_life(&s)
    }

    /// How long it may stay idle now: its TTL, cut to [`UNLEASED_IDLE`] while it holds no
    /// device and waits for none.
    fn idle_life(&self, s: &SessionState) -> Duration {
        if s.device.is_none() && !s.waiting {
            self.ttl.min(UNLEASED_IDLE)
        } else {
            self.ttl
        }
    }

    fn expired(&self, now: Instant) -> bool {
        let s = self.state();
        s.inflight == 0 && now >= s.last_used + self.idle_life(&s)
    }

    /// Whether it may give its place to a new session: it holds no device, waits for none,
    /// and no request of it runs.
    fn evictable(&self) -> bool {
        let s = self.state();
        s.device.is_none() && !s.waiting && s.inflight == 0
    }

    fn last_used(&self) -> Instant {
        self.state().last_used
    }

    /// What the caller sees of it (with the leased device as listed, when known).
    pub fn info(&self, device: Option<Device>) -> SessionInfo {
        let (udid, requests, waiting, build) = {
            let s = self.state();
            let build = Some(s.build.clone()).filter(|b| *b != BuildDefaults::default());
            (s.device.clone(), s.requests, s.waiting, build)
        };
        let (expires_at, expires_in_ms) = wall(self.expires());
        SessionInfo {
            id: self.id.clone(),
            secret: None,
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
            build,
        }
    }

    /// What its builds fall back on.
    pub fn build_defaults(&self) -> BuildDefaults {
        self.state().build.clone()
    }

    /// Remembers what its last build used, for the next.
    pub fn remember_build(&self, defaults: BuildDefaults) {
        self.state().build = defaults;
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
    /// It held no device and was idle the longest when every place was taken: a new session
    /// took its place.
    Evicted,
}

/// A session that is no longer live.
#[derive(Debug, Clone)]
struct Remembered {
    id: String,
    name: Option<String>,
    secret: Secret,
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
    /// secret → id, of live sessions.
    secrets: HashMap<String, String>,
    /// udid → id of the session that leases it.
    leases: HashMap<String, String>,
    gone: VecDeque<Remembered>,
    /// Devices whose lease was released since the controller last looked
    /// ([`SessionRegistry::take_released`]).
    let_go: Vec<String>,
    queue: Vec<Waiter>,
    next_ticket: u64,
}

impl Inner {
    /// The live session of a label: its id or its name.
    fn find(&self, key: &str) -> Option<&Arc<Session>> {
        self.live
            .get(key)
            .or_else(|| self.names.get(key).and_then(|id| self.live.get(id)))
    }

    /// The live session of a secret.
    fn by_secret(&self, secret: &str) -> Option<&Arc<Session>> {
        self.secrets.get(secret).and_then(|id| self.live.get(id))
    }

    /// Makes room for one more session when every place is taken: the unleased session idle
    /// the longest goes. Answers it, or `None` when none can go (every one leases a device,
    /// waits for one or has a request running).
    fn evict_for_new(&mut self) -> Option<Ended> {
        if self.live.len() < MAX_LIVE {
            return None;
        }
        let oldest = self
            .live
            .values()
            .filter(|s| s.evictable())
            .min_by_key(|s| s.last_used())
            .cloned()?;
        Some(self.remove(&oldest, Gone::Evicted))
    }

    /// Takes `session` out of the live ones; the lease it held is released.
    fn remove(&mut self, session: &Arc<Session>, why: Gone) -> Ended {
        self.live.remove(&session.id);
        self.secrets.remove(session.secret.expose());
        if let Some(n) = &session.name {
            if self.names.get(n) == Some(&session.id) {
                self.names.remove(n);
            }
        }
        self.queue.retain(|w| w.session.id != session.id);
        let released = session.state().device.take();
        if let Some(u) = &released {
            self.leases.remove(u);
            self.let_go.push(u.clone());
        }
        self.gone.push_back(Remembered {
            id: session.id.clone(),
            name: session.name.clone(),
            secret: session.secret.clone(),
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

    /// The error for a key (a label, or a secret when `credential`) that names no live
    /// session. A secret is never repeated in it: the session is named by its label.
    fn not_live(&self, key: &str, credential: bool) -> Error {
        let gone = self.gone.iter().rev().find(|g| {
            (credential && g.secret.expose() == key)
                || g.id == key
                || g.name.as_deref() == Some(key)
        });
        let details = |g: &Remembered| {
            let mut d = json!({ "session": g.id, "name": g.name });
            if credential {
                d[REQUEST_SESSION] = json!(true);
            }
            d
        };
        let label = |g: &Remembered| g.name.clone().unwrap_or_else(|| g.id.clone());
        match gone {
            Some(g) if g.why == Gone::Expired => Error::new(
                ErrorCode::SessionExpired,
                format!("session `{}` expired at {} (idle past its TTL); its lease was released", label(g), rfc3339(g.when)),
            )
            .with_next(format!("start a new session with {{0}} (a longer ttl_s keeps it alive while idle; a session that leases nothing lives idle at most {} s)", UNLEASED_IDLE.as_secs()), [Step::call(Op::CreateSession)])
            .with_details(details(g)),
            Some(g) if g.why == Gone::Evicted => Error::new(
                ErrorCode::SessionExpired,
                format!("session `{}` was evicted at {}: it held no device and had been idle the longest when all {MAX_LIVE} places were taken", label(g), rfc3339(g.when)),
            )
            .with_next("start a new session with {0}; a session holding a device is never evicted", [Step::call(Op::CreateSession)])
            .with_details(details(g)),
            Some(g) => Error::new(
                ErrorCode::SessionNotFound,
                format!("session `{}` was ended at {}", label(g), rfc3339(g.when)),
            )
            .with_next("start a new session with {0}", [Step::call(Op::CreateSession)])
            .with_details(details(g)),
            None if credential => Error::new(ErrorCode::SessionNotFound, "no live session has the secret this request sent")
                .with_next("send the `secret` that {0} answered (a restarted server forgets its sessions: start a new one)", [Step::call(Op::CreateSession)])
                .with_details(json!({ REQUEST_SESSION: true })),
            None => Error::new(ErrorCode::SessionNotFound, format!("no session `{key}`"))
                .with_next("list the live ones with {0}, or start one with {1}", [Step::call(Op::ListSessions), Step::call(Op::CreateSession)]),
        }
    }

    /// The error for a request that names a live session by its label instead of its secret.
    fn named_not_held(&self, session: &Session) -> Error {
        Error::new(
            ErrorCode::SessionForbidden,
            format!(
                "`{}` names a live session, but a session's id or name does not act in it",
                session.label()
            ),
        )
        .with_hint("send the `secret` that creating the session answered (`Mobilectl-Session: SECRET`); only its creator has it")
        .with_details(json!({ "session": session.id, "name": session.name }))
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
        && !name.starts_with("ses-")
        && !name.starts_with(SECRET_PREFIX);
    if ok {
        return Ok(());
    }
    Err(
        Error::validation(format!("`{name}` is not a session name")).with_hint(
            "1–64 letters, digits, `.`, `_` or `-`, not starting with `.`, `ses-` (ids do) or `mss-` (secrets do)",
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
            return Err(
                Error::validation("give `udid` or `match`, not both").with_next(
                    "{0} names one device; {1} takes the first free one that fits",
                    [
                        Step::field_of(Op::CreateSession, "udid"),
                        Step::field_of(Op::CreateSession, "match"),
                    ],
                ),
            );
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
                .with_next("choose another name; its holder ends it with its secret ({0} with `Mobilectl-Session: SECRET`)", [Step::call_with(Op::EndSession, json!({"id": "NAME"}))])
                .with_details(json!({ "session": holder.id })));
            }
        }
        let evicted = inner.evict_for_new();
        if inner.live.len() >= MAX_LIVE {
            return Err(Error::new(
                ErrorCode::Busy,
                format!("{MAX_LIVE} sessions are live and each holds a device, waits for one or runs a request"),
            )
            .with_next("end sessions you no longer use ({0} with its secret), or retry shortly", [Step::call(Op::EndSession)]));
        }
        let session = Arc::new(Session {
            id: new_id(),
            name: req.name.clone(),
            secret: Secret::new()?,
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
                build: req.build.clone().unwrap_or_default(),
            }),
        });
        inner.live.insert(session.id.clone(), session.clone());
        inner
            .secrets
            .insert(session.secret.expose().to_string(), session.id.clone());
        if let Some(n) = &session.name {
            inner.names.insert(n.clone(), session.id.clone());
        }
        drop(inner);
        if let Some(e) = &evicted {
            log_ended(e);
        }
        Ok(session)
    }

    /// The live session whose secret is `credential`, renewed; a request holds it until the
    /// returned guard drops. An expired one is expired now (and answers 410); a session's id or
    /// name is refused (403): it names the session, it does not act in it.
    pub fn enter(&self, credential: &str) -> Result<Entered> {
        let inner = self.inner();
        let Some(session) = inner.by_secret(credential).cloned() else {
            return Err(match inner.find(credential) {
                Some(named) => inner.named_not_held(named),
                None => inner.not_live(credential, true),
            });
        };
        drop(inner);
        self.enter_session(&session)
    }

    /// Renews `session` for a request the server runs in it itself (a flow's run), as
    /// [`Self::enter`] does for a request that sent its secret.
    pub fn enter_session(&self, session: &Arc<Session>) -> Result<Entered> {
        let mut inner = self.inner();
        if !inner.live.contains_key(&session.id) {
            return Err(inner.not_live(session.secret.expose(), true));
        }
        let now = Instant::now();
        if session.expired(now) {
            let ended = inner.remove(session, Gone::Expired);
            drop(inner);
            self.released.notify_waiters();
            let err = self.inner().not_live(session.secret.expose(), true);
            log_ended(&ended);
            return Err(err);
        }
        {
            let mut s = session.state();
            s.inflight += 1;
            s.requests += 1;
            s.last_used = now;
        }
        Ok(Entered {
            session: session.clone(),
        })
    }

    /// The live session of a label (its id or name), without renewing it.
    pub fn get(&self, key: &str) -> Result<Arc<Session>> {
        let inner = self.inner();
        match inner.find(key) {
            Some(s) if !s.expired(Instant::now()) => Ok(s.clone()),
            _ => Err(inner.not_live(key, false)),
        }
    }

    /// The live session whose secret is `secret`, without renewing it.
    pub fn get_by_secret(&self, secret: &str) -> Result<Arc<Session>> {
        let inner = self.inner();
        match inner.by_secret(secret) {
            Some(s) if !s.expired(Instant::now()) => Ok(s.clone()),
            _ => Err(inner.not_live(secret, true)),
        }
    }

    /// Ends `session` (the caller has checked who asks); answers what it released.
    pub fn end(&self, session: &Arc<Session>, why: Gone) -> Result<Ended> {
        let mut inner = self.inner();
        if !inner.live.contains_key(&session.id) {
            return Err(inner.not_live(&session.id, false));
        }
        let ended = inner.remove(session, why);
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
            inner.let_go.push(u.clone());
        }
        drop(inner);
        if let Some(u) = &released {
            tracing::info!(session = %session.id, name = session.name.as_deref().unwrap_or(""), udid = %u, reason = "released", "lease released");
            self.released.notify_waiters();
        }
        released
    }

    /// The devices whose lease was released since the last call (each once).
    pub fn take_released(&self) -> Vec<String> {
        std::mem::take(&mut self.inner().let_go)
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
            return Err(inner.not_live(session.secret.expose(), true));
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
        Gone::Evicted => "evicted",
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
impl SessionRegistry {
    /// How many requests `session` has made (tests).
    fn info_requests(&self, session: &Session) -> u64 {
        session.state().requests
    }
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
            capabilities: Vec::new(),
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
        drop(r.enter(s.secret().expose()).unwrap());
        tokio::time::advance(Duration::from_secs(8)).await;
        assert!(r.sweep().is_empty(), "renewed 8 s ago, TTL 10 s");
        assert!(r.holder("a").is_some());
        tokio::time::advance(Duration::from_secs(3)).await;
        let ended = r.sweep();
        assert_eq!(ended.len(), 1);
        assert_eq!(ended[0].released.as_deref(), Some("a"));
        assert!(r.holder("a").is_none(), "expiry released the lease");
        let e = r.enter(s.secret().expose()).unwrap_err();
        assert_eq!(e.code, ErrorCode::SessionExpired);
        assert!(
            !e.message.contains(s.secret().expose()),
            "a secret is never repeated: {}",
            e.message
        );
        assert_eq!(e.details.unwrap()[REQUEST_SESSION], json!(true));
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_in_flight_keeps_its_session_alive() {
        let r = SessionRegistry::default();
        let s = r.create(&req(1)).unwrap();
        let held = r.enter(s.secret().expose()).unwrap();
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
        r.end(&first, Gone::Ended).unwrap();
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
        r.end(&s, Gone::Ended).unwrap();
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
        r.end(&s, Gone::Ended).unwrap();
        let e = r.enter(s.secret().expose()).unwrap_err();
        assert_eq!(e.code, ErrorCode::SessionNotFound);
        assert!(e.message.contains("was ended"), "{}", e.message);
        assert!(
            e.message.contains(&s.id),
            "named by its label: {}",
            e.message
        );
    }

    #[test]
    fn only_the_secret_acts_in_a_session_not_its_id_or_name() {
        let r = SessionRegistry::default();
        let s = r
            .create(&CreateSession {
                name: Some("ci-1".into()),
                ..Default::default()
            })
            .unwrap();
        for label in [s.id.as_str(), "ci-1"] {
            let e = r.enter(label).unwrap_err();
            assert_eq!(e.code, ErrorCode::SessionForbidden, "{label}");
        }
        assert_eq!(r.info_requests(&s), 0, "a refused request does not renew");
        let secret = s.secret().expose().to_string();
        assert!(secret.starts_with(SECRET_PREFIX) && secret.len() == 4 + 64);
        assert_eq!(r.enter(&secret).unwrap().session.id, s.id);
        assert!(
            !format!("{s:?}").contains(&secret),
            "Debug hides the secret"
        );
        // Two sessions never share a secret.
        let other = r.create(&req(60)).unwrap();
        assert_ne!(other.secret(), s.secret());
    }

    #[test]
    fn a_name_used_again_after_its_session_ended_does_not_reach_the_new_holder() {
        let r = SessionRegistry::default();
        let named = CreateSession {
            name: Some("ci".into()),
            ..Default::default()
        };
        let old = r.create(&named).unwrap();
        let old_secret = old.secret().expose().to_string();
        r.end(&old, Gone::Ended).unwrap();
        let new = r.create(&named).unwrap();
        let e = r.enter(&old_secret).unwrap_err();
        assert_eq!(e.code, ErrorCode::SessionNotFound);
        assert_eq!(r.info_requests(&new), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_that_leases_nothing_lives_idle_at_most_the_unleased_limit() {
        let r = SessionRegistry::default();
        let lazy = r.create(&req(MAX_TTL_S)).unwrap();
        let leased = r.create(&req(MAX_TTL_S)).unwrap();
        let d = [device("a", Platform::Android)];
        r.try_take(&leased, &d, None).unwrap();
        tokio::time::advance(UNLEASED_IDLE + Duration::from_secs(1)).await;
        let ended = r.sweep();
        assert_eq!(ended.len(), 1);
        assert_eq!(ended[0].session.id, lazy.id);
        assert!(
            r.holder("a").is_some(),
            "a session with a device keeps its TTL"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_table_gives_the_place_of_the_longest_idle_unleased_session() {
        let r = SessionRegistry::default();
        let d = [device("a", Platform::Android)];
        let leased = r.create(&req(600)).unwrap();
        r.try_take(&leased, &d, None).unwrap();
        let oldest = r.create(&req(600)).unwrap();
        tokio::time::advance(Duration::from_millis(10)).await;
        for _ in 2..MAX_LIVE {
            r.create(&req(600)).unwrap();
        }
        assert_eq!(r.list().len(), MAX_LIVE);
        let busy = r.enter(oldest.secret().expose()).unwrap();
        // The oldest has a request running: the next oldest unleased one goes instead.
        let newcomer = r.create(&req(600)).unwrap();
        assert_eq!(r.list().len(), MAX_LIVE);
        assert!(r.get(&newcomer.id).is_ok());
        assert!(
            r.get(&oldest.id).is_ok(),
            "a session with a request running stays"
        );
        assert!(
            r.holder("a").is_some(),
            "a session holding a device is never evicted"
        );
        drop(busy);
        tokio::time::advance(Duration::from_millis(10)).await;
        let e = r.enter(newcomer.secret().expose());
        assert!(e.is_ok());
    }
}
