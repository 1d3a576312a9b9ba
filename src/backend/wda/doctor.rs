//! The doctor's rows of the WDA backend: each WebDriverAgent endpoint (reachable, WDA's
//! version, the session it holds), devicectl (found, its version), and each iPhone devicectl
//! sees (paired, connected, developer mode, locked) — then the backend's readiness: ready when
//! every endpoint answers, degraded when some do not or only devicectl is there, blocked when
//! nothing can be driven.

use std::time::Duration;

use super::devicectl::ListedDevice;
use super::endpoint::Endpoint;
use super::errors::unreachable_hint;
use super::WdaBackend;
use crate::api::wire::service::{BackendCheck, Readiness};

/// How long the doctor waits for each endpoint's `/status`.
const DOCTOR_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

pub(super) fn check(name: &str, target: &str) -> BackendCheck {
    BackendCheck {
        backend: WdaBackend::ID.to_string(),
        name: name.to_string(),
        target: target.to_string(),
        ok: false,
        version: None,
        session: None,
        detail: None,
        remediation: None,
    }
}

/// Readiness from how many endpoints answered, and whether devicectl works.
pub fn readiness(endpoints: usize, reachable: usize, devicectl: bool) -> Readiness {
    match (endpoints, reachable) {
        (n, r) if n > 0 && r == n => Readiness::Ready,
        (_, r) if r > 0 || devicectl => Readiness::Degraded,
        _ => Readiness::Blocked,
    }
}

/// A phone's row: `paired, wired, developer mode enabled, unlocked`.
pub(super) fn device_check(d: &ListedDevice, lock: Option<bool>) -> BackendCheck {
    let mut c = check(&d.name, &d.udid);
    let mut facts = vec![
        if d.paired { "paired" } else { "not paired" }.to_string(),
        if d.connected {
            d.transport.clone().unwrap_or_else(|| "connected".into())
        } else {
            "not connected".into()
        },
    ];
    if let Some(m) = &d.developer_mode {
        facts.push(format!("developer mode {m}"));
    }
    match lock {
        Some(true) => facts.push("locked".into()),
        Some(false) => facts.push("unlocked".into()),
        None => {}
    }
    c.ok = d.paired && d.connected && lock != Some(true);
    c.version = d.os_version.as_ref().map(|v| format!("{} {v}", d.platform));
    c.detail = Some(facts.join(", "));
    if !c.ok {
        c.remediation = Some(
            "connect and unlock the phone, trust this computer, and enable Developer Mode \
             (Settings › Privacy & Security)"
                .into(),
        );
    }
    c
}

impl WdaBackend {
    pub(super) async fn endpoint_check(&self, ep: &Endpoint) -> BackendCheck {
        let mut c = check("WebDriverAgent", &ep.spec.url);
        match self.probe(ep, DOCTOR_PROBE_TIMEOUT).await {
            Ok(status) => {
                c.ok = status.ready != Some(false);
                c.version = status.version();
                let ours = ep.session.lock().await.clone();
                let whose = match (&status.session_id, &ours) {
                    (Some(s), Some(o)) if s == o => " (mobilectl's)",
                    (Some(_), _) => " (another client's)",
                    _ => "",
                };
                c.session = status.session_id.as_ref().map(|s| format!("{s}{whose}"));
                let mut facts = vec![format!("device {}", ep.udid)];
                facts.extend(status.os());
                if status.simulator {
                    facts.push("simulator".into());
                }
                c.detail = Some(facts.join(", "));
            }
            Err(e) => {
                c.detail = Some(e.message);
                c.remediation = Some(unreachable_hint(&ep.spec.url, ep.spec.udid.as_deref()));
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_from_endpoints_and_devicectl() {
        assert_eq!(readiness(2, 2, false), Readiness::Ready);
        assert_eq!(readiness(2, 1, false), Readiness::Degraded);
        assert_eq!(readiness(1, 0, true), Readiness::Degraded);
        assert_eq!(readiness(0, 0, true), Readiness::Degraded);
        assert_eq!(readiness(1, 0, false), Readiness::Blocked);
        assert_eq!(readiness(0, 0, false), Readiness::Blocked);
    }
}
