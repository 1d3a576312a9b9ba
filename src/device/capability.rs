//! What a device can do, one value per concern a backend may offer (see
//! `crate::backend::DeviceBackend`'s accessors): listed with each device and by the doctor,
//! and named by the answer to an operation whose concern the device's backend lacks.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::{Next, Op, Step};

/// One concern a device's backend offers.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Capability {
    /// Boot, boot from an image, shut down.
    Lifecycle,
    /// Connecting to devices over the network (`adb connect`).
    Connect,
    /// Install, launch, stop, reset and list apps; open URLs.
    Apps,
    /// Screenshots and the UI tree.
    Screen,
    /// Screen recordings.
    Recording,
    /// Taps, swipes, keys, typing.
    Input,
    /// Two fingers at once (pinch, rotate).
    MultiTouch,
    /// Reading and answering alerts.
    Alerts,
    /// The simulated position.
    Location,
    /// Granting and revoking app permissions.
    Permissions,
    /// Reading and setting the clipboard.
    Clipboard,
    /// Reading and setting the screen's orientation.
    Orientation,
    /// Copying files to and from the device.
    Files,
    /// Posting notifications.
    Notifications,
    /// Reading the notification shade.
    NotificationShade,
    /// Adding photos and videos to the gallery.
    Media,
    /// The simulated biometric sensor.
    Biometrics,
    /// Android intents.
    Intents,
    /// Erasing the device's content and settings.
    Erase,
    /// Overriding the status bar.
    StatusBar,
    /// Reading and switching airplane mode.
    AirplaneMode,
    /// Pointing the device at the recording proxy.
    NetworkCapture,
    /// The device's log and crashes.
    Logs,
    /// An app's CPU, memory, threads and frames.
    Perf,
    /// An on-device helper that reads and acts faster than the one-shot tools (Android: the
    /// UiAutomator2 server).
    Helper,
    /// Web content inside apps read over the DevTools Protocol: CSS selectors on it.
    Web,
}

impl Capability {
    /// Every capability, in the order they are listed.
    pub const ALL: [Capability; 26] = [
        Capability::Lifecycle,
        Capability::Connect,
        Capability::Apps,
        Capability::Screen,
        Capability::Recording,
        Capability::Input,
        Capability::MultiTouch,
        Capability::Alerts,
        Capability::Location,
        Capability::Permissions,
        Capability::Clipboard,
        Capability::Orientation,
        Capability::Files,
        Capability::Notifications,
        Capability::NotificationShade,
        Capability::Media,
        Capability::Biometrics,
        Capability::Intents,
        Capability::Erase,
        Capability::StatusBar,
        Capability::AirplaneMode,
        Capability::NetworkCapture,
        Capability::Logs,
        Capability::Perf,
        Capability::Helper,
        Capability::Web,
    ];

