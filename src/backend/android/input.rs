//! Android input over adb: taps, swipes, long presses (a zero-distance swipe), key events, and
//! typing. Typing is planned as one device script: printable ASCII goes through `input text`
//! word by word with `KEYCODE_SPACE` between words (spaces in `input text` break on API 35+,
//! and `%s` would turn into a space); anything else needs the ADB Keyboard IME, whose
//! base64 broadcast carries any Unicode text literally.

use base64::Engine;

use super::shell::quote;
use crate::device::{Key, KeyPress, Platform, Point};
use crate::error::{Error, ErrorCode, Result};

/// The ADB Keyboard IME (github.com/senzhk/ADBKeyBoard).
pub const ADB_KEYBOARD_PACKAGE: &str = "com.android.adbkeyboard";
/// The ADB Keyboard's input method id, as `ime enable` and `ime set` take it.
pub const ADB_KEYBOARD_IME: &str = "com.android.adbkeyboard/.AdbIME";

/// Android's `KEYCODE_SPACE`, typed between the words of `input text`.
pub const KEYCODE_SPACE: u32 = 62;

/// Android key code of a named key, or `None` when Android has no such key.
pub fn keycode(key: Key) -> Option<u32> {
    Some(match key {
        Key::Back => 4,
        Key::Home => 3,
        Key::Enter => 66,
        Key::Delete => 67,
        Key::Tab => 61,
        Key::Escape => 111,
        Key::Space => KEYCODE_SPACE,
        Key::DpadUp => 19,
        Key::DpadDown => 20,
        Key::DpadLeft => 21,
        Key::DpadRight => 22,
        Key::DpadCenter => 23,
        Key::VolumeUp => 24,
        Key::VolumeDown => 25,
        Key::Power => 26,
        Key::Lock => 223, // KEYCODE_SLEEP: locks without toggling
        Key::RecentApps => 187,
        Key::Menu => 82,
        Key::Search => 84,
        Key::Siri | Key::ApplePay => return None,
    })
}

/// The device command pressing `key` (`input keyevent CODE`); a named key Android lacks is
/// `501`.
pub fn key_script(key: KeyPress) -> Result<String> {
    let code = match key {
        KeyPress::Code(c) => c,
        KeyPress::Named(k) => keycode(k).ok_or_else(|| {
            crate::backend::unsupported(&format!("the {k:?} key"), Platform::Android.name())
        })?,
    };
    Ok(format!("input keyevent {code}"))
}

/// Moves the cursor to the end (`KEYCODE_MOVE_END`) and deletes `chars` characters, in one
/// `input keyevent` with several codes.
pub fn clear_script(chars: usize) -> String {
    let mut s = String::from("input keyevent 123");
    for _ in 0..chars.min(2000) {
        s.push_str(" 67");
    }
    s
}

/// Tap coordinates are whole pixels.
fn px(v: f64) -> i64 {
    v.round() as i64
}

/// The device command tapping at `at` (whole pixels).
pub fn tap_script(at: Point) -> String {
    format!("input tap {} {}", px(at.x), px(at.y))
}

/// The device command swiping from `from` to `to` in `duration_ms` milliseconds (whole
/// pixels; a long press is a swipe that does not move).
pub fn swipe_script(from: Point, to: Point, duration_ms: u64) -> String {
    format!(
        "input swipe {} {} {} {} {}",
        px(from.x),
        px(from.y),
        px(to.x),
        px(to.y),
        duration_ms
    )
}

/// How a text will be typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypingPlan {
    /// `input text` word by word with `KEYCODE_SPACE`: the device script.
    InputText(String),
    /// The ADB Keyboard broadcasts: the device script, to run after [`ime_guard`].
    AdbKeyboard(String),
}

fn is_plain(text: &str) -> bool {
    text.chars().all(|c| c == ' ' || c.is_ascii_graphic())
}

/// Printed by the typing script when the ADB Keyboard IME is not installed.
pub const NO_IME_MARKER: &str = "__MOBILECTL_NO_IME__";

/// Longest argument of one `input text` (long words are typed in pieces).
const INPUT_TEXT_CHUNK: usize = 200;

/// Characters per ADB Keyboard broadcast.
const BROADCAST_CHUNK: usize = 500;

/// Plans typing `text` as one device script. Text `input text` cannot carry goes through the
/// ADB Keyboard broadcast, which needs [`ime_guard`] to run first in the same script.
pub fn plan_typing(text: &str) -> TypingPlan {
    if is_plain(text) {
        let mut steps: Vec<String> = Vec::new();
        for (i, word) in text.split(' ').enumerate() {
            if i > 0 {
                steps.push(format!("input keyevent {KEYCODE_SPACE}"));
            }
            // `input text` turns "%s" into a space: type such words in pieces split after
            // '%'; long words go in pieces too.
            let mut rest = word;
            while !rest.is_empty() {
                let mut cut = match rest.find("%s") {
                    Some(i) => i + 1,
                    None => rest.len(),
                };
                cut = cut.min(INPUT_TEXT_CHUNK);
                steps.push(format!("input text {}", quote(&rest[..cut])));
                rest = &rest[cut..];
            }
        }
        return TypingPlan::InputText(steps.join(" && "));
    }
    let chars: Vec<char> = text.chars().collect();
    let broadcasts: Vec<String> = chars
        .chunks(BROADCAST_CHUNK)
        .map(|piece| {
            let piece: String = piece.iter().collect();
            let b64 = base64::engine::general_purpose::STANDARD.encode(piece.as_bytes());
            format!("am broadcast -a ADB_INPUT_B64 --es msg {b64} >/dev/null")
        })
        .collect();
    TypingPlan::AdbKeyboard(broadcasts.join(" && "))
}

