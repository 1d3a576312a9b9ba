//! WebDriverAgent's answers and their failures. Every answer is an envelope
//! `{"value": …, "sessionId": …}`; a failure is either a W3C error in `value`
//! (`{"error": "no such alert", "message": …}`, with a 4xx/5xx status) or, from old WDAs, a
//! JSONWP `status` other than 0 with the message as `value` (often with a 200). Both become a
//! [`WdaError`], translated to the product's codes by one table ([`TABLE`], seed 001's error
//! translation). A WDA that cannot be reached or does not answer in time is mapped like any
//! HTTP failure, with a hint on starting WDA and forwarding its port.

use serde_json::{json, Value};

use crate::backend::http_error;
use crate::error::{Error, ErrorCode, Op, Step};
use crate::exec::HttpError;

/// A failure WDA reported.
#[derive(Debug, Clone, PartialEq)]
pub struct WdaError {
    /// The W3C error name (`no such alert`, `invalid session id`…).
    pub error: String,
    pub message: String,
    /// The HTTP status it came with.
    pub status: u16,
}

impl WdaError {
    pub fn is(&self, name: &str) -> bool {
        self.error == name
    }

    /// WDA no longer knows the session (restarted, or another client replaced it).
    pub fn invalid_session(&self) -> bool {
        self.is("invalid session id")
    }
}

/// Why a request to WDA got no usable answer.
#[derive(Debug)]
pub enum Failure {
    /// WDA answered with an error.
    Wda(WdaError),
    /// No answer, or one that is not WDA's.
    Http(HttpError),
    /// A 2xx answer that is not a WDA envelope.
    Garbled(String),
}

/// JSONWP status codes of old WDAs, by their W3C names.
fn jsonwp_name(status: i64, message: &str) -> &'static str {
    match status {
        6 => "invalid session id",
        7 => "no such element",
        9 => "unknown command",
        10 => "stale element reference",
        11 => "element not visible",
        12 => "invalid element state",
        21 => "timeout",
        26 => "unexpected alert open",
        27 => "no such alert",
        33 => "session not created",
        // Old facebook WDAs answered unknown routes with status 1 "Unhandled endpoint".
        _ if message.starts_with("Unhandled endpoint") => "unknown command",
        _ => "unknown error",
    }
}

