//! Physical devices through `xcrun devicectl` (Xcode 15+): listing, installing, launching and
//! terminating apps, listing apps, and the lock state for the doctor. Every command runs
//! through the process runner as `xcrun devicectl … --quiet --json-output -` (devicectl's own
//! options before any positional argument, so a launched app's arguments stay the app's) and
//! is judged by its JSON answer: CoreDevice's error when it has one, else its outcome and exit
//! status. A machine without xcrun, or an Xcode without devicectl, leaves WDA devices usable.

mod parse;

pub use parse::{ListedApp, ListedDevice, LockState};

use parse::{
    parse_apps, parse_devices, parse_envelope, parse_lock_state, parse_processes, pid_of_app,
    Envelope,
};

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::backend::{command_failed, exec_error, tool_command, tool_missing};
use crate::device::{AppInfo, LaunchOptions};
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::exec::{Tool, Toolbox};

/// Time limit of listings and queries.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(30);
/// Time limit of an install (a large app over Wi-Fi takes minutes).
pub const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);
/// Time limit of a launch or a termination.
pub const PROCESS_TIMEOUT: Duration = Duration::from_secs(60);

/// What `devicectl list devices` says: its version, and the devices.
pub type Listing = (Option<String>, Vec<ListedDevice>);

/// devicectl through the toolbox's xcrun.
#[derive(Debug, Clone)]
pub struct Devicectl {
    tools: Toolbox,
    max: Option<Duration>,
}

/// `TOOL_MISSING` for devicectl, saying what it is for.
pub fn devicectl_missing(what: &str) -> Error {
    let base = tool_missing(Tool::Xcrun);
    Error::new(
        ErrorCode::ToolMissing,
        format!(
            "{what} needs Xcode's devicectl (`xcrun devicectl`, Xcode 15+), which was not found"
        ),
    )
    .with_hint(format!(
        "{}; WebDriverAgent routes work without it",
        base.hint.unwrap_or_default()
    ))
    .with_details(base.details.unwrap_or_default())
}

impl Devicectl {
    pub fn new(tools: Toolbox, max: Option<Duration>) -> Self {
        Devicectl { tools, max }
    }

    /// Whether xcrun is there to try.
    pub fn available(&self) -> bool {
        self.tools.path(Tool::Xcrun).is_some()
    }

    /// Runs `xcrun devicectl WORDS [--device D] --quiet --json-output - REST`.
    async fn run(
        &self,
        words: &[&str],
        device: Option<&str>,
        rest: Vec<OsString>,
        timeout: Duration,
        what: &str,
    ) -> Result<Envelope> {
        if !self.available() {
            return Err(devicectl_missing(what));
        }
        let mut cmd = tool_command(&self.tools, Tool::Xcrun)?
            .arg("devicectl")
            .args(words.iter().copied());
        if let Some(d) = device {
            cmd = cmd.args(["--device", d]);
        }
        let cmd = cmd
            .args(["--quiet", "--json-output", "-"])
            .args(rest)
            .timeout(timeout)
            .cap_timeout(self.max);
        let out = cmd.run().await.map_err(|e| exec_error(Tool::Xcrun, e))?;
        match parse_envelope(&out.stdout_text()) {
            Ok(env) => match &env.error {
                Some(e) => Err(e.to_error(what)),
                None if out.success() && env.outcome.as_deref() != Some("failed") => Ok(env),
                None => Err(command_failed(Tool::Xcrun, what, &out)),
            },
            Err(_) if !out.success() => Err(command_failed(Tool::Xcrun, what, &out)),
            Err(why) => Err(Error::new(
                ErrorCode::CommandFailed,
                format!("{what}: devicectl printed no JSON answer ({why})"),
            )
            .with_hint("check `xcrun devicectl --version` (Xcode 15 or later is needed)")),
        }
    }

    /// Every device devicectl knows (phones, simulators, TVs…), and devicectl's version.
    pub async fn list(&self) -> Result<Listing> {
        let env = self
            .run(
                &["list", "devices"],
                None,
                vec![],
                QUERY_TIMEOUT,
                "`devicectl list devices`",
            )
            .await?;
        Ok((env.version, parse_devices(&env.result)))
    }

