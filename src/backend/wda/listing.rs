//! The devices of the WDA backend: one per WebDriverAgent endpoint, named from devicectl when
//! it knows the endpoint's UDID and from WDA's `/status` otherwise, plus the iPhones and iPads
//! devicectl sees without an endpoint (their app routes work through devicectl; their UI
//! routes say how to start WDA). An endpoint is listed `online` whether WDA answers or not:
//! a request to a WDA that is down answers `DEVICE_UNREACHABLE` with what to do, and the next
//! one works once WDA is back. `/status` is read until it first answers (for the name), never
//! on every listing. The backend's core trait ([`crate::backend::DeviceBackend`]: identity,
//! listing, the doctor's checks, and which concerns it has) is implemented here.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;

use super::devicectl::devicectl_missing;
use super::devicectl::ListedDevice;
use super::doctor::{check, device_check, readiness};
use super::endpoint::Endpoint;
use super::status::Status;
use super::WdaBackend;
use crate::api::wire::service::{BackendCheck, Readiness, ToolCheck};
use crate::backend::validate;
use crate::backend::Alerts;
use crate::backend::Apps;
use crate::backend::Clipboard;
use crate::backend::DeviceBackend;
use crate::backend::Files;
use crate::backend::Input;
use crate::backend::Location;
use crate::backend::MultiTouchInput;
use crate::backend::Screen;
use crate::backend::ScreenOrientation;
use crate::device::Capability;
use crate::device::{Device, DeviceKind, DeviceState, Platform};
use crate::error::{Error, ErrorCode, Next, Op, Result, Step};
use crate::ui::CoordinateSpace;

/// How long a listing waits for a `/status` it does not have yet.
const LIST_PROBE_TIMEOUT: Duration = Duration::from_secs(2);

fn os_of(d: &ListedDevice) -> Option<String> {
    d.os_version.as_ref().map(|v| {
        format!(
            "{} {v}",
            if d.platform.is_empty() {
                "iOS"
            } else {
                &d.platform
            }
        )
    })
}

/// The device of an endpoint, from what devicectl (`listed`) and `/status` say about it.
pub fn endpoint_device(
    udid: &str,
    authority: &str,
    status: Option<&Status>,
    listed: Option<&ListedDevice>,
) -> Device {
    let simulator = listed.is_some_and(|d| d.simulated) || status.is_some_and(|s| s.simulator);
    let name = match (listed, status) {
        (Some(d), _) => d.name.clone(),
        (None, Some(s)) => format!("{} at {authority}", s.device_word()),
        (None, None) => format!("WebDriverAgent at {authority}"),
    };
    Device {
        udid: udid.to_string(),
        name,
        platform: Platform::Ios,
        kind: if simulator {
            DeviceKind::Simulator
        } else {
            DeviceKind::Device
        },
        state: DeviceState::Online,
        os_version: listed
            .and_then(os_of)
            .or_else(|| status.and_then(Status::os)),
        api_level: None,
        model: listed.and_then(|d| d.model.clone()),
        backend: "",
        capabilities: Vec::new(),
    }
}

/// A phone devicectl sees without a WDA endpoint.
pub fn devicectl_device(d: &ListedDevice) -> Device {
    let state = if !d.paired {
        DeviceState::Unauthorized
    } else if d.connected && d.booted {
        DeviceState::Online
    } else {
        DeviceState::Offline
    };
    Device {
        udid: d.udid.clone(),
        name: d.name.clone(),
        platform: Platform::Ios,
        kind: DeviceKind::Device,
        state,
        os_version: os_of(d),
        api_level: None,
        model: d.model.clone(),
        backend: "",
        capabilities: Vec::new(),
    }
}

