//! Pointing an Android device at the recording proxy: `adb reverse tcp:P tcp:P` (the device's
//! loopback port P reaches the host's, where the proxy listens), then the global `http_proxy`
//! setting to `127.0.0.1:P`, read in the same round trip so that detach can restore it (`:0`,
//! Android's "no proxy", when there was none). Detach restores only a setting that still
//! points at the proxy (a user's change since is left alone), then removes the reverse.

use async_trait::async_trait;

use super::shell::{adb_failure, quote};
use super::{AdbBackend, QUICK_TIMEOUT};
use crate::backend::NetworkCapture;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::proxy::attach::{ProxyAttached, ProxyDetached, ProxySetup};

/// Android's value for "no proxy".
pub const NO_PROXY: &str = ":0";

/// What the user must still do for HTTPS on Android.
pub fn https_todo(setup: &ProxySetup) -> Vec<String> {
    let ca = setup.ca_file.display();
    vec![
        format!(
            "HTTPS: install the proxy's CA certificate ({ca}, also served by the API) on the \
             device: Settings › Security › Encryption & credentials › Install a certificate › \
             CA certificate (adb push it to /sdcard/Download first). On Android 7+ only apps \
             whose network security config trusts user CAs use it (debug builds: \
             <certificates src=\"user\"/>)."
        ),
        "On a rooted emulator (adb root && adb remount) it can go in the system store instead: \
         /system/etc/security/cacerts/HASH.0, HASH from `openssl x509 -subject_hash_old -noout \
         -in proxy-ca.pem`."
            .to_string(),
        "Apps that pin certificates fail through the proxy: start it with their hosts as \
         passthrough (tunnelled, not decrypted)."
            .to_string(),
    ]
}

/// The previous `http_proxy` as remembered: `None` for "none" (`null`, empty, `:0`) and for
/// a value that already pointed at this proxy (left by a server that did not detach).
pub fn previous_setting(read: &str, ours: &str) -> Option<String> {
    let v = read.trim();
    (!(v.is_empty() || v == "null" || v == NO_PROXY || v == ours)).then(|| v.to_string())
}

impl AdbBackend {
    /// `adb -s S reverse ARGS`.
    async fn reverse(&self, serial: &str, args: &[&str]) -> Result<crate::exec::Output> {
        let cmd = self
            .adb_for(serial)?
            .arg("reverse")
            .args(args)
            .timeout(QUICK_TIMEOUT);
        self.run(cmd).await
    }
}

#[async_trait]
impl NetworkCapture for AdbBackend {
    /// The `http_proxy` setting as attach remembers it (see [`previous_setting`]).
    async fn read_proxy_setting(
        &self,
        device: &Device,
        setup: &ProxySetup,
    ) -> Result<Option<String>> {
        let out = self
            .shell(
                &device.udid,
                "settings get global http_proxy",
                QUICK_TIMEOUT,
            )
            .await?;
        let ours = format!("127.0.0.1:{}", setup.port);
        Ok(previous_setting(&out.stdout_text(), &ours))
    }

    async fn attach_proxy(&self, device: &Device, setup: &ProxySetup) -> Result<ProxyAttached> {
        let serial = &device.udid;
        let spec = format!("tcp:{}", setup.port);
        let out = self.reverse(serial, &[&spec, &spec]).await?;
        if !out.success() {
            return Err(adb_failure(serial, "adb reverse", &out));
        }
        let ours = format!("127.0.0.1:{}", setup.port);
        let script = format!(
            "settings get global http_proxy; settings put global http_proxy {v} && \
             settings get global http_proxy",
            v = quote(&ours)
        );
        let set = self.shell(serial, &script, QUICK_TIMEOUT).await;
        let text = match set {
            Ok(o) => o.stdout_text(),
            Err(e) => {
                let _ = self.reverse(serial, &["--remove", &spec]).await;
                return Err(e);
            }
        };
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        if lines.get(1) != Some(&ours.as_str()) {
            let _ = self.reverse(serial, &["--remove", &spec]).await;
            return Err(Error::new(
                ErrorCode::CommandFailed,
                format!("the device did not take the proxy setting: {}", text.trim()),
            )
            .with_details(serde_json::json!({ "output": text })));
        }
        Ok(ProxyAttached {
            port: setup.port,
            previous: previous_setting(lines.first().copied().unwrap_or(""), &ours),
            done: vec![
                format!("adb -s {serial} reverse {spec} {spec}"),
                format!("adb -s {serial} shell settings put global http_proxy {ours}"),
            ],
            todo: https_todo(setup),
        })
    }

    async fn detach_proxy(
        &self,
        device: &Device,
        attached: &ProxyAttached,
    ) -> Result<ProxyDetached> {
        let serial = &device.udid;
        let ours = format!("127.0.0.1:{}", attached.port);
        let restore = attached.previous.clone().unwrap_or_else(|| NO_PROXY.into());
        let script = format!(
            "cur=$(settings get global http_proxy); if [ \"$cur\" = {o} ]; then settings put \
             global http_proxy {r} && echo restored; else echo \"kept $cur\"; fi",
            o = quote(&ours),
            r = quote(&restore)
        );
        let out = self.shell(serial, &script, QUICK_TIMEOUT).await?;
        let said = out.stdout_text();
        let mut d = ProxyDetached::default();
        if said.trim() == "restored" {
            d.done.push(format!(
                "adb -s {serial} shell settings put global http_proxy {restore}"
            ));
        } else {
            d.todo.push(format!(
                "http_proxy was changed since attach ({}); it was left as it is",
                said.trim().trim_start_matches("kept ").trim()
            ));
        }
        let spec = format!("tcp:{}", attached.port);
        let out = self.reverse(serial, &["--remove", &spec]).await?;
        if out.success() {
            d.done
                .push(format!("adb -s {serial} reverse --remove {spec}"));
        } else if !out.stderr_text().contains("listener") {
            // Gone already ("listener … not found") is what we wanted; anything else is not.
            return Err(adb_failure(serial, "adb reverse --remove", &out));
        }
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_previous_setting_is_remembered_unless_it_is_none_or_ours() {
        let ours = "127.0.0.1:9101";
        assert_eq!(previous_setting("null\n", ours), None);
        assert_eq!(previous_setting(":0", ours), None);
        assert_eq!(previous_setting("", ours), None);
        assert_eq!(previous_setting("127.0.0.1:9101", ours), None);
        assert_eq!(
            previous_setting("10.0.0.2:3128\r", ours).as_deref(),
            Some("10.0.0.2:3128")
        );
    }
}
