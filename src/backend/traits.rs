//! The platform-free contract every backend implements. The controller holds a list of
//! backends (the registry, [`super::registry`]), lists devices across all of them, and sends
//! every operation on a device to the backend that listed it (`Device::backend`). Whatever the
//! controller would otherwise decide by platform — the unit of coordinates, which identifiers
//! and packages are valid, how a device boots or shuts down, how an alert is answered — is a
//! method here, so a new backend needs no controller edit.
//!
//! Operations a backend does not support keep the default body, which answers
//! `501 UNSUPPORTED_ON_PLATFORM` with a hint; hooks whose default is the usual way (typing as
//! tap, clear, type, Enter; answering an alert by tapping its button) can be overridden by a
//! backend with a better one.

use std::path::Path;
use std::time::Duration;

use async_trait::async_trait;

use super::validate;
use crate::api::wire::service::{BackendCheck, Readiness, ToolCheck};
use crate::device::{
    AlertChoice, AppInfo, Device, IntentOutcome, IntentSpec, Key, KeyPress, LaunchOptions,
    Launched, NotificationPost, Orientation, OrientationRead, PermissionAction, Platform, Point,
    RecordingOptions, ScreenRecorder, StatusBarOverride,
};
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::logs::{Crash, CrashDetection, DeviceClock, LogRead, LogStream, LogText, ProcessName};
use crate::proxy::attach::{ProxyAttached, ProxyDetached, ProxySetup};
use crate::ui::{Alert, AlertButton, CoordinateSpace};

/// The native UI dump of a device, before parsing into the canonical tree.
#[derive(Debug, Clone)]
pub struct UiSource {
    /// The dump as the tool printed it (uiautomator XML, AXe JSON, idb JSON, WDA XML…).
    pub text: String,
    /// Which tool produced it (`uiautomator`, `axe`, `idb`).
    pub tool: &'static str,
    /// The foreground app or activity, when the backend learnt it in the same round trip.
    pub foreground: Option<String>,
}

/// How text was typed, reported back to the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedWith(pub &'static str);

/// What `type` does on the device, as one job: tap the field, empty it, type, press Enter.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeJob<'a> {
    /// Where to tap first to focus the field (none: type into the focused one).
    pub tap: Option<Point>,
    /// Delete this many characters (cursor moved to the end first) before typing.
    pub clear_chars: Option<usize>,
    /// The text to type (empty: nothing typed).
    pub text: &'a str,
    /// Press Enter after typing.
    pub submit: bool,
}

/// One input step: what an action does on the device, in the backend's coordinate space.
#[derive(Debug, Clone, PartialEq)]
pub enum InputStep<'a> {
    /// A tap at the point.
    Tap(Point),
    /// A press held at one point.
    LongPress {
        /// The point held.
        at: Point,
        /// How long it is held, in milliseconds.
        duration_ms: u64,
    },
    /// A straight swipe.
    Swipe {
        /// Where the finger goes down.
        from: Point,
        /// Where it lifts.
        to: Point,
        /// How long the move takes, in milliseconds.
        duration_ms: u64,
    },
    /// A key press (hardware or keyboard).
    Press(KeyPress),
    /// Typing into a field.
    Type(TypeJob<'a>),
}

/// What an input step reports: how text was typed, for a [`InputStep::Type`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Acted {
    /// How the text was typed (none: the step typed nothing).
    pub typed_with: Option<TypedWith>,
}

/// The screen as the device reports it: its size in the backend's tap unit and, when known,
/// the screenshot's pixels per tap unit (an iPhone's scale, 2 or 3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScreenGeometry {
    /// Width, in tap units.
    pub width: f64,
    /// Height, in tap units.
    pub height: f64,
    /// Screenshot pixels per tap unit, when the device says.
    pub scale: Option<f64>,
}

/// What [`DeviceBackend::act_then_read`] brings back.
#[derive(Debug)]
pub struct AfterAction {
    /// What the step reported.
    pub acted: Acted,
    /// The screen after the step.
    pub ui: UiSource,
    /// The log's newest lines after that, when asked for and readable.
    pub log: Option<LogText>,
}

/// What became of a device that was shut down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterShutdown {
    /// It stays listed, shut down (a simulator): it can stay the active device.
    Listed,
    /// It leaves the listing (a stopped emulator): the active device is forgotten.
    Gone,
}