/// The error an envelope carries, if any (W3C `value.error`, or a JSONWP `status` ≠ 0).
pub fn envelope_error(answer: &Value, http_status: u16) -> Option<WdaError> {
    let value = answer.get("value");
    if let Some(name) = value.and_then(|v| v.get("error")).and_then(Value::as_str) {
        let message = value
            .and_then(|v| v.get("message"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        return Some(WdaError {
            error: name.to_string(),
            message: message.to_string(),
            status: http_status,
        });
    }
    let status = answer.get("status").and_then(Value::as_i64)?;
    if status == 0 {
        return None;
    }
    let message = match value {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    };
    Some(WdaError {
        error: jsonwp_name(status, &message).to_string(),
        message,
        status: http_status,
    })
}

/// Reads an answer body: the envelope, or why it is not a usable one.
pub fn read_answer(body: &[u8], http_status: u16) -> std::result::Result<Value, Failure> {
    let answer: Value = serde_json::from_slice(body).map_err(|e| {
        Failure::Garbled(format!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        ))
    })?;
    if let Some(err) = envelope_error(&answer, http_status) {
        return Err(Failure::Wda(err));
    }
    if !answer.is_object() || answer.get("value").is_none() {
        return Err(Failure::Garbled(
            "an answer without `value`: not a WebDriverAgent envelope".into(),
        ));
    }
    Ok(answer)
}

/// A non-2xx answer: WDA's error when its body says one, else the plain HTTP failure.
pub fn from_status(err: HttpError) -> Failure {
    if let HttpError::Status { status, body, .. } = &err {
        if let Ok(answer) = serde_json::from_str::<Value>(body) {
            if let Some(e) = envelope_error(&answer, *status) {
                return Failure::Wda(e);
            }
        }
    }
    Failure::Http(err)
}

/// Seed 001's error translation: WDA's error name → the product's code and what to do.
/// `invalid session id` is handled before this (the session is recreated and the request
/// repeated once); it lands here only when the repeat fails the same way.
pub const TABLE: &[(&str, ErrorCode, &str, &[Op])] = &[
    ("no such alert", ErrorCode::NoAlert,
     "no alert is open; read the screen with {0}", &[Op::Snapshot]),
    ("unexpected alert open", ErrorCode::AlertBlocking,
     "an alert blocks the screen: answer it with {0} or {1}", &[Op::AlertAccept, Op::AlertDismiss]),
    ("stale element reference", ErrorCode::StaleReference,
     "read the screen again with {0} and use its refs", &[Op::Snapshot]),
    ("no such element", ErrorCode::ElementNotFound,
     "read the screen again with {0}", &[Op::Snapshot]),
    ("element not visible", ErrorCode::ElementNotInteractable,
     "scroll the element into view first", &[]),
    ("invalid element state", ErrorCode::ElementNotInteractable,
     "the element (or the keyboard) cannot take this now: focus a text field, or check it is enabled", &[]),
    ("unknown command", ErrorCode::UnsupportedOnPlatform,
     "this WebDriverAgent does not offer that command: use a recent appium/WebDriverAgent build", &[]),
    ("unknown method", ErrorCode::UnsupportedOnPlatform,
     "this WebDriverAgent does not offer that command: use a recent appium/WebDriverAgent build", &[]),
    ("unsupported operation", ErrorCode::UnsupportedOnPlatform,
     "WebDriverAgent cannot do this on this device", &[]),
    ("invalid coordinates", ErrorCode::ValidationFailed,
     "give a point inside the screen, in points ({0} shows the size)", &[Op::Snapshot]),
    ("timeout", ErrorCode::Timeout,
     "WebDriverAgent gave up waiting; retry, or check the app is not busy", &[]),
    ("session not created", ErrorCode::CommandFailed,
     "WebDriverAgent could not open a session: unlock the phone, check {0}, and see WebDriverAgent's log in Xcode", &[Op::Doctor]),
    ("invalid session id", ErrorCode::CommandFailed,
     "WebDriverAgent dropped the session twice in a row: restart WebDriverAgent, then retry", &[]),
];

const OTHER_HINT: (&str, &[Op]) = (
    "WebDriverAgent's own words are in `message`; {0} checks the endpoint",
    &[Op::Doctor],
);

/// A WDA error as the product's error.
pub fn translate(err: &WdaError, request: &str) -> Error {
    let (code, (hint, ops)) = TABLE
        .iter()
        .find(|(name, ..)| err.is(name))
        .map_or((ErrorCode::CommandFailed, OTHER_HINT), |(_, c, h, o)| {
            (*c, (*h, *o))
        });
    let first = err
        .message
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let shown: String = first.chars().take(300).collect();
    let message = if shown.is_empty() {
        format!("WebDriverAgent: {}", err.error)
    } else {
        format!("WebDriverAgent: {}: {shown}", err.error)
    };
    let full: String = err.message.chars().take(2000).collect();
    Error::new(code, message)
        .with_next(hint, ops.iter().map(|o| Step::call(*o)))
        .with_details(json!({
            "wda_error": err.error,
            "wda_message": full,
            "status": err.status,
            "request": request,
        }))
}

/// The hint for a WDA that cannot be reached at `url`.
pub fn unreachable_hint(url: &str, udid: Option<&str>) -> String {
    let u = udid.unwrap_or("<UDID>");
    format!(
        "start WebDriverAgent on the device (xcodebuild -project WebDriverAgent.xcodeproj \
         -scheme WebDriverAgentRunner -destination 'id={u}' test) and forward its port to \
         {url} (`iproxy 8100 8100 -u {u}` or `ios forward 8100 8100 --udid {u}`), then retry"
    )
}

/// Any failure of a request to WDA at `url`, as the product's error.
pub fn to_error(failure: Failure, request: &str, url: &str, udid: Option<&str>) -> Error {
    match failure {
        Failure::Wda(e) => translate(&e, request),
        Failure::Garbled(why) => Error::new(
            ErrorCode::CommandFailed,
            format!("`{request}` answered something other than WebDriverAgent would: {why}"),
        )
        .with_hint(format!(
            "check that {url} is a WebDriverAgent server (GET {url}/status)"
        )),
        Failure::Http(e @ HttpError::Unreachable { .. }) => {
            http_error(e).with_hint(unreachable_hint(url, udid))
        }
        Failure::Http(e @ HttpError::Timeout { .. }) => http_error(e).with_hint(
            "WebDriverAgent did not answer in time: a large screen can take WDA several seconds \
             to describe; raise --wda-source-timeout-ms, or check the phone is unlocked and awake",
        ),
        Failure::Http(e) => http_error(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        crate::backend::wda::recorded(&format!("ios_wda_source/{name}"))
    }

    fn wda_error(body: &[u8], status: u16) -> WdaError {
        match read_answer(body, status) {
            Err(Failure::Wda(e)) => e,
            other => panic!("not a WDA error: {other:?}"),
        }
    }

    #[test]
    fn recorded_errors_are_read_from_w3c_and_jsonwp_envelopes() {
        let e = wda_error(
            &fixture("wda_error_session_not_created_capabilities_mandatory_2020.json"),
            500,
        );
        assert_eq!(e.error, "session not created");
        assert_eq!(
            e.message,
            "'capabilities' is mandatory to create a new session"
        );
        let e = wda_error(
            &fixture("wda_legacy_jsonwp_failed_to_launch_status13_2017.json"),
            200,
        );
        assert_eq!(e.error, "unknown error");
        assert_eq!(
            e.message,
            "Failed to launch com.apple.mobilesafari application"
        );
        for f in [
            "wda_legacy_jsonwp_unhandled_endpoint_status1_root_path_2017.json",
            "wda_legacy_jsonwp_unhandled_endpoint_alert_text_status1_2016.json",
        ] {
            let e = wda_error(&fixture(f), 200);
            assert_eq!(e.error, "unknown command", "{f}");
            assert_eq!(
                translate(&e, "GET /").code,
                ErrorCode::UnsupportedOnPlatform
            );
        }
    }

    #[test]
    fn recorded_successes_are_envelopes() {
        for f in [
            "wda_post_homescreen_value_null_real_iphone_ios13.2.3.json",
            "wda_get_session_jsonwp_status0_sim_ios10.3.1_appium_log_2017.json",
            "wda_post_session_w3c_caps_wda5.9_sim_ios15.2_appiumlog_compact.json",
            "wda_post_element_with_response_attributes_zh_real_iphone_dedent4.json",
            "wda_get_element_rect_wechat_real_iphone_facebookwda_debug.json",
            "wda_post_elements_class_chain_wechat_real_iphone_facebookwda_debug.json",
            "wda_get_attribute_wdValue_null_real_iphone_dedent4.json",
        ] {
            let v = read_answer(&fixture(f), 200).unwrap_or_else(|e| panic!("{f}: {e:?}"));
            assert!(v.get("value").is_some(), "{f}");
        }
        assert!(matches!(
            read_answer(b"<html>proxy error</html>", 200),
            Err(Failure::Garbled(_))
        ));
        assert!(matches!(
            read_answer(b"{\"ok\": true}", 200),
            Err(Failure::Garbled(_))
        ));
    }

    #[test]
    fn the_translation_table() {
        let cases = [
            ("no such alert", 404, ErrorCode::NoAlert),
            ("stale element reference", 404, ErrorCode::StaleReference),
            ("unknown command", 404, ErrorCode::UnsupportedOnPlatform),
            ("unexpected alert open", 500, ErrorCode::AlertBlocking),
            ("invalid coordinates", 400, ErrorCode::ValidationFailed),
            ("unknown error", 500, ErrorCode::CommandFailed),
            ("something new", 500, ErrorCode::CommandFailed),
        ];
        for (name, status, code) in cases {
            let body = json!({"value": {"error": name, "message": "m\nsecond line", "traceback": ""},
                              "sessionId": null});
            let e = wda_error(body.to_string().as_bytes(), status);
            assert!(!e.invalid_session());
            let err = translate(&e, "POST /x");
            assert_eq!(err.code, code, "{name}");
            assert_eq!(err.message, format!("WebDriverAgent: {name}: m"));
            assert!(err.hint.is_some());
            assert_eq!(err.details.unwrap()["wda_message"], "m\nsecond line");
        }
        let body = json!({"value": {"error": "invalid session id", "message": ""}});
        assert!(wda_error(body.to_string().as_bytes(), 404).invalid_session());
        // A non-2xx status with WDA's body is WDA's error; with another body, HTTP's.
        let f = from_status(HttpError::Status {
            request: "GET /source".into(),
            status: 500,
            body: body.to_string(),
        });
        assert!(matches!(f, Failure::Wda(e) if e.invalid_session()));
        let f = from_status(HttpError::Status {
            request: "GET /source".into(),
            status: 502,
            body: "Bad Gateway".into(),
        });
        assert!(matches!(f, Failure::Http(_)));
    }

    #[test]
    fn unreachable_and_slow_wda_get_their_hints() {
        let e = to_error(
            Failure::Http(HttpError::Unreachable {
                request: "GET http://127.0.0.1:8100/source".into(),
                why: "cannot connect".into(),
                connected: false,
            }),
            "GET /source",
            "http://127.0.0.1:8100",
            Some("00008130-000A1C2E3C41001C"),
        );
        assert_eq!(e.code, ErrorCode::DeviceUnreachable);
        let hint = e.hint.unwrap();
        assert!(
            hint.contains("iproxy 8100 8100 -u 00008130-000A1C2E3C41001C"),
            "{hint}"
        );
        assert!(hint.contains("ios forward"), "{hint}");
        let e = to_error(
            Failure::Http(HttpError::Timeout {
                request: "GET /source".into(),
                timeout: std::time::Duration::from_secs(2),
            }),
            "GET /source",
            "http://127.0.0.1:8100",
            None,
        );
        assert_eq!(e.code, ErrorCode::Timeout);
        assert!(e.hint.unwrap().contains("--wda-source-timeout-ms"));
    }
}
