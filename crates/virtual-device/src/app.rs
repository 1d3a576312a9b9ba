//! The scripted app and the device state around it.
//!
//! An app is a folder (or the embedded demo) with `app.json` and one uiautomator XML dump per
//! screen:
//!
//! ```json
//! {
//!   "package": "com.mobilectl.demo", "label": "Mobilectl Demo", "initial": "login",
//!   "screen": [1080, 2400],
//!   "screens": {
//!     "login": { "xml": "login.xml", "activity": ".LoginActivity", "back": "@home",
//!                "transitions": [ { "tap": { "id": "com.mobilectl.demo:id/login" }, "to": "permission" },
//!                                 { "key": "ENTER", "to": "permission" } ] }
//!   }
//! }
//! ```
//!
//! `screen` is optional (default: the largest root bounds of the initial screen). Selectors
//! match on `id` (resource-id), `text` or `desc` (content-desc); every given field must be equal.
//! A transition fires on `tap` (a tap whose topmost hit node or one of its ancestors matches),
//! `long_press` (a zero-distance swipe of at least 500 ms) or `key` (a key event name such as
//! `ENTER`). Targets are screen names, `@back` (previous screen) or `@home` (launcher).
//! `back` names the screen the BACK key leads to (default: the previous one, else home).
//!
//! What the app does besides moving between screens: a transition may write `log` lines
//! (`"W Tag: message"`, from the app's process) when it fires, and a screen its `logs` each time
//! it is shown. Two more targets act on the process: `@crash` throws an uncaught exception
//! (`throw`, e.g. `"java.lang.IllegalStateException: boom"`: a `FATAL EXCEPTION` in the crash
//! buffer, the process killed, the launcher in front) and `@freeze` blocks the main thread (for
//! the device's `freeze-ms`), which ends in an ANR when input waits longer than `anr-timeout`.
//! A transition may call the app's API first (`http`: method, path, body, `fail_to`): see
//! [`crate::demo_api`]. A tap's transition may `carry` texts from inside the element tapped
//! to the screen it opens (`{"…:id/item_title": "…:id/toolbar_title"}`), so each row of a list
//! opens a detail of its own. A screen's `web` names its WebView (`"web":
//! "com.mobilectl.demo:id/help_web"`, or `""` for a WebView without one) when a real Chromium
//! should stand behind it (`web`); its `devtools` says whose DevTools socket that is: the app's
//! WebView's (`"webview"`, the default: `webview_devtools_remote_<pid>`) or Chrome's
//! (`"chrome"`: the screen is a Chrome Custom Tab over the app, run by Chrome's own process —
//! the package of the screen's `activity` — and its socket is `chrome_devtools_remote`).
//!
//! How taps, keys and typing change the screens: see [`super::state`].

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::uixml::{Hierarchy, Node};

#[derive(Debug, Clone, Deserialize, Default)]
pub struct Selector {
    pub id: Option<String>,
    pub text: Option<String>,
    pub desc: Option<String>,
}

