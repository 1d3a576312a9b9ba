//! `xcrun devicectl … --json-output` answers: the envelope (`info` with the outcome and
//! devicectl's version, `result`, or `error` with CoreDevice's code and words), devices (from
//! `list devices` and `device info details`, which share one shape), apps, processes, a
//! launch's pid and the lock state. devicectl 477+ moves device facts into a `properties`
//! dictionary and marks the older `hardwareProperties`, `deviceProperties` and
//! `connectionProperties` deprecated; both are read, the new one first. Pure; no I/O.

use serde_json::{json, Value};

use crate::device::AppInfo;
use crate::error::{Error, ErrorCode, Op, Step};

/// One devicectl answer.
#[derive(Debug, Clone)]
pub struct Envelope {
    /// `success` or `failed`.
    pub outcome: Option<String>,
    /// devicectl's version (`642.16`).
    pub version: Option<String>,
    pub result: Value,
    pub error: Option<CoreDeviceError>,
}

/// An error as CoreDevice reports it, with the one under it.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreDeviceError {
    pub code: i64,
    pub domain: String,
    /// `NSLocalizedDescription`.
    pub description: Option<String>,
    /// `NSLocalizedFailureReason`.
    pub reason: Option<String>,
    /// `NSLocalizedRecoverySuggestion`.
    pub suggestion: Option<String>,
    pub underlying: Option<Box<CoreDeviceError>>,
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => None,
    }
}

/// The first value found at one of `paths` (new location first, then the deprecated one).
fn first<'a>(v: &'a Value, paths: &[&[&str]]) -> Option<&'a Value> {
    paths.iter().find_map(|path| {
        let mut cur = v;
        for k in *path {
            cur = cur.get(*k)?;
        }
        (!cur.is_null()).then_some(cur)
    })
}

fn first_text(v: &Value, paths: &[&[&str]]) -> Option<String> {
    first(v, paths).and_then(text)
}

impl CoreDeviceError {
    fn parse(v: &Value) -> Option<Self> {
        let info = v.get("userInfo");
        let user = |key: &str| {
            info.and_then(|i| i.get(key))
                .and_then(|x| x.get("string"))
                .and_then(text)
        };
        Some(CoreDeviceError {
            code: v.get("code")?.as_i64()?,
            domain: v.get("domain").and_then(text).unwrap_or_default(),
            description: user("NSLocalizedDescription"),
            reason: user("NSLocalizedFailureReason"),
            suggestion: user("NSLocalizedRecoverySuggestion"),
            underlying: info
                .and_then(|i| i.get("NSUnderlyingError"))
                .and_then(|u| u.get("error"))
                .and_then(CoreDeviceError::parse)
                .map(Box::new),
        })
    }

    /// The words people need: this error's description and reason, and those of the errors
    /// under it that say more.
    pub fn words(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut cur = Some(self);
        while let Some(e) = cur {
            for p in [&e.description, &e.reason].into_iter().flatten() {
                if !parts.contains(p) {
                    parts.push(p.clone());
                }
            }
            cur = e.underlying.as_deref();
        }
        if parts.is_empty() {
            format!("{} error {}", self.domain, self.code)
        } else {
            parts.join(" ")
        }
    }

    /// The deepest recovery suggestion.
    pub fn suggestion(&self) -> Option<String> {
        let deeper = self
            .underlying
            .as_deref()
            .and_then(CoreDeviceError::suggestion);
        deeper.or_else(|| self.suggestion.clone())
    }

    /// As the product's error: an app that is not installed is `NOT_FOUND`, a capability the
    /// device lacks `UNSUPPORTED_ON_PLATFORM`, anything else `COMMAND_FAILED`.
    pub fn to_error(&self, what: &str) -> Error {
        let core = self.domain == "com.apple.dt.CoreDeviceError";
        let (code, default_hint, ops): (_, _, &[Op]) = match self.code {
            10002 if core => (
                ErrorCode::NotFound,
                "install the app first ({0}), or check the bundle id",
                &[Op::InstallApp],
            ),
            1001 if core => (
                ErrorCode::UnsupportedOnPlatform,
                "this device does not offer that capability",
                &[],
            ),
            _ => (
                ErrorCode::CommandFailed,
                "devicectl's own words are in `message`; `xcrun devicectl list devices` shows whether the device is paired and connected",
                &[],
            ),
        };
        let e = Error::new(code, format!("{what} failed: {}", self.words()));
        match self.suggestion() {
            Some(s) => e.with_hint(s),
            None => e.with_next(default_hint, ops.iter().map(|o| Step::call(*o))),
        }
            .with_details(json!({
                "tool": "devicectl",
                "domain": self.domain,
                "code": self.code,
                "underlying": self.underlying.as_ref().map(|u| json!({"domain": u.domain, "code": u.code})),
            }))
    }
}

