//! A virtual Android device that the real `adb` client and server drive over the adb
//! device transport. It stands in for a phone in tests and in `serve --demo`, and shares no
//! code with the product's own device code (not the ui parser, not the adb backend).
//!
//! - [`transport`]: TCP, adb packets, CNXN banner (`features=shell_v2,cmd`), streams.
//! - [`auth`]: adb's RSA authentication; only the keys of the user who started the device
//!   (or those given) get a connection.
//! - [`services`]: `shell:` (legacy and v2), `exec:`, `sync:`, `reverse:` (forwards that
//!   really tunnel: a connection to the device's port reaches the host's through adb), and
//!   `tcp:PORT` / `localabstract:NAME` (what `adb forward` opens: a connection to whatever
//!   listens there on the device, refused when nothing does); [`sockets`]: the device-wide
//!   table of those listening sockets.
//! - `uia2`: a stand-in for Appium's UiAutomator2 server: `am instrument -w … io.appium.
//!   uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner` (once both APKs are
//!   installed) runs it in the process `io.appium.uiautomator2.server`, on device port 6790,
//!   speaking the server's HTTP/JSON protocol (status, session, source, actions, keys, key
//!   codes, settings); each request is journaled as `{"uia2":"METHOD PATH"}`.
//! - [`sandbox`]: temp device root, restricted `PATH` of stand-ins, path mapping.
//! - `applets`: `input`, `uiautomator`, `screencap`, `am`, `pm`, `monkey`, `cmd`,
//!   `dumpsys` (`meminfo` and `gfxinfo` too), `wm`, `getprop`, `settings`, `logcat`, `cat` of
//!   the device's own `/proc`, … plus passed-through utilities.
//! - [`app`]: the scripted app (screens = uiautomator dumps, transitions); [`state`]: what
//!   taps, keys and typing do to it, plus packages, settings and the app's process (pids,
//!   crashes, ANRs, and the CPU, frames and memory its work costs); [`log`]: the log buffers
//!   `logcat` reads and follows.
//! - `render`: PNG / raw screenshots. [`journal`]: JSON lines of everything run.
//! - `web`: the demo's WebView backed by a real headless Chromium (found as
//!   `$MOBILECTL_CHROMIUM`, else `chromium`, `chromium-browser`, `google-chrome`): while its
//!   screen is shown with WebView debugging on, the device lists
//!   `@webview_devtools_remote_<pid>` in `/proc/net/unix` and `adb forward
//!   localabstract:webview_devtools_remote_<pid>` reaches Chromium's DevTools (`/json/list`,
//!   the page's WebSocket); screenshots show the page, taps, swipes, text and keys reach it.
//!   The demo's screens: `login` (initial), `login_error`, `permission`, `list`, `detail`,
//!   `a11y`, `web` (the WebView above) and `tab`: a Chrome Custom Tab over the app
//!   (`com.android.chrome/org.chromium.chrome.browser.customtabs.CustomTabActivity`, every
//!   node Chrome's: its toolbar with "Close tab", then its web contents as one bare
//!   `android.webkit.WebView` at `[0,231][1080,2400]`), run by Chrome's own process while it
//!   shows; the same sign-in page, on Chrome's socket `@chrome_devtools_remote`; BACK or
//!   "Close tab" closes it.
//! - [`faults`]: latency, failing dumps, dropped connections, offline.
//! - `ipc`: the Unix socket for applets and run-time control from other processes.
//! - [`testing`]: a blocking harness for integration tests (device subprocess + private
//!   adb server).
//!
//! Start in process with [`start`], or as a subprocess with
//! `mobilectl virtual-device [--port P] [--app DIR] [--journal F] [--latency-ms MS]
//! [--fail-dumps N] [--authorized-key FILE]…`, which prints one JSON line first —
//! `{"port":…,"serial":"127.0.0.1:…","control_socket":…,"journal":…,"root":…}` — then serves
//! until killed. Control it from elsewhere with
//! `mobilectl virtual-device control --socket SOCKET (latency MS | fail-dumps N | drop |
//! offline on|off | state | journal | uia2 MODE | …)` (all of them in `ipc`). The
//! UiAutomator2 stand-in's faults: `uia2 garbage` (every request answered 200 with a body that
//! is not JSON), `uia2 hang` (requests accepted, never answered), `uia2 die` (the server's
//! process dies now: connections dropped, port closed, the `am instrument -w` waiting on it
//! prints `INSTRUMENTATION_RESULT: shortMsg=Process crashed.` / `INSTRUMENTATION_CODE: 0` and
//! exits), `uia2 normal` (back to answering as the real server does). The WebView's Chromium:
//! `web debug on|off`, `web kill`, `web eval JS`, `web big N`, `web page login`, and
//! `web a11y on|off` (off by default: on, `uiautomator dump` and the UiAutomator2 stand-in's
//! page source show the page's accessibility nodes inside the WebView's node, as a real WebView
//! exposes them; see `web::control`, `web::expose`).

