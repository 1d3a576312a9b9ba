//! Android apps and system settings over adb: install, launch (launcher activity resolved on
//! the device, the start as `am start -W` measured it), force-stop, `pm clear`, user packages,
//! VIEW intents, runtime permissions and the emulator's GPS.

use async_trait::async_trait;

use std::path::Path;
use std::time::Duration;

use super::shell;
use super::shell::{adb_failure, quote};
use super::{AdbBackend, QUICK_TIMEOUT};
use crate::backend::Apps;
use crate::backend::Location;
use crate::backend::Permissions;

/// Printed by a permission reset when the device cannot clear permission flags.
const NO_FLAGS_MARKER: &str = "__MOBILECTL_NO_PERMISSION_FLAGS__";
use crate::device::{
    AppInfo, Device, DeviceKind, LaunchOptions, LaunchValue, Launched, PermissionAction,
};
use crate::error::{Error, ErrorCode, Op, Result, Step};

/// Time limit of an install.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(240);
/// Time limit of a launch (`am start -W` waits for the first frame).
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether the file begins with a zip signature (`PK\x03\x04`), as every APK does.
fn starts_like_a_zip(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == *b"PK\x03\x04")
}

/// Checks that an install path is an APK file (an App Bundle is refused with how to get one).
pub(super) fn check_apk(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    let shown = path.display();
    match crate::backend::validate::extension(path).as_str() {
        "aab" => Err(Error::validation(
            "an Android App Bundle (.aab) cannot be installed directly",
        )
        .with_hint("build an .apk from it first: `bundletool build-apks --mode=universal`, then unzip universal.apk")),
        ext if ext != "apk" || !meta.is_file() => Err(Error::validation(format!(
            "`{shown}` is not an .apk file"
        ))
        .with_hint("Android installs take an .apk file")),
        _ if !starts_like_a_zip(path) => Err(Error::validation(format!(
            "`{shown}` is named .apk but is not an APK (an APK is a zip archive)"
        ))
        .with_hint("pass the .apk your build produced")),
        _ => Ok(()),
    }
}

/// Words of Android tools that mean the command failed even though the shell exited 0.
fn failure_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| {
        l.starts_with("Error")
            || l.starts_with("Failure")
            || l.starts_with("Exception")
            || l.starts_with("java.lang.")
            || l.contains("Unknown package")
            || l.starts_with("Bad component name")
    })
}

fn tool_refused(what: &str, line: &str, text: &str) -> Error {
    let code = if line.contains("Unknown package")
        || line.contains("does not exist")
        || line.contains("unable to resolve Intent")
    {
        ErrorCode::NotFound
    } else {
        ErrorCode::CommandFailed
    };
    Error::new(code, format!("{what}: {line}")).with_details(serde_json::json!({ "output": text }))
}

impl AdbBackend {
    /// Runs a device script and fails when its output carries a tool's failure words.
    async fn shell_checked(
        &self,
        serial: &str,
        script: &str,
        what: &str,
        timeout: Duration,
    ) -> Result<String> {
        let out = self.shell_any(serial, script, timeout).await?;
        let text = out.stdout_text() + &out.stderr_text();
        if !out.success() && failure_line(&text).is_none() {
            return Err(adb_failure(serial, what, &out));
        }
        match failure_line(&text) {
            Some(line) => Err(tool_refused(what, line, &text)),
            None => Ok(text),
        }
    }

    pub(super) async fn package_script(
        &self,
        device: &Device,
        script: &str,
        what: &str,
    ) -> Result<String> {
        self.shell_checked(&device.udid, script, what, QUICK_TIMEOUT)
            .await
    }

    pub(super) async fn geo_fix(&self, device: &Device, at: Option<(f64, f64)>) -> Result<()> {
        if device.kind != DeviceKind::Emulator {
            return Err(Error::new(
                ErrorCode::UnsupportedOnPlatform,
                "a physical Android phone's location cannot be set over adb",
            )
            .with_hint("use an emulator, or a mock-location app selected in Developer options"));
        }
        let Some((lat, lon)) = at else {
            return Err(Error::new(
                ErrorCode::UnsupportedOnPlatform,
                "the Android emulator keeps its last GPS fix; it cannot be cleared",
            )
            .with_hint("set another location instead"));
        };
        // The emulator console takes longitude first.
        let cmd = self
            .adb_for(&device.udid)?
            .args(["emu", "geo", "fix", &lon.to_string(), &lat.to_string()])
            .timeout(QUICK_TIMEOUT);
        let out = self.run(cmd).await?;
        if !out.success() || out.stdout_text().contains("KO") {
            return Err(adb_failure(&device.udid, "adb emu geo fix", &out));
        }
        Ok(())
    }
}