/// The answer for an operation a backend or device kind cannot do; `on` names it
/// ("Android", "iOS").
pub fn unsupported(what: &str, on: &str) -> Error {
    Error::new(
        ErrorCode::UnsupportedOnPlatform,
        format!("{what} is not supported on {on}"),
    )
    .with_next(
        "see {0} and the operation's description for what each platform offers",
        [Step::call(Op::DOCTOR)],
    )
}

/// One way of driving devices (adb, simctl with AXe or idb, WebDriverAgent): how the controller
/// lists them and does every operation on them.
#[async_trait]
pub trait DeviceBackend: Send + Sync {
    // --- identity ---------------------------------------------------------------------------
    /// The registry key: unique among registered backends, the key of this backend's entry
    /// in a listing's `tools` and in the doctor's report (`android`, `ios`).
    fn id(&self) -> &'static str;
    /// The platform of the devices it drives.
    fn platform(&self) -> Platform;
    /// What messages call this backend's devices ("Android", "iOS").
    fn name(&self) -> &'static str {
        self.platform().name()
    }
    /// The unit of taps and of the UI tree's bounds: Android pixels, iOS points. Screenshots
    /// are in pixels, so with points the controller derives the ratio from a snapshot.
    fn coordinate_space(&self) -> CoordinateSpace;

    // --- discovery and power ------------------------------------------------------------------
    /// Every device this backend can see, ready or not. An error (the tool is missing or
    /// failed) leaves the backend out of the listing, and its `tools` entry says why.
    async fn list_devices(&self) -> Result<Vec<Device>>;
    /// A number that changes whenever this backend's devices change, while the backend follows
    /// them as they come and go (adb's device stream): then the controller trusts its last
    /// listing without asking again, after any idle time. `None` (the default): the backend
    /// cannot tell, and a listing older than a few seconds is made again.
    fn devices_generation(&self) -> Option<u64> {
        None
    }
    /// A device this backend lists that a backend earlier in the registry listed too (the
    /// same udid: a simulator given to `--wda`). `Some(device)` takes it over: it is listed
    /// once, as returned, and driven by this backend. `None`, the default, leaves it to the
    /// earlier backend and drops this backend's entry.
    fn take_over(&self, _mine: &Device, _earlier: &Device) -> Option<Device> {
        None
    }
    /// Tries to bring back a device a request names that the listing no longer shows (adb
    /// forgets devices reached over TCP when its server restarts). `true` when it is back.
    async fn reconnect(&self, _udid: &str) -> Result<bool> {
        Ok(false)
    }
    /// Connects to a device over the network on an explicit request (`adb connect`): the
    /// serial it is listed under and whether it was connected already. `None` (the default):
    /// this backend does not connect to devices.
    async fn connect(&self, _host: &str, _port: u16) -> Result<Option<(String, bool)>> {
        Ok(None)
    }
    /// Boots a listed device (`POST /device/boot` with `udid`).
    async fn boot(&self, _device: &Device, _wait: Option<Duration>) -> Result<()> {
        Err(unsupported("booting a listed device", self.name()))
    }
    /// Whether this backend starts devices from an image that is not listed yet (an Android
    /// AVD: `POST /device/boot` with `avd`).
    fn boots_images(&self) -> bool {
        false
    }
    /// Starts a device from an image; with `wait`, returns its udid once it has booted.
    async fn boot_image(&self, _image: &str, _wait: Option<Duration>) -> Result<Option<String>> {
        Err(unsupported("booting from an image", self.name()))
    }
    /// Shuts a device down.
    async fn shutdown(&self, _device: &Device) -> Result<AfterShutdown> {
        Err(unsupported("shutting down", self.name())
            .with_hint("only emulators and simulators can be shut down"))
    }

    // --- checks, before any command -----------------------------------------------------------
    /// Checks an app identifier (Android package, iOS bundle id) against this backend's rules.
    fn check_app_id<'a>(&self, bundle_id: &'a str) -> Result<&'a str> {
        validate::app_id(bundle_id)
    }
    /// Checks that `path` (an existing file or folder, not a link) has the package form this
    /// backend installs (`.apk`, `.app`).
    fn check_app_package(&self, _path: &Path, _meta: &std::fs::Metadata) -> Result<()> {
        Ok(())
    }
    /// Checks launch options; `activity` is an Android notion, refused elsewhere.
    fn check_launch(&self, opts: &LaunchOptions) -> Result<()> {
        match &opts.activity {
            Some(_) => Err(Error::validation(format!(
                "`activity` names an Android activity; {} apps are launched by bundle id alone",
                self.name()
            ))),
            None => Ok(()),
        }
    }

    /// How usable this backend is, from the doctor's tool checks.
    async fn readiness(&self, _tools: &[ToolCheck]) -> Readiness {
        Readiness::Ready
    }
    /// The doctor's verdict, with checks of the backend's own (endpoints it reaches, tools
    /// beyond the common list, what they report). The default judges from the common tool
    /// checks alone, with [`Self::readiness`].
    async fn doctor(&self, tools: &[ToolCheck]) -> (Readiness, Vec<BackendCheck>) {
        (self.readiness(tools).await, Vec::new())
    }

    // --- apps -----------------------------------------------------------------------------
    /// Installs the app package at `path` (checked by [`Self::check_app_package`]).
    async fn install_app(&self, _device: &Device, _path: &Path) -> Result<()> {
        Err(unsupported("installing apps", self.name()))
    }
    /// Launches an app with the options asked for (checked by [`Self::check_launch`]).
    async fn launch_app(
        &self,
        _device: &Device,
        _bundle_id: &str,
        _opts: &LaunchOptions,
    ) -> Result<Launched> {
        Err(unsupported("launching apps", self.name()))
    }
    /// Stops the app if it runs.
    async fn terminate_app(&self, _device: &Device, _bundle_id: &str) -> Result<()> {
        Err(unsupported("terminating apps", self.name()))
    }
    /// Clears the app's data, as if it were newly installed.
    async fn reset_app(&self, _device: &Device, _bundle_id: &str) -> Result<()> {
        Err(unsupported("resetting app data", self.name()))
    }
    /// Empties the device's whole keychain (every app's saved passwords and tokens).
    async fn reset_keychain(&self, _device: &Device) -> Result<()> {
        Err(unsupported("resetting the keychain", self.name()))
    }
    /// The apps installed on the device.
    async fn list_apps(&self, _device: &Device) -> Result<Vec<AppInfo>> {
        Err(unsupported("listing apps", self.name()))
    }
    /// Opens a URL or deep link (checked by the controller) with the app that handles it.
    async fn open_url(&self, _device: &Device, _url: &str) -> Result<()> {
        Err(unsupported("opening URLs", self.name()))
    }

    // --- screen ---------------------------------------------------------------------------
    /// The screen as PNG bytes, at the device's native resolution.
    async fn screenshot_png(&self, _device: &Device) -> Result<Vec<u8>> {
        Err(unsupported("screenshots", self.name()))
    }
    /// The native UI dump.
    async fn dump_ui(&self, _device: &Device) -> Result<UiSource> {
        Err(unsupported("reading the UI", self.name()))
    }
    /// The screen as the device reports it (WebDriverAgent's `/wda/screen`), for a backend
    /// that can ask: used when a dump does not give the screen's size, and for the geometry
    /// of a screenshot taken before any snapshot. The default: unknown.
    async fn screen_geometry(&self, _device: &Device) -> Option<ScreenGeometry> {
        None
    }

    /// Starts recording the screen into the MP4 `dest` on the host; the file is complete
    /// once the returned recorder finishes (see `crate::controller::recording`).
    async fn start_recording(
        &self,
        _device: &Device,
        _options: &RecordingOptions,
        _dest: &Path,
    ) -> Result<Box<dyn ScreenRecorder>> {
        Err(unsupported("recording the screen", self.name()))
    }

    // --- input (coordinates in the backend's coordinate space) ------------------------------
    /// Taps at a point.
    async fn tap(&self, _device: &Device, _at: Point) -> Result<()> {
        Err(unsupported("tapping", self.name()))
    }
    /// Presses at a point for `duration_ms` milliseconds.
    async fn long_press(&self, _device: &Device, _at: Point, _duration_ms: u64) -> Result<()> {
        Err(unsupported("long presses", self.name()))
    }
    /// Swipes from one point to another in `duration_ms` milliseconds.
    async fn swipe(
        &self,
        _device: &Device,
        _from: Point,
        _to: Point,
        _duration_ms: u64,
    ) -> Result<()> {
        Err(unsupported("swiping", self.name()))
    }
    /// Types into the focused field; says which method was used.
    async fn type_text(&self, _device: &Device, _text: &str) -> Result<TypedWith> {
        Err(unsupported("typing", self.name()))
    }
    /// Presses a key: a named one (home, back, enter…) or a platform key code.
    async fn press_key(&self, _device: &Device, _key: KeyPress) -> Result<()> {
        Err(unsupported("pressing keys", self.name()))
    }
    /// Runs a typing job. A backend that can tell whether the text is typable at all checks
    /// that before the first step, so a refusal never leaves the field tapped or emptied; the
    /// default runs the steps one by one.
    async fn type_job(&self, device: &Device, job: &TypeJob<'_>) -> Result<TypedWith> {
        if let Some(at) = job.tap {
            self.tap(device, at).await?;
        }
        if let Some(n) = job.clear_chars {
            self.clear_field(device, n).await?;
        }
        let with = if job.text.is_empty() {
            TypedWith("none")
        } else {
            self.type_text(device, job.text).await?
        };
        if job.submit {
            self.press_key(device, KeyPress::Named(Key::Enter)).await?;
        }
        Ok(with)
    }
    /// Deletes `chars` characters before the cursor of the focused field (after moving the
    /// cursor to the end where the platform can).
    async fn clear_field(&self, device: &Device, chars: usize) -> Result<()> {
        for _ in 0..chars {
            self.press_key(device, KeyPress::Named(Key::Delete)).await?;
        }
        Ok(())
    }
    /// Dismisses the on-screen keyboard.
    async fn hide_keyboard(&self, _device: &Device) -> Result<()> {
        Err(unsupported("hiding the keyboard", self.name()))
    }
    /// How long to let the screen settle after an input step before reading it, when the
    /// caller does not say: long enough for a transition to start showing. A backend whose
    /// dump itself waits for the UI to be idle answers zero.
    fn settle_time(&self) -> Duration {
        Duration::from_millis(300)
    }
    /// Runs one input step with the methods above.
    async fn act(&self, device: &Device, step: &InputStep<'_>) -> Result<Acted> {
        match step {
            InputStep::Tap(at) => self.tap(device, *at).await?,
            InputStep::LongPress { at, duration_ms } => {
                self.long_press(device, *at, *duration_ms).await?
            }
            InputStep::Swipe {
                from,
                to,
                duration_ms,
            } => self.swipe(device, *from, *to, *duration_ms).await?,
            InputStep::Press(key) => self.press_key(device, *key).await?,
            InputStep::Type(job) => {
                return Ok(Acted {
                    typed_with: Some(self.type_job(device, job).await?),
                })
            }
        }
        Ok(Acted::default())
    }
    /// Runs one input step, waits `settle`, then reads the screen — and, when `log_tail` is
    /// given, the log's newest lines after that (what tells the crash check how far the log
    /// must be read). The default does it step by step; a backend that can send all of it at
    /// once (Android: one device script, one adb round trip) overrides it. A refusal of the
    /// step (text it cannot type) comes before anything ran, as with [`Self::act`]. A log
    /// tail that could not be read is `None`, not an error: the action happened.
    async fn act_then_read(
        &self,
        device: &Device,
        step: &InputStep<'_>,
        settle: Duration,
        log_tail: Option<&LogRead>,
    ) -> Result<AfterAction> {
        let acted = self.act(device, step).await?;
        if !settle.is_zero() {
            tokio::time::sleep(settle).await;
        }
        let ui = self.dump_ui(device).await?;
        let log = match log_tail {
            Some(read) => self.log_read(device, read).await.ok(),
            None => None,
        };
        Ok(AfterAction { acted, ui, log })
    }
    /// The alert on screen as the device itself reports it (WebDriverAgent's
    /// `GET /alert/text`), asked when the UI tree shows none. The default: none.
    async fn native_alert(&self, _device: &Device) -> Result<Option<Alert>> {
        Ok(None)
    }
    /// Answers the alert on screen: the controller found it in the UI tree and picked
    /// `button` for `choice`. The default taps the button's centre; a backend with its own
    /// alert commands (WebDriverAgent's `/alert/accept`) uses them instead.
    async fn answer_alert(
        &self,
        device: &Device,
        _choice: &AlertChoice,
        button: &AlertButton,
    ) -> Result<()> {
        let (x, y) = button.bounds.center();
        let at = Point {
            x: x.round(),
            y: y.round(),
        };
        self.tap(device, at).await
    }

    // --- system ---------------------------------------------------------------------------
    /// Sets the simulated GPS position, in degrees.
    async fn set_location(&self, _device: &Device, _latitude: f64, _longitude: f64) -> Result<()> {
        Err(unsupported("setting the location", self.name()))
    }
    /// Stops simulating the position.
    async fn clear_location(&self, _device: &Device) -> Result<()> {
        Err(unsupported("clearing the location", self.name()))
    }
    /// Changes a permission; answers a note when less than asked could be done.
    async fn permission(
        &self,
        _device: &Device,
        _bundle_id: &str,
        _permission: &str,
        _action: PermissionAction,
    ) -> Result<Option<String>> {
        Err(unsupported("changing permissions", self.name()))
    }

    // --- device features (see `crate::controller::features`) ----------------------------
    /// The clipboard's text.
    async fn get_clipboard(&self, _device: &Device) -> Result<String> {
        Err(unsupported("reading the clipboard", self.name()))
    }
    /// Puts text on the clipboard.
    async fn set_clipboard(&self, _device: &Device, _text: &str) -> Result<()> {
        Err(unsupported("setting the clipboard", self.name()))
    }
    /// The orientation as the device reports it (`orientation: None`: read the screen).
    async fn get_orientation(&self, _device: &Device) -> Result<OrientationRead> {
        Err(unsupported("reading the orientation", self.name()))
    }
    /// Holds the screen in an orientation (`Some`), or gives it back to the sensor (`None`).
    async fn set_orientation(&self, _device: &Device, _to: Option<Orientation>) -> Result<()> {
        Err(unsupported("rotating the screen", self.name()).with_hint(
            "Android devices rotate (settings user_rotation); physical iPhones through \
             WebDriverAgent; simctl has no rotation command for Simulators",
        ))
    }
    /// Copies the (checked) local file `local` to `device_path` (in the data container of
    /// the app `bundle_id` where the platform keeps files per app).
    async fn push_file(
        &self,
        _device: &Device,
        _local: &std::path::Path,
        _device_path: &str,
        _bundle_id: Option<&str>,
    ) -> Result<()> {
        Err(
            unsupported("copying files to the device", self.name()).with_hint(
                "files are pushed and pulled on Android devices (adb) and in the app containers \
                 of iOS Simulators (simctl) and iPhones (devicectl)",
            ),
        )
    }
    /// Copies `device_path` to the (checked) local path `local`, refusing more than `max`
    /// bytes; answers the bytes copied.
    async fn pull_file(
        &self,
        _device: &Device,
        _device_path: &str,
        _bundle_id: Option<&str>,
        _local: &std::path::Path,
        _max: u64,
    ) -> Result<u64> {
        Err(
            unsupported("copying files from the device", self.name()).with_hint(
                "files are pushed and pulled on Android devices (adb) and in the app containers \
                 of iOS Simulators (simctl) and iPhones (devicectl)",
            ),
        )
    }
    /// Posts a notification (Android as the shell; iOS Simulator an APNs push to an app).
    async fn post_notification(&self, _device: &Device, _n: &NotificationPost) -> Result<()> {
        Err(unsupported("posting notifications", self.name()).with_hint(
            "notifications are posted on Android (cmd notification) and iOS Simulators (simctl push)",
        ))
    }
    /// Opens (`true`) or closes the notification shade.
    async fn notification_shade(&self, _device: &Device, _open: bool) -> Result<()> {
        Err(unsupported("reading the notification shade", self.name()).with_hint(
            "the shade is read on Android (cmd statusbar expand-notifications, then the UI tree)",
        ))
    }
    /// Adds the (checked) photo or video `local` to the gallery; answers where it went.
    async fn add_media(&self, _device: &Device, _local: &std::path::Path) -> Result<String> {
        Err(unsupported("adding media to the gallery", self.name()).with_hint(
            "media is added on Android (push and media scan) and iOS Simulators (simctl addmedia)",
        ))
    }
    /// Two fingers at once around `center` (a pinch or a rotation), where the platform can
    /// inject simultaneous touches. Never faked with one finger after the other.
    async fn multi_touch(
        &self,
        _device: &Device,
        _center: Point,
        _gesture: crate::device::MultiTouch,
    ) -> Result<()> {
        Err(
            unsupported("multi-touch (pinch, rotate)", self.name()).with_hint(
                "two simultaneous fingers are injected on iPhones through WebDriverAgent's W3C \
             actions; adb's `input` and the Simulator tools inject one touch at a time, and two \
             swipes one after the other are not a pinch",
            ),
        )
    }
    /// Drives the simulated biometric sensor (simulators and emulators only).
    async fn biometric(
        &self,
        _device: &Device,
        _action: crate::device::BiometricAction,
        _kind: crate::device::BiometricKind,
        _finger: Option<u8>,
    ) -> Result<()> {
        Err(unsupported("simulating biometrics", self.name()).with_hint(
            "biometrics are simulated on iOS Simulators (BiometricKit notifications) and Android \
             emulators (the console's `finger touch`); a physical device needs a real face or finger",
        ))
    }
    /// Starts an activity with an intent, or broadcasts it (Android).
    async fn send_intent(&self, _device: &Device, _intent: &IntentSpec) -> Result<IntentOutcome> {
        Err(unsupported("Android intents", self.name()).with_next(
            "intents are Android's; on iOS open a URL ({0}) instead",
            [Step::call(Op::OPEN_URL)],
        ))
    }

    // --- simulator housekeeping -------------------------------------------------------------
    /// Wipes the device's content and settings (iOS Simulator `simctl erase`).
    async fn erase(&self, _device: &Device) -> Result<()> {
        Err(unsupported("erasing the device", self.name()))
    }
    /// Overrides the status bar (`Some`) or restores it (`None`).
    async fn status_bar(
        &self,
        _device: &Device,
        _values: Option<&StatusBarOverride>,
    ) -> Result<()> {
        Err(unsupported("overriding the status bar", self.name()))
    }

    // --- network capture (see `crate::proxy`) -----------------------------------------------
    /// The device's proxy setting now, as attach would remember it (`None`: none, or not a
    /// notion of this platform). Read before attaching, so that it is persisted before the
    /// device changes.
    async fn read_proxy_setting(
        &self,
        _device: &Device,
        _setup: &ProxySetup,
    ) -> Result<Option<String>> {
        Ok(None)
    }
    /// Points the device at the recording proxy on the host's loopback port.
    async fn attach_proxy(&self, _device: &Device, _setup: &ProxySetup) -> Result<ProxyAttached> {
        Err(unsupported("network capture", self.name()))
    }
    /// Undoes [`Self::attach_proxy`] (`attached.previous` is restored where the platform
    /// has such a setting).
    async fn detach_proxy(
        &self,
        _device: &Device,
        _attached: &ProxyAttached,
    ) -> Result<ProxyDetached> {
        Err(unsupported("network capture", self.name()))
    }

    // --- logs (see crate::controller's log supervisor) ---------------------------------
    /// Where this platform's crashes and ANRs are found.
    fn crash_detection(&self) -> CrashDetection {
        CrashDetection::None
    }
    /// A handle the log supervisor keeps while it runs (it outlives any one request).
    fn log_handle(&self) -> Option<std::sync::Arc<dyn DeviceBackend>> {
        None
    }
    /// The device's clock, for reading its log's times.
    async fn log_clock(&self, device: &Device) -> Result<DeviceClock> {
        Err(unsupported_logs(device))
    }
    /// The device's processes (pid → name) or apps (executable → bundle id).
    async fn log_processes(&self, device: &Device) -> Result<Vec<ProcessName>> {
        Err(unsupported_logs(device))
    }
    /// A one-off read of the device's log (its history, or its newest lines).
    async fn log_read(&self, device: &Device, _read: &LogRead) -> Result<LogText> {
        Err(unsupported_logs(device))
    }
    /// Starts the device's live log stream (from `after_ms` when given).
    async fn log_stream(&self, device: &Device, _read: &LogRead) -> Result<LogStream> {
        Err(unsupported_logs(device))
    }
    /// Crash reports kept outside the log (iOS), made at or after `since_ms` (host time).
    async fn crash_reports(&self, _device: &Device, _since_ms: Option<i64>) -> Result<Vec<Crash>> {
        Ok(Vec::new())
    }
}

/// The answer for logs where they cannot be read (physical iPhones, for now).
pub fn unsupported_logs(device: &Device) -> Error {
    let what = match (device.platform, device.kind) {
        (Platform::Ios, crate::device::DeviceKind::Device) => "a physical iPhone",
        (Platform::Ios, _) => "this iOS device",
        (Platform::Android, _) => "this Android device",
    };
    Error::new(
        ErrorCode::UnsupportedOnPlatform,
        format!("the logs of `{}` ({what}) cannot be read", device.udid),
    )
    .with_hint(
        "logs are read from Android devices (adb logcat) and iOS Simulators (simctl log stream); \
         physical iPhones are not supported yet: use Console.app or `idevicesyslog`",
    )
}
