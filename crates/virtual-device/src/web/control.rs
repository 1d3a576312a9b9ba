//! The `web …` controls (on the device's control socket, see `ipc`):
//!
//! - `web debug on|off` — the app's WebView debugging (`setWebContentsDebuggingEnabled`): on
//!   by default, as in a debug build; off kills Chromium and leaves the WebView bare, with no
//!   socket; on starts it again if the web screen is shown.
//! - `web a11y on|off` — whether the page is exposed to accessibility services: on, the dumps
//!   (`uiautomator dump`, the UiAutomator2 stand-in's page source) show the page's nodes inside
//!   the WebView as a real WebView does ([`super::expose`]); off (the default) the WebView is a
//!   bare node, like one whose app exposes nothing.
//! - `web kill` — a fault: Chromium dies now (its socket goes, forwards to it are refused);
//!   the WebView is bare until its screen is shown anew.
//! - `web eval JS…` — evaluates the words joined by spaces in the page (`Runtime.evaluate`,
//!   promises awaited); prints the value as JSON (`null` for `undefined`); exit 1 with the
//!   exception when it throws.
//! - `web big N` — loads a generated page of about N elements (a list of N/2 links).
//! - `web page login` — back to the sign-in page.
//!
//! Except `web kill` and `web a11y`, each waits (bounded) while Chromium is starting.

use super::pages;
use crate::applets::AppletResult;
use crate::Device;

const USAGE: &str =
    "usage: web debug on|off | web a11y on|off | web kill | web eval JS | web big N | web page login\n";

pub fn run(dev: &Device, args: &[&str]) -> AppletResult {
    match args {
        ["debug", v @ ("on" | "off")] => {
            dev.web.set_debug(dev, *v == "on");
            dev.web.wait_settled();
            AppletResult::ok("ok\n")
        }
        ["a11y", v @ ("on" | "off")] => {
            dev.web.set_a11y(*v == "on");
            dev.journal.web(&format!("a11y {v}"));
            AppletResult::ok("ok\n")
        }
        ["kill"] => {
            dev.web.kill(dev, "web kill");
            AppletResult::ok("ok\n")
        }
        ["eval", js @ ..] if !js.is_empty() => {
            let js = js.join(" ");
            with_page(dev, |page| {
                let r = dev.web.block_on(page.eval(&js));
                dev.journal.web(&format!("eval {}", serde_json::json!(js)));
                match r {
                    Ok(v) => AppletResult::ok(format!("{v}\n")),
                    Err(e) => AppletResult::fail(1, format!("{e}\n")),
                }
            })
        }
        ["big", n] => match n.parse::<usize>() {
            Ok(n) => with_page(dev, |page| {
                let url = match pages::write_big(&dev.web.folder.join("pages"), n) {
                    Ok(u) => u,
                    Err(e) => return AppletResult::fail(1, format!("writing the page: {e}\n")),
                };
                open(dev, page, &url, &format!("big {n}"))
            }),
            Err(_) => AppletResult::fail(2, "web big needs an element count\n"),
        },
        ["page", "login"] => with_page(dev, |page| {
            let url = pages::url(&dev.web.folder.join("pages").join("login.html"));
            open(dev, page, &url, "page login")
        }),
        _ => AppletResult::fail(2, USAGE),
    }
}

/// Runs `f` on the running page, once a start under way settled.
fn with_page(dev: &Device, f: impl FnOnce(&super::Page) -> AppletResult) -> AppletResult {
    dev.web.wait_settled();
    match dev.web.page() {
        Some(page) => f(&page),
        None => AppletResult::fail(1, format!("{}\n", dev.web.why_bare())),
    }
}

fn open(dev: &Device, page: &super::Page, url: &str, what: &str) -> AppletResult {
    match dev.web.block_on(page.navigate(url)) {
        Ok(()) => {
            dev.journal.web(what);
            AppletResult::ok("ok\n")
        }
        Err(e) => AppletResult::fail(1, format!("{e}\n")),
    }
}
