//! Physical iPhones (and simulators given to it) through WebDriverAgent over HTTP, with Xcode's
//! devicectl for what WDA cannot do (installing and listing apps). Each `--wda [UDID=]URL`
//! endpoint is a device; WDA's session is created on first use and reused. The UI is WDA's
//! `/source` (XML through the WDA parser, JSON as a fallback), taps and swipes W3C actions in
//! points, typing `/wda/keys`, keys `/wda/pressButton`, alerts WDA's alert routes, screenshots
//! `/screenshot`, apps `/wda/apps/*`. What an iPhone cannot do answers `501` with a hint.
//!
//! Requests per operation (the goal: one per action): a snapshot is one `/source` (plus
//! `/wda/screen` only when the source does not say the screen's size); tap, long press, swipe,
//! press, hide keyboard, open URL, launch, terminate and alert answers one request each (plus
//! `POST /session` once per session); `type` one `/wda/keys` after the tap on its target.

mod alerts;
mod apps;
mod client;
mod devicectl;
mod doctor;
mod endpoint;
mod errors;
mod features;
mod files;
mod gestures;
mod listing;
mod screen;
mod status;

pub use endpoint::EndpointSpec;

use std::path::Path;
use std::time::Duration;

use crate::backend::polled::PolledListing;

use async_trait::async_trait;
use reqwest::Method;
use serde_json::{json, Value};

use self::client::{Transport, COMMAND_TIMEOUT};
use self::devicectl::Devicectl;
use self::endpoint::Endpoint;
use self::gestures::{WdaKey, DELETE, RETURN, TAP_HOLD_MS};
use super::{unsupported, validate, DeviceBackend, ScreenGeometry, TypeJob, TypedWith, UiSource};
use crate::api::wire::service::{BackendCheck, Readiness, ToolCheck};
use crate::device::{
    AlertChoice, AppInfo, Device, DeviceKind, KeyPress, LaunchOptions, Launched, Platform, Point,
    StatusBarOverride,
};
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::exec::Toolbox;
use crate::ui::{Alert, AlertButton, CoordinateSpace};

