//! What the server's input routes do to the app, through the same code `input` runs: W3C
//! actions (`POST /session/:id/actions`), typing into the focused field (`POST
//! /session/:id/keys`), key codes (`press_keycode`, `long_press_keycode`, `back`).
//!
//! A touch pointer's sequence (pointerMove / pointerDown / pause / pointerUp) becomes, per
//! down–up, a tap (`input tap`), a long press when held at least [`LONG_PRESS_MS`] without
//! moving (`input swipe X Y X Y MS`), or a swipe from where it went down to where it went up
//! lasting the time in between (`input swipe`). Sources run one after another, not
//! interleaved. A `key` source's keyDown of a character types it; WebDriver's Enter,
//! Backspace, Delete, Tab, End and Home keys press ENTER, DEL, FORWARD_DEL, TAB, MOVE_END and
//! MOVE_HOME. All of it reaches the web page when the WebView's Chromium is in front
//! ([`crate::web::act`]): `/keys` then types into the page's focused field (all of it selected
//! first with `replace`).

use serde_json::Value;

use super::http::Failure;
use crate::web::act::SetText;
use crate::Device;

/// Android's long-press timeout as the device's `input swipe` applies it (a zero-distance
/// swipe this long is a long press).
pub const LONG_PRESS_MS: u64 = 500;

/// How far a finger may drift and still tap (ViewConfiguration's touch slop, 8 dp at 2.625).
const TOUCH_SLOP: i64 = 21;

fn input(dev: &Device, args: &[String]) {
    let _ = crate::applets::input(dev, args);
}

/// `input keyevent [--longpress] CODE`.
pub fn keyevent(dev: &Device, code: i64, long: bool) -> Result<Value, Failure> {
    let mut args = vec!["keyevent".to_string()];
    if long {
        args.push("--longpress".into());
    }
    args.push(code.to_string());
    input(dev, &args);
    Ok(Value::Null)
}

/// `{"text": T, "replace"?: bool}`: the focused field's text becomes its text and T (or T
/// alone with `replace`); a trailing newline (or the two characters `\n`, as the server
/// checks) is not typed but presses Enter.
pub fn send_keys(dev: &Device, v: &Value) -> Result<Value, Failure> {
    let text = match v.get("text") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => return Err(Failure::invalid_argument("'text' is a required field")),
    };
    let replace = v.get("replace").and_then(Value::as_bool).unwrap_or(false);
    let (text, enter) = match text.strip_suffix("\\n").or_else(|| text.strip_suffix('\n')) {
        Some(t) => (t.to_string(), true),
        None => (text, false),
    };
    match crate::web::act::set_text(dev, &text, replace, enter) {
        SetText::Done => return Ok(Value::Null),
        SetText::NoFocus => return Err(Failure::no_such_element()),
        SetText::NotWeb => {}
    }
    {
        let mut st = dev.state();
        let Some(current) = st.focused_text() else {
            return Err(Failure::no_such_element());
        };
        let new = if replace { text } else { current + &text };
        st.set_focused_text(&new);
        if enter {
            st.key("ENTER");
        }
    }
    crate::demo_api::settle(dev);
    Ok(Value::Null)
}

/// A finger's down–up, in screen pixels and milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Gesture {
    Tap(i64, i64),
    LongPress(i64, i64, u64),
    Swipe((i64, i64), (i64, i64), u64),
}

fn num(v: &Value, key: &str) -> Result<f64, Failure> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(0.0),
        Some(x) => x
            .as_f64()
            .ok_or_else(|| Failure::invalid_argument(format!("'{key}' must be a number"))),
    }
}

/// The gestures of one touch pointer's actions.
fn gestures(items: &[Value]) -> Result<Vec<Gesture>, Failure> {
    let (mut x, mut y) = (0i64, 0i64);
    let mut down: Option<((i64, i64), u64)> = None;
    let mut t: u64 = 0;
    let mut out = Vec::new();
    for item in items {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "pointerMove" => {
                let (nx, ny) = (
                    num(item, "x")?.round() as i64,
                    num(item, "y")?.round() as i64,
                );
                match item.get("origin") {
                    None | Some(Value::Null) => (x, y) = (nx, ny),
                    Some(Value::String(o)) if o == "viewport" => (x, y) = (nx, ny),
                    Some(Value::String(o)) if o == "pointer" => (x, y) = (x + nx, y + ny),
                    // An element origin: this server keeps no elements.
                    Some(_) => return Err(Failure::no_such_element()),
                }
                t += num(item, "duration")?.max(0.0) as u64;
            }
            "pause" => t += num(item, "duration")?.max(0.0) as u64,
            "pointerDown" => down = Some(((x, y), t)),
            "pointerUp" => {
                let Some(((sx, sy), t0)) = down.take() else {
                    continue;
                };
                let held = t - t0;
                let still = (x - sx).abs() <= TOUCH_SLOP && (y - sy).abs() <= TOUCH_SLOP;
                out.push(if still && held >= LONG_PRESS_MS {
                    Gesture::LongPress(sx, sy, held)
                } else if still {
                    Gesture::Tap(sx, sy)
                } else {
                    Gesture::Swipe((sx, sy), (x, y), held)
                });
            }
            "pointerCancel" => down = None,
            other => {
                return Err(Failure::invalid_argument(format!(
                    "Unsupported action type '{other}'"
                )))
            }
        }
    }
    Ok(out)
}

