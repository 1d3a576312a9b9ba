//! Listing devices across every registered backend, concurrently and single-flight: callers
//! that arrive while a listing runs take its answer. A backend whose listing fails is absent,
//! and its entry in `tools` (keyed by backend id) says why. Every listed device is stamped
//! with the id of the backend that listed it, which is how operations find their backend. A
//! udid two backends list is listed once: the earlier backend's, unless the later one takes it
//! over ([`crate::backend::DeviceBackend::take_over`]).

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;
use utoipa::ToSchema;

use super::DeviceController;
use crate::device::{Device, PlatformStatus};

/// Per backend id (`android`, `ios`): whether it could list its devices, and why not.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(transparent)]
pub struct PlatformTools(pub BTreeMap<String, PlatformStatus>);

/// The answer of a device listing.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeviceList {
    pub devices: Vec<Device>,
    /// The active device's udid, if one is chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<String>,
    /// Per backend (`android`, `ios`): whether it could list its devices, and why not.
    pub tools: PlatformTools,
}

impl DeviceController {
    /// Lists devices on every registered backend, concurrently. A backend whose tool is
    /// missing or fails is absent, and `tools` says why.
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
        // Joined in this task (not spawned), so the commands' time counts for the request.
        let listings =
            futures_util::future::join_all(self.backends.iter().map(|b| b.list_devices())).await;
        let mut devices: Vec<Device> = Vec::new();
        let mut tools = PlatformTools::default();
        for (backend, listing) in self.backends.iter().zip(listings) {
            let status = match listing {
                Ok(ds) => {
                    for d in ds {
                        let d = Device {
                            backend: backend.id(),
                            ..d
                        };
                        // Listed by an earlier backend too: one entry, whose backend says.
                        match devices.iter().position(|e| e.udid == d.udid) {
                            Some(i) => {
                                if let Some(t) = backend.take_over(&d, &devices[i]) {
                                    devices[i] = Device {
                                        backend: backend.id(),
                                        ..t
                                    };
                                }
                            }
                            None => devices.push(d),
                        }
                    }
                    PlatformStatus::available()
                }
                Err(e) => PlatformStatus::absent(&e),
            };
            tools.0.insert(backend.id().to_string(), status);
        }
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

    /// The device `udid` as listed now.
    pub(super) async fn find(&self, udid: &str) -> Option<Device> {
        self.list()
            .await
            .devices
            .into_iter()
            .find(|d| d.udid == udid)
    }
}