/// Reads devicectl's JSON answer.
pub fn parse_envelope(text_out: &str) -> Result<Envelope, String> {
    let v: Value = serde_json::from_str(text_out.trim()).map_err(|e| e.to_string())?;
    let info = v.get("info").filter(|i| i.is_object()).ok_or("no `info`")?;
    Ok(Envelope {
        outcome: info.get("outcome").and_then(text),
        version: info.get("version").and_then(text),
        result: v.get("result").cloned().unwrap_or(Value::Null),
        error: v.get("error").and_then(CoreDeviceError::parse),
    })
}

/// A device as devicectl lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedDevice {
    /// CoreDevice's identifier (a UUID).
    pub identifier: String,
    /// The UDID (`00008101-…` on phones; the simulator's UUID on simulators).
    pub udid: String,
    pub name: String,
    /// `iOS`, `tvOS`, `watchOS`, `xrOS`.
    pub platform: String,
    pub simulated: bool,
    /// `iPhone 12`.
    pub model: Option<String>,
    /// `27.0`.
    pub os_version: Option<String>,
    pub paired: bool,
    pub connected: bool,
    pub booted: bool,
    /// `wired`, `localNetwork`…
    pub transport: Option<String>,
    /// `enabled`/`disabled`, when said.
    pub developer_mode: Option<String>,
}

impl ListedDevice {
    /// Whether `id` names this device (its UDID or CoreDevice identifier).
    pub fn is(&self, id: &str) -> bool {
        self.udid.eq_ignore_ascii_case(id) || self.identifier.eq_ignore_ascii_case(id)
    }

    /// An iPhone or iPad (not a simulator, a TV or a watch).
    pub fn is_physical_ios(&self) -> bool {
        !self.simulated && self.platform == "iOS"
    }
}

/// Developer mode: `"enabled"` (deprecated field) or `{"enabled": {…}}` (`properties`).
fn developer_mode(d: &Value) -> Option<String> {
    match first(
        d,
        &[
            &["properties", "state", "developerModeStatus"],
            &["deviceProperties", "developerModeStatus"],
        ],
    )? {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.keys().next().cloned(),
        _ => None,
    }
}

/// A fact of a device: `properties.<group>.<key>` (devicectl 477+), else the deprecated
/// `<old_group>.<old_key>`.
fn fact(d: &Value, group: &str, key: &str, old_group: &str, old_key: &str) -> Option<String> {
    first_text(d, &[&["properties", group, key], &[old_group, old_key]])
}

fn hardware(d: &Value, key: &str) -> Option<String> {
    fact(d, "hardware", key, "hardwareProperties", key)
}

fn connection(d: &Value, key: &str, old_key: &str) -> Option<String> {
    fact(d, "connection", key, "connectionProperties", old_key)
}

fn state(d: &Value, key: &str) -> Option<String> {
    fact(d, "state", key, "deviceProperties", key)
}

/// One device object (an entry of `list devices`, or `device info details`' result).
pub fn parse_device(d: &Value) -> Option<ListedDevice> {
    let identifier = d.get("identifier").and_then(text)?;
    let udid = hardware(d, "udid").unwrap_or_else(|| identifier.clone());
    Some(ListedDevice {
        name: state(d, "name").unwrap_or_else(|| udid.clone()),
        platform: hardware(d, "platform").unwrap_or_default(),
        simulated: hardware(d, "reality").as_deref() == Some("simulated"),
        model: hardware(d, "marketingName"),
        os_version: first_text(
            d,
            &[
                &["properties", "software", "osVersionNumber", "stringValue"],
                &["deviceProperties", "osVersionNumber"],
            ],
        ),
        paired: connection(d, "pairingState", "pairingState").is_none_or(|p| p == "paired"),
        connected: connection(d, "state", "tunnelState").as_deref() == Some("connected"),
        booted: state(d, "bootState").is_none_or(|b| b == "booted"),
        transport: connection(d, "transportType", "transportType"),
        developer_mode: developer_mode(d),
        identifier,
        udid,
    })
}

/// The devices of `list devices`' result.
pub fn parse_devices(result: &Value) -> Vec<ListedDevice> {
    result
        .get("devices")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(parse_device)
        .collect()
}

/// An installed app and where its bundle lives on the device.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedApp {
    pub info: AppInfo,
    /// `file:///private/var/containers/Bundle/Application/…/X.app/`.
    pub url: Option<String>,
}

