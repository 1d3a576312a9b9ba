//! What taps, presses, swipes and keys are in WebDriverAgent's terms: W3C pointer actions
//! (`POST /session/:id/actions`) with coordinates in points — the UI tree's unit, never
//! screenshot pixels — and keys as WDA's hardware buttons (`/wda/pressButton`), typed
//! characters (`/wda/keys`), the lock (`/wda/lock`) or a HID keyboard usage
//! (`/wda/performIoHidEvent`). Pure functions; no I/O.

use async_trait::async_trait;
use reqwest::Method;
use serde_json::{json, Value};

use super::client::COMMAND_TIMEOUT;
use super::WdaBackend;
use crate::backend::ios::{hid_usage, not_on_ios};
use crate::backend::unsupported;
use crate::backend::validate::screen_point as check_point;
use crate::backend::Input;
use crate::backend::TypeJob;
use crate::backend::TypedWith;
use crate::device::Device;
use crate::device::{Key, KeyPress, Point};
use crate::error::{Error, Result};

/// How long a tap holds the finger down.
pub const TAP_HOLD_MS: u64 = 50;

/// WDA refuses nothing shorter, but a long press under 500 ms is a tap to iOS.
pub const MAX_HOLD_MS: u64 = 60_000;

fn finger(steps: Vec<Value>) -> Value {
    json!({
        "actions": [{
            "type": "pointer",
            "id": "finger1",
            "parameters": {"pointerType": "touch"},
            "actions": steps,
        }]
    })
}

fn move_to(p: Point, duration_ms: u64) -> Value {
    json!({"type": "pointerMove", "duration": duration_ms, "origin": "viewport", "x": p.x, "y": p.y})
}

fn down() -> Value {
    json!({"type": "pointerDown", "button": 0})
}

fn up() -> Value {
    json!({"type": "pointerUp", "button": 0})
}

fn pause(ms: u64) -> Value {
    json!({"type": "pause", "duration": ms})
}

/// A finger down and up at `at`, held `hold_ms`: a tap, or a long press.
pub fn press_at(at: Point, hold_ms: u64) -> Result<Value> {
    check_point(at)?;
    if hold_ms > MAX_HOLD_MS {
        return Err(Error::validation(format!(
            "a press lasts at most {MAX_HOLD_MS} ms"
        )));
    }
    Ok(finger(vec![move_to(at, 0), down(), pause(hold_ms), up()]))
}

/// A finger down at `from`, moved to `to` over `duration_ms`, and lifted.
pub fn swipe(from: Point, to: Point, duration_ms: u64) -> Result<Value> {
    check_point(from)?;
    check_point(to)?;
    if from == to {
        return Err(Error::validation(
            "a swipe needs different start and end points",
        ));
    }
    Ok(finger(vec![
        move_to(from, 0),
        down(),
        pause(TAP_HOLD_MS),
        move_to(to, duration_ms),
        up(),
    ]))
}

