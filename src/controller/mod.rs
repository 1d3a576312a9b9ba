//! DeviceController: the one object routes talk to. It holds the registry of backends (a list
//! of [`DeviceBackend`]s, the built-in ones from [`crate::backend::registry`] or a test's own),
//! lists devices across all of them, resolves the target device of every request
//! (docs/DESIGN.md "Target device"), remembers the active device, and sends each device
//! operation to the backend that listed the device (`Device::backend`). It never decides by
//! platform: what differs between backends (coordinate space, identifier rules, boot and
//! shutdown, alerts) is asked of the backend, so adding one needs no edit here.

mod actions;
mod alerts;
mod apps;
mod audit;
mod batch;
mod css;
mod diff;
mod doctor;
mod features;
mod files;
mod flow_screen;
mod gestures;
mod listing;
mod logs;
mod notifications;
mod perf;
mod power;
mod proxy;
mod proxy_store;
mod reach;
mod recording;
mod resolve;
mod screenshot;
mod scroll;
mod sessions;
mod simulator;
mod slot;
mod snapshot;
mod target;
mod typing;
mod verify;

pub use actions::Observe;
pub use audit::AuditAsk;
pub use diff::{
    read_baseline_file, DiffSpec, FALLBACK_STATUS_BAR_PIXELS, FALLBACK_STATUS_BAR_POINTS,
};
pub use listing::KNOWN_TTL;
pub use perf::cpu_window;
pub use target::Resolved;
pub use typing::MAX_TYPE_CHARS;
pub use verify::{expect_on, Polling};

pub use screenshot::Shot;
pub use sessions::{
    as_admin, check_name as check_session_name, current as current_session, is_admin, may_see,
    within, Entered, Gone, Session, SessionRegistry,
};
pub use slot::{inside_hold, DeviceSlot};
pub use snapshot::Snapshot;

pub use apps::check_install_path;
pub use files::{
    check_device_path, check_media, not_private, read_under, resolve_read, resolve_write, MAX_FILE,
};
pub use logs::{
    crash_brief, crash_code, log_filter, Bundle, DeviceLogs, LogHub, SourceState, SourceStatus,
};
pub use proxy::{Attached, ProxyAttachments};

pub use resolve::resolve_target;
pub use simulator::check_status_bar;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use serde_json::json;

use crate::api::wire::devices::PlatformTools;
use crate::backend::{registry, BackendConfig, DeviceBackend};
use crate::device::{Device, DeviceState};
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::exec::Toolbox;

/// Orchestrates devices across backends.
pub struct DeviceController {
    /// The registry, in listing order; ids are unique.
    backends: Vec<Arc<dyn DeviceBackend>>,
    tools: Toolbox,
    /// The active device of session-less callers.
    active: RwLock<Option<String>>,
    /// Sessions and the leases they hold.
    sessions: SessionRegistry,
    /// Maestro recordings in progress, by caller (`crate::flows::record`).
    pub recordings: crate::flows::record::Recordings,
    /// What each caller keeps about each device, by (session id or empty, udid).
    slots: Mutex<HashMap<(String, String), Arc<DeviceSlot>>>,
    /// What the callers of each device share (its command lock), by udid.
    shared: Mutex<HashMap<String, Arc<slot::DeviceShared>>>,
    /// The last device listing: requests that name a known device (or go to the active one)
    /// are resolved from it without asking the backends again while it is trusted.
    known: Mutex<Option<listing::KnownList>>,
    /// The last full listing, with its tools report, and when it completed.
    listed: Mutex<Option<(Instant, Vec<Device>, PlatformTools)>>,
    /// One listing at a time: callers that arrive while one runs take its answer
    /// (single-flight), so a burst of requests costs one `adb devices` and no `getprop` storm.
    listing: tokio::sync::Mutex<()>,
    /// Devices pointed at the recording proxy, and what to restore on each.
    proxy_attachments: ProxyAttachments,
    /// Every device's log (see [`logs`]).
    logs: LogHub,
    /// Screen recordings, running and finished (see [`recording`]).
    screen_recordings: Arc<recording::ScreenRecordings>,
    /// Performance windows, running and finished (see [`perf`]).
    perf: Arc<perf::PerfState>,
    /// The runs: each session's, the server's, their traces and artifacts (`crate::runs`).
    runs: crate::runs::RunStore,
}

impl DeviceController {
    /// A controller over the built-in backends.
    pub fn new(config: BackendConfig) -> Self {
        Self::with_backends(config.tools.clone(), registry::builtin(&config))
    }

