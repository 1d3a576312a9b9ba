//! Airplane mode on Android. Where the connectivity service has the shell command (Android 11
//! and later, some earlier builds too), `cmd connectivity airplane-mode` prints `enabled` or
//! `disabled`, and `… enable|disable` switches the mode as Quick Settings does: the setting is
//! written and the radios follow. Where it has none (`No shell command implementation.`,
//! `Unknown command: …`, or no `cmd` at all) the setting `global airplane_mode_on` is read and
//! written directly, and `android.intent.action.AIRPLANE_MODE` broadcast to tell the radios;
//! Android 7 and later refuse that broadcast from the shell (it is the system's), so there the
//! setting changes while the radios may not follow, and the answer's note says so. What each
//! command printed is read by the pure classifiers below, tested on their words.

use async_trait::async_trait;
use serde_json::json;

use super::{AdbBackend, QUICK_TIMEOUT};
use crate::backend::AirplaneMode;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::exec::Output;

/// The setting the mode is kept in.
const SETTING: &str = "global airplane_mode_on";

/// What `cmd connectivity airplane-mode [enable|disable] 2>&1` printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServiceSaid {
    /// `enabled` (true) or `disabled`: the mode, read.
    Mode(bool),
    /// Nothing: a change was made (or, for a read, nothing was said).
    Nothing,
    /// The OS has no such command: the setting is the way instead.
    NoCommand,
    /// Anything else: the service's words.
    Other(String),
}

/// Reads what the connectivity service's shell command printed.
pub fn classify_service(output: &str) -> ServiceSaid {
    let text = output.trim();
    match text {
        "enabled" => ServiceSaid::Mode(true),
        "disabled" => ServiceSaid::Mode(false),
        "" => ServiceSaid::Nothing,
        _ if no_command(text) => ServiceSaid::NoCommand,
        _ => ServiceSaid::Other(text.to_string()),
    }
}

/// Whether the words say the connectivity service (or the device) has no `airplane-mode`
/// shell command: a service without shell commands (Binder's default answer), one whose
/// commands do not include it (`Unknown command`, or its help without it), no such service,
/// or no `cmd` program (Android 6 and older).
fn no_command(text: &str) -> bool {
    let help_without_it =
        text.contains("Connectivity service commands") && !text.contains("airplane-mode");
    help_without_it
        || [
            "No shell command implementation",
            "Unknown command",
            "Can't find service: connectivity",
            "cmd: not found",
            "cmd: inaccessible or not found",
        ]
        .iter()
        .any(|w| text.contains(w))
}

/// `settings get global airplane_mode_on`: a number, not 0 when the mode is on; `null` (never
/// set) is off, as Android reads it. Anything else: `None`.
pub fn classify_setting(output: &str) -> Option<bool> {
    match output.trim() {
        "null" => Some(false),
        t => t.parse::<i64>().ok().map(|n| n != 0),
    }
}

/// What `am broadcast -a android.intent.action.AIRPLANE_MODE … 2>&1` printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broadcast {
    /// It went out (`Broadcast completed`).
    Sent,
    /// It did not: the line that says why (Android 7+: `SecurityException: Permission Denial`).
    Refused(String),
}

/// Reads what `am broadcast` printed.
pub fn classify_broadcast(output: &str) -> Broadcast {
    let lines = || output.lines().map(str::trim).filter(|l| !l.is_empty());
    let refusal = lines().find(|l| {
        l.contains("SecurityException") || l.contains("Permission Denial") || l.starts_with("Error")
    });
    match refusal {
        None if output.contains("Broadcast completed") => Broadcast::Sent,
        None => Broadcast::Refused(lines().next_back().unwrap_or("nothing said").to_string()),
        Some(line) => Broadcast::Refused(line.to_string()),
    }
}

/// The note of a change made through the setting whose broadcast was refused.
fn radios_not_told(enabled: bool, why: &str) -> String {
    format!(
        "this Android has no `cmd connectivity airplane-mode`: `{SETTING}` was set to {}, but \
         the AIRPLANE_MODE broadcast that tells the radios was refused ({why}); Android 7 and \
         later refuse it from the shell without root, so the radios may not have followed: \
         switch airplane mode in Quick Settings, or use Android 11 or later",
        u8::from(enabled)
    )
}

/// A command's failure, in its own words.
fn failed(udid: &str, what: &str, words: &str, out: &Output) -> Error {
    Error::new(
        ErrorCode::CommandFailed,
        format!("`{what}` on `{udid}` did not do it: {words}"),
    )
    .with_details(json!({ "output": out.stdout_text().trim(), "exit_code": out.code }))
}

impl AdbBackend {
    /// The mode as the setting says.
    async fn airplane_setting(&self, device: &Device) -> Result<bool> {
        let what = format!("settings get {SETTING}");
        let out = self.shell(&device.udid, &what, QUICK_TIMEOUT).await?;
        let text = out.stdout_text();
        classify_setting(&text).ok_or_else(|| failed(&device.udid, &what, text.trim(), &out))
    }
}