/// A key as WebDriverAgent presses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WdaKey {
    /// `POST /wda/pressButton {"name"}`: `home`, `volumeup`, `volumedown`.
    Button(&'static str),
    /// `POST /wda/keys {"value": [chars]}`: typed into the focused field.
    Chars(&'static str),
    /// `POST /wda/lock`.
    Lock,
    /// `POST /wda/performIoHidEvent` with page 7 (keyboard) and this usage.
    Hid(u32),
}

/// XCTest's key characters (XCUIKeyboardKey): Return, Delete (backspace), Tab, Escape.
pub const RETURN: &str = "\n";
pub const DELETE: &str = "\u{7f}";

fn no_key(what: &str, hint: &str) -> Error {
    unsupported(what, "iPhones through WebDriverAgent").with_hint(hint.to_string())
}

/// Maps a key to what WDA presses, or `501` for keys an iPhone lacks.
pub fn wda_key(key: KeyPress) -> Result<WdaKey> {
    use WdaKey::*;
    let key = match key {
        KeyPress::Code(code) => return hid_usage(code).map(Hid),
        KeyPress::Named(k) => k,
    };
    Ok(match key {
        Key::Home => Button("home"),
        Key::VolumeUp => Button("volumeup"),
        Key::VolumeDown => Button("volumedown"),
        Key::Lock | Key::Power => Lock,
        Key::Enter => Chars(RETURN),
        Key::Delete => Chars(DELETE),
        Key::Tab => Chars("\t"),
        Key::Space => Chars(" "),
        Key::Escape => Chars("\u{1b}"),
        Key::DpadRight => Hid(79),
        Key::DpadLeft => Hid(80),
        Key::DpadDown => Hid(81),
        Key::DpadUp => Hid(82),
        Key::Back | Key::RecentApps => return Err(not_on_ios(key)),
        Key::Siri | Key::ApplePay => {
            return Err(no_key(
                "this button",
                "WebDriverAgent presses home, volume_up, volume_down and lock, and keyboard keys",
            ))
        }
        Key::Menu | Key::Search | Key::DpadCenter => {
            return Err(no_key(
                "this key",
                "iPhones have home, lock and volume buttons and keyboard keys (enter, delete, \
                 tab, escape, space, arrows)",
            ))
        }
    })
}

/// `/wda/keys`'s body.
pub fn keys_body(text: &str) -> Value {
    json!({ "value": [text] })
}

/// `/wda/performIoHidEvent`'s body: a key of the keyboard usage page, pressed briefly.
pub fn hid_body(usage: u32) -> Value {
    json!({ "page": 7, "usage": usage, "duration": 0.005 })
}

#[async_trait]
impl Input for WdaBackend {
    // --- input: W3C actions in points ---------------------------------------------------------
    async fn tap(&self, device: &Device, at: Point) -> Result<()> {
        self.actions(device, press_at(at, TAP_HOLD_MS)?, TAP_HOLD_MS)
            .await
    }

    async fn long_press(&self, device: &Device, at: Point, duration_ms: u64) -> Result<()> {
        self.actions(device, press_at(at, duration_ms)?, duration_ms)
            .await
    }

    async fn swipe(&self, d: &Device, from: Point, to: Point, duration_ms: u64) -> Result<()> {
        self.actions(d, swipe(from, to, duration_ms)?, duration_ms)
            .await
    }

    async fn type_text(&self, device: &Device, text: &str) -> Result<TypedWith> {
        self.keys(device, text).await?;
        Ok(TypedWith("wda_keys"))
    }

    async fn press_key(&self, device: &Device, key: KeyPress) -> Result<()> {
        let (path, body) = match wda_key(key)? {
            WdaKey::Button(name) => ("/wda/pressButton", json!({ "name": name })),
            WdaKey::Chars(chars) => return self.keys(device, chars).await,
            WdaKey::Lock => ("/wda/lock", json!({})),
            WdaKey::Hid(usage) => ("/wda/performIoHidEvent", hid_body(usage)),
        };
        self.session_call(device, Method::POST, path, Some(&body), COMMAND_TIMEOUT)
            .await
            .map(drop)
    }

    /// The tap on the field (when there is one), then one `/wda/keys` with the deletes, the
    /// text and Return: two requests at most.
    async fn type_job(&self, device: &Device, job: &TypeJob<'_>) -> Result<TypedWith> {
        self.endpoint(device)?;
        if let Some(at) = job.tap {
            self.tap(device, at).await?;
        }
        let mut chars = DELETE.repeat(job.clear_chars.unwrap_or(0));
        chars.push_str(job.text);
        if job.submit {
            chars.push_str(RETURN);
        }
        if chars.is_empty() {
            return Ok(TypedWith("none"));
        }
        self.keys(device, &chars).await?;
        Ok(TypedWith("wda_keys"))
    }

    async fn clear_field(&self, device: &Device, chars: usize) -> Result<()> {
        if chars == 0 {
            return Ok(());
        }
        self.keys(device, &DELETE.repeat(chars)).await
    }

    async fn hide_keyboard(&self, device: &Device) -> Result<()> {
        self.session_call(
            device,
            Method::POST,
            "/wda/keyboard/dismiss",
            Some(&json!({})),
            COMMAND_TIMEOUT,
        )
        .await
        .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    #[test]
    fn a_tap_is_one_finger_down_and_up_at_the_point() {
        let v = press_at(pt(201.0, 437.5), TAP_HOLD_MS).unwrap();
        let steps = &v["actions"][0]["actions"];
        assert_eq!(v["actions"][0]["parameters"]["pointerType"], "touch");
        assert_eq!(steps[0]["type"], "pointerMove");
        assert_eq!(
            (steps[0]["x"].as_f64(), steps[0]["y"].as_f64()),
            (Some(201.0), Some(437.5))
        );
        let kinds: Vec<&str> = steps
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["pointerMove", "pointerDown", "pause", "pointerUp"]);
        assert_eq!(
            press_at(pt(1.0, 1.0), 1500).unwrap()["actions"][0]["actions"][2]["duration"],
            1500
        );
        assert!(press_at(pt(-1.0, 3.0), 50).is_err());
        assert!(press_at(pt(f64::INFINITY, 3.0), 50).is_err());
        assert!(press_at(pt(1.0, 3.0), MAX_HOLD_MS + 1).is_err());
    }

    #[test]
    fn a_swipe_moves_the_finger_over_its_duration() {
        let v = swipe(pt(200.0, 700.0), pt(200.0, 200.0), 300).unwrap();
        let steps = v["actions"][0]["actions"].as_array().unwrap().clone();
        assert_eq!(steps.len(), 5);
        assert_eq!(steps[3]["type"], "pointerMove");
        assert_eq!(steps[3]["duration"], 300);
        assert_eq!(steps[3]["y"], 200.0);
        assert!(swipe(pt(1.0, 1.0), pt(1.0, 1.0), 300).is_err());
    }

    #[test]
    fn keys() {
        assert_eq!(
            wda_key(KeyPress::Named(Key::Home)).unwrap(),
            WdaKey::Button("home")
        );
        assert_eq!(
            wda_key(KeyPress::Named(Key::VolumeDown)).unwrap(),
            WdaKey::Button("volumedown")
        );
        assert_eq!(wda_key(KeyPress::Named(Key::Power)).unwrap(), WdaKey::Lock);
        assert_eq!(
            wda_key(KeyPress::Named(Key::Enter)).unwrap(),
            WdaKey::Chars("\n")
        );
        assert_eq!(wda_key(KeyPress::Code(40)).unwrap(), WdaKey::Hid(40));
        assert!(wda_key(KeyPress::Code(300)).is_err());
        let back = wda_key(KeyPress::Named(Key::Back)).unwrap_err();
        assert_eq!(back.code.status(), 501);
        assert!(back.hint.unwrap().contains("back button"));
    }
}