/// Checks on the device that the ADB Keyboard is installed and selects it; prints
/// [`NO_IME_MARKER`] and ends the script when it is not, before anything else ran.
pub fn ime_guard() -> String {
    format!(
        "if ! pm list packages {pkg} | grep -q '^package:{pkg}$'; then echo {NO_IME_MARKER}; \
         exit 0; fi; ime enable {ime} >/dev/null 2>&1; ime set {ime} >/dev/null 2>&1",
        pkg = ADB_KEYBOARD_PACKAGE,
        ime = ADB_KEYBOARD_IME
    )
}

/// The whole `type` as one device script: the IME check (when the text needs it) before
/// anything acts, then tap, clear, type and Enter.
pub fn type_job_script(job: &crate::backend::TypeJob<'_>) -> Result<(String, &'static str)> {
    let mut guard = None;
    let mut steps = Vec::new();
    if let Some(at) = job.tap {
        steps.push(tap_script(at));
    }
    if let Some(n) = job.clear_chars {
        steps.push(clear_script(n));
    }
    let mut with = "none";
    if !job.text.is_empty() {
        match plan_typing(job.text) {
            TypingPlan::InputText(s) => {
                steps.push(s);
                with = "input_text";
            }
            TypingPlan::AdbKeyboard(s) => {
                guard = Some(ime_guard());
                steps.push(s);
                with = "adb_keyboard";
            }
        }
    }
    if job.submit {
        steps.push(key_script(KeyPress::Named(Key::Enter))?);
    }
    let body = steps.join(" && ");
    Ok(match guard {
        Some(g) => (format!("{g}; {body}"), with),
        None => (body, with),
    })
}

/// The answer when text needs the ADB Keyboard and it is not installed.
pub fn unsupported_text(text: &str) -> Error {
    Error::new(
        ErrorCode::UnsupportedText,
        "this text has characters `input text` cannot type (non-ASCII, newlines or tabs)",
    )
    .with_hint("install the ADB Keyboard IME (github.com/senzhk/ADBKeyBoard: `adb install ADBKeyboard.apk`); mobilectl then types any Unicode through it")
    .with_details(serde_json::json!({ "unsupported": text.chars().filter(|c| !(*c == ' ' || c.is_ascii_graphic())).collect::<String>() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_typed_with_space_key_events() {
        let TypingPlan::InputText(s) = plan_typing("hello big world") else {
            panic!()
        };
        assert_eq!(
            s,
            "input text 'hello' && input keyevent 62 && input text 'big' && input keyevent 62 && input text 'world'"
        );
    }

    #[test]
    fn percent_s_is_split_so_it_stays_literal() {
        let TypingPlan::InputText(s) = plan_typing("a%sb") else {
            panic!()
        };
        assert_eq!(s, "input text 'a%' && input text 'sb'");
    }

    #[test]
    fn shell_metacharacters_are_quoted() {
        let TypingPlan::InputText(s) = plan_typing("a;b$(id)'x'") else {
            panic!()
        };
        assert_eq!(s, "input text 'a;b$(id)'\\''x'\\'''");
    }

    #[test]
    fn unicode_goes_through_the_guarded_adb_keyboard_broadcast() {
        let TypingPlan::AdbKeyboard(s) = plan_typing("héllo\n") else {
            panic!()
        };
        assert!(s.contains("--es msg aMOpbGxvCg=="), "{s}");
        assert_eq!(unsupported_text("é").code, ErrorCode::UnsupportedText);
        // The IME check comes before the tap and the clear: a refusal changes nothing.
        let job = crate::backend::TypeJob {
            tap: Some(Point { x: 10.0, y: 20.0 }),
            clear_chars: Some(3),
            text: "héllo",
            submit: true,
        };
        let (script, with) = type_job_script(&job).unwrap();
        assert_eq!(with, "adb_keyboard");
        assert!(
            script.starts_with("if ! pm list packages com.android.adbkeyboard"),
            "{script}"
        );
        let guard_end = script.find(NO_IME_MARKER).unwrap();
        assert!(script.find("input tap").unwrap() > guard_end, "{script}");
        assert!(script.find("input keyevent 123").unwrap() > guard_end);
        assert!(script.ends_with("input keyevent 66"), "{script}");
    }

    #[test]
    fn long_text_is_typed_in_pieces() {
        let word = "x".repeat(450);
        let TypingPlan::InputText(s) = plan_typing(&word) else {
            panic!()
        };
        assert_eq!(s.matches("input text").count(), 3, "{s}");
        let TypingPlan::AdbKeyboard(s) = plan_typing(&"é".repeat(1200)) else {
            panic!()
        };
        assert_eq!(s.matches("am broadcast").count(), 3);
        let plain = type_job_script(&crate::backend::TypeJob {
            tap: None,
            clear_chars: None,
            text: "a b",
            submit: false,
        })
        .unwrap();
        assert_eq!(
            plain,
            (
                "input text 'a' && input keyevent 62 && input text 'b'".to_string(),
                "input_text"
            )
        );
    }

    #[test]
    fn keys() {
        assert_eq!(
            key_script(KeyPress::Named(Key::Back)).unwrap(),
            "input keyevent 4"
        );
        assert_eq!(
            key_script(KeyPress::Code(279)).unwrap(),
            "input keyevent 279"
        );
        assert!(key_script(KeyPress::Named(Key::Siri)).is_err());
    }

    #[test]
    fn coordinates_are_rounded_pixels() {
        assert_eq!(tap_script(Point { x: 10.4, y: 20.6 }), "input tap 10 21");
        assert_eq!(
            swipe_script(Point { x: 1.0, y: 2.0 }, Point { x: 1.0, y: 2.0 }, 800),
            "input swipe 1 2 1 2 800"
        );
    }
}
