//! Devices pointed at the recording proxy: attach and detach through the device's backend,
//! one at a time, and the bookkeeping of what each attach changed, so that detach (and the
//! server's shutdown, see [`DeviceController::proxy_detach_all`]) can undo it. The proxy itself
//! is a server-wide service (`crate::proxy`); only the attachments are per device.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::DeviceController;
use crate::api::wire::proxy::AttachedDevice;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::proxy::attach::{ProxyAttached, ProxyDetached, ProxySetup};

#[derive(Debug, Clone)]
struct Attachment {
    device: Device,
    attached: ProxyAttached,
    since: DateTime<Utc>,
}

/// What the controller remembers of attached devices.
#[derive(Default)]
pub struct ProxyAttachments {
    map: std::sync::Mutex<BTreeMap<String, Attachment>>,
    /// One attach or detach at a time.
    turn: tokio::sync::Mutex<()>,
}

impl ProxyAttachments {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Attachment>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What an attach did.
#[derive(Debug, Clone)]
pub struct Attached {
    pub device: Device,
    pub attached: ProxyAttached,
    /// It was attached already (nothing was run).
    pub already: bool,
}

impl DeviceController {
    /// Points the target device at the proxy. Attaching again to the same port does nothing;
    /// to another port (the proxy was restarted elsewhere) it re-points the device and keeps
    /// the setting remembered the first time.
    pub async fn proxy_attach(&self, udid: Option<&str>, setup: &ProxySetup) -> Result<Attached> {
        let device = self.resolve_to_act(udid).await?;
        let _turn = self.proxy_attachments.turn.lock().await;
        let known = self.proxy_attachments.lock().get(&device.udid).cloned();
        if let Some(a) = &known {
            if a.attached.port == setup.port {
                return Ok(Attached {
                    device,
                    attached: a.attached.clone(),
                    already: true,
                });
            }
        }
        let mut attached = self.backend(&device)?.attach_proxy(&device, setup).await?;
        if let Some(a) = known {
            attached.previous = a.attached.previous;
        }
        self.proxy_attachments.lock().insert(
            device.udid.clone(),
            Attachment {
                device: device.clone(),
                attached: attached.clone(),
                since: Utc::now(),
            },
        );
        Ok(Attached {
            device,
            attached,
            already: false,
        })
    }

    /// Undoes an attach of the target device. A device this server did not attach is still
    /// cleaned up as far as it points at `port` (what a server that died left behind).
    /// Answers whether it was attached.
    pub async fn proxy_detach(
        &self,
        udid: Option<&str>,
        port: u16,
    ) -> Result<(Device, ProxyDetached, bool)> {
        let device = self.resolve_to_act(udid).await?;
        let _turn = self.proxy_attachments.turn.lock().await;
        let known = self.proxy_attachments.lock().get(&device.udid).cloned();
        let attached = known.as_ref().map_or_else(
            || ProxyAttached {
                port,
                previous: None,
                done: Vec::new(),
                todo: Vec::new(),
            },
            |a| a.attached.clone(),
        );
        let detached = self
            .backend(&device)?
            .detach_proxy(&device, &attached)
            .await?;
        self.proxy_attachments.lock().remove(&device.udid);
        Ok((device, detached, known.is_some()))
    }

    /// Detaches every attached device, all at once, each within `limit` (the server is
    /// stopping: no phone is left pointing at a dead proxy). Answers each device's outcome.
    pub async fn proxy_detach_all(&self, limit: Duration) -> Vec<(String, Result<ProxyDetached>)> {
        let _turn = self.proxy_attachments.turn.lock().await;
        let all: Vec<Attachment> = self.proxy_attachments.lock().values().cloned().collect();
        let undo = all.iter().map(|a| async move {
            let detach = async {
                self.backend(&a.device)?
                    .detach_proxy(&a.device, &a.attached)
                    .await
            };
            let r = tokio::time::timeout(limit, detach)
                .await
                .unwrap_or_else(|_| {
                    Err(Error::new(
                        ErrorCode::Timeout,
                        format!("detaching {} took longer than {limit:?}", a.device.udid),
                    ))
                });
            (a.device.udid.clone(), r)
        });
        let outcomes = futures_util::future::join_all(undo).await;
        let mut map = self.proxy_attachments.lock();
        for (udid, r) in &outcomes {
            if r.is_ok() {
                map.remove(udid);
            }
        }
        outcomes
    }

    /// The devices attached to the proxy.
    pub fn proxy_attached(&self) -> Vec<AttachedDevice> {
        self.proxy_attachments
            .lock()
            .values()
            .map(|a| AttachedDevice {
                udid: a.device.udid.clone(),
                platform: a.device.platform,
                port: a.attached.port,
                since: crate::proxy::flow::rfc3339(a.since),
            })
            .collect()
    }
}