#[async_trait]
impl AirplaneMode for AdbBackend {
    async fn airplane_mode(&self, device: &Device) -> Result<bool> {
        const READ: &str = "cmd connectivity airplane-mode";
        let out = self
            .shell_any(&device.udid, &format!("{READ} 2>&1"), QUICK_TIMEOUT)
            .await?;
        match classify_service(&out.stdout_text()) {
            ServiceSaid::Mode(on) => Ok(on),
            ServiceSaid::Nothing | ServiceSaid::NoCommand => self.airplane_setting(device).await,
            ServiceSaid::Other(words) => Err(failed(&device.udid, READ, &words, &out)),
        }
    }

    async fn set_airplane_mode(&self, device: &Device, enabled: bool) -> Result<Option<String>> {
        let verb = if enabled { "enable" } else { "disable" };
        let what = format!("cmd connectivity airplane-mode {verb}");
        let out = self
            .shell_any(&device.udid, &format!("{what} 2>&1"), QUICK_TIMEOUT)
            .await?;
        match classify_service(&out.stdout_text()) {
            ServiceSaid::Nothing if out.success() => return Ok(None),
            ServiceSaid::NoCommand => {}
            ServiceSaid::Nothing => {
                let words = format!("exit code {:?}", out.code);
                return Err(failed(&device.udid, &what, &words, &out));
            }
            ServiceSaid::Mode(_) | ServiceSaid::Other(_) => {
                let words = out.stdout_text();
                return Err(failed(&device.udid, &what, words.trim(), &out));
            }
        }
        // An older Android: the setting, then the broadcast that tells the radios.
        let put = format!("settings put {SETTING} {}", u8::from(enabled));
        self.shell(&device.udid, &put, QUICK_TIMEOUT).await?;
        let tell = format!(
            "am broadcast -a android.intent.action.AIRPLANE_MODE --ez state {enabled} 2>&1"
        );
        let out = self.shell_any(&device.udid, &tell, QUICK_TIMEOUT).await?;
        Ok(match classify_broadcast(&out.stdout_text()) {
            Broadcast::Sent => None,
            Broadcast::Refused(why) => Some(radios_not_told(enabled, &why)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connectivity_service_is_read() {
        assert_eq!(classify_service("enabled\n"), ServiceSaid::Mode(true));
        assert_eq!(classify_service("disabled\r\n"), ServiceSaid::Mode(false));
        assert_eq!(classify_service(""), ServiceSaid::Nothing);
        // Binder's answer for a service without shell commands.
        assert_eq!(
            classify_service("No shell command implementation.\n"),
            ServiceSaid::NoCommand
        );
        assert_eq!(
            classify_service("Unknown command: airplane-mode\n"),
            ServiceSaid::NoCommand
        );
        assert_eq!(
            classify_service("cmd: Can't find service: connectivity\n"),
            ServiceSaid::NoCommand
        );
        assert_eq!(
            classify_service("/system/bin/sh: cmd: not found\n"),
            ServiceSaid::NoCommand
        );
        assert_eq!(
            classify_service("Connectivity service commands:\n  help\n    Print this help text.\n"),
            ServiceSaid::NoCommand,
            "a help without airplane-mode"
        );
        // A help that has it: the argument was wrong, not the OS.
        let help = "Connectivity service commands:\n  airplane-mode [enable|disable]\n";
        assert_eq!(
            classify_service(help),
            ServiceSaid::Other(help.trim().into())
        );
        let denied =
            "Exception occurred while executing 'airplane-mode':\njava.lang.SecurityException: …";
        assert!(matches!(classify_service(denied), ServiceSaid::Other(_)));
    }

    #[test]
    fn the_setting_is_read() {
        assert_eq!(classify_setting("1\n"), Some(true));
        assert_eq!(classify_setting("0\n"), Some(false));
        assert_eq!(classify_setting("null\n"), Some(false), "never set");
        assert_eq!(classify_setting("2"), Some(true));
        assert_eq!(classify_setting("Security exception: …"), None);
        assert_eq!(classify_setting(""), None);
    }

    #[test]
    fn the_broadcast_is_read() {
        let sent = "Broadcasting: Intent { act=android.intent.action.AIRPLANE_MODE flg=0x400000 (has extras) }\nBroadcast completed: result=0\n";
        assert_eq!(classify_broadcast(sent), Broadcast::Sent);
        let refused = "Broadcasting: Intent { act=android.intent.action.AIRPLANE_MODE flg=0x400000 (has extras) }\n\
            Exception occurred while executing 'broadcast':\n\
            java.lang.SecurityException: Permission Denial: not allowed to send broadcast android.intent.action.AIRPLANE_MODE from pid=4242, uid=2000\n\
            \tat com.android.server.am.ActivityManagerService.checkBroadcastFromSystem(ActivityManagerService.java:14164)\n";
        let Broadcast::Refused(why) = classify_broadcast(refused) else {
            panic!("refused")
        };
        assert!(
            why.starts_with("java.lang.SecurityException: Permission Denial"),
            "{why}"
        );
        assert!(matches!(classify_broadcast(""), Broadcast::Refused(_)));
        let note = radios_not_told(true, &why);
        assert!(note.contains("airplane_mode_on` was set to 1"), "{note}");
        assert!(note.contains("without root"), "{note}");
    }
}
