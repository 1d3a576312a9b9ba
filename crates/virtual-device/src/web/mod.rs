//! The app's WebView backed by a real headless Chromium, as a debug build's WebView is: while a
//! screen whose `web` names its WebView (the demo's `web` screen, `.HelpActivity`) is shown
//! and the app's WebView debugging is on (`web debug on|off`, on by default), the device runs
//! Chromium ([`chromium`]) and lists `@webview_devtools_remote_<pid>` (the app's pid) in
//! `/proc/net/unix`; a `localabstract:` connection to that name ([`crate::sockets`], what `adb
//! forward` opens) reaches Chromium's DevTools port byte for byte, so `/json/list`,
//! `/json/version` and the page's WebSocket work as on a phone.
//!
//! A Chrome Custom Tab (a screen whose `devtools` is `chrome`, the demo's `tab`) is served the
//! same way, for Chrome's process and on Chrome's fixed socket, `@chrome_devtools_remote`
//! ([`CHROME_SOCKET`]). One Chromium serves the WebView in front: when another one comes in
//! front (the web screen, then the tab) the first's is killed and the socket changes with it.
//!
//! Chromium starts once, lazily, the first time the screen shows (the screen's show count is
//! the key: [`crate::state::DeviceState::shows`]), in a process group of its own, and is
//! killed when the device stops, when the process it serves ends (the app's: force-stop, `pm
//! clear`, a crash, or is replaced; Chrome's: the tab closed), when another WebView comes in
//! front, on `web debug off` and on the `web kill` fault; the WebView is then
//! bare (no socket, nothing drawn) until the screen is shown anew. Without a Chromium on the
//! host the WebView stays bare and the journal says why.
//!
//! The page ([`page`], [`pages`]) is sized like the WebView ([`input::Viewport`]: its bounds in
//! CSS pixels at the density's scale, `mobile`, touch on); screenshots, touches and keys reach
//! it through [`act`] (`screenrecord` draws only the native screen: its frames follow the
//! hierarchy, and the WebView is bare in them). Everything the device does with Chromium is journaled as
//! `{"web":"start pid=… socket=… port=… ms=…"}`, `{"web":"tap X Y"}` (CSS pixels), `{"web":"kill: …"}`…
//!
//! With `web a11y on` the dumps (`uiautomator dump`, the UiAutomator2 stand-in's page source)
//! show the page inside the WebView as a real WebView exposes it to accessibility services
//! ([`expose`], [`a11y`]); off (the default) the WebView is a bare node.
//!
//! Locks: the device state's lock may be held while this module's is taken, never the reverse.

mod a11y;
pub mod act;
mod cdp;
mod chromium;
pub mod control;
pub mod expose;
pub mod input;
mod page;
pub mod pages;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::watch;

use crate::sockets::Binding;
use crate::state::web::WebView;
use crate::Device;
use input::{Viewport, DENSITY_DPI};
pub use page::Page;

/// Longest anyone waits for a starting Chromium (its start, then its first page's load).
pub const SETTLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The abstract socket name a debuggable WebView of process `pid` listens on.
pub fn socket_name(pid: u32) -> String {
    format!("webview_devtools_remote_{pid}")
}

/// The abstract socket Chrome's DevTools listen on (whatever Chrome's pid).
pub const CHROME_SOCKET: &str = "chrome_devtools_remote";

/// Whom a Chromium serves: a process (the app's, or Chrome's) and its socket's name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Served {
    pid: u32,
    socket: String,
}

impl Served {
    fn of(view: &WebView) -> Served {
        Served {
            pid: view.pid,
            socket: view.socket.clone(),
        }
    }
}

enum Phase {
    /// No Chromium: the WebView is bare.
    Off,
    /// Starting for `served` (its group, once spawned).
    Starting {
        gen: u64,
        served: Served,
        pgid: Option<i32>,
    },
    /// Running, its DevTools port listed as the WebView's socket.
    Running(Running),
}

