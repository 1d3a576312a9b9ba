//! The devices of the WDA backend: one per WebDriverAgent endpoint, named from devicectl when
//! it knows the endpoint's UDID and from WDA's `/status` otherwise, plus the iPhones and iPads
//! devicectl sees without an endpoint (their app routes work through devicectl; their UI
//! routes say how to start WDA). An endpoint is listed `online` whether WDA answers or not:
//! a request to a WDA that is down answers `DEVICE_UNREACHABLE` with what to do, and the next
//! one works once WDA is back. `/status` is read until it first answers (for the name), never
//! on every listing.

use std::time::Duration;

use serde_json::json;

use super::devicectl::ListedDevice;
use super::endpoint::Endpoint;
use super::status::Status;
use super::WdaBackend;
use crate::device::{Device, DeviceKind, DeviceState, Platform};
use crate::error::{Error, ErrorCode, Result};

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

    pub(super) async fn devices(&self) -> Result<Vec<Device>> {
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
