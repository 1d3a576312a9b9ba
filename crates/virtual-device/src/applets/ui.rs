//! `uiautomator dump [--compressed] [FILE]` (default `/sdcard/window_dump.xml`, `/dev/tty`
//! prints the XML) and `screencap [-p] [-d ID] [FILE]` (PNG with `-p` or a `.png` file name,
//! else Android's raw format; to stdout without FILE). A WebView with Chromium behind it shows
//! the page's own rendering ([`crate::web::act::composite`]); with `web a11y on` the dump
//! shows the page inside the WebView's node ([`crate::web::expose`]).

use super::AppletResult;
use crate::{render, Device};

/// How long `uiautomator dump` waits for the app to be idle (AOSP's DumpCommand: 10 s).
const IDLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Waits (on this blocking thread) until the app's main thread is not blocked; false when it
/// still is after `limit`.
pub(crate) fn idle_within(dev: &Device, limit: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if !dev.state().process.blocked() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

pub fn uiautomator(dev: &Device, args: &[String]) -> AppletResult {
    if args.first().map(String::as_str) != Some("dump") {
        return AppletResult::fail(1, "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\ndump: creates an XML dump of current UI hierarchy\n");
    }
    if dev.faults.take_dump_failure() || !idle_within(dev, IDLE_TIMEOUT) {
        return AppletResult::fail(0, "ERROR: could not get idle state.\n");
    }
    let file = args[1..]
        .iter()
        .find(|a| !a.starts_with('-'))
        .cloned()
        .unwrap_or_else(|| "/sdcard/window_dump.xml".into());
    let mut h = dev.state().current();
    // With `web a11y on`, the page inside the WebView.
    crate::web::expose::fill(dev, &mut h, false);
    let xml = h.to_xml();
    if file == "/dev/tty" || file == "/dev/stdout" {
        return AppletResult::ok(format!("{xml}UI hierchary dumped to: {file}\n"));
    }
    let written = match dev.sandbox.host_path(&file) {
        Some(host) => std::fs::write(host, xml),
        None => Err(std::io::Error::from_raw_os_error(libc::ENOENT)),
    };
    match written {
        Ok(()) => AppletResult::ok(format!("UI hierchary dumped to: {file}\n")),
        Err(e) => AppletResult::fail(0, format!("ERROR: could not write {file}: {e}\n")),
    }
}

pub fn screencap(dev: &Device, args: &[String]) -> AppletResult {
    let mut png = false;
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" => png = true,
            "-h" => return AppletResult::ok("usage: screencap [-hp] [-d display-id] [FILENAME]\n"),
            "-d" => {
                it.next();
            }
            s if s.starts_with('-') => {}
            s => file = Some(s.to_string()),
        }
    }
    if file.as_deref().is_some_and(|f| f.ends_with(".png")) {
        png = true;
    }
    let (hier, (w, h)) = {
        let st = dev.state();
        (st.current(), st.screen_size())
    };
    let mut img = render::draw(&hier, w, h);
    // A WebView with Chromium behind it shows the page.
    crate::web::act::composite(dev, &mut img);
    let bytes = if png {
        render::png(&img)
    } else {
        render::raw(&img)
    };
    match file {
        None => AppletResult::ok(bytes),
        Some(f) => match dev
            .sandbox
            .host_path(&f)
            .map(|host| std::fs::write(host, bytes))
        {
            Some(Ok(())) => AppletResult::ok(""),
            Some(Err(e)) => AppletResult::fail(1, format!("Error opening file: {f} ({e})\n")),
            None => AppletResult::fail(
                1,
                format!("Error opening file: {f} (No such file or directory)\n"),
            ),
        },
    }
}
