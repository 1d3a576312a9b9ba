//! How a finger and a keyboard on the device reach the page, pure: screen pixels inside the
//! WebView to the page's CSS pixels (the [`Viewport`]), a swipe to the touch points of its
//! moves, and Android key codes to the DevTools Protocol's key events (`Input.
//! dispatchKeyEvent`: `key`, `code`, `windowsVirtualKeyCode`, the text a key types).

use serde_json::{json, Value};

use crate::uixml::Rect;

/// Android's density (`wm density`, `ro.sf.lcd_density`): 160 dpi is one CSS pixel per pixel.
pub const DENSITY_DPI: u32 = 420;

/// The page's viewport: the WebView's bounds on the screen, in pixels, and its scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub rect: Rect,
    /// Device pixels per CSS pixel (`window.devicePixelRatio`).
    pub dpr: f64,
}

impl Viewport {
    pub fn new(rect: Rect, density_dpi: u32) -> Viewport {
        Viewport {
            rect,
            dpr: f64::from(density_dpi) / 160.0,
        }
    }

    /// The viewport's size in CSS pixels, rounded (`Emulation.setDeviceMetricsOverride`
    /// takes whole numbers): 1080×2148 px at 2.625 is 411×818.
    pub fn css_size(&self) -> (u32, u32) {
        let css = |px: i32| (f64::from(px.max(0)) / self.dpr).round() as u32;
        (
            css(self.rect.x2 - self.rect.x1),
            css(self.rect.y2 - self.rect.y1),
        )
    }

    pub fn contains(&self, x: i32, y: i32) -> bool {
        self.rect.contains(x, y)
    }

    /// A screen point (pixels) as a point of the page (CSS pixels from the viewport's corner).
    pub fn css_point(&self, x: i32, y: i32) -> (f64, f64) {
        (
            f64::from(x - self.rect.x1) / self.dpr,
            f64::from(y - self.rect.y1) / self.dpr,
        )
    }

    /// `Emulation.setDeviceMetricsOverride`'s parameters: the viewport, the scale, a phone's
    /// screen (`screen_px`: the whole display) and `mobile`.
    pub fn metrics(&self, screen_px: (u32, u32)) -> Value {
        let (w, h) = self.css_size();
        let css = |px: u32| (f64::from(px) / self.dpr).round() as u32;
        json!({
            "width": w,
            "height": h,
            "deviceScaleFactor": self.dpr,
            "mobile": true,
            "screenWidth": css(screen_px.0),
            "screenHeight": css(screen_px.1),
        })
    }
}

/// Touch moves per second of a swipe (about one per frame at 60 Hz), and the most per swipe.
const MOVES_PER_S: u64 = 60;
const MOST_MOVES: u64 = 120;

/// A swipe's finger positions after it went down at `from` (the last is `to`), each with the
/// time in ms since the finger went down, spread evenly over `duration_ms`.
pub fn swipe_moves(from: (f64, f64), to: (f64, f64), duration_ms: u64) -> Vec<(f64, f64, u64)> {
    let n = (duration_ms * MOVES_PER_S / 1000).clamp(5, MOST_MOVES);
    (1..=n)
        .map(|i| {
            let f = i as f64 / n as f64;
            (
                from.0 + (to.0 - from.0) * f,
                from.1 + (to.1 - from.1) * f,
                duration_ms * i / n,
            )
        })
        .collect()
}

/// A key of a keyboard as the DevTools Protocol describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebKey {
    pub key: String,
    pub code: String,
    pub key_code: u32,
    /// What the key types (`\r` for Enter), if anything.
    pub text: Option<String>,
}

impl WebKey {
    fn new(key: &str, code: &str, key_code: u32, text: Option<&str>) -> WebKey {
        WebKey {
            key: key.into(),
            code: code.into(),
            key_code,
            text: text.map(str::to_string),
        }
    }

    /// The key's down and up events (`keyDown` when it types, else `rawKeyDown`, as Chrome
    /// sends them).
    pub fn events(&self) -> [Value; 2] {
        let mut down = json!({
            "type": if self.text.is_some() { "keyDown" } else { "rawKeyDown" },
            "key": self.key,
            "code": self.code,
            "windowsVirtualKeyCode": self.key_code,
            "nativeVirtualKeyCode": self.key_code,
        });
        if let Some(t) = &self.text {
            down["text"] = json!(t);
            down["unmodifiedText"] = json!(t);
        }
        let up = json!({
            "type": "keyUp",
            "key": self.key,
            "code": self.code,
            "windowsVirtualKeyCode": self.key_code,
            "nativeVirtualKeyCode": self.key_code,
        });
        [down, up]
    }
}

