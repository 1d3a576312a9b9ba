//! Devices pointed at the recording proxy: attach and detach through the device's backend,
//! one at a time, and the bookkeeping of what each attach changed, so that detach (and the
//! server's shutdown, see [`DeviceController::proxy_detach_all`]) can undo it. The proxy itself
//! is a server-wide service (`crate::proxy`); only the attachments are per device.
//!
//! With a state directory ([`DeviceController::keep_proxy_state_in`]) the bookkeeping is also
//! on disk ([`super::proxy_store`]), written before a device is changed: what a server that
//! died left on its devices is restored by the next one, as soon as each device is listed
//! (logged at WARN, and shown as `repaired` in the proxy's status); until then it is a stale
//! attachment, which `detach` also undoes.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::proxy_store::{Record, Store};
use super::DeviceController;
use crate::api::wire::proxy::{AttachedDevice, RepairedDevice, StaleAttachment};
use crate::backend::concern;
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
    /// Where the attachments are persisted, when the server has a state directory.
    store: std::sync::OnceLock<Store>,
    /// Attachments a server that died left behind, by udid, until each device is restored.
    stale: std::sync::Mutex<BTreeMap<String, Record>>,
    /// What was restored of them.
    repaired: std::sync::Mutex<Vec<RepairedDevice>>,
}

fn locked<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl ProxyAttachments {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Attachment>> {
        locked(&self.map)
    }

    /// Writes the current and stale attachments to the store (when there is one).
    fn persist(&self) -> Result<()> {
        let Some(store) = self.store.get() else {
            return Ok(());
        };
        let mut records: Vec<Record> = self
            .lock()
            .values()
            .map(|a| Record {
                udid: a.device.udid.clone(),
                backend: a.device.backend.to_string(),
                port: a.attached.port,
                previous: a.attached.previous.clone(),
                since: crate::proxy::flow::rfc3339(a.since),
            })
            .collect();
        records.extend(locked(&self.stale).values().cloned());
        store.write(&records)
    }

    /// [`Self::persist`] after the device changed: a failure is logged, not answered.
    fn persist_logged(&self) {
        if let Err(e) = self.persist() {
            tracing::error!(error = %e.message, "could not record the proxy attachments");
        }
    }
}

