//! Listing devices across every registered backend, concurrently and single-flight: callers
//! that arrive while a listing runs take its answer. A backend whose listing fails is absent,
//! and its entry in `tools` (keyed by backend id) says why. Every listed device is stamped
//! with the id of the backend that listed it, which is how operations find their backend. A
//! udid two backends list is listed once: the earlier backend's, unless the later one takes it
//! over ([`crate::backend::DeviceBackend::take_over`]).
//!
//! Requests resolve their device from the last listing while it is trusted: while every
//! backend reports the same `devices_generation` as when it was made (adb's device stream is
//! followed live), or for [`KNOWN_TTL`] when one cannot tell. So a request after any idle time
//! costs no listing round trip on a followed backend.

use std::time::{Duration, Instant};

use super::DeviceController;
use crate::api::wire::devices::{DeviceList, PlatformTools};
use crate::device::{Device, PlatformStatus};

/// How long a listing is trusted when a backend cannot say whether its devices changed.
pub const KNOWN_TTL: Duration = Duration::from_secs(3);

/// The last listing, when it was made, and each backend's device generation then.
pub(super) struct KnownList {
    at: Instant,
    devices: Vec<Device>,
    generations: Vec<Option<u64>>,
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
                leases: self.leases(),
            };
        }
        // Read before listing: a change during the listing leaves the listing untrusted.
        let before = self.generations();
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
                            capabilities: backend.capabilities(),
                            ..d
                        };
                        // Listed by an earlier backend too: one entry, whose backend says.
                        match devices.iter().position(|e| e.udid == d.udid) {
                            Some(i) => {
                                if let Some(t) = backend.take_over(&d, &devices[i]) {
                                    devices[i] = Device {
                                        backend: backend.id(),
                                        capabilities: backend.capabilities(),
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
        // A backend that began following its devices during this listing (the listing started
        // it) vouches from its first generation on.
        let generations = before
            .into_iter()
            .zip(self.generations())
            .map(|(was, now)| was.or(now))
            .collect();
        if let Ok(mut known) = self.known.lock() {
            *known = Some(KnownList {
                at: Instant::now(),
                devices: devices.clone(),
                generations,
            });
        }
        if let Ok(mut listed) = self.listed.lock() {
            *listed = Some((Instant::now(), devices.clone(), tools.clone()));
        }
        // What a server that died left pointing at its proxy is restored once listed.
        if self.has_stale_proxy() {
            self.proxy_restore_stale(&devices).await;
        }
        DeviceList {
            devices,
            active: self.active(),
            tools,
            leases: self.leases(),
        }
    }

    fn generations(&self) -> Vec<Option<u64>> {
        self.backends
            .iter()
            .map(|b| b.devices_generation())
            .collect()
    }

    /// The last listing, while it is trusted (see the module's doc).
    pub(super) fn trusted_listing(&self) -> Option<Vec<Device>> {
        let known = self.known.lock().ok()?;
        let k = known.as_ref()?;
        let now = self.generations();
        let followed = now.iter().all(Option::is_some) && now == k.generations;
        // A backend that stopped following (its adb server died) cannot vouch for anything.
        let lost = k
            .generations
            .iter()
            .zip(&now)
            .any(|(was, is)| was.is_some() && is.is_none());
        (followed || (!lost && k.at.elapsed() < KNOWN_TTL)).then(|| k.devices.clone())
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
