//! Apps on a simulator through simctl: `install` (an `.app` folder), `launch` (arguments,
//! relaunch; the pid parsed from `BUNDLE: PID`; timed to the app's first screen when a UI tool
//! can watch for it, see [`super::startup`]), `terminate`, `listapps`, `openurl`. There is no
//! per-app data reset on a simulator, so `reset` answers 501 with what to do instead.

use async_trait::async_trait;

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use super::{listapps::parse_listapps, SimctlBackend, QUICK_TIMEOUT};
use crate::backend::Apps;
use crate::backend::{command_failed, unsupported};
use crate::device::Device;
use crate::device::{AppInfo, LaunchOptions, Launched, Platform};
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::exec::{Output, Tool};

/// Time limit of an install (large apps copy slowly).
pub const INSTALL_TIMEOUT: Duration = Duration::from_secs(300);
/// Time limit of a launch.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Checks that an install path is an `.app` folder: simulators install the `.app` of a
/// simulator build (an `.ipa` is refused with how to get one).
pub(super) fn check_app_folder(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    let shown = path.display();
    match crate::backend::validate::extension(path).as_str() {
        "ipa" => Err(Error::validation(
            "an .ipa is built for devices; simulators install the .app folder",
        )
        .with_hint(
            "build for the simulator (xcodebuild -sdk iphonesimulator) and pass the .app folder",
        )),
        ext if ext != "app" || !meta.is_dir() => Err(Error::validation(format!(
            "`{shown}` is not an .app folder"
        ))
        .with_hint("iOS Simulator installs take the .app folder from a simulator build")),
        _ => Ok(()),
    }
}

/// The pid from `simctl launch` stdout (`com.apple.mobilesafari: 76487`).
pub fn parse_launch_pid(stdout: &str, bundle_id: &str) -> Option<u32> {
    stdout.lines().find_map(|line| {
        let (id, pid) = line.trim().rsplit_once(':')?;
        (id.trim() == bundle_id).then(|| pid.trim().parse().ok())?
    })
}

/// What `reset` on an iOS Simulator answers: simctl cannot clear one app's data.
pub fn reset_unsupported(bundle_id: &str) -> Error {
    unsupported("clearing one app's data", Platform::Ios.name()).with_next(
        format!(
            "simctl has no per-app data reset: uninstall and reinstall `{bundle_id}` \
             ({{0}}), or wipe the whole simulator with {{1}}"
        ),
        [Step::call(Op::InstallApp), Step::call(Op::Erase)],
    )
}

impl SimctlBackend {
    /// A failed launch is `NOT_FOUND` when the app is not installed (asked of simctl with
    /// `get_app_container`, since the launch error does not say so in words), else
    /// `COMMAND_FAILED` with simctl's words.
    async fn launch_failure(&self, udid: &str, bundle_id: &str, out: &Output) -> Error {
        let failed = command_failed(Tool::Xcrun, "simctl launch", out);
        let probe = match self.simctl() {
            Ok(cmd) => self
                .run(
                    cmd.args(["get_app_container", udid, bundle_id])
                        .timeout(QUICK_TIMEOUT),
                )
                .await
                .ok(),
            Err(_) => None,
        };
        match probe {
            Some(p) if !p.success() => Error::new(
                ErrorCode::NotFound,
                format!("`{bundle_id}` is not installed on this simulator"),
            )
            .with_next(
                "install it with {0}, or list apps with {1}",
                [Step::call(Op::InstallApp), Step::call(Op::ListApps)],
            )
            .with_details(failed.details.unwrap_or_default()),
            _ => failed,
        }
    }
}

#[async_trait]
impl Apps for SimctlBackend {
    fn check_app_package(&self, path: &Path, meta: &std::fs::Metadata) -> Result<()> {
        check_app_folder(path, meta)
    }

