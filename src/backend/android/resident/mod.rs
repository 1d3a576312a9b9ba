//! Android's fast path: Appium's UiAutomator2 server resident on the device (an
//! instrumentation APK pair, installed by `mobilectl helper install`), reached over an adb
//! forward, reading the screen and acting in one HTTP request each instead of starting
//! `uiautomator dump` or `input` on the device every time.
//!
//! Per device a [`Slot`] says where the fast path stands: not looked at yet, absent (not
//! installed, another tool's server running, or failed), or running. The server is started
//! when a read or an act first needs it; any failure of it (no answer, garbage, a hang past
//! [`start::REQUEST_TIMEOUT`], the instrumentation ending) makes that call and the following
//! ones use the one-shot tools, with one warning; the slot is looked at again when the
//! device's lease is released or the helper installed. A server mobilectl started is stopped
//! when the device is released and when mobilectl stops; one it did not start is never
//! touched. The canonical tree is the same on both paths: the server's page source is parsed
//! by the same parser as `uiautomator dump`'s XML.
//!
//! - [`protocol`]: request bodies and the server's envelope (pure).
//! - [`start`]: probe, start, stop.
//! - `drive`: reads and acts through a running server.
//! - [`install`]: finding the APKs (a path given, the npm packages) and installing them.

mod drive;
pub mod install;
pub mod protocol;
pub mod start;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use reqwest::Method;
use serde_json::Value;

use super::AdbBackend;
use crate::exec::HttpClient;
pub use drive::{TOOL, TYPED_WITH};
pub use start::Absent;
use start::{call, Server, REQUEST_TIMEOUT};

/// Whether mobilectl uses the server where it is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum HelperUse {
    /// Start it where its packages are installed and no other tool's server runs.
    #[default]
    Auto,
    /// Never: the one-shot tools only.
    Off,
}

/// What a call that fell back to the one-shot tools passes on: the note to say, when there
/// is one (the server failed), or none (it only refused that one request).
pub type Fallback = Option<String>;

/// What a read or act that fell back says, once.
fn fallback_note(why: &str) -> String {
    format!(
        "the UiAutomator2 server failed ({why}); this and later reads and actions use uiautomator dump and input"
    )
}

/// Where the fast path stands on one device.
#[derive(Debug, Clone)]
pub enum Slot {
    /// Not looked at since the server started or the device was released.
    Unknown,
    /// Not used, and why.
    Absent(Absent),
    /// Running, started by mobilectl.
    Running(Arc<Server>),
}

/// The servers of every device, and the client that talks to them.
#[derive(Debug, Clone, Default)]
pub struct Residents {
    slots: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<Slot>>>>>,
    http: HttpClient,
    use_: HelperUse,
}

impl Residents {
    /// Residents used as `use_` says.
    pub fn new(use_: HelperUse) -> Self {
        Residents {
            use_,
            ..Default::default()
        }
    }

    fn slot(&self, serial: &str) -> Arc<tokio::sync::Mutex<Slot>> {
        self.slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(serial.to_string())
            .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(Slot::Unknown)))
            .clone()
    }

    /// What the fast path is on `serial` now, without starting anything.
    pub async fn state(&self, serial: &str) -> Slot {
        let slot = self.slot(serial);
        let held = slot.lock().await;
        held.clone()
    }

    /// The HTTP client the servers are reached with.
    pub fn http(&self) -> &HttpClient {
        &self.http
    }

    /// Every device's server that runs, for stopping them all.
    fn running(&self) -> Vec<Arc<tokio::sync::Mutex<Slot>>> {
        self.slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect()
    }
}

impl AdbBackend {
    /// The server to use on `serial`, started when it may be. `Err`: use the one-shot tools,
    /// with a note to pass on when this call found the server failed (it did not start, or
    /// its instrumentation ended): said once, not by every later call.
    pub(super) async fn resident(&self, serial: &str) -> Result<Arc<Server>, Fallback> {
        if self.residents.use_ == HelperUse::Off {
            return Err(None);
        }
        let slot = self.residents.slot(serial);
        let mut held = slot.lock().await;
        match &*held {
            Slot::Running(s) if !s.has_ended() => return Ok(s.clone()),
            Slot::Running(s) => {
                let s = s.clone();
                let why = "the UiAutomator2 server's instrumentation ended";
                *held = Slot::Absent(Absent::Failed(why.into()));
                tracing::warn!(serial, "{why}: reading with uiautomator dump from now on");
                self.stop_helper(&self.residents.http, &s).await;
                return Err(Some(fallback_note(why)));
            }
            Slot::Absent(_) => return Err(None),
            Slot::Unknown => {}
        }
        // The listing read whether it is installed: no round trip for devices without it.
        if self.helper_listed(serial) == Some(false) {
            *held = Slot::Absent(Absent::NotInstalled);
            return Err(None);
        }
        let probe = match self.probe_helper(serial).await {
            Ok(p) => p,
            Err(why) => {
                // The device did not answer the probe: look again next time.
                tracing::debug!(serial, error = %why, "UiAutomator2 probe failed");
                return Err(None);
            }
        };
        let mut note = None;
        *held = if !probe.installed {
            Slot::Absent(Absent::NotInstalled)
        } else if let Some(pid) = probe.running {
            tracing::info!(serial, pid = %pid, "another tool's UiAutomator2 server runs: not used, not stopped");
            Slot::Absent(Absent::Foreign { pid })
        } else {
            let started = std::time::Instant::now();
            match self.start_helper(&self.residents.http, serial).await {
                Ok(server) => {
                    tracing::info!(serial, port = server.host_port, version = ?server.version,
                        ms = started.elapsed().as_millis() as u64, "UiAutomator2 server started");
                    Slot::Running(Arc::new(server))
                }
                Err(why) => {
                    tracing::warn!(serial, error = %why, "the UiAutomator2 server did not start: reading with uiautomator dump");
                    note = Some(fallback_note(&format!("it did not start: {why}")));
                    Slot::Absent(why)
                }
            }
        };
        match &*held {
            Slot::Running(s) => Ok(s.clone()),
            _ => Err(note),
        }
    }

