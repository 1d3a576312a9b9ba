//! Apps on an iPhone: launched and terminated through WebDriverAgent (`/wda/apps/launch`,
//! `/wda/apps/terminate`) when the device has an endpoint, else through devicectl; installed
//! and listed through devicectl, which needs the device's UDID.

use reqwest::Method;
use serde_json::json;

use super::client::COMMAND_TIMEOUT;
use super::WdaBackend;
use crate::backend::unsupported;
use crate::device::{Device, LaunchOptions, Launched};
use crate::error::{Error, Op, Result, Step};

/// iOS has no per-app data reset.
pub fn reset_unsupported(bundle_id: &str) -> Error {
    unsupported("clearing one app's data", "iOS").with_next(
        format!("iOS keeps no per-app data reset: uninstall and reinstall `{bundle_id}` ({{0}})"),
        [Step::call(Op::INSTALL_APP)],
    )
}

impl WdaBackend {
    /// The UDID devicectl knows `device` by (an endpoint given without one has none).
    pub(super) fn devicectl_id<'a>(&self, device: &'a Device, what: &str) -> Result<&'a str> {
        if device.udid.starts_with("wda:") {
            return Err(
                unsupported(what, "a WebDriverAgent endpoint given without its UDID").with_hint(
                    format!(
                        "devicectl needs the device's UDID: restart with `--wda UDID={}` \
                     (`xcrun devicectl list devices` shows it)",
                        self.endpoint(device)
                            .map(|e| e.spec.url.clone())
                            .unwrap_or_default()
                    ),
                ),
            );
        }
        Ok(&device.udid)
    }

    /// Through WDA when the device has an endpoint, else devicectl (which says the pid).
    pub(super) async fn launch(
        &self,
        d: &Device,
        bundle_id: &str,
        o: &LaunchOptions,
    ) -> Result<Launched> {
        let pid = if self.endpoint(d).is_ok() {
            if o.relaunch {
                self.terminate(d, bundle_id).await?;
            }
            let body = json!({ "bundleId": bundle_id, "arguments": o.ios_argv() });
            self.session_call(
                d,
                Method::POST,
                "/wda/apps/launch",
                Some(&body),
                COMMAND_TIMEOUT * 2,
            )
            .await?;
            None
        } else {
            let id = self.devicectl_id(d, "launching apps")?;
            self.devicectl.launch(id, bundle_id, o).await?
        };
        Ok(Launched {
            bundle_id: bundle_id.to_string(),
            activity: None,
            pid,
            launch_time_ms: 0,
        })
    }
    pub(super) async fn terminate(&self, device: &Device, bundle_id: &str) -> Result<()> {
        if self.endpoint(device).is_ok() {
            let body = json!({ "bundleId": bundle_id });
            return self
                .session_call(
                    device,
                    Method::POST,
                    "/wda/apps/terminate",
                    Some(&body),
                    COMMAND_TIMEOUT,
                )
                .await
                .map(drop);
        }
        let id = self.devicectl_id(device, "terminating apps")?;
        self.devicectl.terminate(id, bundle_id).await
    }
}