    async fn install_app(&self, device: &Device, path: &Path) -> Result<()> {
        let udid = device.udid.as_str();
        let args: [OsString; 3] = ["install".into(), udid.into(), path.into()];
        self.simctl_ok(args, INSTALL_TIMEOUT, "simctl install", "")
            .await
            .map(drop)
    }

    async fn launch_app(
        &self,
        device: &Device,
        bundle_id: &str,
        opts: &LaunchOptions,
    ) -> Result<Launched> {
        let udid = device.udid.as_str();
        let mut args: Vec<&str> = vec!["launch"];
        if opts.relaunch {
            args.push("--terminate-running-process");
        }
        args.extend([udid, bundle_id]);
        let argv = opts.ios_argv();
        args.extend(argv.iter().map(String::as_str));
        let watch = match opts.time_first_screen {
            true => self.first_screen_watch(udid, bundle_id).await,
            false => None,
        };
        let started = Instant::now();
        let out = self
            .run(self.simctl()?.args(args).timeout(LAUNCH_TIMEOUT))
            .await?;
        if !out.success() {
            return Err(self.launch_failure(udid, bundle_id, &out).await);
        }
        let pid = parse_launch_pid(&out.stdout_text(), bundle_id);
        let startup = match &watch {
            Some(watch) => {
                self.await_first_screen(udid, watch, pid, started, out.duration)
                    .await
            }
            None => None,
        };
        // The first screen when it was seen, else the launch command's own time.
        let first_screen = startup
            .as_ref()
            .and_then(|m| m.timed_by().and(m.total_time_ms));
        Ok(Launched {
            bundle_id: bundle_id.to_string(),
            activity: None,
            pid,
            launch_time_ms: first_screen.unwrap_or(out.duration.as_millis() as u64),
            startup,
        })
    }

    async fn terminate_app(&self, device: &Device, bundle_id: &str) -> Result<()> {
        let udid = device.udid.as_str();
        // Stopping an app that does not run is not an error.
        self.simctl_ok(
            ["terminate", udid, bundle_id],
            QUICK_TIMEOUT,
            "simctl terminate",
            "found nothing to terminate",
        )
        .await
        .map(drop)
    }

    async fn reset_app(&self, _device: &Device, bundle_id: &str) -> Result<()> {
        Err(reset_unsupported(bundle_id))
    }

    /// `simctl keychain UDID reset`: every app's keychain items on the simulator are gone.
    async fn reset_keychain(&self, device: &Device) -> Result<()> {
        let udid = device.udid.as_str();
        self.simctl_ok(
            ["keychain", udid, "reset"],
            QUICK_TIMEOUT,
            "simctl keychain reset",
            "",
        )
        .await
        .map(drop)
    }

    async fn list_apps(&self, device: &Device) -> Result<Vec<AppInfo>> {
        let udid = device.udid.as_str();
        let out = self
            .simctl_ok(["listapps", udid], QUICK_TIMEOUT, "simctl listapps", "")
            .await?;
        parse_listapps(&out.stdout).map_err(|e| {
            Error::new(
                ErrorCode::CommandFailed,
                format!("could not read `simctl listapps` output: {e}"),
            )
        })
    }

    async fn open_url(&self, device: &Device, url: &str) -> Result<()> {
        let udid = device.udid.as_str();
        self.simctl_ok(["openurl", udid, url], QUICK_TIMEOUT, "simctl openurl", "")
            .await
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_launch_pid;

    #[test]
    fn pid_from_recorded_launch_output() {
        let sys = include_str!("../../../fixtures/ios_simctl/simctl_launch_system_app_stdout.txt");
        let user = include_str!("../../../fixtures/ios_simctl/simctl_launch_user_app_stdout.txt");
        assert_eq!(parse_launch_pid(sys, "com.apple.mobilesafari"), Some(76487));
        assert_eq!(
            parse_launch_pid(user, "dev.devicehubpro.fixture.apps"),
            Some(20645)
        );
        assert_eq!(parse_launch_pid(user, "com.other"), None);
    }
}