impl WdaBackend {
    /// Reads `/status`; keeps it on the endpoint.
    pub(super) async fn probe(&self, ep: &Endpoint, timeout: Duration) -> Result<Status> {
        let answer = self
            .transport
            .call(ep, reqwest::Method::GET, "/status", None, timeout)
            .await?;
        let status = Status::parse(&answer).ok_or_else(|| {
            Error::new(
                ErrorCode::CommandFailed,
                format!("{}/status answered without a status", ep.spec.url),
            )
            .with_details(json!({ "answer": answer }))
        })?;
        ep.set_status(status.clone());
        Ok(status)
    }
}

#[async_trait]
impl DeviceBackend for WdaBackend {
    async fn doctor(&self, _tools: &[ToolCheck]) -> (Readiness, Vec<BackendCheck>) {
        let endpoint_checks =
            futures_util::future::join_all(self.endpoints.iter().map(|e| self.endpoint_check(e)));
        let devicectl = async {
            if !self.devicectl.available() {
                return Err(devicectl_missing("listing physical devices"));
            }
            self.devicectl.list().await
        };
        let (mut checks, listing) = futures_util::future::join(endpoint_checks, devicectl).await;
        let reachable = checks.iter().filter(|c| c.ok).count();
        let mut d = check("devicectl", "xcrun devicectl");
        let devicectl_ok = listing.is_ok();
        match listing {
            Ok((version, devices)) => {
                let phones: Vec<ListedDevice> = devices
                    .into_iter()
                    .filter(|d| d.is_physical_ios())
                    .collect();
                d.ok = true;
                d.version = version;
                d.detail = Some(format!("{} iPhone or iPad listed", phones.len()));
                checks.push(d);
                for p in &phones {
                    let lock = match self.devicectl.lock_state(&p.udid).await {
                        Ok(l) => l.map(|l| l.passcode_required),
                        Err(_) => None,
                    };
                    checks.push(device_check(p, lock));
                }
            }
            Err(e) => {
                d.detail = Some(e.message);
                d.remediation = e.hint;
                checks.push(d);
            }
        }
        let r = readiness(self.endpoints.len(), reachable, devicectl_ok);
        (r, checks)
    }

