//! Device features on a Simulator through simctl: the pasteboard (`simctl pbcopy UDID` with
//! the text on stdin, `simctl pbpaste UDID` printing it) and push notifications (`simctl push
//! UDID BUNDLE FILE`, the checked APNs payload written to a temporary file). simctl has no rotation command and
//! intents are Android's: those answer 501 (the trait's defaults).

use async_trait::async_trait;

use super::{SimctlBackend, QUICK_TIMEOUT};
use crate::backend::command_failed;
use crate::backend::Biometrics;
use crate::backend::Clipboard;
use crate::backend::Media;
use crate::backend::Notifications;
use crate::device::Device;
use crate::device::NotificationPost;
use crate::error::{Error, Op, Result, Step};
use crate::exec::Tool;
use serde_json::json;

/// The BiometricKit notifications of a Simulator for `action` (posted with `notifyutil`
/// inside it): enrolment is `com.apple.BiometricKit.enrollmentChanged` set to 1 or 0 then
/// posted; a (non-)match `com.apple.BiometricKit_Sim.{pearl|fingerTouch}.{match|nomatch}`.
pub fn biometric_commands(
    action: crate::device::BiometricAction,
    kind: crate::device::BiometricKind,
) -> Vec<Vec<String>> {
    use crate::device::{BiometricAction, BiometricKind};
    const ENROLLED: &str = "com.apple.BiometricKit.enrollmentChanged";
    let sensor = match kind {
        BiometricKind::Face => "pearl",
        BiometricKind::Finger => "fingerTouch",
    };
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match action {
        BiometricAction::Enroll | BiometricAction::Unenroll => {
            let on = if action == BiometricAction::Enroll {
                "1"
            } else {
                "0"
            };
            vec![
                words(&["notifyutil", "-s", ENROLLED, on]),
                words(&["notifyutil", "-p", ENROLLED]),
            ]
        }
        BiometricAction::Match => vec![words(&[
            "notifyutil",
            "-p",
            &format!("com.apple.BiometricKit_Sim.{sensor}.match"),
        ])],
        BiometricAction::Nonmatch => vec![words(&[
            "notifyutil",
            "-p",
            &format!("com.apple.BiometricKit_Sim.{sensor}.nomatch"),
        ])],
    }
}

#[async_trait]
impl Clipboard for SimctlBackend {
    async fn get_clipboard(&self, device: &Device) -> Result<String> {
        let udid = device.udid.as_str();
        self.simctl_ok(["pbpaste", udid], QUICK_TIMEOUT, "simctl pbpaste", "")
            .await
            .map(|out| out.stdout_text())
    }

    async fn set_clipboard(&self, device: &Device, text: &str) -> Result<()> {
        let udid = device.udid.as_str();
        let cmd = self
            .simctl()?
            .args(["pbcopy", udid])
            .stdin(text.as_bytes().to_vec())
            .timeout(QUICK_TIMEOUT);
        let out = self.run(cmd).await?;
        if !out.success() {
            return Err(command_failed(Tool::Xcrun, "simctl pbcopy", &out));
        }
        Ok(())
    }
}

#[async_trait]
impl Notifications for SimctlBackend {
    async fn post_notification(&self, device: &Device, n: &NotificationPost) -> Result<()> {
        let udid = device.udid.as_str();
        let Some(bundle) = n.bundle_id.as_deref() else {
            return Err(
                Error::validation("a Simulator push needs the app's `bundle_id`").with_next(
                    "e.g. {0}",
                    [Step::example_of(
                        Op::PostNotification,
                        json!({"bundle_id": "com.example.app", "title": "Hi", "body": "…"}),
                    )],
                ),
            );
        };
        crate::backend::validate::ios_bundle_id(bundle)?;
        let mut file = tempfile::Builder::new()
            .prefix("mobilectl-push-")
            .suffix(".apns")
            .tempfile()
            .map_err(|e| Error::internal(format!("a temporary file for the payload: {e}")))?;
        std::io::Write::write_all(&mut file, n.apns.as_bytes())
            .map_err(|e| Error::internal(format!("writing the payload: {e}")))?;
        let path = file.path().as_os_str().to_os_string();
        let args: Vec<std::ffi::OsString> = vec!["push".into(), udid.into(), bundle.into(), path];
        self.simctl_ok(args, QUICK_TIMEOUT, "simctl push", "")
            .await
            .map(drop)
    }
}

#[async_trait]
impl Biometrics for SimctlBackend {
    async fn biometric(
        &self,
        device: &Device,
        action: crate::device::BiometricAction,
        kind: crate::device::BiometricKind,
        _finger: Option<u8>,
    ) -> Result<()> {
        let udid = device.udid.as_str();
        for words in biometric_commands(action, kind) {
            let mut args = vec!["spawn".to_string(), udid.to_string()];
            args.extend(words);
            self.simctl_ok(args, QUICK_TIMEOUT, "simctl spawn notifyutil", "")
                .await?;
        }
        Ok(())
    }
}

#[async_trait]
impl Media for SimctlBackend {
    /// `simctl addmedia UDID PATH`: the photo or video goes to the Photos library.
    async fn add_media(&self, device: &Device, local: &std::path::Path) -> Result<String> {
        let udid = device.udid.as_str();
        let args: Vec<std::ffi::OsString> = vec![
            "addmedia".into(),
            udid.into(),
            local.as_os_str().to_os_string(),
        ];
        self.simctl_ok(args, QUICK_TIMEOUT, "simctl addmedia", "")
            .await
            .map(|_| "Photos".to_string())
    }
}
