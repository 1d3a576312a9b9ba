//! Command-line entry points: `mobilectl virtual-device …` (run a device, or `control` one),
//! and the applet client that runs when the binary is invoked through a sandbox symlink.

use std::ffi::OsString;
use std::io::{BufRead, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::sandbox::{APPLETS, SOCKET_ENV, UTILITIES};
use super::{AppSource, VirtualDeviceOptions};

/// `mobilectl virtual-device`: run a virtual Android device for adb.
#[derive(Debug, clap::Args)]
pub struct VirtualDeviceArgs {
    /// TCP port on 127.0.0.1 (default: a free port outside adb's emulator range 5555–5585).
    #[arg(long)]
    pub port: Option<u16>,
    /// App folder with app.json and screen dumps (default: the built-in demo app).
    #[arg(long)]
    pub app: Option<PathBuf>,
    /// Journal file (JSON lines); default: inside the device's temporary folder.
    #[arg(long)]
    pub journal: Option<PathBuf>,
    /// Delay before every adb service request, in milliseconds.
    #[arg(long, default_value_t = 0)]
    pub latency_ms: u64,
    /// Make the next N `uiautomator dump` calls fail with "could not get idle state".
    #[arg(long, default_value_t = 0)]
    pub fail_dumps: u32,
    /// Do not offer shell protocol v2 (adb then uses the legacy `shell:` service).
    #[arg(long)]
    pub no_shell_v2: bool,
    /// ro.product.model in the adb banner.
    #[arg(long, default_value = crate::DEFAULT_MODEL)]
    pub model: String,
    /// An adb key that may connect (a public key as in `adbkey.pub`, or a private key file);
    /// repeatable. Default: the keys of the user running the device (`~/.android/adbkey`,
    /// `ADB_VENDOR_KEYS`), as the adb server of that user signs with them.
    #[arg(long = "authorized-key", value_name = "FILE")]
    pub authorized_keys: Vec<PathBuf>,
    #[command(subcommand)]
    pub action: Option<VdAction>,
}

#[derive(Debug, clap::Subcommand)]
pub enum VdAction {
    /// Control a running device: latency MS | fail-dumps N | screen NAME | drop | offline on|off | state | journal | web debug on|off | web kill | web eval JS | web big N | web page login | …
    Control {
        #[arg(long)]
        socket: PathBuf,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        args: Vec<String>,
    },
}

/// Runs the `virtual-device` subcommand; returns the process exit code.
pub fn run_cli(args: VirtualDeviceArgs) -> i32 {
    if let Some(VdAction::Control { socket, args }) = &args.action {
        return match super::ipc::control_request(socket, args) {
            Ok((code, out, err)) => {
                let _ = std::io::stdout().write_all(&out);
                let _ = std::io::stderr().write_all(&err);
                code
            }
            Err(e) => {
                eprintln!(
                    "mobilectl virtual-device control: {}: {e}",
                    socket.display()
                );
                1
            }
        };
    }
    if let Some(p) = args.port {
        if (5555..=5585).contains(&p) {
            eprintln!("warning: port {p} is in adb's emulator scan range 5555–5585; adb may treat it as an emulator");
        }
    }
    let bin = match std::env::current_exe() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("mobilectl virtual-device: cannot find own binary: {e}");
            return 1;
        }
    };
    let mut opts = VirtualDeviceOptions::new(bin);
    opts.port = args.port;
    opts.app = args.app.map(AppSource::Dir).unwrap_or(AppSource::Demo);
    opts.journal_path = args.journal;
    opts.latency_ms = args.latency_ms;
    opts.fail_dumps = args.fail_dumps;
    opts.model = args.model;
    opts.shell_v2 = !args.no_shell_v2;
    if !args.authorized_keys.is_empty() {
        opts.authorized_keys = super::auth::AuthorizedKeys::Files(args.authorized_keys);
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mobilectl virtual-device: {e}");
            return 1;
        }
    };
    rt.block_on(async move {
        let dev = match super::start(opts).await {
            Ok(d) => d,
            Err(e) => {
                eprintln!("mobilectl virtual-device: {e}");
                return 1;
            }
        };
        let line = json!({
            "port": dev.port(),
            "serial": dev.serial(),
            "control_socket": dev.control_socket(),
            "journal": dev.journal_path(),
            "root": dev.root(),
        });
        println!("{line}");
        let _ = std::io::stdout().flush();
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => return 1,
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        drop(dev);
        0
    })
}