/// Recorded answers for the unit tests of this folder.
#[cfg(test)]
pub(crate) fn recorded(rel: &str) -> Vec<u8> {
    std::fs::read(format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A recorded WebDriverAgent answer (`fixtures/ios_wda_source/NAME`) as JSON.
#[cfg(test)]
pub(crate) fn recorded_wda(name: &str) -> Value {
    serde_json::from_slice(&recorded(&format!("ios_wda_source/{name}"))).unwrap()
}

/// Default time limit of `GET /source` (WDA takes about 5 s on a 2,000-node screen).
pub const DEFAULT_SOURCE_TIMEOUT: Duration = Duration::from_secs(20);

/// The WDA endpoints and how long a UI read may take.
#[derive(Debug, Clone)]
pub struct WdaConfig {
    /// The endpoints given (`--wda [UDID=]URL`).
    pub endpoints: Vec<EndpointSpec>,
    /// Time limit of a UI read (`GET /source`; default [`DEFAULT_SOURCE_TIMEOUT`]).
    pub source_timeout: Duration,
}

impl Default for WdaConfig {
    fn default() -> Self {
        WdaConfig {
            endpoints: Vec::new(),
            source_timeout: DEFAULT_SOURCE_TIMEOUT,
        }
    }
}

/// The listing's answer when there is nothing to list.
fn not_configured() -> Error {
    Error::new(
        ErrorCode::ToolMissing,
        "no WebDriverAgent endpoint is configured and devicectl (xcrun) was not found",
    )
    .with_hint(
        "start WebDriverAgent on the iPhone, forward its port (`iproxy 8100 8100`), and run \
         `mobilectl serve --wda UDID=http://127.0.0.1:8100` (or set MOBILECTL_WDA)",
    )
}

/// The answer for a UI operation on a phone without a WDA endpoint.
fn no_wda(device: &Device) -> Error {
    Error::new(
        ErrorCode::ToolMissing,
        format!(
            "`{}` has no WebDriverAgent endpoint: its UI cannot be read or driven",
            device.name
        ),
    )
    .with_hint(format!(
        "start WebDriverAgent on it, forward its port (`iproxy 8100 8100 -u {u}` or \
         `ios forward 8100 8100 --udid {u}`) and restart with `--wda {u}=http://127.0.0.1:8100`; \
         its app routes work through devicectl meanwhile",
        u = device.udid
    ))
}

/// Talks to iOS devices through WebDriverAgent endpoints and devicectl.
pub struct WdaBackend {
    endpoints: Vec<Endpoint>,
    transport: Transport,
    devicectl: Devicectl,
    /// devicectl's device list, kept and refreshed in the background (it takes a while).
    devicectl_listing: PolledListing<devicectl::Listing>,
    source_timeout: Duration,
}

impl WdaBackend {
    /// The registry key of this backend.
    pub const ID: &'static str = "wda";

    /// devicectl's listing, as a future that owns what it needs.
    fn devicectl_lister(
        &self,
    ) -> futures_util::future::BoxFuture<'static, Result<devicectl::Listing>> {
        let devicectl = self.devicectl.clone();
        Box::pin(async move { devicectl.list().await })
    }

    /// A backend over the endpoints of `config`, with devicectl from `tools` for phones' apps
    /// and listing, every command's time limit capped at `max_command_time` when given.
    pub fn new(tools: Toolbox, config: &WdaConfig, max_command_time: Option<Duration>) -> Self {
        WdaBackend {
            endpoints: config
                .endpoints
                .iter()
                .cloned()
                .map(Endpoint::new)
                .collect(),
            transport: Transport::new(max_command_time),
            devicectl: Devicectl::new(tools, max_command_time),
            devicectl_listing: PolledListing::default(),
            source_timeout: config.source_timeout,
        }
    }

    /// The endpoint that drives `device`, or what to do when it has none.
    fn endpoint(&self, device: &Device) -> Result<&Endpoint> {
        self.endpoints
            .iter()
            .find(|e| e.udid == device.udid)
            .ok_or_else(|| no_wda(device))
    }

    async fn session_call(
        &self,
        device: &Device,
        method: Method,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<Value> {
        let ep = self.endpoint(device)?;
        self.transport
            .in_session(ep, method, path, body, timeout)
            .await
    }

    async fn actions(&self, device: &Device, body: Value, gesture_ms: u64) -> Result<()> {
        let timeout = COMMAND_TIMEOUT + Duration::from_millis(gesture_ms);
        self.session_call(device, Method::POST, "/actions", Some(&body), timeout)
            .await
            .map(drop)
    }

    async fn keys(&self, device: &Device, text: &str) -> Result<()> {
        // WDA types about 60 characters a second; allow for a slower phone.
        let timeout = COMMAND_TIMEOUT + Duration::from_millis(100 * text.chars().count() as u64);
        let body = gestures::keys_body(text);
        self.session_call(device, Method::POST, "/wda/keys", Some(&body), timeout)
            .await
            .map(drop)
    }
}

#[async_trait]
impl DeviceBackend for WdaBackend {
    async fn push_file(
        &self,
        device: &Device,
        local: &std::path::Path,
        device_path: &str,
        bundle_id: Option<&str>,
    ) -> Result<()> {
        self.push(device, local, device_path, bundle_id).await
    }

    async fn pull_file(
        &self,
        device: &Device,
        device_path: &str,
        bundle_id: Option<&str>,
        local: &std::path::Path,
        max: u64,
    ) -> Result<u64> {
        self.pull(device, device_path, bundle_id, local, max).await
    }

    fn id(&self) -> &'static str {
        Self::ID
    }
    fn platform(&self) -> Platform {
        Platform::Ios
    }
    fn name(&self) -> &'static str {
        "iOS devices through WebDriverAgent"
    }
    fn coordinate_space(&self) -> CoordinateSpace {
        CoordinateSpace::Points
    }

    async fn list_devices(&self) -> Result<Vec<Device>> {
        self.devices().await
    }
    /// The endpoints are fixed; what moves is devicectl's list (kept, refreshed behind) and
    /// the names an endpoint's first `/status` gives.
    fn devices_generation(&self) -> Option<u64> {
        let listed = if self.devicectl.available() {
            self.devicectl_listing
                .generation(|| self.devicectl_lister())?
        } else {
            0
        };
        let named = self
            .endpoints
            .iter()
            .filter(|e| e.status().is_some())
            .count() as u64;
        Some(listed * 1024 + named)
    }
    /// A simulator given to `--wda` is listed by the simulator backend too: it stays one
    /// device, a simulator named as simctl names it, driven through WDA.
    fn take_over(&self, mine: &Device, earlier: &Device) -> Option<Device> {
        if earlier.kind != DeviceKind::Simulator {
            return None;
        }
        Some(Device {
            kind: DeviceKind::Simulator,
            name: earlier.name.clone(),
            state: earlier.state,
            os_version: earlier
                .os_version
                .clone()
                .or_else(|| mine.os_version.clone()),
            model: earlier.model.clone().or_else(|| mine.model.clone()),
            ..mine.clone()
        })
    }
    async fn boot(&self, device: &Device, _wait: Option<Duration>) -> Result<()> {
        Err(unsupported("booting", self.name()).with_hint(match device.kind {
            DeviceKind::Simulator => {
                "this simulator is driven through WebDriverAgent: boot it with `xcrun simctl boot`"
            }
            _ => "a physical iPhone is not booted from here: turn it on, unlock it and start WebDriverAgent",
        }))
    }

    fn check_app_id<'a>(&self, bundle_id: &'a str) -> Result<&'a str> {
        validate::ios_bundle_id(bundle_id)
    }
    fn check_app_package(&self, path: &Path, meta: &std::fs::Metadata) -> Result<()> {
        match validate::extension(path).as_str() {
            "app" if meta.is_dir() => Ok(()),
            "ipa" if meta.is_file() => Ok(()),
            _ => Err(Error::validation(format!(
                "`{}` is neither an .app folder nor an .ipa file",
                path.display()
            ))
            .with_hint("iPhones install a signed device build: the .app folder or an .ipa")),
        }
    }

    async fn doctor(&self, _tools: &[ToolCheck]) -> (Readiness, Vec<BackendCheck>) {
        self.doctor_checks().await
    }

    // --- apps: WDA when the device has an endpoint, devicectl otherwise -----------------------
    async fn install_app(&self, device: &Device, path: &Path) -> Result<()> {
        let id = self.devicectl_id(device, "installing apps")?;
        self.devicectl.install(id, path).await
    }
    async fn launch_app(&self, d: &Device, bundle_id: &str, o: &LaunchOptions) -> Result<Launched> {
        self.launch(d, bundle_id, o).await
    }
    async fn terminate_app(&self, device: &Device, bundle_id: &str) -> Result<()> {
        self.terminate(device, bundle_id).await
    }
    async fn reset_app(&self, _device: &Device, bundle_id: &str) -> Result<()> {
        Err(apps::reset_unsupported(bundle_id))
    }
    async fn list_apps(&self, device: &Device) -> Result<Vec<AppInfo>> {
        let id = self.devicectl_id(device, "listing apps")?;
        self.devicectl.list_apps(id).await
    }
    async fn open_url(&self, device: &Device, url: &str) -> Result<()> {
        let body = json!({ "url": url });
        self.session_call(device, Method::POST, "/url", Some(&body), COMMAND_TIMEOUT)
            .await
            .map(drop)
    }

    // --- screen ---------------------------------------------------------------------------
    async fn screenshot_png(&self, device: &Device) -> Result<Vec<u8>> {
        self.screenshot(device).await
    }
    async fn start_recording(
        &self,
        _device: &Device,
        _options: &crate::device::RecordingOptions,
        _dest: &Path,
    ) -> Result<Box<dyn crate::device::ScreenRecorder>> {
        Err(Error::new(
            ErrorCode::UnsupportedOnPlatform,
            "recording the screen of a physical iPhone is not offered by WebDriverAgent",
        )
        .with_hint(
            "record on the phone (Control Center → Screen Recording) or with QuickTime Player on a \
             Mac; iOS Simulators record through simctl",
        ))
    }
    async fn dump_ui(&self, device: &Device) -> Result<UiSource> {
        self.source(device).await
    }
    async fn screen_geometry(&self, device: &Device) -> Option<ScreenGeometry> {
        let ep = self.endpoint(device).ok()?;
        self.read_geometry(ep).await
    }

    // --- input: W3C actions in points ---------------------------------------------------------
    async fn tap(&self, device: &Device, at: Point) -> Result<()> {
        self.actions(device, gestures::press_at(at, TAP_HOLD_MS)?, TAP_HOLD_MS)
            .await
    }
    async fn long_press(&self, device: &Device, at: Point, duration_ms: u64) -> Result<()> {
        self.actions(device, gestures::press_at(at, duration_ms)?, duration_ms)
            .await
    }
    async fn swipe(&self, d: &Device, from: Point, to: Point, duration_ms: u64) -> Result<()> {
        self.actions(d, gestures::swipe(from, to, duration_ms)?, duration_ms)
            .await
    }
    async fn type_text(&self, device: &Device, text: &str) -> Result<TypedWith> {
        self.keys(device, text).await?;
        Ok(TypedWith("wda_keys"))
    }
    async fn press_key(&self, device: &Device, key: KeyPress) -> Result<()> {
        let (path, body) = match gestures::wda_key(key)? {
            WdaKey::Button(name) => ("/wda/pressButton", json!({ "name": name })),
            WdaKey::Chars(chars) => return self.keys(device, chars).await,
            WdaKey::Lock => ("/wda/lock", json!({})),
            WdaKey::Hid(usage) => ("/wda/performIoHidEvent", gestures::hid_body(usage)),
        };
        self.session_call(device, Method::POST, path, Some(&body), COMMAND_TIMEOUT)
            .await
            .map(drop)
    }
    /// The tap on the field (when there is one), then one `/wda/keys` with the deletes, the
    /// text and Return: two requests at most.
    async fn type_job(&self, device: &Device, job: &TypeJob<'_>) -> Result<TypedWith> {
        self.endpoint(device)?;
        if let Some(at) = job.tap {
            self.tap(device, at).await?;
        }
        let mut chars = DELETE.repeat(job.clear_chars.unwrap_or(0));
        chars.push_str(job.text);
        if job.submit {
            chars.push_str(RETURN);
        }
        if chars.is_empty() {
            return Ok(TypedWith("none"));
        }
        self.keys(device, &chars).await?;
        Ok(TypedWith("wda_keys"))
    }
    async fn clear_field(&self, device: &Device, chars: usize) -> Result<()> {
        if chars == 0 {
            return Ok(());
        }
        self.keys(device, &DELETE.repeat(chars)).await
    }
    async fn hide_keyboard(&self, device: &Device) -> Result<()> {
        self.session_call(
            device,
            Method::POST,
            "/wda/keyboard/dismiss",
            Some(&json!({})),
            COMMAND_TIMEOUT,
        )
        .await
        .map(drop)
    }

    // --- device features (see `features`) ------------------------------------------------
    async fn get_clipboard(&self, device: &Device) -> Result<String> {
        self.pasteboard_get(device).await
    }
    async fn set_clipboard(&self, device: &Device, text: &str) -> Result<()> {
        self.pasteboard_set(device, text).await
    }
    async fn get_orientation(&self, device: &Device) -> Result<crate::device::OrientationRead> {
        self.orientation_read(device).await
    }
    async fn set_orientation(
        &self,
        device: &Device,
        to: Option<crate::device::Orientation>,
    ) -> Result<()> {
        self.orientation_write(device, to).await
    }

    async fn multi_touch(
        &self,
        device: &Device,
        center: Point,
        gesture: crate::device::MultiTouch,
    ) -> Result<()> {
        self.two_finger_gesture(device, center, gesture).await
    }

    // --- alerts: WDA's own commands -----------------------------------------------------------
    async fn native_alert(&self, device: &Device) -> Result<Option<Alert>> {
        self.alert_on_screen(device).await
    }
    /// `POST /alert/accept` or `/alert/dismiss` naming the button the controller picked, so
    /// the button reported is the one WDA taps.
    async fn answer_alert(
        &self,
        device: &Device,
        choice: &AlertChoice,
        button: &AlertButton,
    ) -> Result<()> {
        self.answer(device, choice, button).await
    }

    // --- system ---------------------------------------------------------------------------
    async fn permission(
        &self,
        _device: &Device,
        _bundle_id: &str,
        _permission: &str,
        _action: crate::device::PermissionAction,
    ) -> Result<Option<String>> {
        Err(unsupported("changing permissions", self.name()).with_next(
            "iOS asks when the app first needs the permission: answer that alert with {0} or {1}; Settings › the app changes it later",
            [Step::call(Op::ALERT_ACCEPT), Step::call(Op::ALERT_DISMISS)],
        ))
    }
    async fn erase(&self, _device: &Device) -> Result<()> {
        Err(unsupported("erasing the device", self.name()).with_hint(
            "erase an iPhone on the phone itself (Settings › General › Transfer or Reset iPhone)",
        ))
    }
    async fn status_bar(
        &self,
        _device: &Device,
        _values: Option<&StatusBarOverride>,
    ) -> Result<()> {
        Err(
            unsupported("overriding the status bar", self.name()).with_hint(
                "status bar overrides exist for simulators only (xcrun simctl status_bar); a \
             phone's screenshots show its real status bar",
            ),
        )
    }
    /// WDA's simulated location (XCTest's, iOS 16.4+ with Xcode 14.3+).
    async fn set_location(&self, device: &Device, latitude: f64, longitude: f64) -> Result<()> {
        let body = json!({ "latitude": latitude, "longitude": longitude });
        self.session_call(
            device,
            Method::POST,
            "/wda/simulatedLocation",
            Some(&body),
            COMMAND_TIMEOUT,
        )
        .await
        .map(drop)
    }
    async fn clear_location(&self, device: &Device) -> Result<()> {
        self.session_call(
            device,
            Method::DELETE,
            "/wda/simulatedLocation",
            None,
            COMMAND_TIMEOUT,
        )
        .await
        .map(drop)
    }
}
