//! The doctor, reached through the controller: the device tools and the backends it holds,
//! each checked (found, path, version, remediation).

use super::DeviceController;
use crate::api::wire::service::DoctorReport;
use crate::backend::doctor::diagnose;

impl DeviceController {
    /// Checks adb, emulator, xcrun simctl, AXe and idb, and what follows for each registered
    /// backend.
    pub async fn doctor(&self) -> DoctorReport {
        let mut report = diagnose(self.tools(), self.backends()).await;
        // Devices a server that died left pointing at its proxy, with their repair.
        report.checks.extend(self.proxy_stale_checks());
        // What this host cannot do at all (iOS needs macOS; the demo device a Unix host).
        report.checks.extend(crate::backend::host::this_host());
        report.sessions = self
            .sessions()
            .list()
            .iter()
            .map(|s| s.info(None))
            .collect();
        report
    }
}
