//! Keys on a simulator. Hardware buttons go through `axe button home|lock|siri|apple-pay` or
//! `idb ui button HOME|LOCK|SIRI|APPLE_PAY`; keyboard keys through their HID usage code with
//! `axe key CODE` / `idb ui key CODE` (Enter 40, Escape 41, Backspace 42, Tab 43, Space 44,
//! arrows 79–82). A raw [`KeyPress::Code`] is taken as a HID usage on iOS. Keys a simulator
//! lacks (back, menu, recent apps, volume…) are `501` with what to do instead.

use super::SimctlBackend;
use crate::backend::unsupported;
use crate::device::{Key, KeyPress, Platform};
use crate::error::{Error, Result};

/// What a key is on a simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IosKey {
    /// A hardware button: its AXe and idb names.
    Button {
        /// `axe button NAME` (`home`, `lock`…).
        axe: &'static str,
        /// `idb ui button NAME` (`HOME`, `LOCK`…).
        idb: &'static str,
    },
    /// A keyboard key by HID usage code.
    Hid(u32),
}

fn no_key(what: &str, hint: &str) -> Error {
    unsupported(what, Platform::Ios.name()).with_hint(hint.to_string())
}

/// A raw key code on iOS: a USB HID keyboard usage (0–255).
pub fn hid_usage(code: u32) -> Result<u32> {
    if code <= 255 {
        Ok(code)
    } else {
        Err(
            Error::validation(format!("{code} is not a HID keyboard usage (0–255)"))
                .with_hint("on iOS raw key codes are USB HID usages, e.g. 40 = Return"),
        )
    }
}

/// `501` for the keys no iOS device has (back, recent apps), with what to do instead.
pub fn not_on_ios(key: Key) -> Error {
    match key {
        Key::Back => no_key(
            "the back key",
            "iOS has no back key: tap the navigation bar's back button, or swipe from the left edge",
        ),
        Key::RecentApps => no_key(
            "the recent-apps key",
            "swipe up from the bottom edge and hold to open the app switcher",
        ),
        _ => no_key("this key", "see the `press` route's description for the keys iOS has"),
    }
}

/// Maps a key to a simulator button or HID code, or `501` when the simulator has no such key.
pub fn ios_key(key: KeyPress) -> Result<IosKey> {
    use IosKey::{Button, Hid};
    let key = match key {
        KeyPress::Code(code) => return hid_usage(code).map(Hid),
        KeyPress::Named(k) => k,
    };
    Ok(match key {
        Key::Home => Button {
            axe: "home",
            idb: "HOME",
        },
        Key::Lock | Key::Power => Button {
            axe: "lock",
            idb: "LOCK",
        },
        Key::Siri => Button {
            axe: "siri",
            idb: "SIRI",
        },
        Key::ApplePay => Button {
            axe: "apple-pay",
            idb: "APPLE_PAY",
        },
        Key::Enter => Hid(40),
        Key::Escape => Hid(41),
        Key::Delete => Hid(42),
        Key::Tab => Hid(43),
        Key::Space => Hid(44),
        Key::DpadRight => Hid(79),
        Key::DpadLeft => Hid(80),
        Key::DpadDown => Hid(81),
        Key::DpadUp => Hid(82),
        Key::Back | Key::RecentApps => return Err(not_on_ios(key)),
        Key::VolumeUp | Key::VolumeDown => {
            return Err(no_key(
                "volume keys",
                "neither AXe nor idb can press the simulator's volume buttons",
            ))
        }
        Key::Menu | Key::Search | Key::DpadCenter => {
            return Err(no_key(
                "this key",
                "iOS Simulators have home, lock, siri and apple_pay buttons and keyboard keys \
                 (enter, delete, tab, escape, space, arrows)",
            ))
        }
    })
}

/// iOS has no key that hides the software keyboard everywhere.
pub fn hide_keyboard_unsupported() -> Error {
    no_key(
        "hiding the keyboard",
        "iOS has no system key that hides the keyboard: tap outside the text field, tap the \
         keyboard's Done/Return key, or press `enter` (which may submit the form)",
    )
}

impl SimctlBackend {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping() {
        assert_eq!(
            ios_key(KeyPress::Named(Key::Home)).unwrap(),
            IosKey::Button {
                axe: "home",
                idb: "HOME"
            }
        );
        assert_eq!(
            ios_key(KeyPress::Named(Key::Enter)).unwrap(),
            IosKey::Hid(40)
        );
        assert_eq!(ios_key(KeyPress::Code(42)).unwrap(), IosKey::Hid(42));
        let back = ios_key(KeyPress::Named(Key::Back)).unwrap_err();
        assert_eq!(back.code.status(), 501);
        assert!(ios_key(KeyPress::Code(300)).is_err());
    }
}