// The device runs the host's mksh and Unix utilities, over Unix sockets and process groups:
// on other hosts the crate is empty (`serve --demo` there says why).
#![cfg(unix)]
// The device's code never unwraps (tests may: clippy.toml).
#![warn(clippy::unwrap_used)]

pub mod app;
mod applets;
pub mod auth;
mod cli;
pub mod demo_api;
pub mod faults;
mod ipc;
pub mod journal;
pub mod log;
mod render;
pub mod sandbox;
mod services;
pub mod sockets;
pub mod state;
#[cfg(feature = "testing")]
pub mod testing;
pub mod transport;
mod uia2;
mod uixml;
mod web;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::net::{TcpListener, UnixListener};
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use applets::screenrecord::FPS as SCREENRECORD_FPS;
pub use cli::{applet_entry, run_cli, VirtualDeviceArgs};

use app::App;
use faults::Faults;
use journal::Journal;
use sandbox::Sandbox;
use state::DeviceState;

/// Which app the device runs.
#[derive(Debug, Clone)]
pub enum AppSource {
    /// The embedded demo: login → permission dialog → list → detail.
    Demo,
    /// A folder with `app.json` and screen dumps (format in [`app`]).
    Dir(PathBuf),
}

/// The model name of a virtual device; the port is appended to make it unique.
pub const DEFAULT_MODEL: &str = "Mobilectl_Virtual";

/// How to start a virtual device.
#[derive(Debug, Clone)]
pub struct VirtualDeviceOptions {
    /// TCP port on 127.0.0.1; `None` picks a free ephemeral one (outside 5555–5585).
    pub port: Option<u16>,
    pub app: AppSource,
    /// `ro.product.name`, `ro.product.model`, `ro.product.device` in the CNXN banner.
    pub product: String,
    pub model: String,
    pub device: String,
    /// The mobilectl binary the stand-in programs run as (see [`sandbox`]).
    pub mobilectl_bin: PathBuf,
    /// The POSIX shell device commands run in.
    pub mksh: PathBuf,
    /// Journal file; default `journal.jsonl` in the device's temporary folder.
    pub journal_path: Option<PathBuf>,
    pub latency_ms: u64,
    pub fail_dumps: u32,
    /// Advertise and serve shell protocol v2 (exit codes, separate stderr); default true.
    pub shell_v2: bool,
    /// Longest a device command may run before its process group is killed.
    pub command_timeout: Duration,
    /// The adb keys that may connect; default the user's own (see [`auth`]).
    pub authorized_keys: auth::AuthorizedKeys,
}