    /// Copies between this machine and the data container of the app `bundle_id`:
    /// `device copy to|from --domain-type appDataContainer --domain-identifier BUNDLE
    /// --source S --destination D` (`to`: a local file to a path in the container; `from`: the
    /// other way round).
    pub async fn copy(
        &self,
        device: &str,
        to_device: bool,
        bundle_id: &str,
        source: &std::ffi::OsStr,
        destination: &std::ffi::OsStr,
    ) -> Result<()> {
        let rest: Vec<OsString> = vec![
            "--domain-type".into(),
            "appDataContainer".into(),
            "--domain-identifier".into(),
            bundle_id.into(),
            "--source".into(),
            source.to_owned(),
            "--destination".into(),
            destination.to_owned(),
        ];
        let words = ["device", "copy", if to_device { "to" } else { "from" }];
        self.run(
            &words,
            Some(device),
            rest,
            INSTALL_TIMEOUT,
            "copying a file with devicectl",
        )
        .await
        .map(drop)
    }

    pub async fn install(&self, device: &str, path: &Path) -> Result<()> {
        self.run(
            &["device", "install", "app"],
            Some(device),
            vec![path.as_os_str().to_owned()],
            INSTALL_TIMEOUT,
            "installing the app",
        )
        .await
        .map(drop)
    }

    /// Launches `bundle_id` with its iOS argv (after `--`, so that devicectl's own option
    /// parser never reads an argument such as `-AppleLanguages` as one of its options); the
    /// pid devicectl reports.
    pub async fn launch(
        &self,
        device: &str,
        bundle_id: &str,
        opts: &LaunchOptions,
    ) -> Result<Option<u32>> {
        let mut rest: Vec<OsString> = Vec::new();
        if opts.relaunch {
            rest.push("--terminate-existing".into());
        }
        rest.push(bundle_id.into());
        let argv = opts.ios_argv();
        if !argv.is_empty() {
            rest.push("--".into());
            rest.extend(argv.into_iter().map(OsString::from));
        }
        let env = self
            .run(
                &["device", "process", "launch"],
                Some(device),
                rest,
                PROCESS_TIMEOUT,
                &format!("launching `{bundle_id}`"),
            )
            .await?;
        Ok(parse::launched_pid(&env.result))
    }

    /// Installed apps (`all`: system apps too), with where their bundles live.
    pub async fn apps(
        &self,
        device: &str,
        bundle_id: Option<&str>,
        all: bool,
    ) -> Result<Vec<ListedApp>> {
        let mut rest: Vec<OsString> = Vec::new();
        if all {
            rest.push("--include-all-apps".into());
        }
        if let Some(b) = bundle_id {
            rest.extend(["--bundle-id".into(), b.into()]);
        }
        let env = self
            .run(
                &["device", "info", "apps"],
                Some(device),
                rest,
                QUERY_TIMEOUT,
                "listing apps",
            )
            .await?;
        Ok(parse_apps(&env.result))
    }

    pub async fn list_apps(&self, device: &str) -> Result<Vec<AppInfo>> {
        Ok(self
            .apps(device, None, false)
            .await?
            .into_iter()
            .map(|a| a.info)
            .collect())
    }

    /// Stops `bundle_id`: its bundle from `info apps`, its process from `info processes`,
    /// then `process terminate --pid`. An app that does not run is not an error.
    pub async fn terminate(&self, device: &str, bundle_id: &str) -> Result<()> {
        let apps = self.apps(device, Some(bundle_id), true).await?;
        let Some(url) = apps
            .iter()
            .find(|a| a.info.bundle_id == bundle_id)
            .and_then(|a| a.url.clone())
        else {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("`{bundle_id}` is not installed on the device"),
            )
            .with_next(
                "list the installed apps with {0}",
                [Step::call(Op::ListApps)],
            ));
        };
        let env = self
            .run(
                &["device", "info", "processes"],
                Some(device),
                vec![],
                QUERY_TIMEOUT,
                "listing processes",
            )
            .await?;
        let Some(pid) = pid_of_app(&parse_processes(&env.result), &url) else {
            return Ok(());
        };
        self.run(
            &["device", "process", "terminate"],
            Some(device),
            vec!["--pid".into(), pid.to_string().into()],
            PROCESS_TIMEOUT,
            &format!("terminating `{bundle_id}`"),
        )
        .await
        .map(drop)
    }

    pub async fn lock_state(&self, device: &str) -> Result<Option<LockState>> {
        let env = self
            .run(
                &["device", "info", "lockState"],
                Some(device),
                vec![],
                QUERY_TIMEOUT,
                "reading the lock state",
            )
            .await?;
        Ok(parse_lock_state(&env.result))
    }
}
