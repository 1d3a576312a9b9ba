//! The platform-free contract every backend implements. The controller holds a list of
//! backends (the registry, [`super::registry`]), lists devices across all of them, and sends
//! every operation on a device to the backend that listed it (`Device::backend`).
//!
//! The core trait, [`DeviceBackend`], is what every backend has: its identity, its
//! coordinates, its devices and the checks made before any command. Everything else is a
//! small trait per concern ([`Apps`], [`Screen`], [`Input`]…, one [`Capability`] each) that a
//! backend implements in its own file for that concern and hands out through an accessor
//! (`fn apps(&self) -> Option<&dyn Apps>`); a backend without the concern keeps the accessor's
//! `None`, and the controller answers the one `501 UNSUPPORTED_ON_PLATFORM` naming it
//! ([`lacking`]). Hooks whose default is the usual way (typing as tap, clear, type, Enter)
//! can be overridden by a backend with a better one.

/// The accessors of the concerns a backend implements, each answering the backend itself:
/// `offers!(apps: Apps, screen: Screen);` inside its `impl DeviceBackend`.
macro_rules! offers {
    ($($accessor:ident: $concern:ident),* $(,)?) => {
        $(
            fn $accessor(&self) -> Option<&dyn $concern> {
                Some(self)
            }
        )*
    };
}
pub(crate) use offers;

mod apps;
mod capture;
mod helper;
mod input;
mod lifecycle;
mod logs;
mod perf;
mod screen;
mod system;
mod web;

pub use apps::Apps;
pub use capture::NetworkCapture;
pub use helper::DeviceHelper;
pub use input::{tap_button, Alerts, Input, MultiTouchInput};
pub use lifecycle::{Connect, Lifecycle};
pub use logs::Logs;
pub use perf::{not_running, unrecognised, Perf};
pub use screen::{Recording, Screen};
pub use system::{
    AirplaneMode, Biometrics, Clipboard, Erase, Files, Intents, Location, Media, NotificationShade,
    Notifications, Permissions, ScreenOrientation, StatusBar,
};
pub use web::Web;

use async_trait::async_trait;

use super::validate;
use crate::api::wire::service::{BackendCheck, Readiness, ToolCheck};
use crate::device::{Capability, Device, KeyPress, LaunchOptions, Platform, Point};
use crate::error::{Error, ErrorCode, Next, Op, Result, Step};
use crate::logs::LogText;
use crate::ui::CoordinateSpace;

/// The native UI dump of a device, before parsing into the canonical tree.
#[derive(Debug, Clone)]
pub struct UiSource {
    /// The dump as the tool printed it (uiautomator XML, AXe JSON, idb JSON, WDA XML…).
    pub text: String,
    /// Which tool produced it (`uiautomator`, `axe`, `idb`).
    pub tool: &'static str,
    /// The foreground app or activity, when the backend learnt it in the same round trip.
    pub foreground: Option<String>,
    /// What the caller should know about how this read went (a fast path that failed and
    /// was replaced by the one-shot tool), said with the snapshot.
    pub notes: Vec<String>,
    /// The pages shown inside the screen's WebViews, read apart from the native dump and
    /// grafted under their WebView nodes once it is parsed.
    pub web: Vec<crate::ui::web::WebContent>,
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

/// What [`Input::act_then_read`] brings back.
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
        [Step::call(Op::Doctor)],
    )
}

/// The answer for an operation whose concern the device's backend lacks: the one
/// `501 UNSUPPORTED_ON_PLATFORM` naming the capability, with the backend's hint when it has
/// one for this device, else the capability's.
pub fn lacking(backend: &dyn DeviceBackend, device: &Device, capability: Capability) -> Error {
    let next = backend
        .lacking_hint(capability, device)
        .unwrap_or_else(|| capability.hint());
    Error::new(
        ErrorCode::UnsupportedOnPlatform,
        format!(
            "{} is not supported on {} (capability `{capability}`)",
            capability.what(),
            backend.name()
        ),
    )
    .with_next(next.say, next.steps)
    .with_details(serde_json::json!({ "capability": capability, "device": device.udid }))
}

