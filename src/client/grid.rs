//! A W3C session through a Selenium Grid 4 hub, for clients that reach mobilectl nodes behind
//! it (`mobilectl mcp --grid`): opened with `POST HUB/session` and capabilities, used as the
//! base URL `HUB/session/{id}` (every API request under it goes to that session's device and
//! renews it), closed with `DELETE HUB/session/{id}`.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::{exit, ClientError};

/// How long the hub may take to find a device (its queue included).
const OPEN_TIMEOUT: Duration = Duration::from_secs(330);

/// A `KEY=VALUE` capability: numbers and booleans as such, anything else as text.
pub fn capability(arg: &str) -> Result<(String, Value), String> {
    let (k, v) = arg
        .split_once('=')
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("`{arg}`: give KEY=VALUE (platformName=android)"))?;
    let value = match serde_json::from_str::<Value>(v) {
        Ok(n @ (Value::Number(_) | Value::Bool(_))) => n,
        _ => Value::String(v.to_string()),
    };
    Ok((k.to_string(), value))
}

fn failed(message: String, hint: Option<String>) -> ClientError {
    ClientError::local(exit::UNREACHABLE, "GRID_SESSION_NOT_CREATED", message, hint)
}

/// Opens a session through the hub; answers its id and the base URL of the API in it.
pub async fn open(hub: &str, caps: &Map<String, Value>) -> Result<(String, String), ClientError> {
    let hub = hub.trim_end_matches('/');
    let http = reqwest::Client::new();
    let answer = http
        .post(format!("{hub}/session"))
        .header("content-type", "application/json; charset=utf-8")
        .body(json!({"capabilities": {"alwaysMatch": caps}}).to_string())
        .timeout(OPEN_TIMEOUT)
        .send()
        .await
        .map_err(|e| failed(format!("the hub at {hub} did not answer: {e}"), None))?;
    let status = answer.status();
    let v: Value = answer.json().await.unwrap_or_default();
    match v["value"]["sessionId"].as_str() {
        Some(id) if status.is_success() => Ok((id.to_string(), format!("{hub}/session/{id}"))),
        _ => Err(failed(
            format!(
                "the hub made no session ({status}): {}",
                v["value"]["message"].as_str().unwrap_or("no message")
            ),
            Some("check the capabilities against the hub's slots (its /status or /ui)".into()),
        )),
    }
}

/// Closes the session (the node ends the mobilectl session, releasing its device).
pub async fn close(hub: &str, id: &str) {
    let hub = hub.trim_end_matches('/');
    let _ = reqwest::Client::new()
        .delete(format!("{hub}/session/{id}"))
        .timeout(Duration::from_secs(30))
        .send()
        .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_are_typed_as_they_read() {
        assert_eq!(
            capability("platformName=android").unwrap().1,
            json!("android")
        );
        assert_eq!(capability("mobilectl:ttl_s=60").unwrap().1, json!(60));
        assert_eq!(
            capability("appium:udid=127.0.0.1:5555").unwrap().1,
            json!("127.0.0.1:5555")
        );
        assert!(capability("novalue").is_err());
        assert!(capability("=x").is_err());
    }
}