/// What an attach did.
#[derive(Debug, Clone)]
pub struct Attached {
    /// The device pointed at the proxy.
    pub device: Device,
    /// The port and the setting replaced (what a detach restores).
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
        let capture = self.cap(&device, concern::NetworkCapture)?;
        let stale = locked(&self.proxy_attachments.stale).remove(&device.udid);
        // What to restore, known before the device changes: the first attach's, a dead
        // server's record's, or the device's setting now.
        let previous = match (&known, &stale) {
            (Some(a), _) => a.attached.previous.clone(),
            (None, Some(r)) => r.previous.clone(),
            (None, None) => match capture.read_proxy_setting(&device, setup).await {
                Ok(p) => p,
                Err(e) => {
                    self.put_back(stale);
                    return Err(e);
                }
            },
        };
        // Persisted before the device changes; a server killed from here on leaves a record.
        let pending = Attachment {
            device: device.clone(),
            attached: ProxyAttached {
                port: setup.port,
                previous: previous.clone(),
                done: Vec::new(),
                todo: Vec::new(),
            },
            since: known.as_ref().map_or_else(Utc::now, |a| a.since),
        };
        self.proxy_attachments
            .lock()
            .insert(device.udid.clone(), pending.clone());
        if let Err(e) = self.proxy_attachments.persist() {
            self.undo_pending(&device.udid, known, stale);
            return Err(e);
        }
        let mut attached = match capture.attach_proxy(&device, setup).await {
            Ok(a) => a,
            Err(e) => {
                self.undo_pending(&device.udid, known, stale);
                self.proxy_attachments.persist_logged();
                return Err(e);
            }
        };
        if known.is_some() || stale.is_some() || attached.previous.is_none() {
            attached.previous = previous;
        }
        self.proxy_attachments.lock().insert(
            device.udid.clone(),
            Attachment {
                attached: attached.clone(),
                ..pending
            },
        );
        self.proxy_attachments.persist_logged();
        Ok(Attached {
            device,
            attached,
            already: false,
        })
    }

    fn put_back(&self, stale: Option<Record>) {
        if let Some(r) = stale {
            locked(&self.proxy_attachments.stale).insert(r.udid.clone(), r);
        }
    }

    /// Forgets an attach that did not happen: what was known before comes back.
    fn undo_pending(&self, udid: &str, known: Option<Attachment>, stale: Option<Record>) {
        let mut map = self.proxy_attachments.lock();
        match known {
            Some(a) => map.insert(udid.to_string(), a),
            None => map.remove(udid),
        };
        drop(map);
        self.put_back(stale);
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
        let stale = locked(&self.proxy_attachments.stale)
            .get(&device.udid)
            .cloned();
        let attached = match (&known, &stale) {
            (Some(a), _) => a.attached.clone(),
            (None, Some(r)) => stale_attached(r),
            (None, None) => ProxyAttached {
                port,
                previous: None,
                done: Vec::new(),
                todo: Vec::new(),
            },
        };
        let detached = self
            .cap(&device, concern::NetworkCapture)?
            .detach_proxy(&device, &attached)
            .await?;
        self.proxy_attachments.lock().remove(&device.udid);
        locked(&self.proxy_attachments.stale).remove(&device.udid);
        self.proxy_attachments.persist_logged();
        Ok((device, detached, known.is_some() || stale.is_some()))
    }

    /// Refuses to stop the proxy for the caller when a device attached to it is leased by
    /// another session (`409 DEVICE_LEASED` naming it): stopping detaches every device, and
    /// that one is not the caller's to change (a detach of it is refused the same way).
    pub fn proxy_check_stop(&self) -> Result<()> {
        let attached: Vec<Device> = self
            .proxy_attachments
            .lock()
            .values()
            .map(|a| a.device.clone())
            .collect();
        for device in attached {
            self.check_lease(&device).map_err(|e| {
                let lease = e.details.as_ref().map(|d| d["lease"].clone());
                let details = serde_json::json!({ "udid": device.udid, "lease": lease });
                Error {
                    message: format!(
                        "the proxy is not stopped: stopping it detaches every device, and {}",
                        e.message
                    ),
                    hint: Some(
                        "stop it in that session, or once its lease ends; `proxy detach` undoes \
                         your own devices' attach meanwhile"
                            .into(),
                    ),
                    details: Some(details),
                    ..e
                }
            })?;
        }
        Ok(())
    }

    /// Detaches every attached device, all at once, each within `limit` (the server is
    /// stopping: no phone is left pointing at a dead proxy). Answers each device's outcome.
    pub async fn proxy_detach_all(&self, limit: Duration) -> Vec<(String, Result<ProxyDetached>)> {
        let _turn = self.proxy_attachments.turn.lock().await;
        let all: Vec<Attachment> = self.proxy_attachments.lock().values().cloned().collect();
        let undo = all.iter().map(|a| async move {
            let detach = async {
                self.cap(&a.device, concern::NetworkCapture)?
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
        drop(map);
        self.proxy_attachments.persist_logged();
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

/// What a stale record says to undo.
fn stale_attached(r: &Record) -> ProxyAttached {
    ProxyAttached {
        port: r.port,
        previous: r.previous.clone(),
        done: Vec::new(),
        todo: Vec::new(),
    }
}

impl DeviceController {
    /// Persists the proxy attachments in `state_dir` from now on, and takes over those of
    /// servers that died there without detaching: they are restored as their devices are
    /// listed ([`Self::proxy_restore_stale`]).
    pub fn keep_proxy_state_in(&self, state_dir: &std::path::Path) -> Result<()> {
        let store = Store::new(state_dir);
        let (records, files) = store.orphans();
        let pa = &self.proxy_attachments;
        if pa.store.set(store).is_err() {
            return Err(Error::internal("the proxy state directory is set already"));
        }
        if records.is_empty() {
            return Ok(());
        }
        locked(&pa.stale).extend(records.into_iter().map(|r| (r.udid.clone(), r)));
        // Ours first, theirs removed after: a crash in between loses nothing.
        pa.persist()?;
        for f in files {
            if let Err(e) = std::fs::remove_file(&f) {
                tracing::warn!(file = %f.display(), error = %e, "could not remove a dead server's proxy record");
            }
        }
        for r in locked(&pa.stale).values() {
            tracing::warn!(udid = r.udid, port = r.port, "a server that stopped without detaching left this device pointing at its proxy; it is restored when listed");
        }
        Ok(())
    }

    /// Whether dead servers' attachments wait for their devices.
    pub(super) fn has_stale_proxy(&self) -> bool {
        !locked(&self.proxy_attachments.stale).is_empty()
    }

    /// Restores the listed, ready devices that a dead server left pointing at its proxy: the
    /// previous setting back (where it still points at that proxy), the reverse removed.
    pub(super) async fn proxy_restore_stale(&self, devices: &[Device]) {
        let Ok(_turn) = self.proxy_attachments.turn.try_lock() else {
            return; // an attach or detach is under way; the next listing tries again
        };
        let due: Vec<(Record, Device)> = locked(&self.proxy_attachments.stale)
            .values()
            .filter_map(|r| {
                let d = devices
                    .iter()
                    .find(|d| d.udid == r.udid && d.backend == r.backend && d.state.is_ready())?;
                Some((r.clone(), d.clone()))
            })
            .collect();
        for (r, device) in due {
            let undone = async {
                self.cap(&device, concern::NetworkCapture)?
                    .detach_proxy(&device, &stale_attached(&r))
                    .await
            };
            match tokio::time::timeout(Duration::from_secs(20), undone).await {
                Ok(Ok(d)) => {
                    tracing::warn!(udid = r.udid, port = r.port, previous = ?r.previous, "restored the proxy setting a stopped server left on this device");
                    locked(&self.proxy_attachments.stale).remove(&r.udid);
                    locked(&self.proxy_attachments.repaired).push(RepairedDevice {
                        udid: r.udid.clone(),
                        port: r.port,
                        previous: r.previous.clone(),
                        restored_at: crate::proxy::flow::rfc3339(Utc::now()),
                        done: d.done,
                        todo: d.todo,
                    });
                    self.proxy_attachments.persist_logged();
                }
                Ok(Err(e)) => {
                    tracing::warn!(udid = r.udid, error = %e.message, "could not restore the proxy setting a stopped server left; POST /api/v1/proxy/detach retries")
                }
                Err(_) => tracing::warn!(
                    udid = r.udid,
                    "restoring the proxy setting a stopped server left timed out"
                ),
            }
        }
    }

    /// Devices a dead server left pointing at its proxy, restored by this one.
    pub fn proxy_repaired(&self) -> Vec<RepairedDevice> {
        locked(&self.proxy_attachments.repaired).clone()
    }

    /// The doctor's rows for devices a dead server left pointing at its proxy.
    pub fn proxy_stale_checks(&self) -> Vec<crate::api::wire::service::BackendCheck> {
        self.proxy_stale()
            .into_iter()
            .map(|s| crate::api::wire::service::BackendCheck {
                backend: "proxy".into(),
                name: "stale proxy attachment".into(),
                detail: Some(format!(
                    "points at 127.0.0.1:{}, the proxy of a server that stopped without detaching",
                    s.port
                )),
                remediation: Some(format!(
                    "it is restored once listed (connect it); or POST /api/v1/proxy/detach \
                     {{\"udid\": \"{}\"}}",
                    s.udid
                )),
                target: s.udid,
                ok: false,
                version: None,
                session: None,
            })
            .collect()
    }

    /// Devices a dead server left pointing at its proxy, not restored yet.
    pub fn proxy_stale(&self) -> Vec<StaleAttachment> {
        locked(&self.proxy_attachments.stale)
            .values()
            .map(|r| StaleAttachment {
                udid: r.udid.clone(),
                port: r.port,
                previous: r.previous.clone(),
                since: r.since.clone(),
            })
            .collect()
    }
}
