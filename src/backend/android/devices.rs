//! Android device discovery: `adb devices -l` (and the adb server's device stream followed by
//! `track`, which says when to list again), then one `getprop` round trip per device when it
//! appears online, for its model and Android version. The backend's core trait
//! ([`crate::backend::DeviceBackend`]: identity, listing, checks, and which concerns it has)
//! is implemented here; each concern in its own file.

use std::time::Duration;

use async_trait::async_trait;
use tokio::task::JoinSet;

use super::{AdbBackend, QUICK_TIMEOUT};
use crate::api::wire::service::{BackendCheck, Readiness, ToolCheck};
use crate::backend::command_failed;
use crate::backend::doctor;
use crate::backend::validate;
use crate::backend::AirplaneMode;
use crate::backend::Alerts;
use crate::backend::Apps;
use crate::backend::Biometrics;
use crate::backend::Clipboard;
use crate::backend::Connect;
use crate::backend::DeviceBackend;
use crate::backend::Files;
use crate::backend::Input;
use crate::backend::Intents;
use crate::backend::Lifecycle;
use crate::backend::Location;
use crate::backend::Logs;
use crate::backend::Media;
use crate::backend::NetworkCapture;
use crate::backend::NotificationShade;
use crate::backend::Notifications;
use crate::backend::Perf;
use crate::backend::Permissions;
use crate::backend::Recording;
use crate::backend::Screen;
use crate::backend::ScreenOrientation;
use crate::backend::{DeviceHelper, Web};
use crate::device::LaunchOptions;
use crate::device::{Device, DeviceKind, DeviceState, Platform};
use crate::error::Error;
use crate::error::Result;
use crate::exec::Tool;
use crate::ui::CoordinateSpace;

/// One line of `adb devices -l`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedDevice {
    pub serial: String,
    pub state: DeviceState,
    /// `model:`, `product:`, `device:` and other `key:value` fields.
    pub fields: Vec<(String, String)>,
}

impl ListedDevice {
    fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses `adb devices -l` output. Banner lines (`* daemon started…`, `List of devices
/// attached`) and blank lines are skipped; states adb prints with spaces (`no permissions (…)`)
/// are kept as one state.
pub fn parse_devices_l(text: &str) -> Vec<ListedDevice> {
    text.lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('*') && !t.starts_with("List of devices")
        })
        .filter_map(|line| {
            let mut parts = line.split_whitespace();
            let serial = parts.next()?.to_string();
            let rest: Vec<&str> = parts.collect();
            let state_word = *rest.first()?;
            let state = match state_word {
                "device" => DeviceState::Online,
                "offline" => DeviceState::Offline,
                "unauthorized" | "authorizing" => DeviceState::Unauthorized,
                "no" => DeviceState::Unauthorized, // "no permissions (…)"
                "bootloader" | "recovery" | "sideload" | "rescue" | "host" | "connecting" => {
                    DeviceState::Offline
                }
                _ => DeviceState::Unknown,
            };
            let fields = rest
                .iter()
                .skip(1)
                .filter_map(|kv| kv.split_once(':'))
                .filter(|(k, v)| {
                    !k.is_empty()
                        && !v.is_empty()
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                })
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Some(ListedDevice {
                serial,
                state,
                fields,
            })
        })
        .collect()
}

/// `host:port` serials are devices reached over TCP (`adb connect`).
pub fn is_network_serial(serial: &str) -> bool {
    serial
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
}

/// Properties read from an online device in one round trip.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Props {
    model: Option<String>,
    release: Option<String>,
    sdk: Option<u32>,
    qemu: bool,
    /// The UiAutomator2 server's instrumentation is installed (see `super::resident`).
    pub(super) helper: bool,
}

/// One command, four properties, one value per line (empty when unset), then how many
/// instrumentations of the UiAutomator2 server the package manager lists (`cmd package`, a
/// binder call: no JVM started), so reads need not ask.
const PROPS_SCRIPT: &str = "getprop ro.product.model; getprop ro.build.version.release; \
getprop ro.build.version.sdk; getprop ro.kernel.qemu; \
cmd package list instrumentation 2>/dev/null | grep -c 'io.appium.uiautomator2.server.test/' || true";

fn parse_props(text: &str) -> Props {
    let mut lines = text.lines().map(|l| l.trim_end_matches('\r').trim());
    let mut next = || lines.next().filter(|v| !v.is_empty()).map(str::to_string);
    let model = next();
    let release = next();
    let sdk = next().and_then(|s| s.parse().ok());
    let qemu = next().as_deref() == Some("1");
    let helper = next()
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| n > 0);
    Props {
        model,
        release,
        sdk,
        qemu,
        helper,
    }
}

impl AdbBackend {
    /// Whether the UiAutomator2 server was installed when `serial` was listed (`None`: not
    /// listed online yet).
    pub(super) fn helper_listed(&self, serial: &str) -> Option<bool> {
        self.props.lock().ok()?.get(serial).map(|p| p.helper)
    }

