//! Running commands on the device: `adb shell` and `adb exec-out` with a script quoted for the
//! device's own shell (mksh), and turning adb's failure words into the product's errors
//! (`device offline`, `device not found` → `DEVICE_OFFLINE`).
//!
//! adb joins its arguments with spaces and the device shell parses the result, so every value
//! from a request is quoted with [`quote`] and validated before it is put into a script; the
//! host never runs a shell.

use std::time::Duration;

use serde_json::json;

use super::AdbBackend;
use crate::backend::command_failed;
use crate::error::{Error, ErrorCode, Result};
use crate::exec::{Output, Tool};

/// Quotes `s` as one word for a POSIX shell (mksh on Android): inside single quotes nothing is
/// special, and a single quote is written as `'\''`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// adb's words for a device that is gone or not usable.
fn offline_words(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    [
        "device offline",
        "device unauthorized",
        "not found",
        "no devices/emulators found",
        "error: closed",
        "device still authorizing",
        "protocol fault",
        "connection reset",
    ]
    .iter()
    .any(|w| t.contains(w))
        && t.contains("error")
        || t.starts_with("adb: device")
}

/// Maps a failed adb invocation to an error: offline devices get `DEVICE_OFFLINE`, anything
/// else `COMMAND_FAILED` with adb's words.
pub fn adb_failure(serial: &str, what: &str, out: &Output) -> Error {
    let stderr = out.stderr_text();
    if offline_words(&stderr) {
        return Error::new(
            ErrorCode::DeviceOffline,
            format!("device `{serial}` is not reachable: {}", stderr.trim()),
        )
        .with_hint("check `adb devices`; reconnect the device or run `adb reconnect`")
        .with_details(json!({ "stderr": stderr, "exit_code": out.code }));
    }
    command_failed(Tool::Adb, what, out)
}

impl AdbBackend {
    /// `adb -s S shell SCRIPT`: text output; fails on a non-zero adb exit.
    pub async fn shell(&self, serial: &str, script: &str, timeout: Duration) -> Result<Output> {
        let cmd = self
            .adb_for(serial)?
            .args(["shell", script])
            .timeout(timeout);
        let out = self.run(cmd).await?;
        if !out.success() {
            return Err(adb_failure(serial, "adb shell", &out));
        }
        Ok(out)
    }

    /// `adb -s S shell SCRIPT` whatever the remote command's exit status: only adb's own
    /// failures (device gone, adb errors) are errors. For tools whose words say more than
    /// their exit code (`am`, `pm`).
    pub async fn shell_any(&self, serial: &str, script: &str, timeout: Duration) -> Result<Output> {
        let cmd = self
            .adb_for(serial)?
            .args(["shell", script])
            .timeout(timeout);
        let out = self.run(cmd).await?;
        let stderr = out.stderr_text();
        let adb_said = stderr.starts_with("error:") || stderr.starts_with("adb:");
        if !out.success() && (adb_said || offline_words(&stderr)) {
            return Err(adb_failure(serial, "adb shell", &out));
        }
        Ok(out)
    }

    /// `adb -s S exec-out SCRIPT`: binary-safe stdout (no pty, no CRLF translation).
    pub async fn exec_out(&self, serial: &str, script: &str, timeout: Duration) -> Result<Output> {
        let cmd = self
            .adb_for(serial)?
            .args(["exec-out", script])
            .timeout(timeout);
        let out = self.run(cmd).await?;
        if !out.success() {
            return Err(adb_failure(serial, "adb exec-out", &out));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_everything_literal() {
        assert_eq!(quote("abc"), "'abc'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("a;b$(id)`x`"), "'a;b$(id)`x`'");
    }

    #[test]
    fn quoted_words_survive_a_real_posix_shell() {
        for s in [
            "a;b$(id)",
            "it's \"q\" \\ x",
            "*?~#!{}[]%",
            "tab\there\nnewline",
            "ünï ✓",
        ] {
            let out = std::process::Command::new("sh")
                .args(["-c", &format!("printf %s {}", quote(s))])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), s);
        }
    }

    #[test]
    fn offline_detection() {
        assert!(offline_words("error: device offline"));
        assert!(offline_words("error: device 'emulator-5554' not found"));
        assert!(offline_words("error: closed"));
        assert!(!offline_words(
            "Error: Activity not started, unable to resolve Intent"
        ));
    }
}