struct Running {
    gen: u64,
    page: Arc<Page>,
    served: Served,
    pgid: i32,
    port: u16,
    _socket: Binding,
}

struct Inner {
    debug: bool,
    /// Whether dumps show the page inside the WebView (`web a11y on|off`, off by default).
    a11y: bool,
    phase: Phase,
    /// The screens-shown count the last start was for (or the kill happened at): no start
    /// again until a screen is shown anew.
    settled_at: Option<u64>,
    /// Bumped at every start and kill, so that a start that was overtaken knows it.
    gen: u64,
    /// Why the WebView is bare, when it is not by choice.
    why: Option<String>,
}

/// The WebView's Chromium of one device.
pub struct Web {
    inner: Mutex<Inner>,
    /// Bumped whenever the phase changes (waiters watch it).
    changed: watch::Sender<u64>,
    dev: Weak<Device>,
    rt: tokio::runtime::Handle,
    /// Profiles, logs and pages (`web/` in the device's temporary folder, beside its `/`).
    folder: PathBuf,
}

impl Web {
    /// Inside a runtime (it starts Chromium on it).
    pub fn new(dev: Weak<Device>, folder: PathBuf) -> Web {
        Web {
            inner: Mutex::new(Inner {
                debug: true,
                a11y: false,
                phase: Phase::Off,
                settled_at: None,
                gen: 0,
                why: None,
            }),
            changed: watch::channel(0).0,
            dev,
            rt: tokio::runtime::Handle::current(),
            folder,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Runs `f` to its end on the device's runtime, from a blocking thread (an applet's, a
    /// control's, the UiAutomator2 stand-in's handlers).
    pub(crate) fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// The running page (whatever screen is shown).
    pub fn page(&self) -> Option<Arc<Page>> {
        match &self.lock().phase {
            Phase::Running(r) => Some(r.page.clone()),
            _ => None,
        }
    }

    /// The running page when it is the one of `view` (its process, its socket).
    pub(crate) fn page_of(&self, view: &WebView) -> Option<Arc<Page>> {
        match &self.lock().phase {
            Phase::Running(r) if r.served == Served::of(view) => Some(r.page.clone()),
            _ => None,
        }
    }

    /// Waits (on a blocking thread, at most [`SETTLE_TIMEOUT`]) while Chromium starts.
    pub fn wait_settled(&self) {
        let mut rx = self.changed.subscribe();
        let starting = |w: &Web| matches!(w.lock().phase, Phase::Starting { .. });
        self.block_on(async {
            let _ = tokio::time::timeout(SETTLE_TIMEOUT, async {
                while starting(self) {
                    if rx.changed().await.is_err() {
                        return;
                    }
                }
            })
            .await;
        });
    }

    /// `{"debug":true,"running":true,"socket":"webview_devtools_remote_4301","port":…}`
    pub fn json(&self) -> Value {
        let inner = self.lock();
        let mut v = json!({
            "debug": inner.debug,
            "a11y": inner.a11y,
            "running": false,
            "starting": false
        });
        match &inner.phase {
            Phase::Off => {}
            Phase::Starting { .. } => v["starting"] = json!(true),
            Phase::Running(r) => {
                v["running"] = json!(true);
                v["socket"] = json!(r.served.socket);
                v["pid"] = json!(r.served.pid);
                v["port"] = json!(r.port);
                v["chromium_pid"] = json!(r.pgid);
            }
        }
        if let Some(why) = &inner.why {
            v["why"] = json!(why);
        }
        v
    }

    /// Why there is no page (for a control that needs one).
    pub fn why_bare(&self) -> String {
        let inner = self.lock();
        match (&inner.why, inner.debug) {
            (Some(why), _) => why.clone(),
            (None, false) => "the app's WebView debugging is off (web debug on)".into(),
            (None, true) => {
                "no Chromium runs behind the WebView: show the web (or tab) screen".into()
            }
        }
    }

    /// Whether dumps show the page inside the WebView ([`expose`]).
    pub fn a11y(&self) -> bool {
        self.lock().a11y
    }

    /// Turns the page's exposure in dumps on or off (`web a11y on|off`).
    pub fn set_a11y(&self, on: bool) {
        self.lock().a11y = on;
    }

    /// Turns the app's WebView debugging on or off: off kills Chromium; on starts it when the
    /// web screen is shown.
    pub fn set_debug(&self, dev: &Device, on: bool) {
        {
            let mut inner = self.lock();
            inner.debug = on;
            inner.settled_at = None;
            if !on {
                self.kill_locked(&mut inner, dev, "web debug off");
                inner.why = None;
            }
        }
        reconcile(dev);
    }

    /// Kills Chromium now (`why` for the journal); the WebView is bare until shown anew.
    pub fn kill(&self, dev: &Device, why: &str) {
        let mut inner = self.lock();
        self.kill_locked(&mut inner, dev, why);
    }

    fn kill_locked(&self, inner: &mut Inner, dev: &Device, why: &str) {
        let pgid = match std::mem::replace(&mut inner.phase, Phase::Off) {
            Phase::Off => return,
            Phase::Starting { pgid, .. } => pgid,
            Phase::Running(r) => Some(r.pgid),
        };
        if let Some(pgid) = pgid {
            chromium::kill_group(pgid);
        }
        inner.gen += 1;
        inner.why = Some(format!(
            "Chromium was killed ({why}); the WebView is bare until its screen is shown anew"
        ));
        dev.journal.web(&format!("kill: {why}"));
        self.bump();
    }
}

/// Brings Chromium in line with the app: killed when the process it served is gone or another
/// WebView is in front, started when a web screen is shown anew with debugging on. Cheap;
/// called by the device's clock every 20 ms and after every applet and control, so that a
/// force-stop (or a tab's closing) takes the socket away before its command returns.
pub fn reconcile(dev: &Device) {
    let st = dev.state();
    let view = st.web_view();
    let web = &dev.web;
    let mut inner = web.lock();
    let served = match &inner.phase {
        Phase::Off => None,
        Phase::Starting { served, .. } => Some(served.clone()),
        Phase::Running(r) => Some(r.served.clone()),
    };
    if let Some(served) = served {
        if !st.process_alive(served.pid) {
            let whose = if served.socket == CHROME_SOCKET {
                "Chrome's process ended"
            } else {
                "the app's process ended"
            };
            web.kill_locked(&mut inner, dev, whose);
        } else if view.as_ref().is_some_and(|v| Served::of(v) != served) {
            web.kill_locked(&mut inner, dev, "another WebView is in front");
        }
    }
    let Some(view) = view else { return };
    if !inner.debug || !matches!(inner.phase, Phase::Off) || inner.settled_at == Some(view.shows) {
        return;
    }
    let (Some(rect), Some(owner)) = (st.web_view_bounds(), web.dev.upgrade()) else {
        return;
    };
    let screen = st.app.size;
    drop(st);
    inner.settled_at = Some(view.shows);
    inner.gen += 1;
    let gen = inner.gen;
    let served = Served::of(&view);
    inner.phase = Phase::Starting {
        gen,
        served: served.clone(),
        pgid: None,
    };
    inner.why = None;
    web.bump();
    let viewport = Viewport::new(rect, DENSITY_DPI);
    web.rt.spawn(start(owner, gen, served, viewport, screen));
}

/// Chromium stops with the device.
pub fn shutdown(dev: &Device) {
    dev.web.kill(dev, "the device stopped");
}

/// Starts Chromium for `served` and opens the sign-in page; lists its socket once the page
/// has loaded, unless the start was overtaken (killed, debugging off).
async fn start(dev: Arc<Device>, gen: u64, served: Served, viewport: Viewport, screen: (u32, u32)) {
    let t0 = Instant::now();
    let web = &dev.web;
    let outcome = launch(&dev, gen, viewport, screen).await;
    let mut inner = web.lock();
    let current = matches!(inner.phase, Phase::Starting { gen: g, .. } if g == gen);
    match outcome {
        Ok(Launched {
            page,
            pgid,
            port,
            exited,
        }) if current => {
            let name = format!("localabstract:{}", served.socket);
            match dev.sockets.bind(&name, ([127, 0, 0, 1], port).into()) {
                Ok(socket) => {
                    inner.phase = Phase::Running(Running {
                        gen,
                        page,
                        served: served.clone(),
                        pgid,
                        port,
                        _socket: socket,
                    });
                    dev.journal.web(&format!(
                        "start pid={} socket={} port={port} ms={}",
                        served.pid,
                        served.socket,
                        t0.elapsed().as_millis()
                    ));
                    web.rt.spawn(watch_exit(dev.clone(), gen, pgid, exited));
                }
                Err(_) => {
                    chromium::kill_group(pgid);
                    inner.phase = Phase::Off;
                    let why = format!("{name} is taken by another listener");
                    dev.journal.web(&format!("unavailable: {why}"));
                    inner.why = Some(why);
                }
            }
        }
        Ok(overtaken) => chromium::kill_group(overtaken.pgid),
        Err((why, pgid)) => {
            if let Some(pgid) = pgid {
                chromium::kill_group(pgid);
            }
            if current {
                inner.phase = Phase::Off;
                dev.journal.web(&format!("unavailable: {why}"));
                inner.why = Some(why);
            }
        }
    }
    drop(inner);
    web.bump();
}

/// Notes Chromium's own death (a crash): the WebView is bare again.
async fn watch_exit(
    dev: Arc<Device>,
    gen: u64,
    pgid: i32,
    mut exited: watch::Receiver<Option<String>>,
) {
    while exited.borrow().is_none() {
        if exited.changed().await.is_err() {
            return;
        }
    }
    let how = exited.borrow().clone().unwrap_or_default();
    let web = &dev.web;
    let mut inner = web.lock();
    if matches!(&inner.phase, Phase::Running(r) if r.gen == gen) {
        chromium::kill_group(pgid);
        inner.phase = Phase::Off;
        inner.gen += 1;
        let why = format!("chromium exited ({how})");
        dev.journal.web(&why);
        inner.why = Some(why);
        drop(inner);
        web.bump();
    }
}

/// What a failed start leaves: why, and the process group to kill.
type Failed = (String, Option<i32>);

/// A Chromium started with its page open.
struct Launched {
    page: Arc<Page>,
    pgid: i32,
    port: u16,
    exited: watch::Receiver<Option<String>>,
}

/// Spawns Chromium, waits for its port, opens the page.
async fn launch(
    dev: &Device,
    gen: u64,
    viewport: Viewport,
    screen: (u32, u32),
) -> Result<Launched, Failed> {
    let web = &dev.web;
    let program = chromium::find().map_err(|e| (e, None))?;
    let url = pages::write(&web.folder.join("pages"))
        .map_err(|e| (format!("writing the pages: {e}"), None))?;
    let profile = web.folder.join(format!("profile-{gen}"));
    let log = web.folder.join(format!("chromium-{gen}.log"));
    let process = chromium::spawn(&program, &profile, &log)
        .await
        .map_err(|e| (e, None))?;
    let pgid = process.pgid;
    {
        let mut inner = web.lock();
        match &mut inner.phase {
            Phase::Starting {
                gen: g, pgid: p, ..
            } if *g == gen => *p = Some(pgid),
            _ => return Err(("overtaken".into(), Some(pgid))),
        }
    }
    let (port, path) = chromium::wait_port(&process, &profile, &log)
        .await
        .map_err(|e| (e, Some(pgid)))?;
    let ws = format!("ws://127.0.0.1:{port}{path}");
    let page = Page::open(&ws, viewport, screen, &url)
        .await
        .map_err(|e| (e, Some(pgid)))?;
    Ok(Launched {
        page: Arc::new(page),
        pgid,
        port,
        exited: process.exited,
    })
}