    /// Notes that the UiAutomator2 server is installed on `serial` now.
    pub(super) fn note_helper_installed(&self, serial: &str) {
        if let Ok(mut props) = self.props.lock() {
            if let Some(p) = props.get_mut(serial) {
                p.helper = true;
            }
        }
    }

    /// The adb server's port: ours, else `ANDROID_ADB_SERVER_PORT`, else adb's 5037.
    fn adb_server_port(&self) -> u16 {
        self.server_port
            .or_else(|| std::env::var("ANDROID_ADB_SERVER_PORT").ok()?.parse().ok())
            .unwrap_or(5037)
    }

    /// The kept properties of the devices listed online now; forgets the others, so a device
    /// that went away (or offline) is read again when it comes back.
    fn known_props(&self, listed: &[ListedDevice]) -> std::collections::HashMap<String, Props> {
        let Ok(mut cache) = self.props.lock() else {
            return Default::default();
        };
        cache.retain(|serial, _| {
            listed
                .iter()
                .any(|d| &d.serial == serial && d.state == DeviceState::Online)
        });
        cache.clone()
    }

    /// `adb devices -l`, parsed; no per-device round trips.
    pub async fn list_serials(&self) -> Result<Vec<ListedDevice>> {
        // Starting the adb server can take a few seconds on a cold machine.
        let cmd = self
            .adb()?
            .args(["devices", "-l"])
            .timeout(Duration::from_secs(20));
        let out = self.run(cmd).await?;
        if !out.success() {
            return Err(command_failed(Tool::Adb, "adb devices", &out));
        }
        Ok(parse_devices_l(&out.stdout_text()))
    }

    async fn read_props(&self, serial: &str) -> Result<Props> {
        let cmd = self
            .adb_for(serial)?
            .args(["shell", PROPS_SCRIPT])
            .timeout(QUICK_TIMEOUT);
        let out = self.run(cmd).await?;
        if !out.success() {
            return Err(command_failed(Tool::Adb, "getprop", &out));
        }
        Ok(parse_props(&out.stdout_text()))
    }
}

fn to_device(d: ListedDevice, p: Props) -> Device {
    let emulator = d.serial.starts_with("emulator-") || p.qemu;
    let name = p
        .model
        .clone()
        .or_else(|| d.field("model").map(|m| m.replace('_', " ")))
        .unwrap_or_else(|| d.serial.clone());
    Device {
        name,
        platform: Platform::Android,
        kind: if emulator {
            DeviceKind::Emulator
        } else {
            DeviceKind::Device
        },
        state: d.state,
        os_version: p.release,
        api_level: p.sdk,
        model: p.model.or_else(|| d.field("model").map(str::to_string)),
        udid: d.serial,
        backend: AdbBackend::ID,
        capabilities: Vec::new(),
    }
}

#[async_trait]
impl DeviceBackend for AdbBackend {
    /// The resident UiAutomator2 server mobilectl started there is stopped (Appium, Espresso
    /// tests or another agent may want UiAutomation back); the next session looks again.
    async fn device_released(&self, udid: &str) {
        self.reset_resident(udid).await;
        self.let_go_of_pages(Some(udid)).await;
    }

    async fn closing(&self) {
        self.stop_residents().await;
        self.let_go_of_pages(None).await;
    }

    /// Besides the tools: where the UiAutomator2 server's APKs are, and the servers running.
    async fn doctor(&self, tools: &[ToolCheck]) -> (Readiness, Vec<BackendCheck>) {
        (self.readiness(tools).await, self.helper_checks().await)
    }

    /// Every device adb knows, online or not. Starts the adb server when it is not running.
    /// A device's properties are read once when it appears online (one `getprop` round trip)
    /// and kept while it stays listed online.
    async fn list_devices(&self) -> Result<Vec<Device>> {
        // A listing asks the adb server (which `adb devices` starts when it is not running);
        // from then on its device stream is followed, so the controller knows when to ask
        // again (`devices_generation`).
        let listed = self.list_serials().await?;
        self.saw(listed.iter().map(|d| d.serial.clone()));
        self.tracker.start(self.adb_server_port());
        let known = self.known_props(&listed);
        let mut props = JoinSet::new();
        for (i, d) in listed.iter().enumerate() {
            if d.state == DeviceState::Online && !known.contains_key(&d.serial) {
                let this = self.clone();
                let serial = d.serial.clone();
                props.spawn(async move { (i, this.read_props(&serial).await) });
            }
        }
        let mut read: Vec<Option<Props>> = listed
            .iter()
            .map(|d| known.get(&d.serial).cloned())
            .collect();
        while let Some(joined) = props.join_next().await {
            if let Ok((i, p)) = joined {
                // A device that fails its getprop is still listed, without details (and is
                // asked again next time).
                if let (Ok(p), Ok(mut cache)) = (&p, self.props.lock()) {
                    cache.insert(listed[i].serial.clone(), p.clone());
                }
                read[i] = p.ok();
            }
        }
        Ok(listed
            .into_iter()
            .zip(read)
            .map(|(d, p)| to_device(d, p.unwrap_or_default()))
            .collect())
    }