/// `{"actions": [source…]}`, W3C.
pub fn perform(dev: &Device, v: &Value) -> Result<Value, Failure> {
    let Some(sources) = v.get("actions").and_then(Value::as_array) else {
        return Err(Failure::invalid_argument("'actions' are mandatory"));
    };
    for source in sources {
        let items: &[Value] = source
            .get("actions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        match source.get("type").and_then(Value::as_str) {
            Some("pointer") => {
                let kind = source
                    .pointer("/parameters/pointerType")
                    .and_then(Value::as_str)
                    .unwrap_or("mouse");
                if kind != "touch" && kind != "mouse" && kind != "pen" {
                    return Err(Failure::invalid_argument(format!(
                        "Unsupported pointer type '{kind}'"
                    )));
                }
                for g in gestures(items)? {
                    let args: Vec<String> = match g {
                        Gesture::Tap(x, y) => vec!["tap".into(), x.to_string(), y.to_string()],
                        Gesture::LongPress(x, y, ms) => [x, y, x, y]
                            .iter()
                            .map(i64::to_string)
                            .chain([ms.to_string()])
                            .collect(),
                        Gesture::Swipe((x1, y1), (x2, y2), ms) => [x1, y1, x2, y2]
                            .iter()
                            .map(i64::to_string)
                            .chain([ms.to_string()])
                            .collect(),
                    };
                    let args = match g {
                        Gesture::Tap(..) => args,
                        _ => std::iter::once("swipe".to_string()).chain(args).collect(),
                    };
                    input(dev, &args);
                }
            }
            Some("key") => {
                for item in items {
                    if item.get("type").and_then(Value::as_str) != Some("keyDown") {
                        continue;
                    }
                    let value = item.get("value").and_then(Value::as_str).unwrap_or("");
                    match value {
                        "\u{E007}" | "\u{E006}" => input(dev, &["keyevent".into(), "66".into()]),
                        "\u{E003}" => input(dev, &["keyevent".into(), "67".into()]),
                        "\u{E017}" => input(dev, &["keyevent".into(), "112".into()]),
                        "\u{E004}" => input(dev, &["keyevent".into(), "61".into()]),
                        "\u{E010}" => input(dev, &["keyevent".into(), "123".into()]),
                        "\u{E011}" => input(dev, &["keyevent".into(), "122".into()]),
                        // A character: into the page when it has the keyboard, else the
                        // focused native field.
                        v if v.chars().count() == 1
                            && !('\u{E000}'..='\u{F8FF}')
                                .contains(&v.chars().next().unwrap_or(' '))
                            && !crate::web::act::type_text(dev, v) =>
                        {
                            dev.state().type_text(v);
                        }
                        _ => {}
                    }
                }
            }
            Some("none") => {}
            other => {
                return Err(Failure::invalid_argument(format!(
                    "Unsupported action source type '{}'",
                    other.unwrap_or("")
                )))
            }
        }
    }
    crate::demo_api::settle(dev);
    Ok(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn g(items: Value) -> Vec<Gesture> {
        gestures(items.as_array().unwrap()).unwrap()
    }

    #[test]
    fn finger_sequences_become_taps_long_presses_and_swipes() {
        let tap = json!([{"type":"pointerMove","duration":0,"x":100,"y":200},{"type":"pointerDown","button":0},{"type":"pause","duration":100},{"type":"pointerUp","button":0}]);
        assert_eq!(g(tap), vec![Gesture::Tap(100, 200)]);
        let long = json!([{"type":"pointerMove","x":10,"y":20},{"type":"pointerDown"},{"type":"pause","duration":600},{"type":"pointerUp"}]);
        assert_eq!(g(long), vec![Gesture::LongPress(10, 20, 600)]);
        let swipe = json!([{"type":"pointerMove","x":500,"y":1500},{"type":"pointerDown"},{"type":"pointerMove","duration":300,"x":500,"y":500},{"type":"pointerUp"}]);
        assert_eq!(g(swipe), vec![Gesture::Swipe((500, 1500), (500, 500), 300)]);
        let relative = json!([{"type":"pointerMove","x":5,"y":5},{"type":"pointerMove","origin":"pointer","x":5,"y":5},{"type":"pointerDown"},{"type":"pointerUp"}]);
        assert_eq!(g(relative), vec![Gesture::Tap(10, 10)]);
        assert!(gestures(json!([{"type":"jump"}]).as_array().unwrap()).is_err());
    }
}