    /// Its wire name (`multi_touch`).
    pub fn as_str(self) -> &'static str {
        use Capability::*;
        match self {
            Lifecycle => "lifecycle",
            Connect => "connect",
            Apps => "apps",
            Screen => "screen",
            Recording => "recording",
            Input => "input",
            MultiTouch => "multi_touch",
            Alerts => "alerts",
            Location => "location",
            Permissions => "permissions",
            Clipboard => "clipboard",
            Orientation => "orientation",
            Files => "files",
            Notifications => "notifications",
            NotificationShade => "notification_shade",
            Media => "media",
            Biometrics => "biometrics",
            Intents => "intents",
            Erase => "erase",
            StatusBar => "status_bar",
            AirplaneMode => "airplane_mode",
            NetworkCapture => "network_capture",
            Logs => "logs",
            Perf => "perf",
            Helper => "helper",
            Web => "web",
        }
    }

    /// What it does, as the unsupported answer says it ("copying files to and from the
    /// device is not supported on …").
    pub fn what(self) -> &'static str {
        use Capability::*;
        match self {
            Lifecycle => "booting and shutting down",
            Connect => "connecting to a device over the network",
            Apps => "installing and launching apps",
            Screen => "reading the screen (screenshots, UI)",
            Recording => "recording the screen",
            Input => "tapping, swiping, typing and pressing keys",
            MultiTouch => "multi-touch (pinch, rotate)",
            Alerts => "answering alerts",
            Location => "setting the location",
            Permissions => "changing permissions",
            Clipboard => "reading and setting the clipboard",
            Orientation => "reading the orientation or rotating the screen",
            Files => "copying files to and from the device",
            Notifications => "posting notifications",
            NotificationShade => "reading the notification shade",
            Media => "adding media to the gallery",
            Biometrics => "simulating biometrics",
            Intents => "Android intents",
            Erase => "erasing the device",
            StatusBar => "overriding the status bar",
            AirplaneMode => "airplane mode",
            NetworkCapture => "network capture",
            Logs => "reading the device's logs and crashes",
            Perf => "reading an app's performance",
            Helper => "installing an on-device helper",
            Web => "CSS selectors on web content",
        }
    }

    /// Where it is found, when a backend does not say better.
    pub fn hint(self) -> Next {
        use Capability::*;
        Next::plain(match self {
            Lifecycle => "simulators boot with their udid and emulators with `avd`; only emulators and simulators can be shut down",
            Recording => "screens are recorded on Android devices (screenrecord) and iOS Simulators (simctl io recordVideo)",
            MultiTouch => "two simultaneous fingers are injected on iPhones through WebDriverAgent's W3C \
                 actions; adb's `input` and the Simulator tools inject one touch at a time, and two \
                 swipes one after the other are not a pinch",
            Orientation => "Android devices rotate (settings user_rotation); physical iPhones through \
                 WebDriverAgent; simctl has no rotation command for Simulators",
            Files => "files are pushed and pulled on Android devices (adb) and in the app containers \
                 of iOS Simulators (simctl) and iPhones (devicectl)",
            Notifications => "notifications are posted on Android (cmd notification) and iOS Simulators (simctl push)",
            NotificationShade => "the shade is read on Android (cmd statusbar expand-notifications, then the UI tree)",
            Media => "media is added on Android (push and media scan) and iOS Simulators (simctl addmedia)",
            Biometrics => "biometrics are simulated on iOS Simulators (BiometricKit notifications) and Android \
                 emulators (the console's `finger touch`); a physical device needs a real face or finger",
            Intents => {
                return Next::new(
                    "intents are Android's; on iOS open a URL ({0}) instead",
                    [Step::call(Op::OpenUrl)],
                )
            }
            Erase | StatusBar => "iOS Simulators are erased and have their status bar overridden (xcrun simctl)",
            AirplaneMode => "airplane mode is switched on Android devices (cmd connectivity \
                 airplane-mode); an iOS Simulator has none (it shares the Mac's network), and a \
                 physical iPhone's is switched on the phone (Control Center)",
            NetworkCapture => "network capture points Android devices (adb) and iOS Simulators (the Mac's proxy) at the recording proxy",
            Logs => "logs are read from Android devices (adb logcat) and iOS Simulators (simctl log stream); \
                 physical iPhones are not supported yet: use Console.app or `idevicesyslog`",
            Perf => "an app's CPU, memory and frames are read on Android devices (adb: /proc, dumpsys) and \
                 on iOS Simulators (the app's process on the Mac); on a physical iPhone use Xcode's \
                 Instruments or its debug gauges",
            Helper => "the helper is Android's (Appium's UiAutomator2 server); iOS reads through \
                 its own tools (AXe, idb, WebDriverAgent), which need no helper",
            Web => "web content is read over DevTools in debuggable Android WebViews and Chrome; on \
                 iOS a WKWebView's content is in the tree through its accessibility elements, \
                 without CSS: select by text, label or role",
            _ => {
                return Next::new(
                    "see {0}: each backend lists its `capabilities`",
                    [Step::call(Op::Doctor)],
                )
            }
        })
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_serde_names_and_all_is_complete() {
        for c in Capability::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
            assert!(!c.what().is_empty() && c.hint().say.len() > 20, "{c}");
        }
        let mut sorted = Capability::ALL.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), Capability::ALL.len());
        assert_eq!(sorted, Capability::ALL, "ALL is in declaration order");
    }
}
