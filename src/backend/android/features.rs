//! Device features on Android, each one adb round trip with every value quoted for the
//! device's shell ([`quote`]):
//! - the clipboard through the clipboard service's shell commands (`cmd clipboard set-text`,
//!   `get-text`); where the OS has none it answers `No shell command implementation` (or has
//!   no `clipboard` service), and so do we: 501 with what would make it possible;
//! - the orientation through the settings the window manager reads: `accelerometer_rotation`
//!   0 locks auto-rotate and `user_rotation` 0..3 turns the screen; restoring turns
//!   auto-rotate back on. What the screen shows is read from the UI dump's `rotation`;
//! - intents with `am start -W` / `am broadcast`, whose words are the answer;
//! - notifications posted as the shell (`cmd notification post [-t TITLE] TAG TEXT`) and the
//!   shade opened and closed (`cmd statusbar expand-notifications` / `collapse`).

use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;

use super::shell::{adb_failure, quote};
use super::AdbBackend;
use crate::backend::Biometrics;
use crate::backend::Clipboard;
use crate::backend::Intents;
use crate::backend::NotificationShade;
use crate::backend::Notifications;
use crate::backend::ScreenOrientation;
use crate::device::{
    Device, IntentMode, IntentOutcome, IntentSpec, NotificationPost, Orientation, OrientationRead,
};
use crate::error::{Error, ErrorCode, Op, Result, Step};

/// Time limit of the settings and clipboard commands.
const QUICK: Duration = Duration::from_secs(10);
/// Time limit of an intent (`am start -W` waits for the activity to draw).
const INTENT_TIMEOUT: Duration = Duration::from_secs(30);

/// The clipboard service's words when the OS has no shell commands for it.
fn no_clipboard_commands(text: &str) -> bool {
    text.contains("No shell command implementation")
        || text.contains("Can't find service: clipboard")
        || text.contains("Unknown command")
}

fn no_clipboard(udid: &str) -> Error {
    Error::new(
        ErrorCode::UnsupportedOnPlatform,
        format!("the clipboard of `{udid}` cannot be reached from adb: its OS has no `cmd clipboard` shell commands"),
    )
    .with_next(
        "Android 10+ lets only the focused app or the keyboard read the clipboard; use a build \
         whose clipboard service takes shell commands (`cmd clipboard set-text`), or type the \
         text ({0}) instead",
        [Step::call(Op::TypeText)],
    )
}

/// The activity `am start -W` names (`Activity: com.example/.Main`).
pub fn started_activity(output: &str) -> Option<String> {
    output
        .lines()
        .find_map(|l| l.trim().strip_prefix("Activity: "))
        .map(|a| a.trim().to_string())
}

/// Whether `am`'s words say the intent went nowhere, and how.
fn am_error(output: &str) -> Option<(ErrorCode, String)> {
    let lines = || output.lines().map(str::trim);
    let line = lines().find(|l| l.starts_with("Error:")).or_else(|| {
        lines().find(|l| {
            l.starts_with("Error") || l.starts_with("Exception") || l.contains("Exception:")
        })
    })?;
    let code = if line.contains("does not exist")
        || line.contains("unable to resolve Intent")
        || line.contains("Activity not started")
    {
        ErrorCode::NotFound
    } else {
        ErrorCode::CommandFailed
    };
    Some((code, line.to_string()))
}

/// A tag unique to this post, so that posts do not replace each other.
fn now_tag() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

#[async_trait]
impl Clipboard for AdbBackend {
    async fn get_clipboard(&self, device: &Device) -> Result<String> {
        let out = self
            .shell_any(&device.udid, "cmd clipboard get-text 2>&1", QUICK)
            .await?;
        let text = out.stdout_text();
        if no_clipboard_commands(&text) || !out.success() {
            return Err(no_clipboard(&device.udid)
                .with_details(json!({ "output": text.trim(), "exit_code": out.code })));
        }
        Ok(text.strip_suffix('\n').unwrap_or(&text).to_string())
    }

    async fn set_clipboard(&self, device: &Device, text: &str) -> Result<()> {
        let script = format!("cmd clipboard set-text {} 2>&1", quote(text));
        let out = self.shell_any(&device.udid, &script, QUICK).await?;
        let said = out.stdout_text();
        if no_clipboard_commands(&said) || !out.success() {
            return Err(no_clipboard(&device.udid)
                .with_details(json!({ "output": said.trim(), "exit_code": out.code })));
        }
        Ok(())
    }
}

#[async_trait]
impl ScreenOrientation for AdbBackend {
    async fn get_orientation(&self, device: &Device) -> Result<OrientationRead> {
        let out = self
            .shell(
                &device.udid,
                "settings get system accelerometer_rotation",
                QUICK,
            )
            .await?;
        let auto = match out.stdout_text().trim() {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        };
        Ok(OrientationRead {
            orientation: None,
            auto_rotate: auto,
        })
    }

    async fn set_orientation(&self, device: &Device, to: Option<Orientation>) -> Result<()> {
        let script = match to {
            Some(o) => format!(
                "settings put system accelerometer_rotation 0 && settings put system user_rotation {}",
                o.android_rotation()
            ),
            None => "settings put system accelerometer_rotation 1".to_string(),
        };
        self.shell(&device.udid, &script, QUICK).await.map(drop)
    }
}