/// The apps of `device info apps`' result.
pub fn parse_apps(result: &Value) -> Vec<ListedApp> {
    result
        .get("apps")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| {
            let bundle_id = a.get("bundleIdentifier").and_then(text)?;
            let removable = a.get("removable").and_then(Value::as_bool).unwrap_or(true);
            Some(ListedApp {
                info: AppInfo {
                    bundle_id,
                    name: a.get("name").and_then(text),
                    version: a
                        .get("version")
                        .or_else(|| a.get("bundleVersion"))
                        .and_then(text),
                    kind: Some(if removable { "user" } else { "system" }.to_string()),
                },
                url: a.get("url").and_then(text),
            })
        })
        .collect()
}

/// `(pid, executable URL)` of `device info processes`' result.
pub fn parse_processes(result: &Value) -> Vec<(u32, String)> {
    result
        .get("runningProcesses")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let pid = u32::try_from(p.get("processIdentifier")?.as_u64()?).ok()?;
            Some((pid, p.get("executable").and_then(text)?))
        })
        .collect()
}

/// The pid of the process whose executable lies in the app bundle at `app_url`.
pub fn pid_of_app(processes: &[(u32, String)], app_url: &str) -> Option<u32> {
    let dir = if app_url.ends_with('/') {
        app_url.to_string()
    } else {
        format!("{app_url}/")
    };
    processes
        .iter()
        .find(|(_, exe)| exe.starts_with(&dir))
        .map(|(pid, _)| *pid)
}

/// The pid `process launch` reports.
pub fn launched_pid(result: &Value) -> Option<u32> {
    u32::try_from(result["process"]["processIdentifier"].as_u64()?).ok()
}

/// `device info lockState`: whether the passcode is needed now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockState {
    pub passcode_required: bool,
    pub unlocked_since_boot: bool,
}

