//! A client failure ([`ClientError`]), ready to print, and the one mapping from server error
//! codes to the CLI's exit codes ([`exit_for_code`]).

use reqwest::StatusCode;
use serde_json::{json, Value};

/// Exit codes of the client commands (seed 000 §4).
pub mod exit {
    /// The command succeeded.
    pub const OK: i32 = 0;
    /// The command ran but did not succeed (action failed, expect false, wait timed out…).
    pub const FAILED: i32 = 1;
    /// Usage error, including the server's validation errors.
    pub const USAGE: i32 = 2;
    /// No usable server: unreachable, not mobilectl, or another protocol version.
    pub const UNREACHABLE: i32 = 3;
    /// A device tool the server needs is missing (`TOOL_MISSING`).
    pub const TOOL_MISSING: i32 = 127;
}

/// The exit code for a server error code. The one place that decides.
pub fn exit_for_code(code: &str) -> i32 {
    match code {
        "BAD_REQUEST"
        | "VALIDATION_FAILED"
        | "UNSUPPORTED_MEDIA_TYPE"
        | "ROUTE_NOT_FOUND"
        | "METHOD_NOT_ALLOWED"
        | "PAYLOAD_TOO_LARGE"
        | "URI_TOO_LONG"
        | "HEADERS_TOO_LARGE"
        | "UNAUTHORIZED"
        | "FORBIDDEN_HOST" => exit::USAGE,
        "TOOL_MISSING" => exit::TOOL_MISSING,
        _ => exit::FAILED,
    }
}

/// Whether an error (its code and its body's details) says that the session the request was
/// sent in is gone from the server (it restarted, or the session expired or ended), and not
/// some other session the request named: what a client keeping a session of its own starts
/// again on.
pub fn says_session_gone(code: &str, details: &serde_json::Value) -> bool {
    matches!(code, "SESSION_NOT_FOUND" | "SESSION_EXPIRED")
        && details[crate::api::wire::sessions::REQUEST_SESSION] == serde_json::Value::Bool(true)
}

/// A failure of a client command, ready to print.
#[derive(Debug)]
pub struct ClientError {
    /// The process exit code the CLI ends with (one of [`exit`]).
    pub exit: i32,
    /// Error code: the server's, or a client-side one (`SERVER_UNREACHABLE`, `USAGE`…).
    pub code: String,
    /// What went wrong, for a person.
    pub message: String,
    /// What to do about it, when known.
    pub hint: Option<String>,
    /// The server's error body, printed unchanged with `--json`.
    pub raw: Option<String>,
}

impl ClientError {
    /// A usage error found on the client's side ([`exit::USAGE`], code `USAGE`).
    pub fn usage(message: impl Into<String>) -> Self {
        Self::local(exit::USAGE, "USAGE", message, None)
    }

    /// A failure found on the client's side, with its exit code, code, message and hint.
    pub fn local(exit: i32, code: &str, message: impl Into<String>, hint: Option<String>) -> Self {
        ClientError {
            exit,
            code: code.into(),
            message: message.into(),
            hint,
            raw: None,
        }
    }

    /// The server's `details` of the error (`null` when it gave none).
    pub fn details(&self) -> Value {
        let envelope: Value = self
            .raw
            .as_deref()
            .and_then(|raw| serde_json::from_str(raw).ok())
            .unwrap_or(Value::Null);
        envelope["error"]["details"].clone()
    }

    /// What to do about it as data, when the server said it (the envelope's `next`).
    pub fn next(&self) -> Option<crate::error::Next> {
        let envelope: Value = serde_json::from_str(self.raw.as_deref()?).ok()?;
        serde_json::from_value(envelope["error"]["next"].clone()).ok()
    }

    /// The JSON printed on stdout with `--json`: the server's envelope, or one in its shape.
    pub fn json(&self) -> String {
        match &self.raw {
            Some(raw) => raw.clone(),
            None => json!({"error": {"code": self.code, "message": self.message,
                "retryable": false, "hint": self.hint}})
            .to_string(),
        }
    }
}

pub(super) fn unreachable(url: &str, why: &str) -> ClientError {
    ClientError::local(
        exit::UNREACHABLE,
        "SERVER_UNREACHABLE",
        format!("no mobilectl server answers at {url} ({why})"),
        Some("start one with `mobilectl serve`, or set MOBILECTL_URL / --url".into()),
    )
}

pub(super) fn unusable(url: &str, why: String) -> ClientError {
    ClientError::local(
        exit::UNREACHABLE,
        "NOT_MOBILECTL",
        format!("what answers at {url} is not a mobilectl server: {why}"),
        None,
    )
}

/// Turns a non-2xx answer into an error, reading the envelope when there is one.
pub fn server_error(status: StatusCode, body: &[u8]) -> ClientError {
    let raw = String::from_utf8_lossy(body).into_owned();
    let v: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
    let e = &v["error"];
    let Some(code) = e["code"].as_str() else {
        let exit = if status.is_client_error() {
            exit::USAGE
        } else {
            exit::FAILED
        };
        return ClientError {
            exit,
            code: format!("HTTP_{}", status.as_u16()),
            message: format!("the server answered {status}: {}", raw.trim()),
            hint: None,
            raw: None,
        };
    };
    ClientError {
        exit: exit_for_code(code),
        code: code.to_string(),
        message: e["message"].as_str().unwrap_or("").to_string(),
        hint: e["hint"].as_str().map(str::to_string),
        raw: Some(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_by_error_code() {
        for (code, want) in [
            ("BAD_REQUEST", 2),
            ("VALIDATION_FAILED", 2),
            ("UNSUPPORTED_MEDIA_TYPE", 2),
            ("TOOL_MISSING", 127),
            ("ELEMENT_NOT_FOUND", 1),
            ("AMBIGUOUS_TARGET", 1),
            ("STALE_REFERENCE", 1),
            ("TIMEOUT", 1),
            ("NO_DEVICE", 1),
            ("COMMAND_FAILED", 1),
        ] {
            assert_eq!(exit_for_code(code), want, "{code}");
        }
        // Every code the server knows has a deliberate mapping.
        for c in crate::error::ErrorCode::ALL {
            assert!([1, 2, 127].contains(&exit_for_code(c.as_str())));
        }
    }

    #[test]
    fn envelopes_and_bare_statuses() {
        let body =
            br#"{"error":{"code":"ELEMENT_NOT_FOUND","message":"no match","hint":"refresh"}}"#;
        let e = server_error(StatusCode::NOT_FOUND, body);
        assert_eq!((e.exit, e.code.as_str()), (1, "ELEMENT_NOT_FOUND"));
        assert_eq!(e.hint.as_deref(), Some("refresh"));
        assert_eq!(e.json(), String::from_utf8_lossy(body));
        assert_eq!(server_error(StatusCode::BAD_REQUEST, b"nope").exit, 2);
        assert_eq!(server_error(StatusCode::BAD_GATEWAY, b"").exit, 1);
    }
}
