//! Files between the server's machine and a device: `push` (a file under the files root to a
//! device path) and `pull` (a device file to a path under the files root). The files root
//! (`serve --files-root DIR`, default the server's working directory) bounds every local path:
//! a relative path is taken under it, symlinks are resolved before the check, nothing outside
//! it is read or written, an existing file is replaced only when asked, and sizes are capped
//! ([`MAX_FILE`]) both ways; a path too long for the file system is refused up front. The
//! same resolver reads a proxy rule's body file ([`read_under`]). Device paths are absolute,
//! without NUL, line breaks or `..` segments ([`check_device_path`]), checked before any
//! backend is asked.

use std::path::{Component, Path, PathBuf};

use super::reach::Reach;
use crate::backend::concern;
use crate::device::{Device, MediaKind};
use crate::error::{Error, ErrorCode, Result, Step};

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

/// The longest local path taken, whole (`PATH_MAX`), and the longest name in it (`NAME_MAX`):
/// a longer one is refused here, before the file system answers "File name too long".
#[cfg(unix)]
const MAX_PATH: usize = libc::PATH_MAX as usize;
/// Windows' long paths (`\\?\` prefixed) reach 32,767 UTF-16 units.
#[cfg(not(unix))]
const MAX_PATH: usize = 32_767;
const MAX_NAME: usize = 255;

fn joined(root: &Path, p: &str) -> Result<PathBuf> {
    if p.is_empty() || p.contains('\0') {
        return Err(Error::validation(
            "the local path is empty or contains a NUL",
        ));
    }
    let p = Path::new(p);
    let path = if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    };
    let longest = path
        .components()
        .map(|c| c.as_os_str().len())
        .max()
        .unwrap_or(0);
    if path.as_os_str().len() >= MAX_PATH || longest > MAX_NAME {
        return Err(Error::validation(format!(
            "the local path is too long: {} bytes under the files root, its longest name {longest}",
            path.as_os_str().len()
        ))
        .with_hint(format!(
            "use a path of fewer than {MAX_PATH} bytes whose names each have at most {MAX_NAME}"
        ))
        .with_details(serde_json::json!({ "limit": MAX_PATH, "name_limit": MAX_NAME })));
    }
    Ok(path)
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
            .with_next(
                "pass {0} to replace it",
                [Step::field_is("overwrite", true)],
            )),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::validation(format!(
            "`{}` cannot be written: {e}",
            target.display()
        ))),
        _ => Ok(target),
    }
}

/// Refuses a resolved path inside `private` (the server's state directory, canonical: the
/// proxy CA's key and the server's records), which no request reads, even when the files
/// root holds it.
pub fn not_private(at: &Path, private: Option<&Path>) -> Result<()> {
    if private.is_some_and(|d| at.starts_with(d)) {
        return Err(Error::new(
            ErrorCode::Forbidden,
            format!("`{}` is in the server's state directory", at.display()),
        )
        .with_hint("the state directory (the proxy CA's key, the server's records) is never read for a request: copy the file elsewhere under the files root"));
    }
    Ok(())
}

/// A file under the root read whole, once: resolved as [`resolve_read`] resolves it, never
/// inside `private` (the server's state directory: the proxy CA's key), then opened without
/// following a link put in its place since (nor blocking on a FIFO), checked again on the open
/// file (a regular file; on Linux, where it really is), and read up to `limit + 1` bytes, so
/// the caller sees a file that grew past its limit. Answers the resolved path and the bytes.
pub fn read_under(
    root: &Path,
    p: &str,
    limit: u64,
    private: Option<&Path>,
) -> Result<(PathBuf, Vec<u8>)> {
    use std::io::Read;
    let canonical_root = root_of(root)?;
    let private = private.and_then(|d| d.canonicalize().ok());
    let allowed = |at: &Path| -> Result<()> {
        if !at.starts_with(&canonical_root) {
            return Err(outside(at, &canonical_root));
        }
        not_private(at, private.as_deref())
    };
    let (real, _) = resolve_read(root, p)?;
    allowed(&real)?;
    let unreadable = |e: std::io::Error| {
        Error::new(
            ErrorCode::NotFound,
            format!("`{}` cannot be read: {e}", real.display()),
        )
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Unix: a link put in its place is not followed, a FIFO does not block the open.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        libc::O_NOFOLLOW | libc::O_NONBLOCK,
    );
    let file = options.open(&real).map_err(unreadable)?;
    if !file.metadata().map_err(unreadable)?.is_file() {
        return Err(Error::validation(format!(
            "`{}` is not a regular file",
            real.display()
        )));
    }
    // A directory on the way swapped for a link since it was resolved: where the open file
    // really is decides.
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(opened) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            allowed(&opened)?;
        }
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    Ok((real, bytes))
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
        let on = self.reach_held(udid, Reach::Act).await?;
        let media = on.cap(concern::Media)?;
        let at = media.add_media(&on.device, local).await?;
        Ok((on.into_device(), at))
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
        let on = self.reach_held(udid, Reach::Act).await?;
        on.cap(concern::Files)?
            .push_file(&on.device, local, device_path, bundle_id)
            .await?;
        Ok(on.into_device())
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
        let on = self.reach_held(udid, Reach::Read).await?;
        let bytes = on
            .cap(concern::Files)?
            .pull_file(&on.device, device_path, bundle_id, local, MAX_FILE)
            .await?;
        Ok((on.into_device(), bytes))
    }
}

// They make symlinks or watch other processes: Unix hosts.
#[cfg(test)]
#[cfg(unix)]
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
        // Too long for the file system: refused before it is asked.
        for p in ["a".repeat(5000), "a".repeat(256), "a/".repeat(2100)] {
            let e = resolve_write(&root, &p, false).unwrap_err();
            assert_eq!(e.code, ErrorCode::ValidationFailed, "{}", p.len());
            assert!(e.message.contains("too long"), "{}", e.message);
            let e = resolve_read(&root, &p).unwrap_err();
            assert_eq!(e.code, ErrorCode::ValidationFailed, "{}", p.len());
        }
    }

    #[test]
    fn a_file_read_under_the_root_is_confined_as_a_pushed_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let private = root.join("state");
        std::fs::create_dir_all(&private).unwrap();
        std::fs::write(root.join("a.json"), b"{}").unwrap();
        std::fs::write(private.join("key.pem"), b"k").unwrap();
        std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
        std::os::unix::fs::symlink(root.join("a.json"), root.join("in.json")).unwrap();
        let read = |p: &str| read_under(&root, p, 10, Some(&private));
        assert_eq!(read("a.json").unwrap().1, b"{}");
        assert_eq!(read("in.json").unwrap().1, b"{}", "a link within the root");
        for p in [
            "/etc/passwd",
            "etc/passwd",
            "../root/state/key.pem",
            "state/key.pem",
        ] {
            assert_eq!(read(p).unwrap_err().code, ErrorCode::Forbidden, "{p}");
        }
        assert_eq!(read(".").unwrap_err().code, ErrorCode::ValidationFailed);
        // At most `limit + 1` bytes are read.
        std::fs::write(root.join("big"), [0u8; 100]).unwrap();
        assert_eq!(read("big").unwrap().1.len(), 11);
    }
}
