//! `input`: tap, swipe (a zero-distance swipe of ≥ 500 ms is a long press; others scroll a
//! list under them, see [`crate::state::perf`]), text (`%s` → space;
//! non-ASCII fails as on devices without an IME), keyevent (names or numbers, `--longpress`),
//! press, draganddrop. An optional source (`touchscreen`, `keyboard`, …) may come first.
//!
//! With the web screen in front and Chromium behind its WebView (the crate's `web`), a touch
//! inside the WebView reaches the page (touchStart/touchMove/touchEnd), and so do `input text`
//! and the keys a page takes (DEL, FORWARD_DEL, ENTER, MOVE_END, MOVE_HOME, TAB, SPACE,
//! letters, digits); touches elsewhere and other keys (BACK, HOME…) are the system's.

use super::AppletResult;
use crate::Device;

const USAGE: &str = "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n";

fn key_name(k: &str) -> String {
    let k = k.strip_prefix("KEYCODE_").unwrap_or(k);
    let by_number = match k {
        "3" => "HOME",
        "4" => "BACK",
        "62" => "SPACE",
        "66" => "ENTER",
        "67" => "DEL",
        "61" => "TAB",
        "111" => "ESCAPE",
        "26" => "POWER",
        "82" => "MENU",
        "187" => "APP_SWITCH",
        "24" => "VOLUME_UP",
        "25" => "VOLUME_DOWN",
        n => match n.parse::<u32>() {
            Ok(c @ 7..=16) => return ((b'0' + (c - 7) as u8) as char).to_string(),
            Ok(c @ 29..=54) => return ((b'A' + (c - 29) as u8) as char).to_string(),
            _ => n,
        },
    };
    by_number.to_string()
}

pub fn run(dev: &Device, args: &[String]) -> AppletResult {
    let r = dispatch(dev, args);
    // A transition that calls the app's API finishes once the call is answered.
    crate::demo_api::settle(dev);
    r
}

fn dispatch(dev: &Device, args: &[String]) -> AppletResult {
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    if let Some(first) = args.first() {
        if [
            "touchscreen",
            "keyboard",
            "mouse",
            "touchpad",
            "dpad",
            "gamepad",
            "stylus",
            "trackball",
            "joystick",
            "touchnavigation",
            "rotaryencoder",
            "keyboard_tap",
        ]
        .contains(first)
        {
            args.remove(0);
        }
    }
    if args.first() == Some(&"-d") && args.len() >= 2 {
        args.drain(..2);
    }
    let Some((&cmd, rest)) = args.split_first() else {
        return AppletResult::fail(1, USAGE);
    };
    let nums = |n: usize| -> Option<Vec<i32>> {
        if rest.len() < n {
            return None;
        }
        rest[..n]
            .iter()
            .map(|v| v.parse::<f32>().ok().map(|f| f as i32))
            .collect()
    };
    use crate::web::act as web;
    match cmd {
        "tap" => match nums(2) {
            Some(p) => {
                if !web::tap(dev, p[0], p[1], 0) {
                    dev.state().tap(p[0], p[1], false);
                }
                AppletResult::ok("")
            }
            None => AppletResult::fail(
                1,
                format!("Error: Invalid arguments for command: tap\n{USAGE}"),
            ),
        },
        "swipe" | "draganddrop" => match nums(4) {
            Some(p) => {
                let duration: i32 = rest.get(4).and_then(|d| d.parse().ok()).unwrap_or(300);
                let duration = duration.max(0) as u64;
                if p[0] == p[2] && p[1] == p[3] {
                    if !web::tap(dev, p[0], p[1], duration) {
                        dev.state().tap(p[0], p[1], duration >= 500);
                    }
                } else if !web::swipe(dev, (p[0], p[1]), (p[2], p[3]), duration) {
                    dev.state().swipe((p[0], p[1]), (p[2], p[3]), duration);
                }
                AppletResult::ok("")
            }
            None => AppletResult::fail(
                1,
                format!("Error: Invalid arguments for command: {cmd}\n{USAGE}"),
            ),
        },
        "text" => {
            let Some(text) = rest.first() else {
                return AppletResult::fail(1, USAGE);
            };
            if !text.is_ascii() {
                return AppletResult::fail(
                    255,
                    "Exception occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array\n",
                );
            }
            let text = text.replace("%s", " ");
            if !web::type_text(dev, &text) {
                dev.state().type_text(&text);
            }
            AppletResult::ok("")
        }
        "keyevent" | "press" => {
            let keys: Vec<&str> = if cmd == "press" {
                vec!["23"]
            } else {
                rest.iter()
                    .copied()
                    .filter(|k| !k.starts_with("--"))
                    .collect()
            };
            if keys.is_empty() {
                return AppletResult::fail(1, USAGE);
            }
            for k in keys {
                if !web::key(dev, k) {
                    dev.state().key(&key_name(k));
                }
            }
            AppletResult::ok("")
        }
        "roll" | "motionevent" | "keycombination" => AppletResult::ok(""),
        other => AppletResult::fail(1, format!("Error: Unknown command: {other}\n{USAGE}")),
    }
}