    /// One command to `server`. When the server is broken (no answer, garbage, a hang, a
    /// lost session) it is given up (stopped, the slot absent with the reason) and the answer
    /// is the note the caller passes on; when it only refused this request (no focused field)
    /// it stays in use and the caller does this one with the one-shot tools, saying nothing.
    pub(super) async fn resident_call(
        &self,
        server: &Arc<Server>,
        method: Method,
        rest: &str,
        body: Option<&Value>,
    ) -> Result<Value, Fallback> {
        let limit = self
            .max_command_time
            .map_or(REQUEST_TIMEOUT, |m| m.min(REQUEST_TIMEOUT));
        match call(&self.residents.http, method, server.path(rest), body, limit).await {
            Ok(v) => Ok(v),
            Err(refused) if !refused.breaks_server() => {
                tracing::info!(serial = %server.serial, "{refused}: done with the one-shot tools");
                Err(None)
            }
            Err(why) => {
                let why = why.to_string();
                let warning = fallback_note(&why);
                tracing::warn!(serial = %server.serial, "{warning}");
                self.give_up(server, Absent::Failed(why)).await;
                Err(Some(warning))
            }
        }
    }

    /// Marks `server` failed and stops it, unless another call did already.
    async fn give_up(&self, server: &Arc<Server>, why: Absent) {
        let slot = self.residents.slot(&server.serial);
        let mut held = slot.lock().await;
        if matches!(&*held, Slot::Running(s) if Arc::ptr_eq(s, server)) {
            *held = Slot::Absent(why);
            drop(held);
            self.stop_helper(&self.residents.http, server).await;
        }
    }

    /// Forgets what is known of `serial`'s fast path, stopping the server mobilectl started
    /// there: the device was released (the next session looks again), or the helper was
    /// installed.
    pub(crate) async fn reset_resident(&self, serial: &str) {
        let known = self
            .residents
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(serial)
            .cloned();
        let Some(slot) = known else { return };
        let mut held = slot.lock().await;
        if let Slot::Running(s) = std::mem::replace(&mut *held, Slot::Unknown) {
            self.stop_helper(&self.residents.http, &s).await;
        }
    }

    /// Stops every server mobilectl started (it is stopping).
    pub(crate) async fn stop_residents(&self) {
        for slot in self.residents.running() {
            let mut held = slot.lock().await;
            if let Slot::Running(s) = std::mem::replace(&mut *held, Slot::Unknown) {
                self.stop_helper(&self.residents.http, &s).await;
            }
        }
    }
}

impl AdbBackend {
    /// The doctor's checks of the fast path: where the APKs are on this machine (or where
    /// they were looked for), and each server mobilectl runs now.
    pub(crate) async fn helper_checks(&self) -> Vec<crate::api::wire::service::BackendCheck> {
        use crate::api::wire::service::BackendCheck;
        let check = |name: &str, target: String, ok: bool| BackendCheck {
            backend: Self::ID.into(),
            name: name.into(),
            target,
            ok,
            version: None,
            session: None,
            detail: None,
            remediation: None,
        };
        let places = install::places().await;
        let mut checks = vec![match install::find(&places) {
            Ok((pair, place)) => BackendCheck {
                version: pair.server.version,
                detail: Some(match self.residents.use_ {
                    HelperUse::Auto => "optional: `helper install` puts it on a device; reads and actions there then go through it".into(),
                    HelperUse::Off => "not used: the server was started with --android-helper off".into(),
                }),
                ..check("UiAutomator2 server APKs", place.display().to_string(), true)
            },
            Err(_) => BackendCheck {
                detail: Some(format!(
                    "optional, for reads in milliseconds; looked in {}",
                    places.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
                )),
                remediation: Some(format!(
                    "`npm install -g {}`, then `mobilectl helper install`",
                    install::NPM_PACKAGE
                )),
                ..check("UiAutomator2 server APKs", "not found".into(), false)
            },
        }];
        let slots: Vec<(String, Arc<tokio::sync::Mutex<Slot>>)> = self
            .residents
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (serial, slot) in slots {
            let state = slot.lock().await.clone();
            let (ok, version, detail) = match state {
                Slot::Unknown => continue,
                Slot::Running(s) => (
                    true,
                    s.version.clone(),
                    format!("reads and acts through it (host port {})", s.host_port),
                ),
                // Read with the one-shot tools, usable: said so, with why.
                Slot::Absent(why @ (Absent::NotInstalled | Absent::Foreign { .. })) => {
                    (true, None, format!("uiautomator dump and input: {why}"))
                }
                Slot::Absent(why) => (false, None, format!("uiautomator dump and input: {why}")),
            };
            checks.push(BackendCheck {
                version,
                detail: Some(detail),
                ..check("UiAutomator2 server", serial, ok)
            });
        }
        checks
    }
}
