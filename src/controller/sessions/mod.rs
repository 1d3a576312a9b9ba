//! Sessions and leases (docs/DESIGN.md "Sessions and leases"): many callers on one server,
//! none acting on another's device. A session is one caller's context (a name, a leased device,
//! defaults, an idle TTL); a lease is its exclusive right to act on the device. This module
//! joins the [`registry`] (who holds what) to the devices the controller lists:
//! - creating a session leases a device now, or at its first device operation (`lazy`),
//!   waiting for one to become free when asked (first come, first served);
//! - [`DeviceController::resolve`] sends a request in a session to the session's device;
//! - [`DeviceController::check_lease`] refuses an act on a device another session leases,
//!   before any command runs;
//! - ending or expiring a session releases its lease and forgets its slots.

mod caller;
mod matching;
mod registry;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

pub use caller::{as_admin, current, is_admin, may_see, within};
pub use registry::{check_name, Entered, Gone, Session, SessionRegistry};

use super::DeviceController;
use crate::api::wire::sessions::{CreateSession, Lease, SessionEnded, SessionInfo};
use crate::device::Device;
use crate::error::{Error, ErrorCode, Op, Result, Step};

/// The key of the running request's caller for per-caller state.
pub(super) fn caller_key() -> String {
    caller::key()
}

/// How often the reaper looks for expired sessions at the least.
const REAP_EVERY: Duration = Duration::from_secs(1);

/// How often a waiting session looks at the devices again besides when a lease is released
/// (a device may come online).
const RELOOK_EVERY: Duration = Duration::from_secs(1);

impl DeviceController {
    /// The sessions and their leases.
    pub fn sessions(&self) -> &SessionRegistry {
        &self.sessions
    }

    /// Creates a session and, unless it is lazy, leases its device (waiting as it says). A
    /// session whose lease cannot be had is not kept: nothing is left half-taken.
    pub async fn create_session(&self, req: &CreateSession) -> Result<SessionInfo> {
        let session = self.sessions.create(req)?;
        if !req.lazy {
            if let Err(e) = self.acquire(&session).await {
                let _ = self.sessions.end(&session, Gone::Ended);
                return Err(e);
            }
        }
        self.runs
            .session_started(&session.id, session.name.as_deref());
        let mut info = self.session_info(&session).await;
        info.secret = Some(session.secret().expose().to_string());
        Ok(info)
    }

    /// A session as answered, with its device as last listed.
    pub async fn session_info(&self, session: &Session) -> SessionInfo {
        let device = match session.device() {
            Some(u) => self.find_listed(&u).await,
            None => None,
        };
        session.info(device)
    }

    /// The device `udid` as listed (from a recent listing when trusted).
    async fn find_listed(&self, udid: &str) -> Option<Device> {
        let devices = match self.trusted_listing() {
            Some(d) => d,
            None => self.list().await.devices,
        };
        devices.into_iter().find(|d| d.udid == udid)
    }

    /// Ends `session` (whoever asks has been checked): its lease is released, its slots
    /// forgotten.
    pub fn end_session(&self, session: &Arc<Session>, why: Gone) -> Result<SessionEnded> {
        let ended = self.sessions.end(session, why)?;
        self.forget_dead_slots();
        Ok(SessionEnded {
            id: ended.session.id.clone(),
            released: ended.released,
        })
    }

    /// Expires idle sessions now, and forgets the slots of every session no longer live
    /// (however it ended); answers how many expired now.
    pub fn reap_sessions(&self) -> usize {
        let ended = self.sessions.sweep();
        self.forget_dead_slots();
        ended.len()
    }

