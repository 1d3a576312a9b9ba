//! The device state around the scripted app: the live copy of each screen, the focused
//! field and typed text, the keyboard and launcher windows, packages, settings, the log and
//! the app's process (see [`lifecycle`]: its pid, crashes, a blocked main thread and ANRs).
//!
//! Behaviour: tapping an `EditText` focuses it and shows the keyboard window (package
//! `com.google.android.inputmethod.latin`, bottom 40% of the screen); `input text` appends to
//! the focused field (`%s` → space), `DEL` deletes the last character, BACK hides the keyboard
//! first, a tap on a key of the keyboard window types that letter; tapping a checkable node
//! toggles `checked`; password fields dump bullets. Typed text survives navigation and is reset
//! by `am force-stop`/`pm clear`. Away from the app (HOME, force-stop) the screen is a
//! launcher with one icon (tap it to launch the app). What the app does also costs it CPU
//! time, frames and memory ([`perf`]). A screen whose `devtools` is `chrome` is a Chrome Custom
//! Tab over the app: Chrome's process (the package of the screen's activity) runs while it is
//! the app's screen, and ends when it closes (BACK, "Close tab", the app stopped).

pub mod frames;
mod lifecycle;
pub mod perf;
mod rotation;
mod shade;
pub mod web;

use std::collections::{BTreeMap, BTreeSet};

use super::app::{App, Devtools, ScreenSpec, Transition};
use super::log::{Buffer, DeviceLog};
use super::uixml::{Hierarchy, Node, Rect};

pub use lifecycle::{
    Process, IME_PID, INIT_PID, LAUNCHER_PID, SYSTEM_SERVER_PID, SYSTEM_SERVER_TID, ZYGOTE_PID,
};
pub use shade::Posted;

pub const LAUNCHER_PKG: &str = "com.android.launcher3";
pub const IME_PKG: &str = "com.google.android.inputmethod.latin";
/// What the app throws when started with the `crash-on-launch` knob on.
const LAUNCH_CRASH: &str =
    "java.lang.NullPointerException: Attempt to invoke virtual method on a null object reference";

