//! A blocking test harness: runs `mobilectl virtual-device` as a subprocess and a private adb
//! server (its own port, `-P`), connects them, and cleans both up on drop. For integration
//! tests of the virtual device and of the product's Android backend:
//!
//! ```no_run
//! use virtual_device::testing::VdHarness;
//! // In an integration test, pass env!("CARGO_BIN_EXE_mobilectl").
//! let vd = VdHarness::start("target/debug/mobilectl", &[]).unwrap();
//! let out = vd.adb(&["shell", "echo", "hi"]);
//! assert_eq!(out.stdout_text(), "hi\n");
//! vd.control(&["fail-dumps", "2"]).unwrap();
//! let typed: Vec<Vec<String>> = vd.journal_argvs();
//! # let _ = typed;
//! ```
//!
//! Every adb call has a timeout ([`ADB_TIMEOUT`]); waits poll a condition with a deadline.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Time limit of one adb invocation.
pub const ADB_TIMEOUT: Duration = Duration::from_secs(30);
/// Time limit of one control command.
pub const CONTROL_TIMEOUT: Duration = Duration::from_secs(90);

/// The adb client used by the harness (`MOBILECTL_TEST_ADB` overrides the `adb` on `PATH`).
pub fn adb_path() -> PathBuf {
    std::env::var_os("MOBILECTL_TEST_ADB")
        .map(PathBuf::from)
        .or_else(|| crate::sandbox::find_host_program("adb"))
        .unwrap_or_else(|| PathBuf::from("adb"))
}

/// Output of one finished command.
#[derive(Debug, Clone)]
pub struct CmdOutput {
    /// `None` when killed (by signal or on timeout).
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
}

impl CmdOutput {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// Runs a command with a time limit, capturing its output; stdin is `/dev/null`.
pub fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> std::io::Result<CmdOutput> {
    run_with_input(cmd, None, timeout)
}

/// Like [`run_with_timeout`], feeding `input` (then EOF) to stdin when given.
pub fn run_with_input(
    cmd: &mut Command,
    input: Option<&[u8]>,
    timeout: Duration,
) -> std::io::Result<CmdOutput> {
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    if let (Some(mut sin), Some(data)) = (child.stdin.take(), input) {
        let data = data.to_vec();
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = sin.write_all(&data);
        });
    }
    let mut so = child.stdout.take().expect("piped");
    let mut se = child.stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let deadline = Instant::now() + timeout;
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if Instant::now() > deadline {
            timed_out = true;
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Ok(CmdOutput {
        code: status.and_then(|s| s.code()),
        stdout: t_out.join().unwrap_or_default(),
        stderr: t_err.join().unwrap_or_default(),
        timed_out,
    })
}

/// Makes sure the user's adb key (`$HOME/.android/adbkey` and its `.pub`) exists before a test
/// starts an adb server, once per process. Every adb server a test starts signs with it and the
/// virtual device authorises it; with none yet, adb servers started side by side would each
/// make a key of their own, and all but the last one written would be refused. Made as `adb
/// keygen` makes it, beside the target and renamed into place (the public half first).
pub fn ensure_user_adb_key(adb: &Path) {
    static MADE: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    MADE.get_or_init(|| {
        let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
            return;
        };
        let dir = home.join(".android");
        let key = dir.join("adbkey");
        if key.is_file() {
            return;
        }
        let _ = std::fs::create_dir_all(&dir);
        let fresh = dir.join(format!("adbkey.new-{}", std::process::id()));
        let made = run_with_timeout(Command::new(adb).arg("keygen").arg(&fresh), ADB_TIMEOUT);
        let with_pub = |p: &Path| PathBuf::from(format!("{}.pub", p.display()));
        if made.is_ok_and(|o| o.success()) && fresh.is_file() && !key.is_file() {
            let _ = std::fs::rename(with_pub(&fresh), with_pub(&key));
            let _ = std::fs::rename(&fresh, &key);
        }
        let _ = std::fs::remove_file(with_pub(&fresh));
        let _ = std::fs::remove_file(&fresh);
    });
}