pub fn parse_lock_state(result: &Value) -> Option<LockState> {
    Some(LockState {
        passcode_required: result.get("passcodeRequired")?.as_bool()?,
        unlocked_since_boot: result
            .get("unlockedSinceBoot")
            .and_then(Value::as_bool)
            .unwrap_or(true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(name: &str) -> Envelope {
        let bytes = crate::backend::wda::recorded(&format!("ios_devicectl/{name}"));
        parse_envelope(&String::from_utf8(bytes).unwrap()).unwrap()
    }

    const LIST: &str = "devicectl_list_devices_iphone12_ios27_plus_18_simulators_devicectl642.json";

    #[test]
    fn list_devices_with_a_phone_and_simulators() {
        let env = envelope(LIST);
        assert_eq!(env.outcome.as_deref(), Some("success"));
        assert_eq!(env.version.as_deref(), Some("642.16"));
        let devices = parse_devices(&env.result);
        assert_eq!(devices.len(), 19);
        let phones: Vec<&ListedDevice> = devices.iter().filter(|d| d.is_physical_ios()).collect();
        assert_eq!(phones.len(), 1);
        let p = phones[0];
        assert_eq!(p.identifier, "00000000-0000-4000-8000-000000000001");
        assert_eq!(p.udid, "00000000-0000000000000000");
        assert!(p.is("00000000-0000-4000-8000-000000000001") && p.is("00000000-0000000000000000"));
        assert_eq!(p.name, "aqa-test-phon");
        assert_eq!(p.model.as_deref(), Some("iPhone 12"));
        assert_eq!(p.os_version.as_deref(), Some("27.0"));
        assert!(p.paired && p.connected && p.booted);
        assert_eq!(p.transport.as_deref(), Some("wired"));
        assert_eq!(p.developer_mode.as_deref(), Some("enabled"));
        // Simulators (iOS and tvOS) are listed too, booted or not.
        let sims: Vec<&ListedDevice> = devices.iter().filter(|d| d.simulated).collect();
        assert_eq!(sims.len(), 18);
        let tv = devices
            .iter()
            .find(|d| d.platform == "tvOS" && d.booted)
            .unwrap();
        assert!(tv.simulated && !tv.is_physical_ios());
        let off = devices
            .iter()
            .find(|d| d.udid == "5F734077-046C-4806-9404-846115C40E1B")
            .unwrap();
        assert!(!off.booted && !off.connected);
    }

    #[test]
    fn info_details_has_the_shape_of_a_listed_device() {
        let env = envelope("devicectl_info_details_iphone12_ios27.0beta_devicectl642.json");
        let d = parse_device(&env.result).unwrap();
        assert!(d.is_physical_ios());
        assert_eq!(d.udid, "00000000-0000000000000000");
        assert_eq!(d.name, "aqa-test-phon");
        assert_eq!(d.os_version.as_deref(), Some("27.0"));
        assert_eq!(d.developer_mode.as_deref(), Some("enabled"));
        // Without `properties` (devicectl before 477), the deprecated fields answer the same.
        let mut old = env.result.clone();
        old.as_object_mut().unwrap().remove("properties");
        let o = parse_device(&old).unwrap();
        assert_eq!(
            (o.udid, o.name, o.os_version),
            (d.udid, d.name, d.os_version)
        );
    }

    #[test]
    fn apps_of_three_devicectl_versions() {
        let one = parse_apps(
            &envelope("devicectl_info_apps_one_dev_app_qtcreator_devicectl355.json").result,
        );
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].info.bundle_id, "org.iuehrg.cmake-widgets");
        assert_eq!(one[0].info.name.as_deref(), Some("cmake_widgets"));
        assert_eq!(one[0].info.version.as_deref(), Some("0.1"));
        assert_eq!(one[0].info.kind.as_deref(), Some("user"));
        assert!(one[0]
            .url
            .as_deref()
            .unwrap()
            .ends_with("cmake_widgets.app/"));
        let two = parse_apps(
            &envelope("devicectl_info_apps_two_dev_apps_qtcreator_devicectl477.json").result,
        );
        let ids: Vec<&str> = two.iter().map(|a| a.info.bundle_id.as_str()).collect();
        assert_eq!(ids, ["org.qt-project.appuntitled17", "org.qt-project.ijij"]);
        assert_eq!(two[1].info.version.as_deref(), Some("1.0"));
        let none = parse_apps(
            &envelope("devicectl_info_apps_empty_iphone12_ios27_devicectl642.json").result,
        );
        assert!(none.is_empty());
    }

    #[test]
    fn processes_and_the_pid_of_an_app() {
        let env = envelope("devicectl_info_processes_iphone12_ios27_468procs_devicectl642.json");
        let procs = parse_processes(&env.result);
        assert_eq!(procs.len(), 468);
        let camera =
            "file:///private/var/containers/Bundle/Application/3626AC22-B920-4F7A-A51E-B2DAAFF3A37C/Camera.app/";
        assert_eq!(pid_of_app(&procs, camera), Some(3521));
        assert_eq!(pid_of_app(&procs, camera.trim_end_matches('/')), Some(3521));
        assert_eq!(pid_of_app(&procs, "file:///nowhere/X.app/"), None);
    }

    #[test]
    fn launches_installs_uninstalls_and_lock_state() {
        let env = envelope("devicectl_process_launch_preferences_iphone12_ios27.json");
        assert_eq!(launched_pid(&env.result), Some(4924));
        let env = envelope("devicectl_process_launch_qtcreator_devicectl355.json");
        assert_eq!(launched_pid(&env.result), Some(1802));
        for ok in [
            "devicectl_install_app_success_iphone12_ios27_devicectl642.json",
            "devicectl_uninstall_app_not_installed_success_iphone12_ios27.json",
        ] {
            let env = envelope(ok);
            assert_eq!(env.outcome.as_deref(), Some("success"), "{ok}");
            assert!(env.error.is_none() && env.result.is_object(), "{ok}");
        }
        let env = envelope("devicectl_info_lockState_iphone12_ios27.json");
        assert_eq!(
            parse_lock_state(&env.result),
            Some(LockState {
                passcode_required: false,
                unlocked_since_boot: true
            })
        );
    }

    #[test]
    fn errors_become_the_product_s_codes_with_devicectl_s_words() {
        let env =
            envelope("devicectl_process_launch_error_not_installed_10002_iphone12_ios27.json");
        assert_eq!(env.outcome.as_deref(), Some("failed"));
        let e = env.error.unwrap().to_error("launching");
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(
            e.message
                .contains("com.example.notinstalled is not installed"),
            "{}",
            e.message
        );
        assert_eq!(
            e.hint.as_deref(),
            Some("Provide a valid bundle identifier.")
        );

        let env =
            envelope("devicectl_install_app_error_3002_invalid_bundle_qtcreator_devicectl355.json");
        let err = env.error.unwrap();
        assert_eq!(err.code, 3002);
        let e = err.to_error("installing");
        assert_eq!(e.code, ErrorCode::CommandFailed);
        assert!(
            e.message
                .contains("Failed to install the app on the device."),
            "{}",
            e.message
        );
        assert!(e.message.contains("is not a valid bundle"), "{}", e.message);
        assert!(e.hint.unwrap().contains("CFBundleIdentifier"));

        let env =
            envelope("devicectl_info_audio_error_1001_capability_unsupported_iphone12_ios27.json");
        let e = env.error.unwrap().to_error("reading audio");
        assert_eq!(e.code, ErrorCode::UnsupportedOnPlatform);
        assert!(e.message.contains("Audio Output Device Selection"));

        assert!(parse_envelope("xcrun: error: unable to find utility \"devicectl\"").is_err());
    }
}