impl Selector {
    /// True when every given field equals the node's attribute (and at least one is given).
    pub fn matches(&self, n: &Node) -> bool {
        let any = self.id.is_some() || self.text.is_some() || self.desc.is_some();
        any && self.id.as_deref().is_none_or(|v| n.get("resource-id") == v)
            && self.text.as_deref().is_none_or(|v| n.get("text") == v)
            && self
                .desc
                .as_deref()
                .is_none_or(|v| n.get("content-desc") == v)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Transition {
    #[serde(default)]
    pub tap: Option<Selector>,
    #[serde(default)]
    pub long_press: Option<Selector>,
    #[serde(default)]
    pub key: Option<String>,
    pub to: String,
    /// Lines the app logs when the transition fires (`"L Tag: message"`).
    #[serde(default)]
    pub log: Vec<String>,
    /// For `@crash`: the exception thrown, `class: message`.
    #[serde(default)]
    pub throw: Option<String>,
    /// A call to the app's API before the move (see [`crate::demo_api`]).
    #[serde(default)]
    pub http: Option<HttpStep>,
    /// Texts the screen moved to takes from the element tapped: resource-id of a node inside
    /// it → resource-id of the node on the new screen that shows its text (a list row opens
    /// its own detail).
    #[serde(default)]
    pub carry: BTreeMap<String, String>,
}

/// A call to the app's API a transition makes: `to` when it answers 2xx, `fail_to` otherwise.
#[derive(Debug, Clone, Deserialize)]
pub struct HttpStep {
    pub method: String,
    pub path: String,
    #[serde(default)]
    pub body: Option<String>,
    pub fail_to: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ScreenSpec {
    pub xml: String,
    pub activity: String,
    #[serde(default)]
    pub back: Option<String>,
    #[serde(default)]
    pub transitions: Vec<Transition>,
    /// Lines the app logs each time the screen is shown (`"L Tag: message"`).
    #[serde(default)]
    pub logs: Vec<String>,
    /// Fields a launch fills from the intent's string extras: extra name → the field's
    /// `resource-id` (`am start … --es username ada` shows `ada` in the username field).
    #[serde(default)]
    pub launch_extras: BTreeMap<String, String>,
    /// The `resource-id` of a WebView on the screen whose page a real headless Chromium
    /// draws and takes input for, with a DevTools socket as a debuggable app has (see
    /// `web`); without it a WebView shows nothing.
    #[serde(default)]
    pub web: Option<String>,
    /// Whose WebView `web` is: the app's, or Chrome's (a Custom Tab).
    #[serde(default)]
    pub devtools: Devtools,
}

/// Whose DevTools socket a screen's WebView has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Devtools {
    /// The app's own WebView: `webview_devtools_remote_<the app's pid>`.
    #[default]
    Webview,
    /// Chrome's (a Custom Tab): `chrome_devtools_remote`, in Chrome's process.
    Chrome,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AppSpec {
    pub package: String,
    #[serde(default)]
    pub label: String,
    pub initial: String,
    #[serde(default)]
    pub screen: Option<[u32; 2]>,
    pub screens: BTreeMap<String, ScreenSpec>,
}

/// A log line of app.json, `"L Tag: message"`: (level, tag, message).
pub fn app_log_line(line: &str) -> Option<(char, &str, &str)> {
    let mut chars = line.chars();
    let level = chars.next().filter(|c| "VDIWEF".contains(*c))?;
    let rest = chars.as_str().strip_prefix(' ')?;
    let (tag, msg) = rest.split_once(": ")?;
    (!tag.is_empty()).then_some((level, tag, msg))
}

/// An app ready to run: its spec and every screen parsed.
#[derive(Debug, Clone)]
pub struct App {
    pub spec: AppSpec,
    pub screens: BTreeMap<String, Hierarchy>,
    pub size: (u32, u32),
}

const DEMO_JSON: &str = include_str!("demo/app.json");
const DEMO_FILES: &[(&str, &str)] = &[
    ("login.xml", include_str!("demo/login.xml")),
    ("login_error.xml", include_str!("demo/login_error.xml")),
    ("permission.xml", include_str!("demo/permission.xml")),
    ("list.xml", include_str!("demo/list.xml")),
    ("detail.xml", include_str!("demo/detail.xml")),
    ("a11y.xml", include_str!("demo/a11y.xml")),
    ("web.xml", include_str!("demo/web.xml")),
    ("tab.xml", include_str!("demo/tab.xml")),
];

impl App {
    pub fn demo() -> Result<App, String> {
        App::build(DEMO_JSON, |name| {
            DEMO_FILES
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, x)| x.to_string())
                .ok_or_else(|| format!("demo screen {name} missing"))
        })
    }

    pub fn from_dir(dir: &Path) -> Result<App, String> {
        let json = std::fs::read_to_string(dir.join("app.json"))
            .map_err(|e| format!("{}: {e}", dir.join("app.json").display()))?;
        App::build(&json, |name| {
            std::fs::read_to_string(dir.join(name))
                .map_err(|e| format!("{}: {e}", dir.join(name).display()))
        })
    }

    pub(crate) fn build(
        json: &str,
        load: impl Fn(&str) -> Result<String, String>,
    ) -> Result<App, String> {
        let mut spec: AppSpec = serde_json::from_str(json).map_err(|e| format!("app.json: {e}"))?;
        if spec.label.is_empty() {
            spec.label = spec.package.clone();
        }
        let mut screens = BTreeMap::new();
        for (name, s) in &spec.screens {
            let h = Hierarchy::parse(&load(&s.xml)?).map_err(|e| format!("{}: {e}", s.xml))?;
            screens.insert(name.clone(), h);
            for line in s
                .logs
                .iter()
                .chain(s.transitions.iter().flat_map(|t| &t.log))
            {
                if app_log_line(line).is_none() {
                    return Err(format!(
                        "screen {name}: log line {line:?} is not `L Tag: message`"
                    ));
                }
            }
            for t in &s.transitions {
                if !t.to.starts_with('@') && !spec.screens.contains_key(&t.to) {
                    return Err(format!(
                        "screen {name}: transition to unknown screen {}",
                        t.to
                    ));
                }
                if !t.carry.is_empty() && t.to.starts_with('@') {
                    return Err(format!(
                        "screen {name}: `carry` needs a screen to carry to, not {}",
                        t.to
                    ));
                }
            }
        }
        let initial = screens
            .get(&spec.initial)
            .ok_or_else(|| format!("initial screen {} missing", spec.initial))?;
        let size = match spec.screen {
            Some([w, h]) => (w, h),
            None => initial.roots.iter().fold((1, 1), |(w, h), n| {
                let b = n.bounds();
                (w.max(b.x2.max(0) as u32), h.max(b.y2.max(0) as u32))
            }),
        };
        Ok(App {
            spec,
            screens,
            size,
        })
    }

    /// `pkg/.Activity` → `pkg/pkg.Activity` style full component of a screen.
    pub fn component(&self, screen: &str) -> String {
        let act = self
            .spec
            .screens
            .get(screen)
            .map(|s| s.activity.as_str())
            .unwrap_or(".MainActivity");
        if act.contains('/') {
            act.to_string()
        } else {
            format!("{}/{}", self.spec.package, act)
        }
    }
}
