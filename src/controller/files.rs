//! Files between the server's machine and a device: `push` (a file under the files root to a
//! device path) and `pull` (a device file to a path under the files root). The files root
//! (`serve --files-root DIR`, default the server's working directory) bounds every local path:
//! a relative path is taken under it, symlinks are resolved before the check, nothing outside
//! it is read or written, an existing file is replaced only when asked, and sizes are capped
//! ([`MAX_FILE`]) both ways. Device paths are absolute, without NUL, line breaks or `..`
//! segments ([`check_device_path`]), checked before any backend is asked.

use std::path::{Component, Path, PathBuf};

use crate::device::{Device, MediaKind};
use crate::error::{Error, ErrorCode, Result};

use super::DeviceController;

/// The largest file pushed or pulled.
pub const MAX_FILE: u64 = 1 << 30;

fn outside(p: &Path, root: &Path) -> Error {
    Error::new(
        ErrorCode::Forbidden,
        format!(
            "`{}` is outside the files root `{}`",
            p.display(),
            root.display()
        ),
    )
    .with_hint("use a path under the files root (relative paths are taken there); the server's `--files-root DIR` sets it")
}

fn root_of(root: &Path) -> Result<PathBuf> {
    root.canonicalize().map_err(|e| {
        Error::new(
            ErrorCode::NotFound,
            format!("the files root `{}` cannot be used: {e}", root.display()),
        )
        .with_hint("start the server with `--files-root DIR` naming an existing directory")
    })
}

fn joined(root: &Path, p: &str) -> Result<PathBuf> {
    if p.is_empty() || p.contains('\0') {
        return Err(Error::validation("`local_path` is empty or contains a NUL"));
    }
    let p = Path::new(p);
    Ok(if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    })
}

/// The file to push: under the root once symlinks are resolved, a regular file, at most
/// [`MAX_FILE`] bytes. Answers the resolved path and its size.
pub fn resolve_read(root: &Path, p: &str) -> Result<(PathBuf, u64)> {
    let root = root_of(root)?;
    let path = joined(&root, p)?;
    let real = path.canonicalize().map_err(|e| {
        Error::new(
            ErrorCode::NotFound,
            format!("`{}` cannot be read: {e}", path.display()),
        )
    })?;
    if !real.starts_with(&root) {
        return Err(outside(&real, &root));
    }
    let meta = std::fs::metadata(&real)
        .map_err(|e| Error::new(ErrorCode::NotFound, format!("`{}`: {e}", real.display())))?;
    if !meta.is_file() {
        return Err(Error::validation(format!(
            "`{}` is not a regular file",
            real.display()
        )));
    }
    if meta.len() > MAX_FILE {
        return Err(too_large(meta.len()));
    }
    Ok((real, meta.len()))
}

fn too_large(n: u64) -> Error {
    Error::validation(format!(
        "the file is {n} bytes; at most {MAX_FILE} are copied"
    ))
    .with_hint("copy smaller files, or use adb / devicectl directly for large ones")
}

/// Where to write a pulled file: its directory under the root once symlinks are resolved,
/// a plain file name, and no existing file unless `overwrite` (never a symlink or a
/// directory).
pub fn resolve_write(root: &Path, p: &str, overwrite: bool) -> Result<PathBuf> {
    let root = root_of(root)?;
    let path = joined(&root, p)?;
    let name = match path.components().next_back() {
        Some(Component::Normal(n)) => n.to_os_string(),
        _ => {
            return Err(Error::validation(format!(
                "`{p}` does not end in a file name"
            )))
        }
    };
    let parent = path.parent().unwrap_or(&root);
    let dir = parent.canonicalize().map_err(|e| {
        Error::new(
            ErrorCode::NotFound,
            format!("the directory `{}` cannot be used: {e}", parent.display()),
        )
    })?;
    if !dir.starts_with(&root) {
        return Err(outside(&dir, &root));
    }
    let target = dir.join(name);
    match std::fs::symlink_metadata(&target) {
        Ok(meta) if meta.file_type().is_symlink() || !meta.is_file() => Err(Error::validation(
            format!("`{}` exists and is not a regular file", target.display()),
        )),
        Ok(_) if !overwrite => Err(Error::validation(format!("`{}` exists", target.display()))
            .with_hint("pass `overwrite: true` to replace it")),
        _ => Ok(target),
    }
}

