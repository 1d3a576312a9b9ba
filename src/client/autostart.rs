//! Autostart: when no server answers on a loopback URL, the CLI starts `mobilectl serve`
//! detached (its own session, stdin closed, output appended to a log in the state directory)
//! and records its pid once `/health` answers.
//!
//! State directory: [`crate::host_dirs::state_dir`]. Files: `server-<port>.log`, `server-<port>.pid`, and
//! `server-<port>.lock`, held (an OS file lock) while one client starts the server so that clients
//! started together spawn it once.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::Url;

/// How long a started server may take to answer `/health`.
pub const STARTUP_DEADLINE: Duration = Duration::from_secs(15);

/// The state directory (not created): [`crate::host_dirs::state_dir`].
pub fn state_dir() -> PathBuf {
    crate::host_dirs::state_dir()
}

/// `HOST:PORT` to pass to `serve --addr` when the URL points at this machine, else `None`.
pub fn loopback_addr(url: &Url) -> Option<String> {
    if url.scheme() != "http" {
        return None;
    }
    let port = url.port_or_known_default()?;
    let host = url.host_str()?;
    if host.eq_ignore_ascii_case("localhost") {
        return Some(format!("127.0.0.1:{port}"));
    }
    let ip: std::net::IpAddr = host.trim_matches(|c| c == '[' || c == ']').parse().ok()?;
    ip.is_loopback()
        .then(|| std::net::SocketAddr::new(ip, port).to_string())
}

/// An exclusive lock on `server-<port>.lock`, released when dropped (the file is closed).
pub struct StartLock(#[allow(dead_code)] File);

/// Waits for the start lock of this address's port.
pub async fn lock(addr: &str) -> io::Result<StartLock> {
    let dir = state_dir();
    fs::create_dir_all(&dir)?;
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(format!("server-{}.lock", port_of(addr))))?;
    let deadline = std::time::Instant::now() + STARTUP_DEADLINE * 2;
    loop {
        match f.try_lock() {
            Ok(()) => return Ok(StartLock(f)),
            Err(fs::TryLockError::WouldBlock) => {}
            Err(fs::TryLockError::Error(e)) => return Err(e),
        }
        if std::time::Instant::now() >= deadline {
            return Err(io::Error::other("another client holds the start lock"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn port_of(addr: &str) -> &str {
    addr.rsplit(':').next().unwrap_or("0")
}

/// A server this CLI started.
pub struct Started {
    /// The file the server's output is appended to (`server-<port>.log` in the state directory).
    pub log: PathBuf,
    pid_file: PathBuf,
    addr: String,
    child: Child,
}

/// Starts `mobilectl serve --addr ADDR` detached, its output appended to the log file.
pub fn spawn_server(addr: &str) -> io::Result<Started> {
    let dir = state_dir();
    fs::create_dir_all(&dir)?;
    let port = port_of(addr);
    let log = dir.join(format!("server-{port}.log"));
    let pid_file = dir.join(format!("server-{port}.pid"));
    let out = OpenOptions::new().create(true).append(true).open(&log)?;
    let err = out.try_clone()?;
    let me = std::env::current_exe()?;
    let mut cmd = Command::new(me);
    cmd.args(["serve", "--addr", addr])
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    // Its own session (Unix) or process group without our console (Windows): the terminal's
    // Ctrl-C or hang-up that ends this client does not end the server it started.
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
    }
    #[cfg(windows)]
    std::os::windows::process::CommandExt::creation_flags(
        &mut cmd,
        0x0000_0200 | 0x0000_0008, // CREATE_NEW_PROCESS_GROUP | DETACHED_PROCESS
    );
    let child = cmd.spawn()?;
    Ok(Started {
        log,
        pid_file,
        addr: addr.to_string(),
        child,
    })
}

impl Started {
    /// The server answered: write its pid file and say so on stderr. When the spawned process
    /// already exited (another client's server won the port), there is nothing to record.
    pub fn confirm(mut self) {
        if !matches!(self.child.try_wait(), Ok(None)) {
            return;
        }
        let pid = self.child.id();
        let _ = File::create(&self.pid_file).and_then(|mut f| {
            use std::io::Write;
            writeln!(f, "{pid}")
        });
        eprintln!(
            "mobilectl: started a server on http://{} (pid {pid}, log {})",
            self.addr,
            self.log.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(u: &str) -> Option<String> {
        loopback_addr(&Url::parse(u).unwrap())
    }

    #[test]
    fn only_loopback_urls_autostart() {
        assert_eq!(addr("http://127.0.0.1:9100"), Some("127.0.0.1:9100".into()));
        assert_eq!(
            addr("http://localhost:8080/"),
            Some("127.0.0.1:8080".into())
        );
        assert_eq!(addr("http://[::1]:9"), Some("[::1]:9".into()));
        assert_eq!(addr("http://127.0.0.1"), Some("127.0.0.1:80".into()));
        assert_eq!(addr("http://10.0.0.2:9100"), None);
        assert_eq!(addr("http://example.com:9100"), None);
        assert_eq!(addr("https://127.0.0.1:9100"), None);
    }
}
