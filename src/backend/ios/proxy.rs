//! Pointing an iOS Simulator at the recording proxy. A simulator has no proxy setting of its
//! own: it uses the Mac's network settings, which mobilectl does not change (they apply to the
//! whole Mac), so attach trusts the proxy's CA in the simulator's keychain
//! (`simctl keychain UDID add-root-cert`) and says how to set the Mac's proxies; detach says
//! how to unset them. simctl cannot remove one certificate, so the CA stays trusted.

use async_trait::async_trait;

use super::{SimctlBackend, QUICK_TIMEOUT};
use crate::backend::unsupported;
use crate::backend::NetworkCapture;
use crate::device::{Device, DeviceKind};
use crate::error::Result;
use crate::proxy::attach::{ProxyAttached, ProxyDetached, ProxySetup};

/// `networksetup` commands that point the Mac's web proxies at the proxy (or turn them off).
pub fn mac_proxy_commands(port: u16, on: bool) -> String {
    if on {
        format!(
            "networksetup -setwebproxy Wi-Fi 127.0.0.1 {port} && networksetup \
             -setsecurewebproxy Wi-Fi 127.0.0.1 {port}"
        )
    } else {
        "networksetup -setwebproxystate Wi-Fi off && networksetup -setsecurewebproxystate \
         Wi-Fi off"
            .to_string()
    }
}

const SERVICES: &str = "(`Wi-Fi` is the network service in use: `networksetup \
                        -listallnetworkservices` lists them)";

fn simulator_only(device: &Device) -> Result<()> {
    if device.kind == DeviceKind::Simulator {
        Ok(())
    } else {
        Err(unsupported("network capture", "a physical iPhone"))
    }
}

#[async_trait]
impl NetworkCapture for SimctlBackend {
    async fn attach_proxy(&self, device: &Device, setup: &ProxySetup) -> Result<ProxyAttached> {
        simulator_only(device)?;
        let ca = setup.ca_file.display().to_string();
        self.simctl_ok(
            ["keychain", &device.udid, "add-root-cert", &ca],
            QUICK_TIMEOUT,
            "simctl keychain add-root-cert",
            "",
        )
        .await?;
        Ok(ProxyAttached {
            port: setup.port,
            previous: None,
            done: vec![format!(
                "xcrun simctl keychain {} add-root-cert {ca}",
                device.udid
            )],
            todo: vec![format!(
                "A Simulator uses the Mac's network settings, which mobilectl leaves alone: \
                 point the Mac's web proxies at 127.0.0.1:{p} with `{cmd}` {SERVICES}. This \
                 sends the whole Mac's web traffic through the proxy until detach.",
                p = setup.port,
                cmd = mac_proxy_commands(setup.port, true)
            )],
        })
    }

    async fn detach_proxy(
        &self,
        device: &Device,
        attached: &ProxyAttached,
    ) -> Result<ProxyDetached> {
        simulator_only(device)?;
        Ok(ProxyDetached {
            done: Vec::new(),
            todo: vec![
                format!(
                    "Turn the Mac's web proxies off with `{}` {SERVICES}.",
                    mac_proxy_commands(attached.port, false)
                ),
                format!(
                    "The proxy's CA stays trusted in the simulator (`xcrun simctl keychain {} \
                     reset` removes every certificate added to it).",
                    device.udid
                ),
            ],
        })
    }
}