    /// A controller over `backends`, listed in this order. A backend whose id is already in
    /// the list replaces the earlier one in its place (a test swaps a built-in for a fake);
    /// `tools` is what the doctor checks.
    pub fn with_backends(tools: Toolbox, backends: Vec<Arc<dyn DeviceBackend>>) -> Self {
        let mut registry: Vec<Arc<dyn DeviceBackend>> = Vec::with_capacity(backends.len());
        for b in backends {
            match registry.iter_mut().find(|r| r.id() == b.id()) {
                Some(slot) => *slot = b,
                None => registry.push(b),
            }
        }
        DeviceController {
            backends: registry,
            tools,
            active: RwLock::new(None),
            sessions: SessionRegistry::default(),
            recordings: Default::default(),
            slots: Mutex::new(HashMap::new()),
            shared: Mutex::new(HashMap::new()),
            known: Mutex::new(None),
            listed: Mutex::new(None),
            listing: tokio::sync::Mutex::new(()),
            proxy_attachments: ProxyAttachments::default(),
            logs: LogHub::default(),
            screen_recordings: Default::default(),
            perf: Default::default(),
            runs: crate::runs::RunStore::temporary(),
        }
    }

    /// The same controller keeping its runs in `runs` (a cache directory and a GC policy);
    /// without this, runs go to a temporary directory deleted with the controller.
    pub fn with_runs(mut self, runs: crate::runs::RunStore) -> Self {
        self.runs = runs;
        self
    }

    /// The runs and their artifacts.
    pub fn runs(&self) -> &crate::runs::RunStore {
        &self.runs
    }

    /// Where each external tool is (adb, xcrun, AXe, idb…), fixed at startup.
    pub fn tools(&self) -> &Toolbox {
        &self.tools
    }

    /// The registered backends, in listing order.
    pub fn backends(&self) -> &[Arc<dyn DeviceBackend>] {
        &self.backends
    }

    /// What the running request's caller (its session, or the session-less callers) keeps
    /// about `udid`.
    pub fn slot(&self, udid: &str) -> Arc<DeviceSlot> {
        let key = (sessions::caller_key(), udid.to_string());
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = slots.get(&key) {
            return s.clone();
        }
        let shared = self
            .shared
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(udid.to_string())
            .or_default()
            .clone();
        let slot = Arc::new(DeviceSlot::of(shared));
        slots.insert(key, slot.clone());
        slot
    }