impl VirtualDeviceOptions {
    pub fn new(mobilectl_bin: impl Into<PathBuf>) -> Self {
        VirtualDeviceOptions {
            port: None,
            app: AppSource::Demo,
            product: "demo".into(),
            model: DEFAULT_MODEL.into(),
            device: "virtual".into(),
            mobilectl_bin: mobilectl_bin.into(),
            mksh: sandbox::find_host_program("mksh").unwrap_or_else(|| PathBuf::from("mksh")),
            journal_path: None,
            latency_ms: 0,
            fail_dumps: 0,
            shell_v2: true,
            command_timeout: Duration::from_secs(600),
            authorized_keys: auth::AuthorizedKeys::User,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum VdError {
    #[error("virtual device I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("virtual device app: {0}")]
    App(String),
    #[error("adb: {0}")]
    Adb(String),
    #[error("the virtual device runs Android's shell, mksh, which is not on this host's PATH ({0}); install it (Debian/Ubuntu: apt install mksh; macOS: brew install mksh)")]
    NoShell(String),
}

/// State shared by every task of one device.
pub(crate) struct Device {
    pub opts: VirtualDeviceOptions,
    pub port: u16,
    pub sandbox: Sandbox,
    pub journal: Journal,
    pub faults: Faults,
    state: Mutex<DeviceState>,
    pub conn_gen: watch::Sender<u64>,
    pub offline: watch::Sender<bool>,
    /// `adb reverse` forwards.
    pub reverse: services::reverse::Forwards,
    /// Flood lines requested so far (every `logcat` following the log prints them).
    pub flood: watch::Sender<u64>,
    /// Running `screenrecord`s and the device's longest recording.
    pub recorders: applets::screenrecord::Recorders,
    /// What listens on the device's ports and abstract sockets (`adb forward` reaches them).
    pub sockets: sockets::Sockets,
    /// The UiAutomator2 server stand-in (running once instrumented).
    pub uia2: uia2::Uia2,
    /// The Chromium behind the app's WebView (running while its screen was shown).
    pub web: web::Web,
}

impl Device {
    pub fn state(&self) -> MutexGuard<'_, DeviceState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn drop_connections(&self) {
        self.conn_gen.send_modify(|g| *g += 1);
    }

    pub fn set_offline(&self, offline: bool) {
        self.offline.send_replace(offline);
        if offline {
            self.drop_connections();
        }
    }

    pub fn state_json(&self) -> serde_json::Value {
        let st = self.state();
        serde_json::json!({
            "screen": st.screen,
            "foreground": st.foreground,
            "running": st.running,
            "focused": st.focused,
            "keyboard": st.keyboard_visible(),
            "package": st.foreground_package(),
            "activity": st.focused_component(),
            "installed": st.installed.keys().collect::<Vec<_>>(),
            "last_url": st.last_url,
            "clipboard": st.clipboard,
            "rotation": st.rotation(),
            "shade_open": st.shade_open,
            "airplane_mode": st
                .settings
                .get(&("global".to_string(), "airplane_mode_on".to_string()))
                .is_some_and(|v| v.trim() != "0"),
            "media": st.media,
            "notifications": st.notifications.iter().map(|n| serde_json::json!({"tag": n.tag, "title": n.title, "text": n.text})).collect::<Vec<_>>(),
            "fail_dumps_left": self.faults.fail_dumps_left(),
            "offline": *self.offline.borrow(),
            "reverse": self.reverse.json(),
            "app_pid": st.running.then_some(st.process.pid),
            "main_thread_blocked": st.process.blocked(),
            "sockets": self.sockets.json(),
            "uia2_pid": self.uia2.pid(),
            "web": self.web.json(),
        })
    }
}

/// A running virtual device; shuts down (connections closed, sandbox removed) on drop.
pub struct RunningDevice {
    dev: Arc<Device>,
    tasks: Vec<JoinHandle<()>>,
}

impl RunningDevice {
    pub fn port(&self) -> u16 {
        self.dev.port
    }

    /// The adb serial after `adb connect`: `127.0.0.1:PORT`.
    pub fn serial(&self) -> String {
        format!("127.0.0.1:{}", self.dev.port)
    }

    pub fn journal_path(&self) -> &Path {
        self.dev.journal.path()
    }

    /// The control socket (for `mobilectl virtual-device control --socket …`).
    pub fn control_socket(&self) -> &Path {
        &self.dev.sandbox.socket
    }

    /// The host folder that is the device's `/`.
    pub fn root(&self) -> &Path {
        &self.dev.sandbox.root
    }

    pub fn set_latency(&self, ms: u64) {
        self.dev.faults.set_latency_ms(ms);
    }

    pub fn fail_next_dumps(&self, n: u32) {
        self.dev.faults.set_fail_dumps(n);
    }

    pub fn drop_connections(&self) {
        self.dev.drop_connections();
    }

    pub fn set_offline(&self, offline: bool) {
        self.dev.set_offline(offline);
    }

    /// The device state as JSON (screen, focus, keyboard, activity, reverse forwards, …).
    pub fn state(&self) -> serde_json::Value {
        self.dev.state_json()
    }

    /// The host port standing for the device's local port of an `adb reverse` forward
    /// (`tcp:9101`): connecting to it is an app on the device connecting to that port.
    pub fn reverse_port(&self, spec: &str) -> Option<u16> {
        self.dev.reverse.host_port(spec)
    }
}

impl Drop for RunningDevice {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        uia2::stop(&self.dev, uia2::End::Crashed, "shutdown");
        web::shutdown(&self.dev);
        self.dev.drop_connections();
    }
}

/// Starts a device: sandbox, app, TCP listener for adb, Unix socket for applets and control.
pub async fn start(opts: VirtualDeviceOptions) -> Result<RunningDevice, VdError> {
    let app = match &opts.app {
        AppSource::Demo => App::demo(),
        AppSource::Dir(d) => App::from_dir(d),
    }
    .map_err(VdError::App)?;
    if !opts.mksh.is_file() {
        return Err(VdError::NoShell(opts.mksh.display().to_string()));
    }
    let sandbox = Sandbox::create(&opts.mobilectl_bin, &opts.mksh)?;
    let journal_path = opts
        .journal_path
        .clone()
        .unwrap_or_else(|| sandbox.socket.with_file_name("journal.jsonl"));
    let journal = Journal::create(&journal_path)?;
    let listener = TcpListener::bind(("127.0.0.1", opts.port.unwrap_or(0))).await?;
    let port = listener.local_addr()?.port();
    let mut opts = opts;
    if opts.model == DEFAULT_MODEL {
        // Two virtual devices on one adb server must not share a name.
        opts.model = format!("{DEFAULT_MODEL}_{port}");
    }
    let ipc_listener = UnixListener::bind(&sandbox.socket)?;
    let web_folder = sandbox
        .root
        .parent()
        .map_or_else(|| sandbox.root.join("web"), |tmp| tmp.join("web"));
    let dev = Arc::new_cyclic(|me| Device {
        faults: Faults::new(opts.latency_ms, opts.fail_dumps),
        opts,
        port,
        sandbox,
        journal,
        state: Mutex::new(DeviceState::new(app)),
        conn_gen: watch::channel(0).0,
        offline: watch::channel(false).0,
        reverse: Default::default(),
        flood: watch::channel(0).0,
        recorders: applets::screenrecord::Recorders::new(),
        sockets: Default::default(),
        uia2: Default::default(),
        web: web::Web::new(me.clone(), web_folder),
    });
    let d = dev.clone();
    let accept = tokio::spawn(async move {
        loop {
            match listener.accept().await {
                Ok((sock, _)) => {
                    tokio::spawn(transport::serve_connection(d.clone(), sock));
                }
                // Out of file descriptors: wait for some to come back, never stop listening.
                Err(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
            }
        }
    });
    let ipc = tokio::spawn(ipc::serve(dev.clone(), ipc_listener));
    // The app's clock: a blocked main thread ends, an ANR is declared, on time.
    let d = dev.clone();
    let ticker = tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_millis(20));
        loop {
            every.tick().await;
            d.state().tick(state::now_ms());
            web::reconcile(&d);
        }
    });
    Ok(RunningDevice {
        dev,
        tasks: vec![accept, ipc, ticker],
    })
}