    fn id(&self) -> &'static str {
        Self::ID
    }

    fn platform(&self) -> Platform {
        Platform::Android
    }

    fn coordinate_space(&self) -> CoordinateSpace {
        CoordinateSpace::Pixels
    }

    /// Changes whenever adb's device list does, while the adb server's device stream is
    /// followed (see `track`).
    fn devices_generation(&self) -> Option<u64> {
        self.tracker.generation()
    }

    fn check_launch(&self, opts: &LaunchOptions) -> Result<()> {
        if !opts.arguments.is_empty() {
            return Err(Error::validation(
                "`arguments` are iOS launch arguments; an Android app takes named `extras` (intent extras)",
            )
            .with_hint(r#"send {"extras": {"user": "ada", "onboarded": true}}"#));
        }
        match &opts.activity {
            Some(activity) => validate::android_activity(activity).map(drop),
            None => Ok(()),
        }
    }

    fn check_app_id<'a>(&self, bundle_id: &'a str) -> Result<&'a str> {
        validate::android_package(bundle_id)
    }

    async fn readiness(&self, tools: &[ToolCheck]) -> Readiness {
        if doctor::found(tools, Tool::Adb) {
            Readiness::Ready
        } else {
            Readiness::Blocked
        }
    }

    crate::backend::traits::offers!(
        connect: Connect,
        lifecycle: Lifecycle,
        apps: Apps,
        screen: Screen,
        recording: Recording,
        input: Input,
        alerts: Alerts,
        location: Location,
        permissions: Permissions,
        clipboard: Clipboard,
        orientation: ScreenOrientation,
        files: Files,
        notifications: Notifications,
        notification_shade: NotificationShade,
        media: Media,
        biometrics: Biometrics,
        intents: Intents,
        airplane_mode: AirplaneMode,
        network_capture: NetworkCapture,
        logs: Logs,
        perf: Perf,
        helper: DeviceHelper,
        web: Web,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_recorded_devices_l() {
        let text = include_str!("../../../fixtures/android_misc/adb_devices_l_xiaomi.txt");
        let devices = parse_devices_l(text);
        assert_eq!(devices.len(), 1);
        assert_eq!(devices[0].serial, "6563c026");
        assert_eq!(devices[0].state, DeviceState::Online);
        assert_eq!(devices[0].field("model"), Some("M2101K9AG"));
        assert_eq!(devices[0].field("transport_id"), Some("5"));
    }

    #[test]
    fn skips_daemon_banners_and_prompts() {
        let text =
            include_str!("../../../fixtures/android_misc/adb_devices_powershell_transcript.txt");
        // The transcript holds a whole PowerShell session; only the part adb printed matters.
        let adb_part: String = text
            .lines()
            .skip_while(|l| !l.starts_with("* daemon"))
            .take_while(|l| !l.starts_with("PS "))
            .map(|l| format!("{l}\n"))
            .collect();
        let devices = parse_devices_l(&adb_part);
        assert_eq!(devices.len(), 1);
        assert_eq!(devices[0].serial, "DEFNW18B29003825");
        assert_eq!(devices[0].state, DeviceState::Online);
    }

    #[test]
    fn keeps_unauthorized_and_offline_devices() {
        let text = "List of devices attached\n\
            emulator-5554          offline transport_id:3\n\
            R58M123ABC             unauthorized usb:1-1 transport_id:4\n\
            0123456789ABCDEF       no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html] usb:1-2\n";
        let devices = parse_devices_l(text);
        let states: Vec<_> = devices.iter().map(|d| d.state).collect();
        assert_eq!(
            states,
            [
                DeviceState::Offline,
                DeviceState::Unauthorized,
                DeviceState::Unauthorized
            ]
        );
        assert_eq!(devices[2].field("usb"), Some("1-2"));
    }

    #[test]
    fn props_with_crlf_and_missing_values() {
        let p = parse_props("Pixel 7\r\n14\r\n34\r\n\r\n");
        assert_eq!(p.model.as_deref(), Some("Pixel 7"));
        assert_eq!(p.release.as_deref(), Some("14"));
        assert_eq!(p.sdk, Some(34));
        assert!(!p.qemu);
        assert_eq!(parse_props(""), Props::default());
    }

    #[test]
    fn emulators_are_recognised() {
        let d = parse_devices_l(
            "emulator-5554 device product:sdk_gphone64 model:sdk_gphone64_x86_64 device:emu64x\n",
        )
        .remove(0);
        let dev = to_device(d, Props::default());
        assert_eq!(dev.kind, DeviceKind::Emulator);
        assert_eq!(dev.name, "sdk gphone64 x86 64");
    }
}
