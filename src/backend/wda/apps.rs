//! Apps on an iPhone: launched and terminated through WebDriverAgent (`/wda/apps/launch`,
//! `/wda/apps/terminate`) when the device has an endpoint, else through devicectl; installed
//! and listed through devicectl, which needs the device's UDID.

use std::path::Path;

use async_trait::async_trait;
use reqwest::Method;
use serde_json::json;

use super::client::COMMAND_TIMEOUT;
use super::WdaBackend;
use crate::backend::unsupported;
use crate::backend::validate;
use crate::backend::Apps;
use crate::device::AppInfo;
use crate::device::{Device, LaunchOptions, Launched};
use crate::error::{Error, Op, Result, Step};

/// iOS has no per-app data reset.
pub fn reset_unsupported(bundle_id: &str) -> Error {
    unsupported("clearing one app's data", "iOS").with_next(
        format!("iOS keeps no per-app data reset: uninstall and reinstall `{bundle_id}` ({{0}})"),
        [Step::call(Op::InstallApp)],
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
}

#[async_trait]
impl Apps for WdaBackend {
    fn check_app_package(&self, path: &Path, meta: &std::fs::Metadata) -> Result<()> {
        match validate::extension(path).as_str() {
            "app" if meta.is_dir() => Ok(()),
            "ipa" if meta.is_file() => Ok(()),
            _ => Err(Error::validation(format!(
                "`{}` is neither an .app folder nor an .ipa file",
                path.display()
            ))
            .with_hint("iPhones install a signed device build: the .app folder or an .ipa")),
        }
    }

    // --- apps: WDA when the device has an endpoint, devicectl otherwise -----------------------
    async fn install_app(&self, device: &Device, path: &Path) -> Result<()> {
        let id = self.devicectl_id(device, "installing apps")?;
        self.devicectl.install(id, path).await
    }

    /// Through WDA when the device has an endpoint, else devicectl (which says the pid).
    async fn launch_app(&self, d: &Device, bundle_id: &str, o: &LaunchOptions) -> Result<Launched> {
        let pid = if self.endpoint(d).is_ok() {
            if o.relaunch {
                self.terminate_app(d, bundle_id).await?;
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
            startup: None,
        })
    }

    async fn terminate_app(&self, device: &Device, bundle_id: &str) -> Result<()> {
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

    async fn reset_app(&self, _device: &Device, bundle_id: &str) -> Result<()> {
        Err(reset_unsupported(bundle_id))
    }

    /// A phone's keychain cannot be emptied from the host.
    async fn reset_keychain(&self, _device: &Device) -> Result<()> {
        Err(crate::backend::unsupported(
            "resetting the keychain",
            "iOS devices through WebDriverAgent",
        ))
    }

    async fn list_apps(&self, device: &Device) -> Result<Vec<AppInfo>> {
        let id = self.devicectl_id(device, "listing apps")?;
        self.devicectl.list_apps(id).await
    }

    async fn open_url(&self, device: &Device, url: &str) -> Result<()> {
        let body = json!({ "url": url });
        self.session_call(device, Method::POST, "/url", Some(&body), COMMAND_TIMEOUT)
            .await
            .map(drop)
    }
}