/// A TCP port free on 127.0.0.1 for a test's server to listen on.
///
/// It comes from below the kernel's ephemeral range, which `bind(0)` and every outgoing
/// connection draw from: a port taken there and released could go to another test's
/// connection or listener before the server binds it (an adb server "started" on a port a
/// connection already held failed with `protocol fault (status 30 30 30 63?!)`). Each call in
/// this process takes the next port after a start of its own (from its pid), skipping ports
/// in use; only if none is free does it fall back to one the kernel picks.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    const FLOOR: u32 = 10_000;
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let span = ephemeral_floor().saturating_sub(FLOOR).max(1_000);
    let start = std::process::id().wrapping_mul(7_919) % span;
    for _ in 0..span {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let Ok(port) = u16::try_from(FLOOR + (start + n) % span) else {
            continue;
        };
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// The lowest port the kernel hands out by itself (`ip_local_port_range`; 32768 when it
/// cannot be read).
fn ephemeral_floor() -> u32 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

/// Polls `cond` every 20 ms until it holds or `timeout` passes; returns whether it held.
pub fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A virtual device subprocess plus a private adb server connected to it.
pub struct VdHarness {
    /// `127.0.0.1:PORT`, the adb serial.
    pub serial: String,
    pub port: u16,
    /// The private adb server's port (pass as `-P` or `ANDROID_ADB_SERVER_PORT`).
    pub adb_port: u16,
    pub control_socket: PathBuf,
    pub journal: PathBuf,
    /// Host folder that is the device's `/` (e.g. `root.join("sdcard/x")` is `/sdcard/x`).
    pub root: PathBuf,
    pub adb: PathBuf,
    bin: PathBuf,
    child: Child,
}

impl VdHarness {
    /// Starts `mobilectl virtual-device --port 0 EXTRA…` (e.g. `["--app", dir]`), a private adb
    /// server, `adb connect`, and waits until adb lists the device as `device`.
    pub fn start(
        mobilectl_bin: impl AsRef<Path>,
        extra_args: &[&str],
    ) -> std::io::Result<VdHarness> {
        let h = VdHarness::start_unconnected(mobilectl_bin, extra_args)?;
        let out = h.adb_global(&["connect", &h.serial]);
        if !h.wait_for_state("device", Duration::from_secs(15)) {
            return Err(std::io::Error::other(format!(
                "adb connect {} failed: {}{}",
                h.serial,
                out.stdout_text(),
                out.stderr_text()
            )));
        }
        Ok(h)
    }

    /// Starts the device and the adb server without connecting them.
    pub fn start_unconnected(
        mobilectl_bin: impl AsRef<Path>,
        extra_args: &[&str],
    ) -> std::io::Result<VdHarness> {
        let bin = mobilectl_bin.as_ref().to_path_buf();
        let mut child = Command::new(&bin)
            .arg("virtual-device")
            .args(extra_args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(l) => l,
            Err(_) => {
                let _ = child.kill();
                return Err(std::io::Error::other(
                    "virtual device did not print its startup line",
                ));
            }
        };
        let v: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(std::io::Error::other(format!(
                    "bad startup line {line:?}: {e}"
                )));
            }
        };
        ensure_user_adb_key(&adb_path());
        let s = |k: &str| PathBuf::from(v[k].as_str().unwrap_or_default());
        let h = VdHarness {
            serial: v["serial"].as_str().unwrap_or_default().to_string(),
            port: v["port"].as_u64().unwrap_or(0) as u16,
            adb_port: free_port(),
            control_socket: s("control_socket"),
            journal: s("journal"),
            root: s("root"),
            adb: adb_path(),
            bin,
            child,
        };
        let out = h.adb_global(&["start-server"]);
        if !out.success() {
            return Err(std::io::Error::other(format!(
                "adb start-server: {}",
                out.stderr_text()
            )));
        }
        Ok(h)
    }

    fn adb_command(&self) -> Command {
        let mut c = Command::new(&self.adb);
        c.env("ANDROID_ADB_SERVER_PORT", self.adb_port.to_string())
            .arg("-P")
            .arg(self.adb_port.to_string());
        c
    }

    /// `adb -P PORT ARGS…` (no `-s`: `devices -l`, `connect`, `disconnect`).
    pub fn adb_global(&self, args: &[&str]) -> CmdOutput {
        run_with_timeout(self.adb_command().args(args), ADB_TIMEOUT).expect("run adb")
    }

    /// `adb -P PORT -s SERIAL ARGS…`.
    pub fn adb(&self, args: &[&str]) -> CmdOutput {
        run_with_timeout(
            self.adb_command().arg("-s").arg(&self.serial).args(args),
            ADB_TIMEOUT,
        )
        .expect("run adb")
    }

    /// `adb -P PORT -s SERIAL ARGS…` left running (stdout and stderr piped, stdin null): a
    /// long-lived `shell am instrument -w …`, closed by killing it.
    pub fn adb_spawn(&self, args: &[&str]) -> std::io::Result<Child> {
        self.adb_command()
            .arg("-s")
            .arg(&self.serial)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    }

    /// `adb -P PORT -s SERIAL ARGS…` with `input` on stdin (e.g. an interactive `shell`).
    pub fn adb_with_input(&self, args: &[&str], input: &[u8]) -> CmdOutput {
        run_with_input(
            self.adb_command().arg("-s").arg(&self.serial).args(args),
            Some(input),
            ADB_TIMEOUT,
        )
        .expect("run adb")
    }

    /// `adb get-state` of this device (`device`, `offline`, or the error text).
    pub fn adb_state(&self) -> String {
        let out = self.adb(&["get-state"]);
        if out.success() {
            out.stdout_text().trim().to_string()
        } else {
            out.stderr_text().trim().to_string()
        }
    }

    /// Polls `adb get-state` until it equals `want`.
    pub fn wait_for_state(&self, want: &str, timeout: Duration) -> bool {
        wait_until(timeout, || self.adb_state() == want)
    }

    /// `mobilectl virtual-device control --socket S ARGS…`; the command's stdout. A control
    /// may wait for the WebView's Chromium to start or load a page (`screen web`, `web big N`):
    /// the limit leaves room for a loaded host.
    pub fn control(&self, args: &[&str]) -> std::io::Result<String> {
        let out = run_with_timeout(
            Command::new(&self.bin)
                .arg("virtual-device")
                .arg("control")
                .arg("--socket")
                .arg(&self.control_socket)
                .args(args),
            CONTROL_TIMEOUT,
        )?;
        if !out.success() {
            return Err(std::io::Error::other(out.stderr_text()));
        }
        Ok(out.stdout_text())
    }

    /// The device state (`control state`): screen, focused, keyboard, activity, …
    pub fn state(&self) -> Value {
        self.control(&["state"])
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or(Value::Null)
    }

    /// Every journal line parsed.
    pub fn journal(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.journal)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The argv of every program the device ran, in order.
    pub fn journal_argvs(&self) -> Vec<Vec<String>> {
        self.journal()
            .iter()
            .filter_map(|v| {
                v["argv"].as_array().map(|a| {
                    a.iter()
                        .map(|s| s.as_str().unwrap_or_default().to_string())
                        .collect()
                })
            })
            .collect()
    }
}

impl Drop for VdHarness {
    fn drop(&mut self) {
        let _ = run_with_timeout(
            self.adb_command().arg("kill-server"),
            Duration::from_secs(10),
        );
        // SAFETY: SIGTERM to the device process this harness spawned (its pid); lets it clean up.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_ports_are_distinct_and_not_the_kernels_to_hand_out() {
        let ports: Vec<u16> = (0..64).map(|_| free_port()).collect();
        let distinct: std::collections::HashSet<&u16> = ports.iter().collect();
        assert_eq!(distinct.len(), ports.len(), "{ports:?}");
        let floor = ephemeral_floor();
        assert!(
            floor < 11_000 || ports.iter().all(|&p| u32::from(p) < floor),
            "{ports:?} against {floor}"
        );
        // Each is free to listen on.
        for p in ports {
            std::net::TcpListener::bind(("127.0.0.1", p)).expect("a free port");
        }
    }
}
