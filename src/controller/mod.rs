//! DeviceController: the one object routes talk to. It lists devices across platforms, resolves
//! the target device of every request (DESIGN.md's rule), remembers the active device, and
//! dispatches device operations to the right backend.

mod actions;
mod alerts;
mod apps;
mod logs;
mod resolve;
mod screenshot;
mod scroll;
mod session;
mod simulator;
mod snapshot;
mod target;
mod typing;
mod verify;

pub use actions::{ActionResult, Direction, TargetReport};
pub use alerts::AlertChoice;
pub use target::{Resolved, Target};
pub use typing::TypeOptions;
pub use verify::{
    expect_on, ChangeResult, ChangeStatus, Condition, ExpectResult, Expectation, Observed, Polling,
    WaitResult, WaitStatus,
};

pub use screenshot::Shot;
pub use session::DeviceSession;
pub use snapshot::Snapshot;

pub use apps::{check_bundle_id, check_install_path};
pub use logs::{
    crash_brief, crash_code, log_filter, Bundle, DeviceLogs, LogHub, SourceState, SourceStatus,
};

pub use resolve::resolve_target;
pub use simulator::check_status_bar;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use crate::backend::android::AdbBackend;
use crate::backend::ios::SimctlBackend;
use crate::backend::{Device, DeviceBackend, DeviceKind, DeviceState, Platform, PlatformStatus};
use crate::error::{Error, ErrorCode, Result};
use crate::exec::Toolbox;

/// Settings the controller needs from the server's configuration.
#[derive(Debug, Clone, Default)]
pub struct ControllerConfig {
    pub tools: Toolbox,
    /// Port of the adb server to use (`adb -P`), when not adb's default.
    pub adb_server_port: Option<u16>,
    /// Upper bound of every device command's time limit (default: each command's own).
    pub max_command_time: Option<Duration>,
}

/// Which platforms could be listed, and why not.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlatformTools {
    pub android: PlatformStatus,
    pub ios: PlatformStatus,
}

/// The answer of a device listing.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeviceList {
    pub devices: Vec<Device>,
    /// The active device's udid, if one is chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<String>,
    /// Per platform: whether it could be listed, and why not.
    pub tools: PlatformTools,
}

/// Which device to boot: an iOS Simulator by udid or name, or an Android emulator by AVD.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BootRequest {
    /// iOS Simulator udid or name.
    pub udid: Option<String>,
    /// Android Virtual Device name (started with the SDK's `emulator`).
    pub avd: Option<String>,
    /// Wait until the device has finished booting (default true).
    pub wait: Option<bool>,
    /// How long to wait, in milliseconds (default 180000).
    pub timeout_ms: Option<u64>,
}

/// Which device to shut down.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShutdownRequest {
    /// Device udid or name; default: the target device.
    pub udid: Option<String>,
}

/// What a boot or shutdown did.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PowerResult {
    /// The device, as listed after the operation (absent when an emulator is still starting).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<Device>,
    /// `booted`, `booting` or `shutdown`.
    pub state: DeviceState,
}

/// Orchestrates devices across backends.
pub struct DeviceController {
    android: AdbBackend,
    ios: SimctlBackend,
    tools: Toolbox,
    active: RwLock<Option<String>>,
    sessions: Mutex<HashMap<String, Arc<DeviceSession>>>,
    /// The last device listing and when it was made: requests that name a known device (or
    /// go to the active one) are resolved from it without another `adb devices` round trip.
    known: Mutex<Option<(Instant, Vec<Device>)>>,
    /// The last full listing, with its tools report, and when it completed.
    listed: Mutex<Option<(Instant, Vec<Device>, PlatformTools)>>,
    /// One listing at a time: callers that arrive while one runs take its answer
    /// (single-flight), so a burst of requests costs one `adb devices` and no `getprop` storm.
    listing: tokio::sync::Mutex<()>,
    /// Every device's log (see [`logs`]).
    logs: LogHub,
}

/// How long a device listing is trusted for resolving a named or active device.
const KNOWN_TTL: Duration = Duration::from_secs(3);

