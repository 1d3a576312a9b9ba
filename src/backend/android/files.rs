//! Files on Android through adb's sync protocol: `adb push LOCAL DEVICE` and, after the
//! device said the path is a regular file and its size (`stat -c '%F|%s'`, quoted) is within the cap, `adb pull DEVICE TMP`
//! into the target's directory, renamed over the target once complete. adb's own arguments
//! are not parsed by any shell; the one shell command quotes the path. Media goes to
//! `/sdcard/Pictures` (or `/sdcard/Movies`) and is announced to the media scanner
//! (`am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file://…`, quoted).

use std::path::Path;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;

use super::shell::{adb_failure, quote};
use super::AdbBackend;
use crate::backend::Files;
use crate::backend::Media;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};

/// Time limit of a push or pull (a large file over USB 2 takes a while).
const COPY_TIMEOUT: Duration = Duration::from_secs(600);
const QUICK: Duration = Duration::from_secs(10);

/// Android device paths are absolute; app containers (`bundle_id`) are iOS's.
pub(super) fn no_container(bundle_id: Option<&str>) -> Result<()> {
    match bundle_id {
        Some(_) => Err(Error::validation(
            "`bundle_id` names an iOS app container; on Android give the absolute device path",
        )
        .with_hint("e.g. /sdcard/Download/a.txt")),
        None => Ok(()),
    }
}

#[async_trait]
impl Files for AdbBackend {
    async fn push_file(
        &self,
        device: &Device,
        local: &Path,
        device_path: &str,
        bundle_id: Option<&str>,
    ) -> Result<()> {
        no_container(bundle_id)?;
        let cmd = self
            .adb_for(&device.udid)?
            .arg("push")
            .arg(local.as_os_str())
            .arg(device_path)
            .timeout(COPY_TIMEOUT);
        let out = self.run(cmd).await?;
        if !out.success() {
            return Err(adb_failure(&device.udid, "adb push", &out));
        }
        Ok(())
    }

    async fn pull_file(
        &self,
        device: &Device,
        device_path: &str,
        bundle_id: Option<&str>,
        local: &Path,
        max: u64,
    ) -> Result<u64> {
        no_container(bundle_id)?;
        let script = format!("stat -c '%F|%s' {} 2>&1", quote(device_path));
        let out = self.shell_any(&device.udid, &script, QUICK).await?;
        let said = out.stdout_text();
        let unreadable = || {
            Error::new(
                ErrorCode::NotFound,
                format!("`{device_path}` cannot be read on the device"),
            )
            .with_details(json!({ "output": said.trim() }))
        };
        let size: u64 = match said.trim().split_once('|').filter(|_| out.success()) {
            Some((kind, _)) if !kind.starts_with("regular") => {
                return Err(Error::validation(format!(
                    "`{device_path}` is a {kind}, not a regular file"
                )))
            }
            Some((_, n)) => n.parse().map_err(|_| unreadable())?,
            None => return Err(unreadable()),
        };
        if size > max {
            return Err(Error::validation(format!(
                "`{device_path}` is {size} bytes; at most {max} are copied"
            )));
        }
        let dir = local.parent().unwrap_or(Path::new("."));
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".mobilectl-pull-{}-{n}", std::process::id()));
        let cmd = self
            .adb_for(&device.udid)?
            .arg("pull")
            .arg(device_path)
            .arg(tmp.as_os_str())
            .timeout(COPY_TIMEOUT);
        let result = self.run(cmd).await;
        let done = match result {
            Ok(out) if out.success() => std::fs::metadata(&tmp)
                .map_err(|e| Error::internal(format!("the pulled file: {e}")))
                .and_then(|m| {
                    if m.len() > max {
                        Err(Error::validation("the pulled file grew beyond the cap"))
                    } else {
                        Ok(m.len())
                    }
                }),
            Ok(out) => Err(adb_failure(&device.udid, "adb pull", &out)),
            Err(e) => Err(e),
        };
        let bytes = match done {
            Ok(n) => n,
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
        };
        std::fs::rename(&tmp, local).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::internal(format!("moving the pulled file into place: {e}"))
        })?;
        Ok(bytes)
    }
}

#[async_trait]
impl Media for AdbBackend {
    async fn add_media(&self, device: &Device, local: &Path) -> Result<String> {
        let name = local
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let video = crate::device::MediaKind::of(local) == Some(crate::device::MediaKind::Video);
        let dir = if video {
            "/sdcard/Movies"
        } else {
            "/sdcard/Pictures"
        };
        let target = format!("{dir}/{name}");
        self.push_file(device, local, &target, None).await?;
        let script = format!(
            "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d {} 2>&1",
            quote(&format!("file://{target}"))
        );
        let out = self.shell_any(&device.udid, &script, QUICK).await?;
        if !out.success() {
            return Err(adb_failure(&device.udid, "am broadcast (media scan)", &out));
        }
        Ok(target)
    }
}