    async fn list_devices(&self) -> Result<Vec<Device>> {
        let listing = async {
            if self.devicectl.available() {
                Some(
                    self.devicectl_listing
                        .list(|| self.devicectl_lister())
                        .await,
                )
            } else {
                None
            }
        };
        let probes = futures_util::future::join_all(
            self.endpoints
                .iter()
                .filter(|e| e.status().is_none())
                .map(|e| self.probe(e, LIST_PROBE_TIMEOUT)),
        );
        let (listing, _) = futures_util::future::join(listing, probes).await;
        let listed = match listing {
            Some(Ok((_, devices))) => devices,
            Some(Err(e)) if self.endpoints.is_empty() => return Err(e),
            Some(Err(e)) => {
                tracing::warn!(error = %e.message, "devicectl could not list devices");
                Vec::new()
            }
            None if self.endpoints.is_empty() => return Err(super::not_configured()),
            None => Vec::new(),
        };
        let mut out: Vec<Device> = self
            .endpoints
            .iter()
            .map(|e| {
                let known = listed.iter().find(|d| d.is(&e.udid));
                endpoint_device(&e.udid, &e.spec.authority(), e.status().as_ref(), known)
            })
            .collect();
        out.extend(
            listed
                .iter()
                .filter(|d| d.is_physical_ios() && !self.endpoints.iter().any(|e| d.is(&e.udid)))
                .map(devicectl_device),
        );
        Ok(out)
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
    fn check_app_id<'a>(&self, bundle_id: &'a str) -> Result<&'a str> {
        validate::ios_bundle_id(bundle_id)
    }

    /// Where a phone's missing concerns are found instead.
    fn lacking_hint(&self, capability: Capability, device: &Device) -> Option<Next> {
        let simulator = device.kind == DeviceKind::Simulator;
        Some(Next::plain(match capability {
            Capability::Lifecycle if simulator => {
                "this simulator is driven through WebDriverAgent: boot it with `xcrun simctl boot` \
                 and shut it down with `xcrun simctl shutdown`"
            }
            Capability::Lifecycle => {
                "a physical iPhone is not booted or shut down from here: turn it on, unlock it \
                 and start WebDriverAgent"
            }
            Capability::Recording => {
                "WebDriverAgent does not record the screen: record on the phone (Control Center → \
                 Screen Recording) or with QuickTime Player on a Mac; iOS Simulators record \
                 through simctl"
            }
            Capability::Permissions => {
                return Some(Next::new(
                    "iOS asks when the app first needs the permission: answer that alert with {0} \
                     or {1}; Settings › the app changes it later",
                    [Step::call(Op::AlertAccept), Step::call(Op::AlertDismiss)],
                ))
            }
            Capability::Erase => {
                "erase an iPhone on the phone itself (Settings › General › Transfer or Reset iPhone)"
            }
            Capability::StatusBar => {
                "status bar overrides exist for simulators only (xcrun simctl status_bar); a \
                 phone's screenshots show its real status bar"
            }
            Capability::Perf => {
                "WebDriverAgent and devicectl give no app CPU, memory or frames: profile the app \
                 with Xcode's Instruments (Time Profiler, Allocations, Animation Hitches) or its \
                 debug gauges; on an iOS Simulator mobilectl reads the app's process on the Mac"
            }
            _ => return None,
        }))
    }

    crate::backend::traits::offers!(
        apps: Apps,
        screen: Screen,
        input: Input,
        multi_touch: MultiTouchInput,
        alerts: Alerts,
        location: Location,
        clipboard: Clipboard,
        orientation: ScreenOrientation,
        files: Files,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phone() -> ListedDevice {
        ListedDevice {
            identifier: "00000000-0000-4000-8000-000000000001".into(),
            udid: "00000000-0000000000000000".into(),
            name: "aqa-test-phon".into(),
            platform: "iOS".into(),
            simulated: false,
            model: Some("iPhone 12".into()),
            os_version: Some("27.0".into()),
            paired: true,
            connected: true,
            booted: true,
            transport: Some("wired".into()),
            developer_mode: Some("enabled".into()),
        }
    }

    #[test]
    fn an_endpoint_is_named_by_devicectl_then_by_its_status() {
        let status = Status {
            os_name: Some("iOS".into()),
            os_version: Some("14.6".into()),
            ..Status::default()
        };
        let d = endpoint_device("wda:127.0.0.1:8100", "127.0.0.1:8100", Some(&status), None);
        assert_eq!(d.name, "iPhone at 127.0.0.1:8100");
        assert_eq!(d.os_version.as_deref(), Some("iOS 14.6"));
        assert_eq!((d.kind, d.state), (DeviceKind::Device, DeviceState::Online));
        let d = endpoint_device("X", "h:1", Some(&status), Some(&phone()));
        assert_eq!(d.name, "aqa-test-phon");
        assert_eq!(d.model.as_deref(), Some("iPhone 12"));
        assert_eq!(d.os_version.as_deref(), Some("iOS 27.0"));
        let d = endpoint_device("X", "h:1", None, None);
        assert_eq!(d.name, "WebDriverAgent at h:1");
        // WDA in a simulator says so in /status; devicectl says so too.
        let sim = Status {
            simulator: true,
            ..status
        };
        assert_eq!(
            endpoint_device("X", "h:1", Some(&sim), None).kind,
            DeviceKind::Simulator
        );
        let listed_sim = ListedDevice {
            simulated: true,
            ..phone()
        };
        assert_eq!(
            endpoint_device("X", "h:1", None, Some(&listed_sim)).kind,
            DeviceKind::Simulator
        );
    }

    #[test]
    fn devicectl_states() {
        assert_eq!(devicectl_device(&phone()).state, DeviceState::Online);
        let gone = ListedDevice {
            connected: false,
            ..phone()
        };
        assert_eq!(devicectl_device(&gone).state, DeviceState::Offline);
        let unpaired = ListedDevice {
            paired: false,
            ..phone()
        };
        assert_eq!(devicectl_device(&unpaired).state, DeviceState::Unauthorized);
    }
}
