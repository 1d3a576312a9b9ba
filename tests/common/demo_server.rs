//! A `mobilectl serve --demo` subprocess for tests that need the real server process (its
//! listener, its limits): a virtual Android device behind a private adb server. Stopped with
//! SIGTERM on drop, and its adb server killed.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use virtual_device::testing::{adb_path, ensure_user_adb_key, free_port, wait_until};

pub const BIN: &str = env!("CARGO_BIN_EXE_mobilectl");

pub struct DemoServer {
    child: Child,
    pub url: String,
    pub port: u16,
    adb_port: u16,
    /// The server's cache directory (its runs), deleted with it.
    _cache: tempfile::TempDir,
}

impl DemoServer {
    /// Starts the server; `max_open_files` sets its `RLIMIT_NOFILE` when given.
    pub fn start(max_open_files: Option<u64>) -> DemoServer {
        Self::start_with(max_open_files, 1)
    }

    /// Starts the server with `devices` virtual devices.
    pub fn start_with(max_open_files: Option<u64>, devices: u8) -> DemoServer {
        Self::start_with_env(max_open_files, devices, &[])
    }

    /// Starts the server (one virtual device) with these arguments of `serve` besides.
    pub fn start_with_args(args: &[&str]) -> DemoServer {
        Self::start_full(None, 1, &[], args)
    }

    /// Starts the server with `devices` virtual devices and these variables set.
    pub fn start_with_env(
        max_open_files: Option<u64>,
        devices: u8,
        env: &[(&str, &str)],
    ) -> DemoServer {
        Self::start_full(max_open_files, devices, env, &[])
    }

    fn start_full(
        max_open_files: Option<u64>,
        devices: u8,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> DemoServer {
        let (port, adb_port) = (free_port(), free_port());
        ensure_user_adb_key(&adb_path());
        let cache = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(BIN);
        cmd.env("MOBILECTL_CACHE_DIR", cache.path());
        cmd.envs(env.iter().copied());
        cmd.args(["serve", "--demo", "--addr", &format!("127.0.0.1:{port}")])
            .args(["--demo-devices", &devices.to_string()])
            .args(["--adb-server-port", &adb_port.to_string()])
            .args(args)
            .env_remove("MOBILECTL_TOKEN")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(n) = max_open_files {
            // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    let lim = libc::rlimit {
                        rlim_cur: n,
                        rlim_max: n,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let child = cmd.spawn().unwrap();
        let url = format!("http://127.0.0.1:{port}");
        let up = wait_until(Duration::from_secs(60), || probe::blocking_health(&url));
        assert!(up, "the demo server did not come up");
        DemoServer {
            child,
            url,
            port,
            adb_port,
            _cache: cache,
        }
    }
}

impl DemoServer {
    /// The server process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the server process has exited (or was killed by a signal): its status.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The server process's resident memory now (`VmRSS`) and at its peak (`VmHWM`), in
    /// bytes, from `/proc/PID/status`.
    pub fn memory_bytes(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("the server's /proc status");
        let kib = |field: &str| -> u64 {
            status
                .lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
                .unwrap_or_else(|| panic!("{field} in {status}"))
        };
        (kib("VmRSS:") * 1024, kib("VmHWM:") * 1024)
    }

    /// Sends SIGTERM and waits (up to 30 s) for the server to exit; its exit status.
    pub fn shut_down(&mut self) -> Option<std::process::ExitStatus> {
        super::sigterm(self.child.id());
        let mut status = None;
        wait_until(Duration::from_secs(30), || {
            status = self.child.try_wait().ok().flatten();
            status.is_some()
        });
        status
    }
}

impl Drop for DemoServer {
    fn drop(&mut self) {
        super::stop_server(&mut self.child, Some(self.adb_port));
    }
}

/// Whether `GET /health` answers (a plain TCP request: no client library needed).
mod probe {
    use std::io::{Read, Write};

    pub fn blocking_health(url: &str) -> bool {
        let addr = url.trim_start_matches("http://");
        let Ok(mut s) = std::net::TcpStream::connect(addr) else {
            return false;
        };
        let req = format!("GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        if s.write_all(req.as_bytes()).is_err() {
            return false;
        }
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        answer.starts_with("HTTP/1.1 200")
    }
}