/// Everything mutable on the device: the app's screens and focus, packages, settings, logs.
pub struct DeviceState {
    pub app: App,
    live: BTreeMap<String, Hierarchy>,
    typed: BTreeMap<(String, Vec<usize>), String>,
    pub screen: String,
    pub foreground: bool,
    pub running: bool,
    history: Vec<String>,
    pub focused: Option<Vec<usize>>,
    pub installed: BTreeMap<String, String>,
    /// The instrumentations installed packages declare: package → (runner class, target).
    pub instrumentations: BTreeMap<String, Vec<(String, String)>>,
    /// Other apps' processes running (an instrumentation's, Chrome's): pid → process name.
    pub others: BTreeMap<u32, String>,
    /// Chrome's process (one of `others`) while a Custom Tab is the app's screen.
    tab_pid: Option<u32>,
    pub permissions: BTreeSet<(String, String)>,
    pub settings: BTreeMap<(String, String), String>,
    pub props: BTreeMap<String, String>,
    pub log: DeviceLog,
    pub last_url: Option<String>,
    /// The clipboard's text (`cmd clipboard set-text` / `get-text`).
    pub clipboard: Option<String>,
    /// Posted notifications, oldest first, and whether the shade is open (see [`shade`]).
    pub notifications: Vec<Posted>,
    pub shade_open: bool,
    /// Files the media scanner was told about (`MEDIA_SCANNER_SCAN_FILE`), as `file://` URIs.
    pub media: Vec<String>,
    /// The app's process: its pid while running, a blocked main thread, ANR timing.
    pub process: Process,
    /// A transition waiting for its API call (made without the state's lock).
    pub pending_http: Option<(crate::app::HttpStep, String)>,
    /// The device clock (uptime).
    clock: perf::Clock,
    /// The app process's CPU, frames and memory (its last run's once it ended).
    pub perf: perf::AppPerf,
    /// How many times a screen of the app was shown (a WebView's Chromium that
    /// was killed comes back when its screen is shown anew).
    pub shows: u64,
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl DeviceState {
    pub fn new(app: App) -> DeviceState {
        let mut settings = BTreeMap::new();
        settings.insert(
            ("secure".into(), "default_input_method".into()),
            format!("{IME_PKG}/com.android.inputmethod.latin.LatinIME"),
        );
        settings.insert(("global".into(), "airplane_mode_on".into()), "0".into());
        settings.insert(("system".into(), "screen_brightness".into()), "128".into());
        // Auto-rotate on, the device held upright: rotation 0 until it is locked elsewhere.
        settings.insert(
            ("system".into(), "accelerometer_rotation".into()),
            "1".into(),
        );
        settings.insert(("system".into(), "user_rotation".into()), "0".into());
        let mut s = DeviceState {
            live: app.screens.clone(),
            screen: app.spec.initial.clone(),
            app,
            typed: BTreeMap::new(),
            foreground: true,
            running: true,
            history: Vec::new(),
            focused: None,
            installed: BTreeMap::new(),
            instrumentations: BTreeMap::new(),
            others: BTreeMap::new(),
            tab_pid: None,
            permissions: BTreeSet::new(),
            settings,
            props: BTreeMap::new(),
            log: DeviceLog::default(),
            last_url: None,
            clipboard: None,
            notifications: Vec::new(),
            shade_open: false,
            media: Vec::new(),
            process: Process::default(),
            pending_http: None,
            clock: perf::Clock::default(),
            perf: perf::AppPerf::new(0, 0, ""),
            shows: 0,
        };
        s.boot();
        s.start_process();
        s.screen_shown();
        s.sync_tab_process();
        s
    }

    /// A line from the system server (ActivityManager, PackageManager…) in the system buffer.
    pub fn log(&mut self, level: char, tag: &str, msg: &str) {
        self.log.push(
            Buffer::System,
            SYSTEM_SERVER_PID,
            lifecycle::SYSTEM_SERVER_TID,
            level,
            tag,
            msg,
        );
    }

    /// A line from the app's main thread, in the main buffer (nothing when it is not running).
    pub fn app_log(&mut self, level: char, tag: &str, msg: &str) {
        if self.running {
            let pid = self.process.pid;
            self.log.push(Buffer::Main, pid, pid, level, tag, msg);
        }
    }

    pub fn keyboard_visible(&self) -> bool {
        self.foreground && self.focused.is_some()
    }

    fn keyboard_rect(&self) -> Rect {
        let (w, h) = self.app.size;
        Rect {
            x1: 0,
            y1: (h as i32) * 6 / 10,
            x2: w as i32,
            y2: h as i32,
        }
    }

    /// The package in the foreground (the launcher when the app is not).
    pub fn foreground_package(&self) -> String {
        let comp = self.focused_component();
        comp.split('/').next().unwrap_or_default().to_string()
    }

    /// The focused activity as `pkg/.Activity`.
    pub fn focused_component(&self) -> String {
        if self.foreground {
            self.app.component(&self.screen)
        } else {
            format!("{LAUNCHER_PKG}/.uioverride.QuickstepLauncher")
        }
    }

    /// The current screen as a hierarchy, with typed text, focus and the keyboard applied, laid
    /// out upright (see [`rotation`] for the screen as it is shown).
    fn portrait(&self) -> Hierarchy {
        if self.shade_open {
            return self.shade();
        }
        if !self.foreground {
            return self.home();
        }
        let mut h = self.live.get(&self.screen).cloned().unwrap_or_default();
        for ((screen, path), value) in &self.typed {
            if screen != &self.screen {
                continue;
            }
            if let Some(n) = h.node_mut(path) {
                let shown = if n.flag("password") {
                    "•".repeat(value.chars().count())
                } else {
                    value.clone()
                };
                n.set("text", &shown);
            }
        }
        if let Some(path) = &self.focused {
            let field = h.node(path).map(Node::bounds);
            if let Some(n) = h.node_mut(path) {
                n.set("focused", "true");
            }
            // As Android's adjustPan does: the app's window moves up so that the field the
            // keyboard was opened for stays above it.
            let lift = field.map_or(0, |f| f.y2 + PAN_MARGIN - self.keyboard_rect().y1);
            if lift > 0 {
                for root in h.roots.iter_mut() {
                    if root.get("package") == self.app.spec.package {
                        shift_down(root, -lift);
                    }
                }
            }
            h.roots.push(self.keyboard());
        }
        h
    }

    fn keyboard(&self) -> Node {
        let r = self.keyboard_rect();
        let node = |class: &str, id: &str, desc: &str, b: Rect, clickable: bool| {
            let mut n = Node::default();
            for (k, v) in [
                ("index", "0"),
                ("text", ""),
                ("resource-id", id),
                ("class", class),
                ("package", IME_PKG),
                ("content-desc", desc),
                ("checkable", "false"),
                ("checked", "false"),
                ("clickable", if clickable { "true" } else { "false" }),
                ("enabled", "true"),
                ("focusable", "false"),
                ("focused", "false"),
                ("scrollable", "false"),
                ("long-clickable", "false"),
                ("password", "false"),
                ("selected", "false"),
            ] {
                n.set(k, v);
            }
            n.set("bounds", &format!("[{},{}][{},{}]", b.x1, b.y1, b.x2, b.y2));
            n
        };
        let mut root = node("android.widget.FrameLayout", "", "", r, false);
        let mut keys = node(
            "android.widget.FrameLayout",
            &format!("{IME_PKG}:id/keyboard_holder"),
            "",
            r,
            false,
        );
        let row_h = (r.y2 - r.y1) / 5;
        let key_w = (r.x2 - r.x1) / 10;
        for (row, letters) in ["qwertyuiop", "asdfghjkl", "zxcvbnm"].iter().enumerate() {
            for (i, ch) in letters.chars().enumerate() {
                let x1 = r.x1 + i as i32 * key_w + row as i32 * key_w / 2;
                let y1 = r.y1 + row_h / 2 + row as i32 * row_h;
                let b = Rect {
                    x1,
                    y1,
                    x2: x1 + key_w,
                    y2: y1 + row_h,
                };
                let mut k = node(
                    "android.widget.FrameLayout",
                    &format!("{IME_PKG}:id/key_pos_{row}_{i}"),
                    &ch.to_string(),
                    b,
                    true,
                );
                k.set("index", &i.to_string());
                keys.children.push(k);
            }
        }
        root.children.push(keys);
        root
    }

    /// The launcher: one icon per launchable app.
    fn home(&self) -> Hierarchy {
        let (w, h) = self.app.size;
        let xml = format!(
            "<hierarchy rotation=\"0\"><node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" package=\"{LAUNCHER_PKG}\" content-desc=\"\" checkable=\"false\" checked=\"false\" clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" scrollable=\"false\" long-clickable=\"false\" password=\"false\" selected=\"false\" bounds=\"[0,0][{w},{h}]\"><node index=\"0\" text=\"{label}\" resource-id=\"{LAUNCHER_PKG}:id/icon\" class=\"android.widget.TextView\" package=\"{LAUNCHER_PKG}\" content-desc=\"{label}\" checkable=\"false\" checked=\"false\" clickable=\"true\" enabled=\"true\" focusable=\"true\" focused=\"false\" scrollable=\"false\" long-clickable=\"true\" password=\"false\" selected=\"false\" bounds=\"[{x1},{y1}][{x2},{y2}]\" /></node></hierarchy>",
            label = self.app.spec.label.replace('"', "&quot;"),
            x1 = w / 20,
            y1 = h / 10,
            x2 = w / 20 + w / 5,
            y2 = h / 10 + w / 5,
        );
        Hierarchy::parse(&xml).unwrap_or_default()
    }

    fn spec(&self) -> Option<&ScreenSpec> {
        self.app.spec.screens.get(&self.screen)
    }

    /// Shows the app's screen `name` in front (the `screen NAME` control, for tests of
    /// screens no tap leads to); false when the app has no such screen.
    pub fn show_screen(&mut self, name: &str) -> bool {
        if !self.app.spec.screens.contains_key(name) {
            return false;
        }
        self.foreground = true;
        self.go(name);
        true
    }

    fn go(&mut self, to: &str) {
        self.unfocus();
        match to {
            "@home" => self.foreground = false,
            "@back" => match self.history.pop() {
                Some(prev) => {
                    self.screen = prev;
                    self.shows += 1;
                    self.note(perf::Work::Screen(self.screen.clone()));
                }
                None => self.foreground = false,
            },
            name if self.app.spec.screens.contains_key(name) => {
                let prev = std::mem::replace(&mut self.screen, name.to_string());
                self.history.push(prev);
                let comp = self.app.component(name);
                self.log(
                    'I',
                    "ActivityTaskManager",
                    &format!("Displayed {comp}: +120ms"),
                );
                self.note(perf::Work::Screen(name.to_string()));
                self.screen_shown();
            }
            _ => {}
        }
        self.sync_tab_process();
    }

    /// The package whose process shows the app's current screen when it is a Custom Tab
    /// (`devtools: chrome`): its activity's.
    fn tab_package(&self) -> Option<String> {
        let spec = self.spec()?;
        if spec.devtools != Devtools::Chrome {
            return None;
        }
        let comp = self.app.component(&self.screen);
        comp.split_once('/').map(|(pkg, _)| pkg.to_string())
    }

    /// Chrome's process while a Custom Tab is the app's screen (its pid: `pidof`).
    pub fn tab_pid(&self) -> Option<u32> {
        self.tab_pid.filter(|p| self.others.contains_key(p))
    }

    /// Starts Chrome's process when a Custom Tab became the app's screen, ends it when the tab
    /// closed (another screen, the app stopped).
    fn sync_tab_process(&mut self) {
        let want = if self.running {
            self.tab_package()
        } else {
            None
        };
        let have = self
            .tab_pid()
            .and_then(|p| self.others.get(&p).map(|n| (p, n.clone())));
        if let (Some(w), Some((_, h))) = (&want, &have) {
            if w == h {
                return;
            }
        }
        if let Some((pid, _)) = have {
            self.end_other_process(pid, "cch CEM");
        }
        self.tab_pid = want.map(|pkg| {
            let comp = self.app.component(&self.screen);
            self.start_other_process(&pkg, &format!("top-activity {{{comp}}}"))
        });
    }

    /// `am force-stop PACKAGE` of another app: a Custom Tab its process shows closes (the
    /// screen before it comes back).
    pub fn force_stop_other(&mut self, package: &str) {
        if self.tab_package().as_deref() == Some(package) && self.tab_pid().is_some() {
            self.unfocus();
            self.go("@back");
        }
    }

    /// Writes the texts `t` carries from inside the element at `hit` (of `h`) into the screen
    /// it moves to.
    fn carry(&mut self, h: &Hierarchy, hit: &[usize], t: &Transition) {
        for (from, to) in &t.carry {
            let text = h
                .walk()
                .into_iter()
                .find(|(p, n)| p.starts_with(hit) && n.get("resource-id") == from)
                .map(|(_, n)| n.get("text").to_string());
            let Some(text) = text else { continue };
            let Some(target) = self.live.get_mut(&t.to) else {
                continue;
            };
            let path = target
                .walk()
                .into_iter()
                .find(|(_, n)| n.get("resource-id") == to)
                .map(|(p, _)| p);
            if let Some(n) = path.and_then(|p| target.node_mut(&p)) {
                n.set("text", &text);
            }
        }
    }

    /// Fires a transition: the app's log lines, then the move (or the crash, or the freeze).
    fn fire(&mut self, t: &Transition) {
        for line in &t.log {
            if let Some((level, tag, msg)) = super::app::app_log_line(line) {
                self.app_log(level, tag, msg);
            }
        }
        if let Some(step) = &t.http {
            if crate::demo_api::configured(self) {
                self.pending_http = Some((step.clone(), t.to.clone()));
                return;
            }
        }
        match t.to.as_str() {
            "@crash" => self.crash(t.throw.as_deref(), "onClick"),
            "@freeze" => self.freeze(),
            to => self.go(to),
        }
    }

    /// A transition's API call answered `outcome` (a status, or why there was none): the app
    /// logs it and moves on, to the transition's screen on 2xx, else to its `fail_to`.
    pub fn finish_http(
        &mut self,
        step: &crate::app::HttpStep,
        to: &str,
        outcome: Result<u16, String>,
    ) {
        let call = format!("{} {}", step.method, step.path);
        match outcome {
            Ok(s) if (200..300).contains(&s) => {
                self.app_log('I', "DemoApp", &format!("{call}: HTTP {s}"));
                self.go(to);
            }
            Ok(s) => {
                self.app_log(
                    'E',
                    "DemoApp",
                    &format!("sign-in failed: {call} answered HTTP {s}"),
                );
                self.go(&step.fail_to);
            }
            Err(e) => {
                self.app_log('E', "DemoApp", &format!("sign-in failed: {call}: {e}"));
                self.go(&step.fail_to);
            }
        }
    }

    /// The app logs what the screen now shown logs.
    fn screen_shown(&mut self) {
        self.shows += 1;
        let lines = self.spec().map(|s| s.logs.clone()).unwrap_or_default();
        for line in lines {
            if let Some((level, tag, msg)) = super::app::app_log_line(&line) {
                self.app_log(level, tag, msg);
            }
        }
    }

    fn unfocus(&mut self) {
        if let Some(path) = self.focused.take() {
            if let Some(n) = self
                .live
                .get_mut(&self.screen)
                .and_then(|h| h.node_mut(&path))
            {
                n.set("focused", "false");
            }
        }
    }

    /// Hit chain at a point: the topmost node containing it, then its ancestors.
    fn hit(&self, h: &Hierarchy, x: i32, y: i32) -> Vec<Vec<usize>> {
        let Some((path, _)) = h
            .walk()
            .into_iter()
            .rev()
            .find(|(_, n)| n.bounds().contains(x, y))
        else {
            return Vec::new();
        };
        (1..=path.len()).rev().map(|l| path[..l].to_vec()).collect()
    }

    /// A tap (or a long press when `long`); returns a description for the log.
    pub fn tap(&mut self, x: i32, y: i32, long: bool) {
        let (x, y) = self.to_portrait(x, y);
        if !self.foreground {
            let h = self.home();
            let on_icon = self
                .hit(&h, x, y)
                .first()
                .and_then(|p| h.node(p))
                .map(|n| n.get("resource-id").ends_with(":id/icon"));
            if on_icon == Some(true) {
                self.launch(None);
            }
            return;
        }
        if self.input_blocked() {
            return;
        }
        self.note(perf::Work::Tap);
        if self.keyboard_visible() && self.keyboard_rect().contains(x, y) {
            // A key of the on-screen keyboard types its letter.
            let h = self.portrait();
            let key = self
                .hit(&h, x, y)
                .first()
                .and_then(|p| h.node(p))
                .map(|n| n.get("content-desc").to_string());
            if let Some(k) = key.filter(|k| k.chars().count() == 1) {
                self.type_text(&k);
            }
            return;
        }
        let h = self.portrait();
        let chain = self.hit(&h, x, y);
        let transitions = self
            .spec()
            .map(|s| s.transitions.clone())
            .unwrap_or_default();
        for t in &transitions {
            let sel = if long { &t.long_press } else { &t.tap };
            let Some(sel) = sel else { continue };
            if let Some(hit) = chain
                .iter()
                .find(|p| h.node(p).is_some_and(|n| sel.matches(n)))
            {
                self.carry(&h, hit, t);
                self.fire(t);
                return;
            }
        }
        if long {
            return;
        }
        if let Some(path) = chain.iter().find(|p| {
            h.node(p)
                .is_some_and(|n| n.get("class").contains("EditText"))
        }) {
            self.unfocus();
            self.focused = Some(path.clone());
            return;
        }
        if let Some(path) = chain
            .iter()
            .find(|p| h.node(p).is_some_and(|n| n.flag("checkable")))
        {
            if let Some(n) = self
                .live
                .get_mut(&self.screen)
                .and_then(|h| h.node_mut(path))
            {
                let now = !n.flag("checked");
                n.set("checked", if now { "true" } else { "false" });
            }
        }
    }

    /// Types into the focused field; false when no field has focus.
    pub fn type_text(&mut self, text: &str) -> bool {
        let Some(path) = self.focused.clone() else {
            return false;
        };
        if self.input_blocked() {
            return true;
        }
        self.note(perf::Work::Type(text.chars().count()));
        let entry = self
            .typed
            .entry((self.screen.clone(), path.clone()))
            .or_insert_with(|| {
                self.live
                    .get(&self.screen)
                    .and_then(|h| h.node(&path))
                    .map(|n| n.get("text").to_string())
                    .unwrap_or_default()
            });
        entry.push_str(text);
        true
    }

    /// The focused field's text (typed or as the screen had it); `None` without a focus.
    pub fn focused_text(&self) -> Option<String> {
        let path = self.focused.clone()?;
        if let Some(t) = self.typed.get(&(self.screen.clone(), path.clone())) {
            return Some(t.clone());
        }
        Some(
            self.live
                .get(&self.screen)
                .and_then(|h| h.node(&path))
                .map(|n| n.get("text").to_string())
                .unwrap_or_default(),
        )
    }

    /// Sets the focused field's text, as UiAutomator's `setText` does; false without a focus.
    pub fn set_focused_text(&mut self, text: &str) -> bool {
        let Some(path) = self.focused.clone() else {
            return false;
        };
        if self.input_blocked() {
            return true;
        }
        self.note(perf::Work::Type(text.chars().count()));
        self.typed
            .insert((self.screen.clone(), path), text.to_string());
        true
    }

    /// A key event by name (`ENTER`, `DEL`, `BACK`, `HOME`, `A`…).
    pub fn key(&mut self, name: &str) {
        if name != "HOME" && self.input_blocked() {
            return;
        }
        match name {
            "DEL" => {
                if let Some(path) = self.focused.clone() {
                    self.note(perf::Work::Key);
                    let current = self
                        .portrait()
                        .node(&path)
                        .map(|n| n.get("text").to_string())
                        .unwrap_or_default();
                    let entry = self
                        .typed
                        .entry((self.screen.clone(), path))
                        .or_insert(current);
                    entry.pop();
                }
            }
            "BACK" if self.foreground => {
                if self.focused.is_some() {
                    self.unfocus();
                } else {
                    let back = self
                        .spec()
                        .and_then(|s| s.back.clone())
                        .unwrap_or_else(|| "@back".into());
                    self.go(&back);
                }
            }
            "HOME" => {
                self.unfocus();
                self.foreground = false;
            }
            "SPACE" => {
                self.type_text(" ");
            }
            k if k.len() == 1 && k.chars().all(|c| c.is_ascii_alphanumeric()) => {
                self.type_text(&k.to_lowercase());
            }
            other if self.foreground => {
                let transitions = self
                    .spec()
                    .map(|s| s.transitions.clone())
                    .unwrap_or_default();
                if let Some(t) = transitions.iter().find(|t| t.key.as_deref() == Some(other)) {
                    self.fire(t);
                }
            }
            _ => {}
        }
    }

    /// Brings the app to the front: a given screen name, else where it was (or its initial
    /// screen when it was not running). With `crash_on_launch` a start ends in a crash.
    pub fn launch(&mut self, screen: Option<&str>) {
        if self.running {
            self.note(perf::Work::HotStart);
        } else {
            self.running = true;
            self.screen = self.app.spec.initial.clone();
            self.history.clear();
            self.start_process();
            self.screen_shown();
            if self.process.crash_on_launch {
                self.log_start();
                self.crash(Some(LAUNCH_CRASH), "onCreate");
                return;
            }
        }
        self.foreground = true;
        if let Some(s) = screen {
            if s != self.screen {
                self.go(s);
            }
        }
        self.sync_tab_process();
        self.log_start();
    }

    /// Fills the current screen's fields named by its `launch_extras` from the launching
    /// intent's string extras (`(type, key, value)` as `am` parsed them).
    pub fn fill_from_extras(&mut self, extras: &[(String, String, String)]) {
        let Some(fields) = self.spec().map(|s| s.launch_extras.clone()) else {
            return;
        };
        for (kind, key, value) in extras {
            let Some(id) = fields.get(key).filter(|_| kind == "es") else {
                continue;
            };
            let path = self
                .live
                .get(&self.screen)
                .and_then(|h| {
                    h.walk()
                        .into_iter()
                        .find(|(_, n)| n.get("resource-id") == id)
                })
                .map(|(p, _)| p);
            if let Some(path) = path {
                self.typed
                    .insert((self.screen.clone(), path), value.clone());
            }
        }
    }

    /// ActivityTaskManager's line for a start of the app's current activity.
    fn log_start(&mut self) {
        let comp = self.app.component(&self.screen);
        self.log(
            'I',
            "ActivityTaskManager",
            &format!("START u0 {{cmp={comp}}} from uid 2000"),
        );
    }

    /// `am force-stop`: the app leaves, its unsaved state is lost.
    pub fn force_stop(&mut self) {
        self.unfocus();
        self.end_process();
        self.running = false;
        self.foreground = false;
        self.history.clear();
        self.typed.clear();
        self.live = self.app.screens.clone();
        self.screen = self.app.spec.initial.clone();
        self.sync_tab_process();
    }

    /// The screen whose activity (`.Name` or `pkg.Name`) matches.
    pub fn screen_for_activity(&self, activity: &str) -> Option<String> {
        let pkg = &self.app.spec.package;
        let short = activity.strip_prefix(pkg.as_str()).unwrap_or(activity);
        self.app
            .spec
            .screens
            .iter()
            .find(|(_, s)| {
                s.activity == activity
                    || s.activity == short
                    || format!("{pkg}{}", s.activity) == activity
            })
            .map(|(n, _)| n.clone())
    }
}

/// Space kept between a focused field and the keyboard when the window pans.
const PAN_MARGIN: i32 = 24;

/// Moves `node` and everything in it down by `dy` pixels (up when negative).
fn shift_down(node: &mut Node, dy: i32) {
    let b = node.bounds();
    node.set(
        "bounds",
        &format!("[{},{}][{},{}]", b.x1, b.y1 + dy, b.x2, b.y2 + dy),
    );
    for child in &mut node.children {
        shift_down(child, dy);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn centre(h: &Hierarchy, id: &str) -> (i32, i32) {
        let b = bounds_of(h, id);
        ((b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2)
    }

    #[test]
    fn a_string_extra_fills_the_field_its_screen_names() {
        let mut s = DeviceState::new(App::demo().unwrap());
        s.launch(None);
        s.fill_from_extras(&[
            ("ez".into(), "username".into(), "true".into()),
            ("es".into(), "other".into(), "x".into()),
            ("es".into(), "username".into(), "ada".into()),
        ]);
        let user = node(&s.current(), "com.mobilectl.demo:id/username");
        assert_eq!(user.get("text"), "ada");
    }

    #[test]
    fn demo_login_flow() {
        let mut s = DeviceState::new(App::demo().unwrap());
        assert_eq!(s.app.size, (1080, 2400));
        let h = s.current();
        let (x, y) = centre(&h, "com.mobilectl.demo:id/username");
        s.tap(x, y, false);
        assert!(s.keyboard_visible());
        assert!(s.type_text("ada"));
        s.key("DEL");
        let h = s.current();
        let user = node(&h, "com.mobilectl.demo:id/username");
        assert_eq!(user.get("text"), "ad");
        assert_eq!(user.get("focused"), "true");
        assert!(h.walk().iter().any(|(_, n)| n.get("package") == IME_PKG));
        s.key("BACK");
        assert!(!s.keyboard_visible());
        let (x, y) = centre(&s.current(), "com.mobilectl.demo:id/login");
        s.tap(x, y, false);
        assert_eq!(s.screen, "permission");
    }

    #[test]
    fn each_row_of_the_list_opens_its_own_order() {
        let mut s = DeviceState::new(App::demo().unwrap());
        s.screen = "list".into();
        // The third row: a tap on its subtitle, inside the row the transition names.
        let (x, y) = {
            let h = s.current();
            let (p, _) = h
                .walk()
                .into_iter()
                .filter(|(_, n)| n.get("resource-id") == "com.mobilectl.demo:id/item_subtitle")
                .nth(2)
                .unwrap();
            let b = h.node(&p).unwrap().bounds();
            ((b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2)
        };
        s.tap(x, y, false);
        assert_eq!(s.screen, "detail");
        let h = s.current();
        assert_eq!(
            node(&h, "com.mobilectl.demo:id/toolbar_title").get("text"),
            "Order #1003"
        );
        assert_eq!(
            node(&h, "com.mobilectl.demo:id/detail_body").get("text"),
            "Delivered · 5 items"
        );
    }

    #[test]
    fn carry_needs_a_screen_to_carry_to() {
        let json = r#"{"package": "p", "initial": "a", "screens": {"a": {"xml": "a.xml",
            "activity": ".A", "transitions": [{"tap": {"id": "p:id/x"}, "to": "@back",
            "carry": {"p:id/x": "p:id/y"}}]}}}"#;
        let err = App::build(
            json,
            |_| Ok("<hierarchy rotation=\"0\"></hierarchy>".into()),
        )
        .err()
        .unwrap();
        assert!(err.contains("`carry` needs a screen"), "{err}");
    }

    /// The node whose resource-id is `id`.
    fn node(h: &Hierarchy, id: &str) -> crate::uixml::Node {
        h.walk()
            .into_iter()
            .find(|(_, n)| n.get("resource-id") == id)
            .expect(id)
            .1
            .clone()
    }

    fn bounds_of(h: &Hierarchy, id: &str) -> Rect {
        node(h, id).bounds()
    }

    #[test]
    fn the_window_pans_so_the_keyboard_never_covers_the_focused_field() {
        let mut s = DeviceState::new(App::demo().unwrap());
        s.screen = "detail".into();
        let reply = "com.mobilectl.demo:id/reply";
        let before = bounds_of(&s.current(), reply);
        assert!(
            before.y2 > s.keyboard_rect().y1,
            "the field is where the keyboard comes"
        );
        let (x, y) = centre(&s.current(), reply);
        s.tap(x, y, false);
        assert!(s.keyboard_visible());
        let h = s.current();
        let after = bounds_of(&h, reply);
        assert_eq!(
            after.y2 + PAN_MARGIN,
            s.keyboard_rect().y1,
            "just above the keyboard"
        );
        assert_eq!(after.y2 - after.y1, before.y2 - before.y1);
        // The whole window moved, and taps follow it: where SEND is drawn, SEND is hit.
        let (sx, sy) = centre(&h, "com.mobilectl.demo:id/send");
        assert!(sy < s.keyboard_rect().y1);
        let hit: Vec<String> = s
            .hit(&h, sx, sy)
            .iter()
            .filter_map(|p| h.node(p))
            .map(|n| n.get("resource-id").to_string())
            .collect();
        assert!(hit.iter().any(|id| id.ends_with(":id/send")), "{hit:?}");
        // A field above the keyboard moves nothing.
        let mut s = DeviceState::new(App::demo().unwrap());
        let user = "com.mobilectl.demo:id/username";
        let before = bounds_of(&s.current(), user);
        let (x, y) = centre(&s.current(), user);
        s.tap(x, y, false);
        assert_eq!(bounds_of(&s.current(), user), before);
    }
}
