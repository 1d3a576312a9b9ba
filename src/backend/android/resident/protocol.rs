//! What goes over the wire to Appium's UiAutomator2 server, and what comes back: request
//! bodies for the few commands mobilectl sends (a session, its settings, W3C pointer actions,
//! key codes, text for the focused field) and the server's envelope read into a value or a
//! [`Refusal`]. Pure: no I/O, tested on their own. Shapes from the server's sources
//! (`AppiumServlet`, `AppiumResponse`, `NewSession`, `W3CActions`, `PressKeyCode`,
//! `SendKeysToElement`, `UpdateSettings`; appium/appium-uiautomator2-server).

use serde_json::{json, Value};

use crate::device::Point;

/// The server's package, and the test package whose instrumentation runs it.
pub const SERVER_PACKAGE: &str = "io.appium.uiautomator2.server";
/// The test package (`SERVER_PACKAGE.test`).
pub const TEST_PACKAGE: &str = "io.appium.uiautomator2.server.test";
/// The instrumentation `am instrument -w` starts.
pub const INSTRUMENTATION: &str =
    "io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner";
/// The port the server listens on, on the device (`ServerConfig.DEFAULT_SERVER_PORT`).
pub const DEVICE_PORT: u16 = 6790;

/// How long a read waits for the app to be idle before answering anyway, in ms. The server's
/// own default is 10 s; a read should answer about the screen now.
pub const WAIT_FOR_IDLE_MS: u64 = 300;

/// `POST /session`: W3C capabilities, nothing to launch (the server drives what is on screen).
pub fn new_session() -> Value {
    json!({ "capabilities": { "alwaysMatch": { "platformName": "Android" }, "firstMatch": [{}] } })
}

/// `POST /session/:id/appium/settings`: reads bounded in their wait for idle, and the
/// accessibility cache cleared before every read (never deferred), so a read is the screen
/// now.
pub fn settings() -> Value {
    json!({ "settings": {
        "waitForIdleTimeout": WAIT_FOR_IDLE_MS,
        "deferAccessibilityCacheReset": false,
    } })
}

/// Whole pixels for pointer actions.
fn px(v: f64) -> i64 {
    v.round() as i64
}

/// One finger's W3C action sequence: down at `from`, held `hold_ms`, moved to `to` in
/// `move_ms`, up.
fn finger(from: Point, to: Point, hold_ms: u64, move_ms: u64) -> Value {
    let mut steps = vec![
        json!({ "type": "pointerMove", "duration": 0, "x": px(from.x), "y": px(from.y) }),
        json!({ "type": "pointerDown", "button": 0 }),
    ];
    if hold_ms > 0 {
        steps.push(json!({ "type": "pause", "duration": hold_ms }));
    }
    if px(from.x) != px(to.x) || px(from.y) != px(to.y) || move_ms > 0 {
        steps.push(
            json!({ "type": "pointerMove", "duration": move_ms, "origin": "viewport",
                           "x": px(to.x), "y": px(to.y) }),
        );
    }
    steps.push(json!({ "type": "pointerUp", "button": 0 }));
    json!({ "actions": [{
        "type": "pointer",
        "id": "finger1",
        "parameters": { "pointerType": "touch" },
        "actions": steps,
    }] })
}

/// A tap: down and up at one point.
pub fn tap(at: Point) -> Value {
    finger(at, at, 0, 0)
}

/// A press held at one point for `duration_ms`.
pub fn long_press(at: Point, duration_ms: u64) -> Value {
    finger(at, at, duration_ms, 0)
}

/// A straight swipe from `from` to `to` in `duration_ms`.
pub fn swipe(from: Point, to: Point, duration_ms: u64) -> Value {
    finger(from, to, 0, duration_ms)
}

/// `POST /session/:id/appium/device/press_keycode`.
pub fn key_code(code: u32) -> Value {
    json!({ "keycode": code })
}

/// `POST /session/:id/keys`: `text` into the focused field, after what it holds, or in its
/// place with `replace`.
pub fn keys(text: &str, replace: bool) -> Value {
    json!({ "text": text, "replace": replace })
}

/// Why the server's answer is not a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The server answered with its error (`value.error`, `value.message`).
    Error {
        /// The W3C error name (`invalid session id`, `unknown command`…).
        error: String,
        /// Its message.
        message: String,
    },
    /// Not the server's envelope: garbage, or another program on the port.
    Garbled(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Error { error, message } => write!(f, "{error}: {message}"),
            Refusal::Garbled(why) => write!(f, "{why}"),
        }
    }
}

