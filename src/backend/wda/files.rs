//! Files in a physical iPhone app's data container, through devicectl (`device copy to|from
//! --domain-type appDataContainer`): the only files iOS lets a host reach. The device path is
//! taken inside the container with plain components only (`/Documents/a.txt` →
//! `Documents/a.txt`); a pull lands in a temporary folder beside its target, is checked
//! against the cap, and is renamed over the target whole.

use async_trait::async_trait;

use std::path::Path;

use crate::backend::validate::in_container;
use crate::backend::Files;

use super::WdaBackend;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result, Step};
use serde_json::json;

fn need_bundle(bundle_id: Option<&str>) -> Result<&str> {
    let bundle = bundle_id.ok_or_else(|| {
        Error::validation("an iPhone's files are in an app's data container: give `bundle_id`")
            .with_next(
                "e.g. {0}",
                [Step::example(
                    json!({"bundle_id": "com.example.app", "device_path": "/Documents/a.txt"}),
                )],
            )
    })?;
    crate::backend::validate::ios_bundle_id(bundle)?;
    Ok(bundle)
}

fn io(what: &str, p: &Path, e: std::io::Error) -> Error {
    Error::new(
        ErrorCode::CommandFailed,
        format!("{what} `{}`: {e}", p.display()),
    )
}

#[async_trait]
impl Files for WdaBackend {
    async fn push_file(
        &self,
        device: &Device,
        local: &Path,
        device_path: &str,
        bundle_id: Option<&str>,
    ) -> Result<()> {
        let bundle = need_bundle(bundle_id)?;
        let rel = in_container(device_path)?;
        let id = self.devicectl_id(device, "copying files")?;
        self.devicectl
            .copy(id, true, bundle, local.as_os_str(), rel.as_ref())
            .await
    }

    async fn pull_file(
        &self,
        device: &Device,
        device_path: &str,
        bundle_id: Option<&str>,
        local: &Path,
        max: u64,
    ) -> Result<u64> {
        let bundle = need_bundle(bundle_id)?;
        let rel = in_container(device_path)?;
        let id = self.devicectl_id(device, "copying files")?;
        let dir = local.parent().unwrap_or(Path::new("."));
        let landing = tempfile::tempdir_in(dir).map_err(|e| io("writing in", dir, e))?;
        let got = landing.path().join("pulled");
        self.devicectl
            .copy(id, false, bundle, rel.as_ref(), got.as_os_str())
            .await?;
        let meta = std::fs::metadata(&got).map_err(|e| {
            Error::new(
                ErrorCode::CommandFailed,
                format!("devicectl reported the copy but wrote no file: {e}"),
            )
        })?;
        crate::backend::validate::pullable(&meta, device_path, max)?;
        std::fs::rename(&got, local).map_err(|e| io("writing", local, e))?;
        Ok(meta.len())
    }
}