    /// Forgets the slots and the flow recordings of sessions that are no longer live.
    fn forget_dead_slots(&self) {
        let live: std::collections::HashSet<String> =
            self.sessions.list().iter().map(|s| s.id.clone()).collect();
        self.slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(caller, _), _| caller.is_empty() || live.contains(caller));
        self.recordings.retain_live(|caller| live.contains(caller));
        self.stop_recordings_of_ended_sessions(&live);
        self.stop_perf_windows_of_ended_sessions(&live);
        self.runs.end_sessions_except(|id| live.contains(id));
        self.let_go_of_released();
    }

    /// Tells the backends of the devices whose lease was released (they stop what they
    /// started there for the session: Android's resident server), in the background.
    pub fn let_go_of_released(&self) {
        let released = self.sessions.take_released();
        if released.is_empty() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // Outside a runtime (a synchronous caller): nothing runs on devices to stop.
            return;
        };
        let backends = self.backends.clone();
        runtime.spawn(async move {
            for udid in &released {
                for b in backends.iter() {
                    b.device_released(udid).await;
                }
            }
        });
    }

    /// Stops what the backends keep running on devices (the server is stopping).
    pub async fn let_go_of_all(&self) {
        for b in self.backends.iter() {
            b.closing().await;
        }
    }

    /// The backend that listed `device` and drives it.
    pub fn backend(&self, device: &Device) -> Result<&dyn DeviceBackend> {
        self.backends
            .iter()
            .find(|b| b.id() == device.backend)
            .map(|b| b.as_ref())
            .ok_or_else(|| {
                Error::internal(format!(
                    "device `{}` belongs to backend `{}`, which is not registered",
                    device.udid, device.backend
                ))
            })
    }

    /// The backend that listed `device`, shared (a log supervisor keeps it while it runs).
    pub fn backend_arc(&self, device: &Device) -> Result<Arc<dyn DeviceBackend>> {
        self.backends
            .iter()
            .find(|b| b.id() == device.backend)
            .cloned()
            .ok_or_else(|| {
                Error::internal(format!(
                    "device `{}` belongs to backend `{}`, which is not registered",
                    device.udid, device.backend
                ))
            })
    }

    /// The active device's udid.
    pub fn active(&self) -> Option<String> {
        self.active.read().map(|a| a.clone()).unwrap_or(None)
    }

    fn set_active_udid(&self, udid: Option<String>) {
        if let Ok(mut a) = self.active.write() {
            *a = udid;
        }
    }

    /// Resolves the target device of a request (docs/DESIGN.md "Target device"). Does not change
    /// the active device: see [`Self::resolve_to_act`].
    /// A request in a session goes to the session's device (see [`sessions`]).
    pub async fn resolve(&self, udid: Option<&str>) -> Result<Device> {
        let udid = udid.filter(|u| !u.is_empty());
        match sessions::current() {
            Some(session) => self.resolve_in_session(&session, udid).await,
            None => self.resolve_for(udid, self.active()).await,
        }
    }

    /// Resolves `udid`, else `active`, else the only ready device, among the devices listed.
    async fn resolve_for(&self, udid: Option<&str>, active: Option<String>) -> Result<Device> {
        let udid = udid.filter(|u| !u.is_empty());
        let recent = self.trusted_listing();
        // A recent listing answers when it resolves to a ready device; anything else (an
        // unknown name, a device that was offline) is looked up afresh.
        let from_cache = recent
            .and_then(|ds| resolve_target(udid, active.as_deref(), &ds).ok())
            .filter(|d| d.state.is_ready());
        let device = match from_cache {
            Some(d) => d,
            None => match resolve_target(udid, active.as_deref(), &self.list().await.devices) {
                Ok(d) => d,
                Err(e) if e.code == ErrorCode::NoDevice => {
                    // A backend may bring back the device the request is about (adb forgets
                    // devices reached over TCP when its server restarts): once, then look again.
                    let wanted = udid.or(active.as_deref()).unwrap_or_default();
                    if !self.reconnect(wanted).await {
                        return Err(e);
                    }
                    resolve_target(udid, active.as_deref(), &self.list().await.devices)?
                }
                Err(e) => return Err(e),
            },
        };
        Ok(device)
    }

    /// Asks each backend in turn to bring back `udid`; whether one did.
    async fn reconnect(&self, udid: &str) -> bool {
        if udid.is_empty() {
            return false;
        }
        for c in self.backends.iter().filter_map(|b| b.connect()) {
            if c.reconnect(udid).await.unwrap_or(false) {
                return true;
            }
        }
        false
    }

    /// Connects to a device over the network on an explicit request (`adb connect`), through
    /// the first backend that connects devices; answers it as listed afterwards and whether
    /// it was connected already.
    pub async fn connect(&self, host: &str, port: u16) -> Result<(Device, bool)> {
        if let Some(c) = self.backends.iter().find_map(|b| b.connect()) {
            let (serial, already) = c.connect(host, port).await?;
            return match self.find(&serial).await {
                Some(d) => Ok((d, already)),
                None => Err(Error::new(
                    ErrorCode::DeviceOffline,
                    format!("adb connected to {serial} but does not list it"),
                )
                .with_hint("retry; if it persists, check `adb devices` and the phone")),
            };
        }
        Err(crate::backend::unsupported(
            "connecting to a device over the network",
            "any registered backend",
        ))
    }

    /// Resolves the device of an action (anything that changes the device): it must take
    /// commands now, and a request that names it makes it the active one. Reads never change
    /// the active device.
    /// A device another session leases is refused before any command runs.
    pub async fn resolve_to_act(&self, udid: Option<&str>) -> Result<Device> {
        let device = self.resolve_ready(udid).await?;
        self.check_lease(&device)?;
        self.activate_named(udid, &device);
        Ok(device)
    }

    /// Resolves the device of a system operation that may find it not ready (boot, shutdown):
    /// as [`Self::resolve_to_act`] without requiring it to take commands.
    pub(crate) async fn resolve_to_change(&self, udid: Option<&str>) -> Result<Device> {
        let device = self.resolve(udid).await?;
        self.check_lease(&device)?;
        self.activate_named(udid, &device);
        Ok(device)
    }

    /// Makes `device` the active one of session-less callers when the request named it (a
    /// session's active device is the one it holds).
    fn activate_named(&self, udid: Option<&str>, device: &Device) {
        if udid.is_some_and(|u| !u.is_empty()) && sessions::current().is_none() {
            self.set_active_udid(Some(device.udid.clone()));
        }
    }

    /// Resolves the target device and requires it to take commands now.
    pub async fn resolve_ready(&self, udid: Option<&str>) -> Result<Device> {
        let device = self.resolve(udid).await?;
        require_ready(&device)?;
        Ok(device)
    }

    /// Chooses the active device. In a session, it must be the session's device (a lazy
    /// session leases it).
    pub async fn set_active(&self, udid: &str) -> Result<Device> {
        let device = self.resolve(Some(udid)).await?;
        if sessions::current().is_none() {
            self.set_active_udid(Some(device.udid.clone()));
        }
        Ok(device)
    }

    /// Forgets the active device.
    pub fn clear_active(&self) {
        self.set_active_udid(None);
    }
}

/// `DEVICE_OFFLINE` for a device that cannot take commands now.
pub fn require_ready(device: &Device) -> Result<()> {
    if device.state.is_ready() {
        return Ok(());
    }
    let (hint, steps) = match device.state {
        DeviceState::Unauthorized => (
            "accept the USB debugging prompt on the phone, then retry",
            vec![],
        ),
        DeviceState::Shutdown => ("boot it with {0}", vec![Step::call(Op::Boot)]),
        _ => (
            "reconnect the device (adb reconnect), or wait for it to finish booting",
            vec![],
        ),
    };
    Err(Error::new(
        ErrorCode::DeviceOffline,
        format!(
            "device `{}` is {}",
            device.udid,
            serde_json::to_value(device.state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        ),
    )
    .with_next(hint, steps)
    .with_details(json!({ "device": device })))
}