pub use crate::backend::validate::device_path as check_device_path;

/// A photo or video by its extension ([`MediaKind`]), with a plain file name (it names the
/// device's copy).
pub fn check_media(p: &Path) -> Result<()> {
    if MediaKind::of(p).is_none() {
        return Err(
            Error::validation(format!("`{}` is not a photo or a video", p.display()))
                .with_hint(MediaKind::extensions()),
        );
    }
    let plain = p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ' '))
    });
    if !plain {
        return Err(Error::validation(format!(
            "`{}`: the file name may hold letters, digits, spaces, `.`, `_` and `-` only",
            p.display()
        )));
    }
    Ok(())
}

impl DeviceController {
    /// Adds the checked local photo or video to the device's gallery.
    pub async fn add_media(&self, udid: Option<&str>, local: &Path) -> Result<(Device, String)> {
        check_media(local)?;
        let device = self.resolve_to_act(udid).await?;
        let session = self.slot(&device.udid);
        let _commands = session.hold().await;
        let at = self.backend(&device)?.add_media(&device, local).await?;
        Ok((device, at))
    }

    /// Pushes the checked local file `local` to `device_path`.
    pub async fn push_file(
        &self,
        udid: Option<&str>,
        local: &Path,
        device_path: &str,
        bundle_id: Option<&str>,
    ) -> Result<Device> {
        check_device_path(device_path)?;
        let device = self.resolve_to_act(udid).await?;
        let session = self.slot(&device.udid);
        let _commands = session.hold().await;
        self.backend(&device)?
            .push_file(&device, local, device_path, bundle_id)
            .await?;
        Ok(device)
    }

    /// Pulls `device_path` to the checked local path `local` (written whole or not at all).
    pub async fn pull_file(
        &self,
        udid: Option<&str>,
        device_path: &str,
        bundle_id: Option<&str>,
        local: &Path,
    ) -> Result<(Device, u64)> {
        check_device_path(device_path)?;
        let device = self.resolve_ready(udid).await?;
        let session = self.slot(&device.udid);
        let _commands = session.hold().await;
        let bytes = self
            .backend(&device)?
            .pull_file(&device, device_path, bundle_id, local, MAX_FILE)
            .await?;
        Ok((device, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_root_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(root.join("a.txt"), b"a").unwrap();
        std::fs::write(dir.path().join("secret"), b"s").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("link")).unwrap();
        assert!(resolve_read(&root, "a.txt").is_ok());
        for p in [
            "../secret",
            "link",
            dir.path().join("secret").to_str().unwrap(),
        ] {
            let e = resolve_read(&root, p).unwrap_err();
            assert_eq!(e.code, ErrorCode::Forbidden, "{p}");
        }
        assert!(resolve_write(&root, "new.txt", false).is_ok());
        assert_eq!(
            resolve_write(&root, "../x", false).unwrap_err().code,
            ErrorCode::Forbidden
        );
        assert!(resolve_write(&root, "a.txt", false).is_err());
        assert!(resolve_write(&root, "a.txt", true).is_ok());
        assert!(resolve_write(&root, "link", true).is_err());
        assert!(resolve_write(&root, "..", true).is_err());
        let big = root.join("big");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(2 << 30)
            .unwrap();
        assert!(resolve_read(&root, "big")
            .unwrap_err()
            .message
            .contains("at most"));
        assert!(check_device_path("relative").is_err());
        assert!(check_device_path("/sdcard/a\nb").is_err());
    }
}