impl DeviceController {
    pub fn new(config: ControllerConfig) -> Self {
        DeviceController {
            android: AdbBackend::new(
                config.tools.clone(),
                config.adb_server_port,
                config.max_command_time,
            ),
            ios: SimctlBackend::new(config.tools.clone()),
            tools: config.tools,
            active: RwLock::new(None),
            sessions: Mutex::new(HashMap::new()),
            known: Mutex::new(None),
            listed: Mutex::new(None),
            listing: tokio::sync::Mutex::new(()),
            logs: LogHub::default(),
        }
    }

    pub fn tools(&self) -> &Toolbox {
        &self.tools
    }

    pub fn android(&self) -> &AdbBackend {
        &self.android
    }

    pub fn ios(&self) -> &SimctlBackend {
        &self.ios
    }

    /// The per-device state of `udid`.
    pub fn session(&self, udid: &str) -> Arc<DeviceSession> {
        let mut map = match self.sessions.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        map.entry(udid.to_string()).or_default().clone()
    }

    /// The backend that drives `device`.
    pub fn backend(&self, device: &Device) -> &dyn DeviceBackend {
        match device.platform {
            Platform::Android => &self.android,
            Platform::Ios => &self.ios,
        }
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

    /// Lists devices on every platform whose tool is present, concurrently. A platform whose
    /// tool is missing or fails is absent, and `tools` says why.
    pub async fn list(&self) -> DeviceList {
        let asked = Instant::now();
        let _turn = self.listing.lock().await;
        let shared = self.listed.lock().ok().and_then(|l| {
            l.as_ref()
                .filter(|(at, _, _)| *at >= asked)
                .map(|(_, d, t)| (d.clone(), t.clone()))
        });
        if let Some((devices, tools)) = shared {
            return DeviceList {
                devices,
                active: self.active(),
                tools,
            };
        }
        let (android, ios) = tokio::join!(self.android.list_devices(), self.ios.list_devices());
        let mut devices = Vec::new();
        let mut status = |r: Result<Vec<Device>>| match r {
            Ok(mut ds) => {
                devices.append(&mut ds);
                PlatformStatus::available()
            }
            Err(e) => PlatformStatus::absent(&e),
        };
        let tools = PlatformTools {
            android: status(android),
            ios: status(ios),
        };
        if let Ok(mut known) = self.known.lock() {
            *known = Some((Instant::now(), devices.clone()));
        }
        if let Ok(mut listed) = self.listed.lock() {
            *listed = Some((Instant::now(), devices.clone(), tools.clone()));
        }
        DeviceList {
            devices,
            active: self.active(),
            tools,
        }
    }

    /// Resolves the target device of a request (DESIGN.md's rule). Does not change the active
    /// device: see [`Self::resolve_to_act`].
    pub async fn resolve(&self, udid: Option<&str>) -> Result<Device> {
        let udid = udid.filter(|u| !u.is_empty());
        let active = self.active();
        let recent = self.known.lock().ok().and_then(|k| {
            k.as_ref()
                .filter(|(at, _)| at.elapsed() < KNOWN_TTL)
                .map(|(_, ds)| ds.clone())
        });
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
                    // A restarted adb server forgets devices reached over TCP: reconnect the
                    // one the request is about, once, and look again.
                    let wanted = udid.or(active.as_deref()).unwrap_or_default();
                    if !self.android.reconnect(wanted).await.unwrap_or(false) {
                        return Err(e);
                    }
                    resolve_target(udid, active.as_deref(), &self.list().await.devices)?
                }
                Err(e) => return Err(e),
            },
        };
        Ok(device)
    }

    /// Resolves the device of an action (anything that changes the device): it must take
    /// commands now, and a request that names it makes it the active one. Reads never change
    /// the active device.
    pub async fn resolve_to_act(&self, udid: Option<&str>) -> Result<Device> {
        let device = self.resolve_ready(udid).await?;
        self.activate_named(udid, &device);
        Ok(device)
    }

    /// Makes `device` the active one when the request named it.
    pub(crate) fn activate_named(&self, udid: Option<&str>, device: &Device) {
        if udid.is_some_and(|u| !u.is_empty()) {
            self.set_active_udid(Some(device.udid.clone()));
        }
    }

    /// Resolves the target device and requires it to take commands now.
    pub async fn resolve_ready(&self, udid: Option<&str>) -> Result<Device> {
        let device = self.resolve(udid).await?;
        require_ready(&device)?;
        Ok(device)
    }

    /// Chooses the active device.
    pub async fn set_active(&self, udid: &str) -> Result<Device> {
        let device = self.resolve(Some(udid)).await?;
        self.set_active_udid(Some(device.udid.clone()));
        Ok(device)
    }

    /// Forgets the active device.
    pub fn clear_active(&self) {
        self.set_active_udid(None);
    }

    /// Boots an iOS Simulator (udid or name) or an Android emulator (AVD name).
    pub async fn boot(&self, req: &BootRequest) -> Result<PowerResult> {
        let wait = req.wait.unwrap_or(true);
        let limit = Duration::from_millis(req.timeout_ms.unwrap_or(180_000).clamp(1_000, 600_000));
        match (req.udid.as_deref(), req.avd.as_deref()) {
            (Some(_), Some(_)) | (None, None) => Err(Error::validation(
                "name exactly one of `udid` (iOS Simulator) or `avd` (Android emulator)",
            )
            .with_hint("e.g. {\"udid\": \"iPhone 15\"} or {\"avd\": \"Pixel_7_API_34\"}")),
            (Some(udid), None) => {
                let list = self.list().await;
                let sims: Vec<Device> = list
                    .devices
                    .into_iter()
                    .filter(|d| d.platform == Platform::Ios)
                    .collect();
                let sim = resolve_target(Some(udid), None, &sims).map_err(|e| {
                    if list.tools.ios.available {
                        e.with_hint("Android emulators are booted by AVD name: {\"avd\": \"…\"}")
                    } else {
                        Error::new(
                            ErrorCode::ToolMissing,
                            "iOS Simulators cannot be listed here",
                        )
                        .with_hint(list.tools.ios.hint.clone().unwrap_or_default())
                    }
                })?;
                self.ios.boot(&sim.udid).await?;
                let device = self.find(&sim.udid).await;
                self.set_active_udid(Some(sim.udid.clone()));
                Ok(PowerResult {
                    state: device.as_ref().map_or(DeviceState::Booted, |d| d.state),
                    device,
                })
            }
            (None, Some(avd)) => {
                let serial = self.android.boot_avd(avd, wait.then_some(limit)).await?;
                let device = match &serial {
                    Some(s) => self.find(s).await,
                    None => None,
                };
                if let Some(s) = serial {
                    self.set_active_udid(Some(s));
                }
                Ok(PowerResult {
                    state: if device.is_some() {
                        DeviceState::Online
                    } else {
                        DeviceState::Booting
                    },
                    device,
                })
            }
        }
    }

    /// Shuts down a simulator or an emulator. Physical phones are refused.
    pub async fn shutdown(&self, req: &ShutdownRequest) -> Result<PowerResult> {
        let device = self.resolve(req.udid.as_deref()).await?;
        self.activate_named(req.udid.as_deref(), &device);
        match (device.platform, device.kind) {
            (Platform::Ios, _) => self.ios.shutdown(&device.udid).await?,
            (Platform::Android, DeviceKind::Emulator) => {
                self.android.kill_emulator(&device.udid).await?
            }
            (Platform::Android, _) => {
                return Err(Error::new(
                    ErrorCode::UnsupportedOnPlatform,
                    "mobilectl does not power off physical phones",
                )
                .with_hint("only emulators and simulators can be shut down"))
            }
        }
        if self.active().as_deref() == Some(&device.udid) && device.platform == Platform::Android {
            self.clear_active();
        }
        Ok(PowerResult {
            device: self.find(&device.udid).await,
            state: DeviceState::Shutdown,
        })
    }

    async fn find(&self, udid: &str) -> Option<Device> {
        self.list()
            .await
            .devices
            .into_iter()
            .find(|d| d.udid == udid)
    }
}

/// `DEVICE_OFFLINE` for a device that cannot take commands now.
pub fn require_ready(device: &Device) -> Result<()> {
    if device.state.is_ready() {
        return Ok(());
    }
    let hint = match device.state {
        DeviceState::Unauthorized => "accept the USB debugging prompt on the phone, then retry",
        DeviceState::Shutdown => "boot it with POST /api/v1/device/boot",
        _ => "reconnect the device (adb reconnect), or wait for it to finish booting",
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
    .with_hint(hint)
    .with_details(json!({ "device": device })))
}