#[async_trait]
impl Intents for AdbBackend {
    async fn send_intent(&self, device: &Device, intent: &IntentSpec) -> Result<IntentOutcome> {
        let verb = match intent.mode {
            IntentMode::Start => "am start -W",
            IntentMode::Broadcast => "am broadcast",
        };
        let args: Vec<String> = intent.am_args().iter().map(|a| quote(a)).collect();
        let script = format!("{verb} {} 2>&1", args.join(" "));
        let out = self
            .shell_any(&device.udid, &script, INTENT_TIMEOUT)
            .await?;
        let output = out.stdout_text().trim().to_string();
        if let Some((code, line)) = am_error(&output) {
            let (say, steps) = match code {
                ErrorCode::NotFound => ("no activity takes this intent: check the component or the action and data ({0} lists packages)", vec![Step::call(Op::ListApps)]),
                _ => ("read am's words in details.output", vec![]),
            };
            return Err(Error::new(code, format!("am: {line}"))
                .with_next(say, steps)
                .with_details(json!({ "output": output, "exit_code": out.code })));
        }
        let activity = match intent.mode {
            IntentMode::Start => started_activity(&output),
            IntentMode::Broadcast => None,
        };
        Ok(IntentOutcome { output, activity })
    }
}

#[async_trait]
impl Notifications for AdbBackend {
    async fn post_notification(&self, device: &Device, n: &NotificationPost) -> Result<()> {
        if n.given_payload {
            return Err(Error::validation(
                "an APNs `payload` is for iOS; Android posts a `title` and `body`",
            ));
        }
        let Some(body) = n.body.as_deref().filter(|b| !b.is_empty()) else {
            return Err(Error::validation("Android posts need a non-empty `body`"));
        };
        let mut script = String::from("cmd notification post");
        if let Some(t) = &n.title {
            script += &format!(" -t {}", quote(t));
        }
        script += &format!(" mobilectl-{} {} 2>&1", now_tag(), quote(body));
        let out = self.shell_any(&device.udid, &script, QUICK).await?;
        let said = out.stdout_text();
        if !out.success() || said.contains("Can't find service") || said.contains("usage:") {
            return Err(Error::new(
                ErrorCode::UnsupportedOnPlatform,
                format!(
                    "`{}` did not post the notification: {}",
                    device.udid,
                    said.trim()
                ),
            )
            .with_hint("`cmd notification post` exists on Android 10 and later")
            .with_details(json!({ "output": said.trim(), "exit_code": out.code })));
        }
        Ok(())
    }
}

#[async_trait]
impl NotificationShade for AdbBackend {
    async fn notification_shade(&self, device: &Device, open: bool) -> Result<()> {
        let verb = if open {
            "expand-notifications"
        } else {
            "collapse"
        };
        self.shell(&device.udid, &format!("cmd statusbar {verb}"), QUICK)
            .await
            .map(drop)
    }
}

#[async_trait]
impl Biometrics for AdbBackend {
    /// The emulator console's `finger touch ID` (`adb emu`): a match touches an enrolled
    /// finger (default 1), a non-match one that is not (default 2). Enrolling happens in the
    /// emulator's Settings, not from the console.
    async fn biometric(
        &self,
        device: &Device,
        action: crate::device::BiometricAction,
        _kind: crate::device::BiometricKind,
        finger: Option<u8>,
    ) -> Result<()> {
        use crate::device::{BiometricAction, DeviceKind};
        if device.kind != DeviceKind::Emulator {
            return Err(Error::new(
                ErrorCode::UnsupportedOnPlatform,
                format!(
                    "`{}` is a physical device: its fingerprint sensor cannot be simulated",
                    device.udid
                ),
            )
            .with_hint(
                "biometrics are simulated on Android emulators (the console's `finger touch`)",
            ));
        }
        let id = match action {
            BiometricAction::Match => finger.unwrap_or(1),
            BiometricAction::Nonmatch => finger.unwrap_or(2),
            BiometricAction::Enroll | BiometricAction::Unenroll => {
                return Err(Error::new(
                    ErrorCode::UnsupportedOnPlatform,
                    "the emulator console cannot enrol or remove fingers",
                )
                .with_hint("enrol in the emulator's Settings › Security › Fingerprint, touching the sensor with `match` when asked"))
            }
        };
        let cmd = self
            .adb_for(&device.udid)?
            .args([
                "emu".to_string(),
                "finger".into(),
                "touch".into(),
                id.to_string(),
            ])
            .timeout(QUICK);
        let out = self.run(cmd).await?;
        if !out.success() || out.stdout_text().contains("KO") {
            return Err(adb_failure(&device.udid, "adb emu finger touch", &out));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn am_words_are_read() {
        let ok = "Starting: Intent { cmp=a/.B }\nStatus: ok\nActivity: a/.B\nComplete";
        assert_eq!(started_activity(ok).as_deref(), Some("a/.B"));
        assert!(am_error(ok).is_none());
        let missing = "Starting: Intent { cmp=a/.C }\nError type 3\nError: Activity class {a/.C} does not exist.";
        assert_eq!(am_error(missing).map(|e| e.0), Some(ErrorCode::NotFound));
        assert!(no_clipboard_commands("No shell command implementation."));
    }
}
