//! Files in a Simulator app's data container: `simctl get_app_container UDID BUNDLE data`
//! prints the container's path on this machine (the Simulator's files are the host's), and
//! the copy is a host copy. The device path is taken inside the container (`/Documents/a.txt`
//! → `CONTAINER/Documents/a.txt`), with plain components only, and symlinks are resolved
//! before the check, so nothing outside the container is read or written; a pull is written
//! whole (a temporary file renamed over the target) and capped.

use async_trait::async_trait;

use std::path::{Path, PathBuf};

use super::{SimctlBackend, QUICK_TIMEOUT};
use crate::backend::Files;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result, Step};
use serde_json::json;

/// The container path `simctl get_app_container` printed.
pub fn container_path(stdout: &str) -> Option<PathBuf> {
    let line = stdout.lines().map(str::trim).find(|l| !l.is_empty())?;
    line.starts_with('/').then(|| PathBuf::from(line))
}

/// `device_path` inside `container`: plain components only.
pub fn inside(container: &Path, device_path: &str) -> Result<PathBuf> {
    Ok(container.join(crate::backend::validate::in_container(device_path)?))
}

fn escaped(p: &Path) -> Error {
    Error::new(
        ErrorCode::Forbidden,
        format!("`{}` leads outside the app's container", p.display()),
    )
}

fn io(what: &str, p: &Path, e: std::io::Error) -> Error {
    let code = if e.kind() == std::io::ErrorKind::NotFound {
        ErrorCode::NotFound
    } else {
        ErrorCode::CommandFailed
    };
    Error::new(code, format!("{what} `{}`: {e}", p.display()))
}

impl SimctlBackend {
    async fn container(&self, udid: &str, bundle: Option<&str>) -> Result<PathBuf> {
        let Some(bundle) = bundle else {
            return Err(Error::validation(
                "a Simulator's files are in an app's container: give `bundle_id`",
            )
            .with_next(
                "e.g. {0}",
                [Step::example(
                    json!({"bundle_id": "com.example.app", "device_path": "/Documents/a.txt"}),
                )],
            ));
        };
        crate::backend::validate::ios_bundle_id(bundle)?;
        let out = self
            .simctl_ok(
                ["get_app_container", udid, bundle, "data"],
                QUICK_TIMEOUT,
                "simctl get_app_container",
                "",
            )
            .await?;
        let path = container_path(&out.stdout_text()).ok_or_else(|| {
            Error::new(
                ErrorCode::CommandFailed,
                "simctl get_app_container printed no path",
            )
        })?;
        path.canonicalize()
            .map_err(|e| io("the app's container", &path, e))
    }
}

#[async_trait]
impl Files for SimctlBackend {
    async fn push_file(
        &self,
        device: &Device,
        local: &Path,
        device_path: &str,
        bundle: Option<&str>,
    ) -> Result<()> {
        let udid = device.udid.as_str();
        let root = self.container(udid, bundle).await?;
        let target = inside(&root, device_path)?;
        let parent = target.parent().unwrap_or(&root);
        std::fs::create_dir_all(parent).map_err(|e| io("creating", parent, e))?;
        let dir = parent
            .canonicalize()
            .map_err(|e| io("the folder", parent, e))?;
        if !dir.starts_with(&root) {
            return Err(escaped(&dir));
        }
        let name = target.file_name().unwrap_or_default();
        let target = dir.join(name);
        if std::fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(escaped(&target));
        }
        std::fs::copy(local, &target).map_err(|e| io("copying to", &target, e))?;
        Ok(())
    }

    async fn pull_file(
        &self,
        device: &Device,
        device_path: &str,
        bundle: Option<&str>,
        local: &Path,
        max: u64,
    ) -> Result<u64> {
        let udid = device.udid.as_str();
        let root = self.container(udid, bundle).await?;
        let source = inside(&root, device_path)?;
        let real = source
            .canonicalize()
            .map_err(|e| io("reading", &source, e))?;
        if !real.starts_with(&root) {
            return Err(escaped(&real));
        }
        let meta = std::fs::metadata(&real).map_err(|e| io("reading", &real, e))?;
        crate::backend::validate::pullable(&meta, device_path, max)?;
        let dir = local.parent().unwrap_or(Path::new("."));
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| io("writing in", dir, e))?;
        let mut from = std::fs::File::open(&real).map_err(|e| io("reading", &real, e))?;
        let n = std::io::copy(&mut from, &mut tmp).map_err(|e| io("copying", &real, e))?;
        tmp.persist(local)
            .map_err(|e| io("writing", local, e.error))?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_container_path_is_read_and_paths_stay_inside() {
        let out =
            include_str!("../../../fixtures/ios_simctl/simctl_get_app_container_data_path.txt");
        let p = container_path(out).unwrap();
        assert!(p.ends_with("Containers/Data/Application/DEEC28D4-5835-4EBF-8A41-D5F388E542AC"));
        assert_eq!(
            inside(&p, "/Documents/a.txt").unwrap(),
            p.join("Documents/a.txt")
        );
        assert!(inside(&p, "/Documents/../../x").is_err());
        assert!(inside(&p, "/").is_err());
    }
}