    /// Expires idle sessions as they fall due, for as long as the controller lives.
    pub fn spawn_reaper(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let next = {
                    let Some(c) = weak.upgrade() else { return };
                    c.reap_sessions();
                    c.sessions.next_expiry()
                };
                let now = Instant::now();
                let until = next.map_or(now + REAP_EVERY, |n| n.min(now + REAP_EVERY));
                tokio::time::sleep_until(until).await;
            }
        });
    }

    /// Leases the session's device: the one it names, else the first free ready one it would
    /// take, waiting up to its `wait_ms` for one to be released.
    async fn acquire(&self, session: &Arc<Session>) -> Result<String> {
        let deadline = Instant::now() + session.wait;
        // Leaves the queue however this ends, a caller that went away included.
        let mut queued: Option<registry::Queued<'_>> = None;
        loop {
            let released = self.sessions.released_soon();
            tokio::pin!(released);
            released.as_mut().enable();
            let devices = match self.trusted_listing() {
                Some(d) => d,
                None => self.list().await.devices,
            };
            let wanted: Vec<Device> = devices
                .iter()
                .filter(|d| session.wants(d) && d.state.is_ready())
                .cloned()
                .collect();
            if wanted.is_empty() {
                return Err(no_wanted_device(session, &devices));
            }
            let ticket = queued.as_ref().map(|q| q.ticket);
            if let Some(udid) = self.sessions.try_take(session, &wanted, ticket)? {
                return Ok(udid);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(self.no_free_device(session, &wanted));
            }
            if queued.is_none() {
                queued = Some(self.sessions.enqueue(session));
            }
            let wake = deadline.min(now + RELOOK_EVERY);
            tokio::select! {
                _ = released => {}
                _ = tokio::time::sleep_until(wake) => {}
            }
        }
    }

    /// `409 NO_FREE_DEVICE`: each candidate, who holds it and until when.
    fn no_free_device(&self, session: &Session, wanted: &[Device]) -> Error {
        let candidates: Vec<_> = wanted
            .iter()
            .map(|d| {
                json!({
                    "udid": d.udid,
                    "name": d.name,
                    "lease": self.sessions.holder(&d.udid).and_then(|h| h.lease()),
                })
            })
            .collect();
        let soonest = wanted
            .iter()
            .filter_map(|d| self.sessions.holder(&d.udid).and_then(|h| h.lease()))
            .min_by_key(|l| l.expires_in_ms);
        let hint = match soonest {
            Some(l) => format!(
                "every matching device is leased; the first lease ends by {} unless its session is used again. Retry with wait_ms to queue for one",
                l.expires_at
            ),
            None => "retry with wait_ms to queue for a device".to_string(),
        };
        Error::new(
            ErrorCode::NoFreeDevice,
            format!(
                "no free device for session `{}`: {} match, all leased",
                session.label(),
                wanted.len()
            ),
        )
        .with_hint(hint)
        .with_details(json!({ "candidates": candidates }))
    }

    /// Sends a request in `session` to its device: leases it first when the session is lazy.
    /// A `udid` that names another device is refused.
    pub(super) async fn resolve_in_session(
        &self,
        session: &Arc<Session>,
        udid: Option<&str>,
    ) -> Result<Device> {
        let asked = session.wanted_udid.is_some() || session.wanted.is_some();
        if session.device().is_none() && asked {
            self.acquire(session).await?;
        }
        let Some(held) = session.device() else {
            // A lazy session that asked for nothing: the device the request names, else the
            // active one, else the only one; leased now if it is free.
            let device = self.resolve_for(udid, self.active()).await?;
            if device.state.is_ready() {
                self.sessions
                    .try_take(session, std::slice::from_ref(&device), None)?;
            }
            return Ok(device);
        };
        let device = self.resolve_for(Some(&held), None).await?;
        if let Some(u) = udid.filter(|u| *u != held && *u != device.name) {
            let named = self.resolve_for(Some(u), None).await.ok();
            if named.is_none_or(|d| d.udid != held) {
                return Err(Error::new(
                    ErrorCode::SessionDeviceMismatch,
                    format!(
                        "session `{}` holds `{held}`, and this request names `{u}`",
                        session.label()
                    ),
                )
                .with_next(
                    "leave {0} out (requests in a session go to its device), or start another session for that device",
                    [Step::field("udid")],
                )
                .with_details(json!({ "session": session.id, "udid": held })));
            }
        }
        Ok(device)
    }

    /// Refuses an act on `device` when a session other than the caller's leases it
    /// (`409 DEVICE_LEASED`, naming the holder and the free devices). Runs before any command.
    pub fn check_lease(&self, device: &Device) -> Result<()> {
        let Some(holder) = self.sessions.holder(&device.udid) else {
            return Ok(());
        };
        let mine = current();
        if mine.as_ref().is_some_and(|s| s.id == holder.id) {
            return Ok(());
        }
        let free: Vec<String> = self
            .trusted_listing()
            .unwrap_or_default()
            .into_iter()
            .filter(|d| d.state.is_ready() && self.sessions.holder(&d.udid).is_none())
            .map(|d| d.udid)
            .collect();
        let lease = holder.lease();
        let until = lease
            .as_ref()
            .map(|l| l.expires_at.clone())
            .unwrap_or_default();
        let hint = match (free.is_empty(), mine.is_some()) {
            (false, _) => format!("act on a free device instead (udid: one of {})", free.join(", ")),
            (true, true) => "no device is free now: wait for the lease to end, or start a session with wait_ms to queue".to_string(),
            (true, false) => "start a session with wait_ms to queue for a device, or read it (reads stay open)".to_string(),
        };
        Err(Error::new(
            ErrorCode::DeviceLeased,
            format!(
                "device `{}` is leased by session `{}` until {until}",
                device.udid,
                holder.label()
            ),
        )
        .with_hint(hint)
        .with_details(json!({ "lease": lease, "free": free })))
    }

    /// The lease on each leased device.
    pub fn leases(&self) -> Vec<Lease> {
        self.sessions
            .list()
            .iter()
            .filter_map(|s| s.lease())
            .collect()
    }
}

/// `404 NO_DEVICE` for a session that no ready device would satisfy.
fn no_wanted_device(session: &Session, devices: &[Device]) -> Error {
    let what = match (&session.wanted_udid, &session.wanted) {
        (Some(u), _) => format!("device `{u}`"),
        (None, Some(m)) => format!(
            "a device matching {}",
            serde_json::to_string(m).unwrap_or_default()
        ),
        (None, None) => "a device".to_string(),
    };
    let listed: Vec<_> = devices
        .iter()
        .map(|d| json!({"udid": d.udid, "name": d.name, "platform": d.platform, "kind": d.kind, "state": d.state, "os_version": d.os_version}))
        .collect();
    Error::new(
        ErrorCode::NoDevice,
        format!(
            "session `{}` asks for {what}, and no ready device is one",
            session.label()
        ),
    )
    .with_next(
        "{0} shows the devices; loosen the match, or boot or connect one",
        [Step::call(Op::ListDevices)],
    )
    .with_details(json!({ "devices": listed }))
}