/// `am start`'s typed extras for the launch values, each word quoted for the device's shell:
/// ` --es 'k' 'v' --ez 'b' true --ei 'n' 3 --el 'big' 9000000000 --ed 'x' 1.5`.
fn extra_flags(extras: &[(String, LaunchValue)]) -> String {
    let mut out = String::new();
    for (key, value) in extras {
        let flag = match value {
            LaunchValue::Bool(_) => "--ez",
            LaunchValue::Int(i) if i32::try_from(*i).is_ok() => "--ei",
            LaunchValue::Int(_) => "--el",
            LaunchValue::Number(_) => "--ed",
            LaunchValue::Text(_) => "--es",
        };
        out.push_str(&format!(
            " {flag} {} {}",
            quote(key),
            quote(&value.to_string())
        ));
    }
    out
}

#[async_trait]
impl Apps for AdbBackend {
    fn check_app_package(&self, path: &Path, meta: &std::fs::Metadata) -> Result<()> {
        check_apk(path, meta)
    }

    async fn install_app(&self, device: &Device, path: &Path) -> Result<()> {
        let cmd = self
            .adb_for(&device.udid)?
            .arg("install")
            .arg("-r")
            .arg(path.as_os_str())
            .timeout(INSTALL_TIMEOUT);
        let out = self.run(cmd).await?;
        let text = out.stdout_text() + &out.stderr_text();
        if !out.success() || !text.contains("Success") {
            let line = failure_line(&text).unwrap_or("adb install failed");
            return Err(Error::new(ErrorCode::CommandFailed, format!("install: {line}"))
                .with_details(serde_json::json!({ "output": text, "exit_code": out.code }))
                .with_hint("INSTALL_FAILED_UPDATE_INCOMPATIBLE: uninstall the old app first; INSTALL_FAILED_VERSION_DOWNGRADE: install a newer build"));
        }
        Ok(())
    }

    async fn launch_app(
        &self,
        device: &Device,
        package: &str,
        opts: &LaunchOptions,
    ) -> Result<Launched> {
        let pkg = quote(package);
        let stop = if opts.relaunch {
            format!("am force-stop {pkg}; ")
        } else {
            String::new()
        };
        let component = match &opts.activity {
            Some(a) if a.contains('/') => quote(a),
            Some(a) => quote(&format!("{package}/{a}")),
            None => {
                // Resolve the launcher activity on the device, in the same round trip.
                "\"$(cmd package resolve-activity --brief -c android.intent.category.LAUNCHER "
                    .to_string()
                    + &pkg
                    + " | tail -n 1)\""
            }
        };
        let script = format!(
            "{stop}am start -W -n {component}{}",
            extra_flags(&opts.extras)
        );
        let out = self
            .shell_any(&device.udid, &script, LAUNCH_TIMEOUT)
            .await?;
        let text = out.stdout_text() + &out.stderr_text();
        if let Some(line) = failure_line(&text) {
            let mut err = tool_refused("launch", line, &text);
            if opts.activity.is_none() {
                err = Error::new(
                    ErrorCode::NotFound,
                    format!("`{package}` is not installed or has no launcher activity"),
                )
                .with_next(
                    "check {0}, or pass {1}",
                    [
                        Step::call(Op::ListApps),
                        Step::field_of(Op::LaunchApp, "activity"),
                    ],
                )
                .with_details(serde_json::json!({ "output": text }));
            }
            return Err(err);
        }
        // No error line (checked above): what Android measured, when it printed it.
        let startup = super::perf::launch::parse_am_start(&text)
            .ok()
            .filter(|m| m.total_time_ms.is_some() || m.wait_time_ms.is_some());
        Ok(Launched {
            bundle_id: package.to_string(),
            activity: startup.as_ref().and_then(|m| m.activity.clone()),
            pid: None,
            launch_time_ms: startup
                .as_ref()
                .and_then(|m| m.total_time_ms.or(m.wait_time_ms))
                .unwrap_or(0),
            startup,
        })
    }