async fn adb_run(adb: &Path, server_port: Option<u16>, args: &[&str]) -> Result<String, VdError> {
    let mut c = tokio::process::Command::new(adb);
    if let Some(p) = server_port {
        c.arg("-P").arg(p.to_string());
    }
    c.args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(20), c.output())
        .await
        .map_err(|_| VdError::Adb(format!("adb {} timed out", args.join(" "))))??;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

/// For `serve --demo`: starts the demo device, `adb connect`s it (through `adb`, with an
/// optional server port) and waits until adb lists it as `device`. Keep the returned device
/// alive as long as it should serve; `serial()` is what adb calls it.
pub async fn run_demo_for_serve(
    mobilectl_bin: PathBuf,
    adb: &Path,
    adb_server_port: Option<u16>,
) -> Result<RunningDevice, VdError> {
    let dev = start(VirtualDeviceOptions::new(mobilectl_bin)).await?;
    connect_adb(&dev.serial(), adb, adb_server_port).await?;
    Ok(dev)
}

/// `adb connect SERIAL`, then polls `adb -s SERIAL get-state` until `device` (10 s deadline).
pub async fn connect_adb(
    serial: &str,
    adb: &Path,
    adb_server_port: Option<u16>,
) -> Result<(), VdError> {
    let out = adb_run(adb, adb_server_port, &["connect", serial]).await?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let state = adb_run(adb, adb_server_port, &["-s", serial, "get-state"]).await?;
        if state.trim() == "device" {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            let why = if state.contains("unauthorized") {
                " — the virtual device accepts only the adb keys of the user running it \
                 (~/.android/adbkey, ADB_VENDOR_KEYS); an adb server started by another user or \
                 with another HOME signs with other keys: stop it (`adb kill-server`)"
            } else {
                ""
            };
            return Err(VdError::Adb(format!(
                "{serial} not ready: {} / {}{why}",
                out.trim(),
                state.trim()
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