/// The `value` of an answer (any status), or why there is none.
pub fn read_answer(body: &[u8]) -> Result<Value, Refusal> {
    let answer: Value = serde_json::from_slice(body).map_err(|e| {
        Refusal::Garbled(format!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&body[..body.len().min(120)])
        ))
    })?;
    let Some(value) = answer.as_object().and_then(|o| o.get("value")) else {
        return Err(Refusal::Garbled(
            "an answer without `value`: not the UiAutomator2 server's".into(),
        ));
    };
    if let Some(error) = value.get("error").and_then(Value::as_str) {
        return Err(Refusal::Error {
            error: error.to_string(),
            message: value["message"].as_str().unwrap_or("").to_string(),
        });
    }
    Ok(value.clone())
}

/// The session id of a `POST /session` answer's value (`sessionId`).
pub fn session_id(value: &Value) -> Option<String> {
    value["sessionId"]
        .as_str()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The page source of a `GET /session/:id/source` answer's value: XML text.
pub fn page_source(value: Value) -> Result<String, Refusal> {
    match value {
        Value::String(xml) if xml.trim_start().starts_with('<') => Ok(xml),
        other => Err(Refusal::Garbled(format!(
            "a page source that is not XML: {}",
            other.to_string().chars().take(120).collect::<String>()
        ))),
    }
}

/// `GET /status`: whether the server says it is ready, and its version.
pub fn status(value: &Value) -> (bool, Option<String>) {
    (
        value["ready"].as_bool().unwrap_or(false),
        value["build"]["version"].as_str().map(str::to_string),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    #[test]
    fn a_tap_is_down_and_up_at_one_rounded_point() {
        let a = tap(p(10.4, 20.6));
        let steps = &a["actions"][0]["actions"];
        assert_eq!(a["actions"][0]["parameters"]["pointerType"], "touch");
        assert_eq!(steps.as_array().unwrap().len(), 3);
        assert_eq!(steps[0]["x"], 10);
        assert_eq!(steps[0]["y"], 21);
        assert_eq!(steps[1]["type"], "pointerDown");
        assert_eq!(steps[2]["type"], "pointerUp");
    }

    #[test]
    fn a_long_press_holds_and_a_swipe_moves_for_its_duration() {
        let held = long_press(p(5.0, 5.0), 800);
        assert_eq!(held["actions"][0]["actions"][2]["type"], "pause");
        assert_eq!(held["actions"][0]["actions"][2]["duration"], 800);
        let swiped = swipe(p(0.0, 100.0), p(0.0, 10.0), 300);
        let steps = swiped["actions"][0]["actions"].as_array().unwrap();
        assert_eq!(steps[2]["type"], "pointerMove");
        assert_eq!(steps[2]["duration"], 300);
        assert_eq!(steps[2]["y"], 10);
        assert_eq!(steps.last().unwrap()["type"], "pointerUp");
    }

    #[test]
    fn answers_give_their_value_or_the_servers_error() {
        assert_eq!(
            read_answer(br#"{"sessionId":"s","value":"<hierarchy/>"}"#),
            Ok(json!("<hierarchy/>"))
        );
        assert_eq!(
            read_answer(
                br#"{"sessionId":null,"value":{"error":"invalid session id","message":"The session x cannot be found","stacktrace":"..."}}"#
            ),
            Err(Refusal::Error {
                error: "invalid session id".into(),
                message: "The session x cannot be found".into()
            })
        );
        assert!(matches!(read_answer(b"garbage"), Err(Refusal::Garbled(_))));
        assert!(matches!(read_answer(b"{}"), Err(Refusal::Garbled(_))));
        assert!(matches!(read_answer(b"[1]"), Err(Refusal::Garbled(_))));
    }

    #[test]
    fn a_source_must_be_xml_and_a_status_says_ready() {
        assert!(page_source(json!("<?xml version='1.0'?><hierarchy/>")).is_ok());
        assert!(page_source(json!({"a": 1})).is_err());
        assert!(page_source(json!("ok")).is_err());
        let (ready, version) = status(
            &json!({"ready": true, "message": "UiAutomator2 Server is ready to accept commands", "build": {"version": "10.6.6", "versionCode": 220}}),
        );
        assert!(ready);
        assert_eq!(version.as_deref(), Some("10.6.6"));
        assert_eq!(
            session_id(&json!({"sessionId": "abc", "capabilities": {}})).as_deref(),
            Some("abc")
        );
    }
}
