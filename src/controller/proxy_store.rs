//! The proxy attachments on disk, so that a server that dies without detaching (SIGKILL, a
//! crash) leaves nothing lost: before a device is pointed at the proxy, what it pointed at
//! before is written to the state directory, and the next server restores it.
//!
//! Each server writes its own file, `proxy-attachments/<pid>.json` in the state directory
//! (`MOBILECTL_STATE_DIR`, where the proxy's CA is), whole each time through a temporary file
//! and a rename, so a reader never sees half of one; it is removed when nothing is attached.
//! A starting server adopts the files of servers that are not running any more (their pid is
//! gone, or is a zombie: killed, not yet reaped by its parent): their records become its own
//! (written to its file before theirs are removed) until each device is restored.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};

/// One device pointed at a proxy, as persisted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub udid: String,
    /// The id of the backend that drives it (`android`).
    pub backend: String,
    /// The proxy port the device points at.
    pub port: u16,
    /// Its setting before (`None`: it had none).
    pub previous: Option<String>,
    /// When it was attached (RFC 3339).
    pub since: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StateFile {
    pid: u32,
    attachments: Vec<Record>,
}

/// The folder of attachment files, and this server's own.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    pid: u32,
}

/// Whether process `pid` runs: it exists (signal 0 sends nothing; EPERM means it exists) and
/// is not a zombie (dead, its exit not yet collected by its parent: it holds nothing, and
/// answers signal 0 all the same).
#[cfg(unix)]
fn alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill(2) with signal 0 only checks that the process exists; nothing is sent.
    let r = unsafe { libc::kill(pid, 0) };
    let exists = r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    exists && !zombie(pid)
}

/// Whether process `pid` runs: it can be opened and has no exit code yet.
#[cfg(windows)]
fn alive(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{CloseHandle, STILL_ACTIVE};
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };
    // SAFETY: the handle is checked before use and closed once; `code` is a plain out value.
    unsafe {
        let handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if handle.is_null() {
            return false;
        }
        let mut code = 0u32;
        let ok = GetExitCodeProcess(handle, &mut code) != 0;
        CloseHandle(handle);
        ok && code == STILL_ACTIVE as u32
    }
}

/// Whether `pid` is a zombie, by its state in `/proc/PID/stat` (the letter after the command
/// name, which ends at the last `)`). Without `/proc` (macOS) it is taken as running.
#[cfg(unix)]
fn zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next());
        matches!(state, Some('Z' | 'X'))
    })
}

fn unwritable(path: &Path, e: std::io::Error) -> Error {
    Error::new(
        ErrorCode::Unknown,
        format!(
            "cannot record the proxy attachment in {}: {e}",
            path.display()
        ),
    )
    .with_hint("check that the state directory (MOBILECTL_STATE_DIR) is writable")
}

impl Store {
    /// The store under `state_dir`, for this process.
    pub fn new(state_dir: &Path) -> Store {
        Store {
            dir: state_dir.join("proxy-attachments"),
            pid: std::process::id(),
        }
    }

    fn own(&self) -> PathBuf {
        self.dir.join(format!("{}.json", self.pid))
    }

    /// Writes this server's records (temporary file, then rename); none removes the file.
    pub fn write(&self, records: &[Record]) -> Result<()> {
        let path = self.own();
        if records.is_empty() {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(unwritable(&path, e)),
                _ => Ok(()),
            };
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| unwritable(&self.dir, e))?;
        let body = serde_json::to_vec_pretty(&StateFile {
            pid: self.pid,
            attachments: records.to_vec(),
        })
        .map_err(|e| Error::internal(e.to_string()))?;
        let mut tmp =
            tempfile::NamedTempFile::new_in(&self.dir).map_err(|e| unwritable(&self.dir, e))?;
        tmp.write_all(&body)
            .and_then(|_| tmp.as_file().sync_all())
            .map_err(|e| unwritable(&path, e))?;
        tmp.persist(&path).map_err(|e| unwritable(&path, e.error))?;
        Ok(())
    }

    /// The records of servers that are not running any more (and of an earlier process that
    /// had this pid), with the files they came from: remove those once the records are
    /// written to this server's own file.
    pub fn orphans(&self) -> (Vec<Record>, Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Default::default();
        };
        let mut records = Vec::new();
        let mut files = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(pid) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".json"))
                .and_then(|p| p.parse::<u32>().ok())
            else {
                continue;
            };
            if pid != self.pid && alive(pid) {
                continue;
            }
            match std::fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice::<StateFile>(&b).ok())
            {
                Some(f) => {
                    records.extend(f.attachments);
                    files.push(path);
                }
                None => {
                    tracing::warn!(file = %path.display(), "unreadable proxy attachment record kept")
                }
            }
        }
        (records, files)
    }
}

// They make symlinks or watch other processes: Unix hosts.
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    fn rec(udid: &str) -> Record {
        Record {
            udid: udid.into(),
            backend: "android".into(),
            port: 9101,
            previous: Some("10.0.0.1:3128".into()),
            since: "2026-11-24T00:00:00Z".into(),
        }
    }

    #[test]
    fn written_whole_removed_when_empty_and_adopted_from_the_dead() {
        let dir = tempfile::tempdir().unwrap();
        let mine = Store::new(dir.path());
        mine.write(&[rec("a")]).unwrap();
        let own = dir
            .path()
            .join(format!("proxy-attachments/{}.json", std::process::id()));
        assert!(own.exists());
        // No temporary file is left beside it.
        assert_eq!(std::fs::read_dir(own.parent().unwrap()).unwrap().count(), 1);
        // A running server's file (this process's parent) is not adopted; a dead one's is.
        let living = Store {
            dir: mine.dir.clone(),
            pid: std::os::unix::process::parent_id(),
        };
        living.write(&[rec("b")]).unwrap();
        let dead = Store {
            dir: mine.dir.clone(),
            pid: i32::MAX as u32 - 7,
        };
        dead.write(&[rec("c")]).unwrap();
        let (mut records, files) = mine.orphans();
        records.sort_by(|x, y| x.udid.cmp(&y.udid));
        // Its own file from an earlier life counts too.
        assert_eq!(records, [rec("a"), rec("c")]);
        assert_eq!(files.len(), 2);
        mine.write(&[]).unwrap();
        assert!(!own.exists());
        mine.write(&[]).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_killed_server_not_yet_reaped_is_dead() {
        let dir = tempfile::tempdir().unwrap();
        let mine = Store::new(dir.path());
        // A stand-in server: killed, and kept unreaped (a zombie) while the next one starts.
        let mut child = std::process::Command::new("sleep")
            .arg("600")
            .spawn()
            .unwrap();
        let killed = Store {
            dir: mine.dir.clone(),
            pid: child.id(),
        };
        killed.write(&[rec("z")]).unwrap();
        assert!(
            mine.orphans().0.is_empty(),
            "a running server's records are its own"
        );
        child.kill().unwrap();
        let stat = format!("/proc/{}/stat", child.id());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !std::fs::read_to_string(&stat).is_ok_and(|s| s.contains(") Z")) {
            assert!(std::time::Instant::now() < deadline, "never a zombie");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        // SAFETY: signal 0 checks that the process exists; nothing is sent.
        let exists = unsafe { libc::kill(child.id() as i32, 0) } == 0;
        assert!(exists, "a zombie answers signal 0");
        assert_eq!(mine.orphans().0, [rec("z")]);
        child.wait().unwrap();
    }
}
