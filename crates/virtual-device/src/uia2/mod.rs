//! A stand-in for Appium's UiAutomator2 server, as a phone runs it once the two APKs of npm
//! `appium-uiautomator2-server` are installed: `am instrument -w … io.appium.uiautomator2.
//! server.test/androidx.test.runner.AndroidJUnitRunner` ([`instrument`]) starts the server in
//! the process of `io.appium.uiautomator2.server` (a pid in `ps -A`, `pidof`), listening on
//! device port 6790 (in the device's socket table, [`crate::sockets`], so `adb forward tcp:0
//! tcp:6790` reaches it), speaking the server's HTTP/JSON protocol ([`http`]).
//!
//! This module owns the server's lifecycle: it stops after answering `DELETE /session/:id`
//! (its one test then ends: `OK (1 test)`), on `am force-stop` of either package, when
//! another instrumentation of it starts (ActivityManager force-stops the target first), and
//! on the `uia2 die` fault (the last three: its process died, `Process crashed.`). Closing the
//! adb shell that ran `am instrument -w` does not stop it: the server lives in the app's
//! process, not in `am`. Faults (`uia2 garbage|hang|die|normal` on the control socket):
//! [`Fault`].

mod actions;
mod http;
pub mod instrument;
mod source;

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::sockets::Binding;
use crate::Device;

/// The server's package (its process's name) and the instrumentation's test package.
pub const SERVER_PKG: &str = "io.appium.uiautomator2.server";
pub const TEST_PKG: &str = "io.appium.uiautomator2.server.test";
/// The instrumentation runner the test package declares.
pub const RUNNER: &str = "androidx.test.runner.AndroidJUnitRunner";
/// Where the server listens on the device (`ServerConfig.DEFAULT_SERVER_PORT`).
pub const PORT_SPEC: &str = "tcp:6790";

/// How the server's run ended, as the `am instrument -w` waiting on it reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Its test returned (`DELETE /session`): `OK (1 test)`.
    Finished,
    /// Its process died (force-stop, a new instrumentation, the `die` fault, a failed bind).
    Crashed,
}

/// How the running server misbehaves (control `uia2 …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fault {
    /// Answers as the real server does.
    #[default]
    Normal,
    /// Answers every request 200 with a body that is not JSON.
    Garbage,
    /// Accepts requests and never answers them.
    Hang,
}

struct Running {
    pid: u32,
    ended: watch::Sender<Option<End>>,
    accept: JoinHandle<()>,
    _port: Binding,
}

/// The server of one device: running or not, and its fault knob.
#[derive(Default)]
pub struct Uia2 {
    running: Mutex<Option<Running>>,
    fault: Mutex<Fault>,
}

impl Uia2 {
    fn running(&self) -> MutexGuard<'_, Option<Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn fault(&self) -> Fault {
        *self.fault.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn set_fault(&self, f: Fault) {
        *self.fault.lock().unwrap_or_else(|e| e.into_inner()) = f;
    }

    /// The server process's pid while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.running().as_ref().map(|r| r.pid)
    }
}

/// Starts the server in a new process of [`SERVER_PKG`]; the receiver learns how it ended.
/// When device port 6790 is taken the server cannot bind and its process crashes at once
/// (the receiver already holds [`End::Crashed`]).
pub async fn start(dev: &Arc<Device>) -> watch::Receiver<Option<End>> {
    // ActivityManager force-stops the target package before it instruments it.
    stop(dev, End::Crashed, "start instr");
    let (ended, rx) = watch::channel(None);
    let pid = dev
        .state()
        .start_other_process(SERVER_PKG, &format!("added application {SERVER_PKG}"));
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => return crash(dev, pid, ended, &format!("java.net.SocketException: {e}")),
    };
    let port = match listener
        .local_addr()
        .map(|a| dev.sockets.bind(PORT_SPEC, a))
    {
        Ok(Ok(b)) => b,
        _ => {
            let why = "io.netty.channel.unix.Errors$NativeIoException: bind(..) failed: Address already in use";
            return crash(dev, pid, ended, why);
        }
    };
    let server = http::Server::new(dev.clone(), rx.clone());
    let accept = tokio::spawn(http::serve(server, listener));
    *dev.uia2.running() = Some(Running {
        pid,
        ended,
        accept,
        _port: port,
    });
    dev.state().log(
        'I',
        "AppiumUiAutomator2Server",
        "io.appium.uiautomator2.http.HttpServer: Started UiAutomator2 io.appium.uiautomator2.http server on port 6790",
    );
    rx
}

/// The server's process throws `why` on its HTTP thread and dies.
fn crash(
    dev: &Device,
    pid: u32,
    ended: watch::Sender<Option<End>>,
    why: &str,
) -> watch::Receiver<Option<End>> {
    let mut st = dev.state();
    st.log(
        'E',
        "AndroidRuntime",
        &format!(
            "FATAL EXCEPTION: UiAutomator2HttpServer\nProcess: {SERVER_PKG}, PID: {pid}\n{why}"
        ),
    );
    st.end_other_process(pid, "crash");
    ended.send_replace(Some(End::Crashed));
    ended.subscribe()
}

/// Stops the running server (if any): its port closes, its connections drop, its process
/// ends, and whoever waits on it learns `end`. `reason` is what the log says.
pub fn stop(dev: &Device, end: End, reason: &str) {
    let Some(r) = dev.uia2.running().take() else {
        return;
    };
    r.accept.abort();
    r.ended.send_replace(Some(end));
    dev.state().end_other_process(r.pid, reason);
}

/// The `uia2 die` fault: the server's process throws and dies now.
pub fn die(dev: &Device) {
    if let Some(pid) = dev.uia2.pid() {
        dev.state().log(
            'E',
            "AndroidRuntime",
            &format!("FATAL EXCEPTION: UiAutomator2HttpServer\nProcess: {SERVER_PKG}, PID: {pid}\njava.lang.OutOfMemoryError: Failed to allocate"),
        );
    }
    stop(dev, End::Crashed, "crash");
}

/// Whether stopping `package` stops the server (its own or its test's).
pub fn is_server_package(package: &str) -> bool {
    package == SERVER_PKG || package == TEST_PKG
}

/// `am force-stop PKG` (or `pm clear PKG`) of the server's or the test's package.
pub fn force_stop(dev: &Device, package: &str) {
    if is_server_package(package) {
        stop(dev, End::Crashed, "force-stop");
    }
}