/// The keyboard key for an Android key (`66`, `ENTER`, `KEYCODE_ENTER`), for the keys a page
/// takes: DEL, FORWARD_DEL, ENTER, MOVE_END, MOVE_HOME, TAB, SPACE, letters and digits.
/// `None` for the rest (BACK, HOME, volume…), which the system handles.
pub fn web_key(android: &str) -> Option<WebKey> {
    let name = android.strip_prefix("KEYCODE_").unwrap_or(android);
    let code: u32 = match name.parse() {
        Ok(n) => n,
        Err(_) => match name {
            "DEL" => 67,
            "FORWARD_DEL" => 112,
            "ENTER" => 66,
            "MOVE_END" => 123,
            "MOVE_HOME" => 122,
            "TAB" => 61,
            "SPACE" => 62,
            n if n.len() == 1 && n.chars().all(|c| c.is_ascii_uppercase()) => {
                29 + u32::from(n.as_bytes()[0] - b'A')
            }
            n if n.len() == 1 && n.chars().all(|c| c.is_ascii_digit()) => {
                7 + u32::from(n.as_bytes()[0] - b'0')
            }
            _ => return None,
        },
    };
    Some(match code {
        67 => WebKey::new("Backspace", "Backspace", 8, None),
        112 => WebKey::new("Delete", "Delete", 46, None),
        66 => WebKey::new("Enter", "Enter", 13, Some("\r")),
        123 => WebKey::new("End", "End", 35, None),
        122 => WebKey::new("Home", "Home", 36, None),
        61 => WebKey::new("Tab", "Tab", 9, None),
        62 => WebKey::new(" ", "Space", 32, Some(" ")),
        7..=16 => {
            let d = char::from(b'0' + (code - 7) as u8);
            let s = d.to_string();
            WebKey::new(&s, &format!("Digit{d}"), 48 + code - 7, Some(&s))
        }
        29..=54 => {
            let upper = char::from(b'A' + (code - 29) as u8);
            let s = upper.to_ascii_lowercase().to_string();
            WebKey::new(&s, &format!("Key{upper}"), 65 + code - 29, Some(&s))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help_web() -> Viewport {
        Viewport::new(
            Rect {
                x1: 0,
                y1: 252,
                x2: 1080,
                y2: 2400,
            },
            DENSITY_DPI,
        )
    }

    #[test]
    fn the_webview_is_411_by_818_css_pixels_at_2_625() {
        let v = help_web();
        assert_eq!(v.dpr, 2.625);
        assert_eq!(v.css_size(), (411, 818));
        let m = v.metrics((1080, 2400));
        assert_eq!(m["width"], 411);
        assert_eq!(m["height"], 818);
        assert_eq!(m["screenHeight"], 914);
        assert_eq!(m["mobile"], true);
        assert!(v.contains(540, 252) && !v.contains(540, 251));
        assert_eq!(v.css_point(0, 252), (0.0, 0.0));
        assert_eq!(v.css_point(525, 777), (200.0, 200.0));
    }

    #[test]
    fn a_swipe_moves_evenly_and_ends_where_it_was_going() {
        let moves = swipe_moves((200.0, 700.0), (200.0, 200.0), 300);
        assert_eq!(moves.len(), 18);
        assert_eq!(moves.last(), Some(&(200.0, 200.0, 300)));
        assert!(moves
            .windows(2)
            .all(|w| w[1].1 < w[0].1 && w[1].2 >= w[0].2));
        assert_eq!(swipe_moves((0.0, 0.0), (0.0, 10.0), 0).len(), 5);
        assert_eq!(swipe_moves((0.0, 0.0), (0.0, 10.0), 60_000).len(), 120);
    }

    #[test]
    fn android_keys_become_keyboard_keys() {
        for (android, key, code, vk) in [
            ("67", "Backspace", "Backspace", 8),
            ("KEYCODE_DEL", "Backspace", "Backspace", 8),
            ("112", "Delete", "Delete", 46),
            ("ENTER", "Enter", "Enter", 13),
            ("123", "End", "End", 35),
            ("KEYCODE_MOVE_HOME", "Home", "Home", 36),
            ("61", "Tab", "Tab", 9),
            ("62", " ", "Space", 32),
            ("29", "a", "KeyA", 65),
            ("Z", "z", "KeyZ", 90),
            ("7", "0", "Digit0", 48),
        ] {
            let k = web_key(android).unwrap();
            assert_eq!(
                (k.key.as_str(), k.code.as_str(), k.key_code),
                (key, code, vk)
            );
        }
        for system in ["4", "BACK", "3", "HOME", "24", "POWER", "nonsense"] {
            assert_eq!(web_key(system), None, "{system}");
        }
        let [down, up] = web_key("66").unwrap().events();
        assert_eq!(down["type"], "keyDown");
        assert_eq!(down["text"], "\r");
        assert_eq!(up["type"], "keyUp");
        let [down, _] = web_key("67").unwrap().events();
        assert_eq!(down["type"], "rawKeyDown");
        assert!(down.get("text").is_none());
    }
}