/// One way of driving devices (adb, simctl with AXe or idb, WebDriverAgent): what every
/// backend has, and an accessor per concern saying whether it has that one.
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

    // --- discovery ----------------------------------------------------------------------------
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

    // --- checks, before any command -----------------------------------------------------------
    /// Checks an app identifier (Android package, iOS bundle id) against this backend's rules.
    fn check_app_id<'a>(&self, bundle_id: &'a str) -> Result<&'a str> {
        validate::app_id(bundle_id)
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
    /// A better hint than the capability's own for `device`, when this backend lacks
    /// `capability` (where it is found instead, what to do on the device itself).
    fn lacking_hint(&self, _capability: Capability, _device: &Device) -> Option<Next> {
        None
    }

    /// The lease of `udid` was released: stop what this backend started there for the
    /// session's use (a helper on the device), so other tools can have it. The default:
    /// nothing.
    async fn device_released(&self, _udid: &str) {}

    /// The server is stopping: stop what this backend keeps running on devices.
    async fn closing(&self) {}

    // --- capabilities: `None` when the backend has nothing of the concern ---------------------
    /// Booting and shutting down.
    fn lifecycle(&self) -> Option<&dyn Lifecycle> {
        None
    }
    /// Devices reached over the network.
    fn connect(&self) -> Option<&dyn Connect> {
        None
    }
    /// Apps and URLs.
    fn apps(&self) -> Option<&dyn Apps> {
        None
    }
    /// Screenshots and the UI tree.
    fn screen(&self) -> Option<&dyn Screen> {
        None
    }
    /// Screen recordings.
    fn recording(&self) -> Option<&dyn Recording> {
        None
    }
    /// Taps, swipes, keys, typing.
    fn input(&self) -> Option<&dyn Input> {
        None
    }
    /// Two fingers at once.
    fn multi_touch(&self) -> Option<&dyn MultiTouchInput> {
        None
    }
    /// Alerts.
    fn alerts(&self) -> Option<&dyn Alerts> {
        None
    }
    /// The simulated position.
    fn location(&self) -> Option<&dyn Location> {
        None
    }
    /// App permissions.
    fn permissions(&self) -> Option<&dyn Permissions> {
        None
    }
    /// The clipboard.
    fn clipboard(&self) -> Option<&dyn Clipboard> {
        None
    }
    /// The screen's orientation.
    fn orientation(&self) -> Option<&dyn ScreenOrientation> {
        None
    }
    /// Files.
    fn files(&self) -> Option<&dyn Files> {
        None
    }
    /// Posting notifications.
    fn notifications(&self) -> Option<&dyn Notifications> {
        None
    }
    /// The notification shade.
    fn notification_shade(&self) -> Option<&dyn NotificationShade> {
        None
    }
    /// The gallery.
    fn media(&self) -> Option<&dyn Media> {
        None
    }
    /// The biometric sensor.
    fn biometrics(&self) -> Option<&dyn Biometrics> {
        None
    }
    /// Android intents.
    fn intents(&self) -> Option<&dyn Intents> {
        None
    }
    /// Erasing the device.
    fn erase(&self) -> Option<&dyn Erase> {
        None
    }
    /// The status bar.
    fn status_bar(&self) -> Option<&dyn StatusBar> {
        None
    }
    /// Airplane mode.
    fn airplane_mode(&self) -> Option<&dyn AirplaneMode> {
        None
    }
    /// The recording proxy.
    fn network_capture(&self) -> Option<&dyn NetworkCapture> {
        None
    }
    /// The device's log and crashes.
    fn logs(&self) -> Option<&dyn Logs> {
        None
    }
    /// An app's CPU, memory, threads and frames.
    fn perf(&self) -> Option<&dyn Perf> {
        None
    }
    /// An on-device helper.
    fn helper(&self) -> Option<&dyn DeviceHelper> {
        None
    }
    /// CSS selectors on web content.
    fn web(&self) -> Option<&dyn Web> {
        None
    }
}

/// A concern a backend may have, tied to its [`Capability`] and its accessor: an operation asks
/// for the concern (`on.cap(concern::Apps)`), and the capability a `501` names comes with it.
pub trait Concern: Copy {
    /// The concern's trait object (`dyn Apps`).
    type Dyn<'a>: ?Sized + 'a;
    /// The capability this concern is.
    const CAPABILITY: Capability;
    /// The backend's accessor for it.
    fn of<'a>(self, backend: &'a dyn DeviceBackend) -> Option<&'a Self::Dyn<'a>>;
}

/// Each concern with its accessor and capability, once: the values of [`concern`] and
/// [`DeviceBackend::has`]'s match are made from this list.
macro_rules! concerns {
    ($($concern:ident: $accessor:ident = $capability:ident,)*) => {
        /// The concerns, as values an operation asks a backend for (`on.cap(concern::Apps)`).
        pub mod concern {
            use super::{Capability, Concern, DeviceBackend};
            $(
                #[doc = concat!("The `", stringify!($accessor), "` concern ([`super::", stringify!($concern), "`]).")]
                #[derive(Debug, Clone, Copy)]
                pub struct $concern;

                impl Concern for $concern {
                    type Dyn<'a> = dyn super::$concern + 'a;
                    const CAPABILITY: Capability = Capability::$capability;
                    fn of<'a>(self, backend: &'a dyn DeviceBackend) -> Option<&'a Self::Dyn<'a>> {
                        backend.$accessor()
                    }
                }
            )*
        }

        impl dyn DeviceBackend + '_ {
            /// Whether this backend has `capability`.
            pub fn has(&self, capability: Capability) -> bool {
                match capability {
                    $(Capability::$capability => self.$accessor().is_some(),)*
                }
            }
        }
    };
}