    async fn terminate_app(&self, device: &Device, bundle_id: &str) -> Result<()> {
        let script = format!("am force-stop {}", shell::quote(bundle_id));
        self.package_script(device, &script, "force-stop")
            .await
            .map(drop)
    }

    /// Android has no keychain shared by apps: an app's keystore entries go with its data
    /// (`reset_app`). Nothing to do, as Maestro does nothing for `clearKeychain` here.
    async fn reset_keychain(&self, _device: &Device) -> Result<()> {
        Ok(())
    }

    async fn reset_app(&self, device: &Device, bundle_id: &str) -> Result<()> {
        let script = format!("pm clear {}", shell::quote(bundle_id));
        let out = self.package_script(device, &script, "pm clear").await?;
        if !out.contains("Success") {
            return Err(Error::new(
                ErrorCode::CommandFailed,
                format!("pm clear: {}", out.trim()),
            ));
        }
        Ok(())
    }

    async fn list_apps(&self, device: &Device) -> Result<Vec<AppInfo>> {
        let text = self
            .shell_checked(
                &device.udid,
                "pm list packages -3",
                "pm list packages",
                QUICK_TIMEOUT,
            )
            .await?;
        let mut apps: Vec<AppInfo> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("package:"))
            .map(|p| AppInfo {
                bundle_id: p.trim().to_string(),
                name: None,
                version: None,
                kind: Some("user".into()),
            })
            .collect();
        apps.sort_by(|a, b| a.bundle_id.cmp(&b.bundle_id));
        Ok(apps)
    }

    async fn open_url(&self, device: &Device, url: &str) -> Result<()> {
        let script = format!("am start -a android.intent.action.VIEW -d {}", quote(url));
        self.shell_checked(&device.udid, &script, "open-url", QUICK_TIMEOUT)
            .await
            .map(drop)
    }
}

#[async_trait]
impl Permissions for AdbBackend {
    /// Changes a permission; a reset answers a note when the device could only revoke.
    async fn permission(
        &self,
        device: &Device,
        package: &str,
        permission: &str,
        action: PermissionAction,
    ) -> Result<Option<String>> {
        let (p, perm) = (quote(package), quote(permission));
        let script = match action {
            PermissionAction::Grant => format!("pm grant {p} {perm}"),
            PermissionAction::Revoke => format!("pm revoke {p} {perm}"),
            // Older Androids lack clear-permission-flags: the revoke stands, and the answer
            // says the flags stayed.
            PermissionAction::Reset => format!(
                "pm revoke {p} {perm} && {{ pm clear-permission-flags {p} {perm} user-set \
                 user-fixed >/dev/null 2>&1 || echo {NO_FLAGS_MARKER}; }}"
            ),
        };
        let out = self
            .shell_checked(&device.udid, &script, "permission", QUICK_TIMEOUT)
            .await?;
        Ok(out.contains(NO_FLAGS_MARKER).then(|| {
            "revoked; this Android has no `pm clear-permission-flags`, so the user-set flags \
             stay (the app may not ask again)"
                .to_string()
        }))
    }
}

#[async_trait]
impl Location for AdbBackend {
    async fn set_location(&self, device: &Device, latitude: f64, longitude: f64) -> Result<()> {
        self.geo_fix(device, Some((latitude, longitude))).await
    }

    async fn clear_location(&self, device: &Device) -> Result<()> {
        self.geo_fix(device, None).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_values_become_typed_extras() {
        let extras = [
            ("user".to_string(), LaunchValue::Text("it's $(id)".into())),
            ("on".to_string(), LaunchValue::Bool(true)),
            ("n".to_string(), LaunchValue::Int(-3)),
            ("big".to_string(), LaunchValue::Int(9_000_000_000)),
            ("x".to_string(), LaunchValue::Number(1.5)),
        ];
        assert_eq!(
            extra_flags(&extras),
            " --es 'user' 'it'\\''s $(id)' --ez 'on' 'true' --ei 'n' '-3' --el 'big' '9000000000' --ed 'x' '1.5'"
        );
        assert_eq!(extra_flags(&[]), "");
    }

    #[test]
    fn failure_words() {
        assert!(failure_line("Error: Activity not started, unable to resolve Intent").is_some());
        assert!(failure_line("Starting: Intent { act=android.intent.action.VIEW }\n").is_none());
        assert!(failure_line("Exception occurred while executing 'clear':\njava.lang.IllegalArgumentException: Unknown package: x.y").is_some());
    }
}