/// If this process was started through a sandbox symlink (`input`, `cat`, …) inside a device
/// command, acts as that program and returns its exit code; otherwise `None`.
pub fn applet_entry() -> Option<i32> {
    let socket = std::env::var_os(SOCKET_ENV)?;
    let mut args = std::env::args_os();
    let argv0 = args.next()?;
    let name = Path::new(&argv0)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    if !APPLETS.contains(&name.as_str()) && !UTILITIES.contains(&name.as_str()) {
        return None;
    }
    let argv: Vec<String> = std::iter::once(name.clone())
        .chain(args.map(|a: OsString| a.to_string_lossy().into_owned()))
        .collect();
    Some(run_applet(Path::new(&socket), &name, argv))
}

/// `pm install -S N` / `cmd package install -S N` stream the APK on stdin.
fn stdin_size(argv: &[String]) -> Option<usize> {
    let pm =
        argv[0] == "pm" || (argv[0] == "cmd" && argv.get(1).map(String::as_str) == Some("package"));
    if !pm
        || !argv
            .iter()
            .any(|a| a == "install" || a == "install-streamed")
    {
        return None;
    }
    let i = argv.iter().position(|a| a == "-S")?;
    argv.get(i + 1)?.parse().ok()
}

fn run_applet(socket: &Path, name: &str, argv: Vec<String>) -> i32 {
    let mut stdin = Vec::new();
    if let Some(n) = stdin_size(&argv) {
        let _ = std::io::stdin().take(n as u64).read_to_end(&mut stdin);
    }
    let header = json!({"kind": "applet", "argv": argv, "stdin_len": stdin.len(), "pid": std::process::id()});
    let sent = std::os::unix::net::UnixStream::connect(socket).and_then(|s| {
        if name == "screenrecord" {
            stop_on_signals(&s);
        }
        super::ipc::send_on(s, &header, &stdin)
    });
    let (head, mut reader) = match sent {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{name}: virtual device unreachable: {e}");
            return 127;
        }
    };
    if head["record"] == true {
        // Recording: the device answers once it stopped (our signal handler closed our end).
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(head["stdout"].as_str().unwrap_or_default().as_bytes());
        let _ = out.flush();
        let mut line = String::new();
        let _ = reader.read_line(&mut line);
        let trailer: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        let _ = out.write_all(trailer["stdout"].as_str().unwrap_or_default().as_bytes());
        let _ = out.flush();
        if let Some(text) = trailer["stderr"].as_str() {
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
        return trailer["code"].as_i64().unwrap_or(1) as i32;
    }
    if head["stream"] == true {
        // Output as it comes, until the device ends it (or our reader is gone).
        let mut out = std::io::stdout().lock();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => return 0,
                Ok(n) => {
                    if out.write_all(&buf[..n]).and_then(|_| out.flush()).is_err() {
                        return 0;
                    }
                }
            }
        }
    }
    let mut body = Vec::new();
    if let Err(e) = reader.read_to_end(&mut body) {
        eprintln!("{name}: virtual device connection broke: {e}");
        return 127;
    }
    if let Some(program) = head["exec"].as_str() {
        let args: Vec<String> = head["args"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| s.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default();
        let err = std::process::Command::new(program)
            .arg0(name)
            .args(args)
            .exec();
        eprintln!("{name}: {err}");
        return 126;
    }
    let n = (head["stdout_len"].as_u64().unwrap_or(0) as usize).min(body.len());
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&body[..n]);
    let _ = out.flush();
    let _ = std::io::stderr().write_all(&body[n..]);
    head["code"].as_i64().unwrap_or(1) as i32
}

/// The socket a recording client closes its end of when signalled.
static RECORDING_SOCKET: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

extern "C" fn close_recording(_signal: libc::c_int) {
    let fd = RECORDING_SOCKET.load(std::sync::atomic::Ordering::Relaxed);
    if fd >= 0 {
        // SAFETY: shutdown(2) is async-signal-safe; `fd` is the recording's socket, open for
        // the whole life of the process.
        unsafe {
            libc::shutdown(fd, libc::SHUT_WR);
        }
    }
}

/// `screenrecord` stops, finalising its file, on SIGINT, SIGHUP and SIGTERM as Android's
/// does: each closes our end of the socket, which tells the device to stop.
fn stop_on_signals(socket: &std::os::unix::net::UnixStream) {
    use std::os::fd::AsRawFd;
    RECORDING_SOCKET.store(socket.as_raw_fd(), std::sync::atomic::Ordering::Relaxed);
    for signal in [libc::SIGINT, libc::SIGHUP, libc::SIGTERM] {
        // SAFETY: installs a handler that only calls an async-signal-safe function.
        unsafe {
            libc::signal(
                signal,
                close_recording as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}