concerns! {
    Lifecycle: lifecycle = Lifecycle,
    Connect: connect = Connect,
    Apps: apps = Apps,
    Screen: screen = Screen,
    Recording: recording = Recording,
    Input: input = Input,
    MultiTouchInput: multi_touch = MultiTouch,
    Alerts: alerts = Alerts,
    Location: location = Location,
    Permissions: permissions = Permissions,
    Clipboard: clipboard = Clipboard,
    ScreenOrientation: orientation = Orientation,
    Files: files = Files,
    Notifications: notifications = Notifications,
    NotificationShade: notification_shade = NotificationShade,
    Media: media = Media,
    Biometrics: biometrics = Biometrics,
    Intents: intents = Intents,
    Erase: erase = Erase,
    StatusBar: status_bar = StatusBar,
    AirplaneMode: airplane_mode = AirplaneMode,
    NetworkCapture: network_capture = NetworkCapture,
    Logs: logs = Logs,
    Perf: perf = Perf,
    DeviceHelper: helper = Helper,
    Web: web = Web,
}

impl dyn DeviceBackend + '_ {
    /// The capabilities this backend has, in [`Capability::ALL`]'s order: read from the
    /// accessors, no device command.
    pub fn capabilities(&self) -> Vec<Capability> {
        Capability::ALL
            .into_iter()
            .filter(|c| self.has(*c))
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{registry, BackendConfig};
    use crate::device::{Capability as C, DeviceKind, DeviceState};

    fn caps_of(id: &str) -> Vec<C> {
        let backends = registry::builtin(&BackendConfig::default());
        let b = backends.iter().find(|b| b.id() == id).unwrap();
        b.capabilities()
    }

    #[test]
    fn each_builtin_backend_says_what_it_has() {
        use C::*;
        assert_eq!(
            caps_of("android"),
            [
                Lifecycle,
                Connect,
                Apps,
                Screen,
                Recording,
                Input,
                Alerts,
                Location,
                Permissions,
                Clipboard,
                Orientation,
                Files,
                Notifications,
                NotificationShade,
                Media,
                Biometrics,
                Intents,
                AirplaneMode,
                NetworkCapture,
                Logs,
                Perf,
                Helper,
                Web
            ]
        );
        assert_eq!(
            caps_of("ios"),
            [
                Lifecycle,
                Apps,
                Screen,
                Recording,
                Input,
                Alerts,
                Location,
                Permissions,
                Clipboard,
                Files,
                Notifications,
                Media,
                Biometrics,
                Erase,
                StatusBar,
                NetworkCapture,
                Logs,
                Perf
            ]
        );
        assert_eq!(
            caps_of("wda"),
            [
                Apps,
                Screen,
                Input,
                MultiTouch,
                Alerts,
                Location,
                Clipboard,
                Orientation,
                Files
            ]
        );
    }

    /// A backend with nothing but its identity.
    struct Bare;

    #[async_trait]
    impl DeviceBackend for Bare {
        fn id(&self) -> &'static str {
            "bare"
        }
        fn platform(&self) -> Platform {
            Platform::Ios
        }
        fn name(&self) -> &'static str {
            "bare phones"
        }
        fn coordinate_space(&self) -> CoordinateSpace {
            CoordinateSpace::Points
        }
        async fn list_devices(&self) -> Result<Vec<Device>> {
            Ok(Vec::new())
        }
        fn lacking_hint(&self, capability: Capability, _device: &Device) -> Option<Next> {
            (capability == Capability::Files).then(|| Next::plain("bare phones keep no files"))
        }
    }

    #[test]
    fn has_agrees_with_the_accessors_and_lacking_names_the_capability() {
        let bare: &dyn DeviceBackend = &Bare;
        assert!(bare.capabilities().is_empty());
        assert!(Capability::ALL.iter().all(|c| !bare.has(*c)));
        let device = Device {
            udid: "u1".into(),
            name: "phone".into(),
            platform: Platform::Ios,
            kind: DeviceKind::Device,
            state: DeviceState::Online,
            os_version: None,
            api_level: None,
            model: None,
            backend: "bare",
            capabilities: Vec::new(),
        };
        let e = lacking(bare, &device, Capability::Clipboard);
        assert_eq!(e.code, ErrorCode::UnsupportedOnPlatform);
        assert_eq!(e.code.status(), 501);
        assert!(
            e.message.contains("capability `clipboard`"),
            "{}",
            e.message
        );
        assert!(e.message.contains("bare phones"), "{}", e.message);
        // The capability's own advice, its step (the doctor) a value the front ends word.
        let next = Capability::Clipboard.hint();
        assert_eq!(e.hint.as_deref(), Some(next.http().as_str()));
        assert_eq!(e.next.as_deref(), Some(&next));
        assert_eq!(next.steps, [Step::call(Op::Doctor)]);
        assert_eq!(e.details.unwrap()["capability"], "clipboard");
        // The backend's own hint wins where it has one.
        let e = lacking(bare, &device, Capability::Files);
        assert_eq!(e.hint.as_deref(), Some("bare phones keep no files"));
    }
}
