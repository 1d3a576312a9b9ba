//! The headless Chromium process behind the WebView: found on the host (`$MOBILECTL_CHROMIUM`,
//! else `chromium`, `chromium-browser`, `google-chrome` on `PATH`), started in a process group
//! of its own with a fresh profile folder, its DevTools port read from `DevToolsActivePort`
//! in that folder, and killed with its whole group.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::sync::{oneshot, watch};

/// Longest Chromium may take to write its DevTools port.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);

/// What names the Chromium to use instead of looking on `PATH`.
pub const ENV: &str = "MOBILECTL_CHROMIUM";

/// The host's Chromium, or why there is none.
pub fn find() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(ENV).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        return crate::sandbox::find_host_program(&p.to_string_lossy())
            .ok_or_else(|| format!("{ENV}={} is not a program on this host", p.display()));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|n| crate::sandbox::find_host_program(n))
        .ok_or_else(|| {
            format!("no chromium, chromium-browser or google-chrome on PATH and {ENV} unset (Debian/Ubuntu: apt-get install chromium)")
        })
}

/// The command line: headless, no sandbox or GPU (a container has neither), nothing fetched
/// from the network, DevTools on a free port, the browser's own UI pages (the omnibox popup)
/// left out so that the only target is the page, as in a WebView.
pub fn args(profile: &Path) -> Vec<String> {
    [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
        "--remote-debugging-port=0",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("--user-data-dir={}", profile.display()),
        "about:blank".to_string(),
    ])
    .collect()
}

/// A started Chromium: its process group (the same number as its pid) and how it ended, once
/// it did.
pub struct Process {
    pub pgid: i32,
    pub exited: watch::Receiver<Option<String>>,
}

/// Starts `program` with a fresh `profile` folder (removed once it exited); stderr goes to
/// `log`.
///
/// A thread of its own starts it and waits for it (reaping it): on Linux Chromium is asked to
/// be killed when that thread ends (`PR_SET_PDEATHSIG`), so even a device killed with SIGKILL
/// leaves no browser behind; the thread lives exactly as long as Chromium does.
pub async fn spawn(program: &Path, profile: &Path, log: &Path) -> Result<Process, String> {
    std::fs::create_dir_all(profile).map_err(|e| format!("{}: {e}", profile.display()))?;
    let stderr = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let mut cmd = std::process::Command::new(program);
    cmd.args(args(profile))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .process_group(0);
    #[cfg(target_os = "linux")]
    {
        let device = std::process::id() as i32;
        // SAFETY: between fork and exec the closure only makes two async-signal-safe calls
        // (prctl, getppid) and `_exit`; it allocates nothing and takes no lock.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The device died before the signal was asked for: go now.
                if libc::getppid() != device {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    let (started, pid) = oneshot::channel();
    let (ended, exited) = watch::channel(None);
    let name = program.display().to_string();
    let folder = profile.to_path_buf();
    std::thread::Builder::new()
        .name("chromium".into())
        .spawn(move || match cmd.spawn() {
            Ok(mut child) => {
                let _ = started.send(Ok(child.id()));
                let how = match child.wait() {
                    Ok(status) => status.to_string(),
                    Err(e) => e.to_string(),
                };
                ended.send_replace(Some(how));
                // Its profile is of no use to the next start (which makes its own).
                let _ = std::fs::remove_dir_all(&folder);
            }
            Err(e) => {
                let _ = started.send(Err(format!("{name}: {e}")));
            }
        })
        .map_err(|e| format!("a thread for chromium: {e}"))?;
    let pid = pid
        .await
        .map_err(|_| "chromium's thread ended before it started".to_string())??;
    let pgid = i32::try_from(pid).map_err(|_| format!("chromium's pid {pid}"))?;
    Ok(Process { pgid, exited })
}

/// Kills every process of the group (Chromium's renderers, GPU and utility processes too).
pub fn kill_group(pgid: i32) {
    if pgid > 1 {
        // SAFETY: a signal to the process group this module created for Chromium (its own
        // group, so never the device's); no memory is shared.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// `DevToolsActivePort`'s port and browser path (`/devtools/browser/ID`), once written.
pub fn active_port(profile: &Path) -> Option<(u16, String)> {
    let text = std::fs::read_to_string(profile.join("DevToolsActivePort")).ok()?;
    let mut lines = text.lines();
    let port = lines.next()?.trim().parse().ok()?;
    let path = lines.next()?.trim().to_string();
    path.starts_with('/').then_some((port, path))
}

/// Waits until Chromium wrote its DevTools port (polling every 20 ms, at most
/// [`START_TIMEOUT`]); fails when it exits first, with the end of its log.
pub async fn wait_port(p: &Process, profile: &Path, log: &Path) -> Result<(u16, String), String> {
    let deadline = tokio::time::Instant::now() + START_TIMEOUT;
    loop {
        if let Some(found) = active_port(profile) {
            return Ok(found);
        }
        if let Some(how) = p.exited.borrow().clone() {
            return Err(format!("chromium exited ({how}): {}", log_tail(log)));
        }
        if tokio::time::Instant::now() > deadline {
            return Err(format!(
                "chromium wrote no DevToolsActivePort within {START_TIMEOUT:?}: {}",
                log_tail(log)
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The last lines of Chromium's stderr, for a failure's message.
fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(3)..].join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_port_file_gives_port_and_browser_path() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(active_port(dir.path()), None);
        std::fs::write(dir.path().join("DevToolsActivePort"), "34285\n").unwrap();
        assert_eq!(active_port(dir.path()), None, "written halfway");
        std::fs::write(
            dir.path().join("DevToolsActivePort"),
            "34285\n/devtools/browser/25850c1f",
        )
        .unwrap();
        assert_eq!(
            active_port(dir.path()),
            Some((34285, "/devtools/browser/25850c1f".into()))
        );
        let a = args(Path::new("/tmp/p"));
        assert!(a.contains(&"--user-data-dir=/tmp/p".to_string()));
        assert!(a.contains(&"--remote-debugging-port=0".to_string()));
    }
}
