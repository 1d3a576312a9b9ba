//! What a build request means on this machine: the project folder (resolved inside the build
//! root, symlinks included), the platform, and the command that builds it — the project's
//! Gradle wrapper with the variant's assemble task, or `xcodebuild` with workspace or project,
//! scheme, configuration, destination and derived data — with each setting from the request,
//! else the session's defaults, else what the folder holds. Nothing runs here but reading the
//! folder; the scheme, when neither names one, is asked of `xcodebuild -list` by the caller.

use std::path::{Component, Path, PathBuf};

use crate::api::wire::build::{AndroidBuild, BuildDefaults, BuildRequest, IosBuild, Toolchain};
use crate::device::{Device, DeviceKind, Platform};
use crate::error::{Error, ErrorCode, Result};

/// A build ready to run, but for an iOS scheme still to be asked for.
#[derive(Debug, Clone)]
pub struct Plan {
    /// What it builds for.
    pub platform: Platform,
    /// The project folder, resolved.
    pub project_dir: PathBuf,
    /// What runs.
    pub tool: PlannedTool,
    /// What the session remembers for its next build.
    pub remembered: BuildDefaults,
}

/// The command of a plan, by toolchain.
#[derive(Debug, Clone)]
pub enum PlannedTool {
    /// `./gradlew --console=plain :MODULE:assembleVARIANT`, in the project folder.
    Gradle {
        /// `gradlew` (`gradlew.bat` on Windows) in the project folder.
        wrapper: PathBuf,
        /// `:MODULE:assembleVARIANT`.
        task: String,
        /// Where the Android Gradle Plugin writes the APK and its `output-metadata.json`.
        apk_dir: PathBuf,
    },
    /// `xcodebuild … build`, in the project folder.
    Xcode {
        /// The `xcodebuild` found.
        xcodebuild: PathBuf,
        /// `-workspace W` or `-project P`.
        container: [String; 2],
        /// `-scheme`: none until [`super::settle_scheme`] asks for the only one.
        scheme: Option<String>,
        /// `-configuration` (default `Debug`).
        configuration: String,
        /// `-destination`.
        destination: String,
        /// `-derivedDataPath`.
        derived_data: PathBuf,
    },
}

impl Plan {
    /// Which output reader fits.
    pub fn toolchain(&self) -> Toolchain {
        match self.tool {
            PlannedTool::Gradle { .. } => Toolchain::Gradle,
            PlannedTool::Xcode { .. } => Toolchain::Xcode,
        }
    }
}

impl PlannedTool {
    /// The program and its arguments for `action` (`build`, or `-showBuildSettings -json`);
    /// an Xcode plan needs its scheme by now.
    pub fn argv(&self, action: &[&str]) -> (PathBuf, Vec<String>) {
        match self {
            PlannedTool::Gradle { wrapper, task, .. } => (
                wrapper.clone(),
                vec!["--console=plain".into(), task.clone()],
            ),
            PlannedTool::Xcode {
                xcodebuild,
                container,
                scheme,
                configuration,
                destination,
                derived_data,
            } => {
                let mut args: Vec<String> = container.to_vec();
                if let Some(s) = scheme {
                    args.extend(["-scheme".into(), s.clone()]);
                }
                args.extend([
                    "-configuration".into(),
                    configuration.clone(),
                    "-destination".into(),
                    destination.clone(),
                    "-derivedDataPath".into(),
                    derived_data.display().to_string(),
                ]);
                args.extend(action.iter().map(|a| a.to_string()));
                (xcodebuild.clone(), args)
            }
        }
    }
}

/// What planning needs beside the request.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// The build root (`serve --build-root`); none: builds are off.
    pub root: Option<&'a Path>,
    /// The session's defaults.
    pub defaults: &'a BuildDefaults,
    /// The device it builds for, if any.
    pub device: Option<&'a Device>,
    /// The request named that device (or asked to install on it); otherwise it is only the
    /// session's or the only one, and the folder's project wins over its platform.
    pub device_asked: bool,
    /// Where `xcodebuild` is, if anywhere.
    pub xcodebuild: Option<&'a Path>,
    /// The derived data folder when neither the request nor the session names one.
    pub derived_data: &'a Path,
}

/// Plans `r`; see the module's doc.
pub fn plan(r: &BuildRequest, i: &Inputs<'_>) -> Result<Plan> {
    let root = i.root.ok_or_else(builds_off)?;
    let asked = r
        .project_dir
        .clone()
        .or_else(|| i.defaults.project_dir.clone())
        .ok_or_else(|| {
            Error::validation("no project folder: the request names none and the session has none")
                .with_hint("give `project_dir` (relative to the server's build root); a build in a session remembers it")
        })?;
    let project_dir = resolve_dir(root, &asked)?;
    let platform = match (r.platform, i.device) {
        (Some(p), Some(d)) if p != d.platform => {
            return Err(Error::validation(format!(
                "`platform` is {p:?} but the device `{}` is {:?}",
                d.udid, d.platform
            ))
            .with_hint("leave `platform` out: the device's is taken"))
        }
        (Some(p), _) => p,
        (None, Some(d)) if i.device_asked || holds(&project_dir, d.platform) => d.platform,
        (None, _) => detect(&project_dir)?,
    };
    // A device of another platform has nothing to say of this build.
    let device = i.device.filter(|d| d.platform == platform);
    let i = &Inputs { device, ..*i };
    let mut remembered = BuildDefaults {
        project_dir: Some(asked),
        ..i.defaults.clone()
    };
    let tool = match platform {
        Platform::Android => {
            let a = merged_android(&r.android, &i.defaults.android);
            let t = plan_gradle(&project_dir, &a)?;
            remembered.android = a;
            t
        }
        Platform::Ios => {
            let x = merged_ios(&r.ios, &i.defaults.ios);
            let t = plan_xcode(&project_dir, &x, i)?;
            remembered.ios = x;
            t
        }
    };
    Ok(Plan {
        platform,
        project_dir,
        tool,
        remembered,
    })
}

/// What a server started without a build root answers a build: `403 FORBIDDEN`, saying how.
pub fn builds_off() -> Error {
    Error::new(ErrorCode::Forbidden, "this server builds no apps: it was started without a build root")
        .with_hint("start the server with `--build-root DIR` (the folder your projects are in): a build runs the project's own build scripts, so only folders under a root you name are built")
}

/// The request's settings over the session's.
fn merged_android(r: &AndroidBuild, d: &AndroidBuild) -> AndroidBuild {
    AndroidBuild {
        module: r.module.clone().or_else(|| d.module.clone()),
        variant: r.variant.clone().or_else(|| d.variant.clone()),
    }
}

/// The request's settings over the session's.
fn merged_ios(r: &IosBuild, d: &IosBuild) -> IosBuild {
    let pick = |a: &Option<String>, b: &Option<String>| a.clone().or_else(|| b.clone());
    // A project or workspace named by the request replaces the session's container whole.
    let (project, workspace) = if r.project.is_some() || r.workspace.is_some() {
        (r.project.clone(), r.workspace.clone())
    } else {
        (d.project.clone(), d.workspace.clone())
    };
    IosBuild {
        project,
        workspace,
        scheme: pick(&r.scheme, &d.scheme),
        configuration: pick(&r.configuration, &d.configuration),
        destination: pick(&r.destination, &d.destination),
        derived_data: pick(&r.derived_data, &d.derived_data),
    }
}

/// The folder `asked` names under `root` (relative paths are taken there), symlinks resolved:
/// `403 FORBIDDEN` outside the root, `404 NOT_FOUND` when it is not a folder.
pub fn resolve_dir(root: &Path, asked: &str) -> Result<PathBuf> {
    if asked.is_empty() || asked.contains('\0') {
        return Err(Error::validation("`project_dir` is empty or holds a NUL"));
    }
    let root = root.canonicalize().map_err(|e| {
        Error::new(
            ErrorCode::NotFound,
            format!("the build root `{}` cannot be used: {e}", root.display()),
        )
        .with_hint("start the server with `--build-root DIR` naming an existing folder")
    })?;
    let real = root.join(asked).canonicalize().map_err(|e| {
        Error::new(
            ErrorCode::NotFound,
            format!("the project folder `{asked}` cannot be read: {e}"),
        )
        .with_hint("give a folder under the server's build root (relative paths are taken there)")
    })?;
    if !real.starts_with(&root) {
        return Err(Error::new(
            ErrorCode::Forbidden,
            format!(
                "`{}` is outside the build root `{}`",
                real.display(),
                root.display()
            ),
        )
        .with_hint(
            "build a project under the build root; the server's `--build-root DIR` sets it",
        ));
    }
    if !real.is_dir() {
        return Err(Error::new(
            ErrorCode::NotFound,
            format!("`{}` is not a folder", real.display()),
        )
        .with_hint(
            "`project_dir` is the project's folder (where `gradlew` or the `.xcodeproj` is)",
        ));
    }
    Ok(real)
}

/// The Gradle wrapper's name on this host.
pub const GRADLE_WRAPPER: &str = if cfg!(windows) {
    "gradlew.bat"
} else {
    "gradlew"
};

/// Whether the folder holds a project of `platform`: a Gradle wrapper, or an Xcode project or
/// workspace.
fn holds(dir: &Path, platform: Platform) -> bool {
    match platform {
        Platform::Android => dir.join(GRADLE_WRAPPER).is_file(),
        Platform::Ios => {
            let (projects, workspaces) = xcode_containers(dir);
            !projects.is_empty() || !workspaces.is_empty()
        }
    }
}

/// What the folder holds: a Gradle wrapper (Android), else an Xcode project or workspace.
fn detect(dir: &Path) -> Result<Platform> {
    if let Some(p) = [Platform::Android, Platform::Ios]
        .into_iter()
        .find(|p| holds(dir, *p))
    {
        return Ok(p);
    }
    Err(Error::validation(format!(
        "cannot tell what `{}` builds: it holds no `{GRADLE_WRAPPER}`, `.xcodeproj` or `.xcworkspace`",
        dir.display()
    ))
    .with_hint("give the project's own folder, or `platform` with a device"))
}

/// The `.xcodeproj` and `.xcworkspace` folders at the top of `dir`, sorted.
fn xcode_containers(dir: &Path) -> (Vec<String>, Vec<String>) {
    let mut projects = Vec::new();
    let mut workspaces = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !e.path().is_dir() {
                continue;
            }
            if name.ends_with(".xcodeproj") {
                projects.push(name);
            } else if name.ends_with(".xcworkspace") {
                workspaces.push(name);
            }
        }
    }
    projects.sort();
    workspaces.sort();
    (projects, workspaces)
}

/// A name the request gives for a Gradle module (`app`, `feature:login`) or variant
/// (`debug`, `freeDebug`): letters, digits, `_`, `-` (and `:` between a module's parts).
fn check_gradle_name(what: &str, v: &str, colons: bool) -> Result<()> {
    let ok = !v.is_empty()
        && v.len() <= 128
        && v.split(':').all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
        && (colons || !v.contains(':'));
    if ok {
        Ok(())
    } else {
        Err(
            Error::validation(format!("`{v}` is not a Gradle {what} name")).with_hint(format!(
                "a {what} is letters, digits, `_` or `-` (`app`, `debug`, `freeDebug`)"
            )),
        )
    }
}

fn plan_gradle(dir: &Path, a: &AndroidBuild) -> Result<PlannedTool> {
    let wrapper = dir.join(GRADLE_WRAPPER);
    if !wrapper.is_file() {
        return Err(Error::validation(format!(
            "`{}` has no Gradle wrapper (`{GRADLE_WRAPPER}`)",
            dir.display()
        ))
        .with_hint("give the Android project's root folder (where `gradlew` is; `gradle wrapper` makes one)"));
    }
    let module = a.module.as_deref().unwrap_or("app");
    let variant = a.variant.as_deref().unwrap_or("debug");
    check_gradle_name("module", module, true)?;
    check_gradle_name("variant", variant, false)?;
    let module_dir: PathBuf = module.split(':').collect();
    if !dir.join(&module_dir).is_dir() {
        return Err(Error::validation(format!(
            "`{}` has no module folder `{}`",
            dir.display(),
            module_dir.display()
        ))
        .with_hint("give the app's Gradle module with `android.module` (default `app`)"));
    }
    Ok(PlannedTool::Gradle {
        wrapper,
        task: build_output::gradle::assemble_task(module, variant),
        apk_dir: dir.join(build_output::gradle::apk_dir(module, variant)),
    })
}

/// A path the request gives inside the project folder: relative, without `..`.
fn inside(dir: &Path, what: &str, v: &str) -> Result<PathBuf> {
    let p = Path::new(v);
    let plain = !v.is_empty()
        && !v.contains('\0')
        && p.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !plain {
        return Err(Error::validation(format!(
            "`{what}` `{v}` is not a path inside the project folder"
        ))
        .with_hint(format!(
            "give `{what}` relative to `project_dir`, without `..`"
        )));
    }
    Ok(dir.join(p))
}

/// A setting passed to `xcodebuild` as one argument: printable, at most 256 bytes.
fn check_setting(what: &str, v: &str) -> Result<()> {
    if v.is_empty() || v.len() > 256 || v.chars().any(char::is_control) || v.starts_with('-') {
        return Err(
            Error::validation(format!("`{what}` `{v}` cannot be used")).with_hint(format!(
                "`{what}` is 1–256 printable characters, not starting with `-`"
            )),
        );
    }
    Ok(())
}

fn plan_xcode(dir: &Path, x: &IosBuild, i: &Inputs<'_>) -> Result<PlannedTool> {
    let xcodebuild = i.xcodebuild.ok_or_else(|| {
        Error::new(ErrorCode::ToolMissing, "xcodebuild was not found")
            .with_hint(crate::device::Tool::Xcodebuild.install_hint())
    })?;
    let container = match (&x.workspace, &x.project) {
        (Some(w), _) => {
            inside(dir, "workspace", w)?;
            ["-workspace".to_string(), w.clone()]
        }
        (None, Some(p)) => {
            inside(dir, "project", p)?;
            ["-project".to_string(), p.clone()]
        }
        (None, None) => {
            let (projects, workspaces) = xcode_containers(dir);
            match (workspaces.as_slice(), projects.as_slice()) {
                ([w], _) => ["-workspace".to_string(), w.clone()],
                ([], [p]) => ["-project".to_string(), p.clone()],
                ([], []) => {
                    return Err(Error::validation(format!(
                        "`{}` holds no `.xcodeproj` or `.xcworkspace`",
                        dir.display()
                    ))
                    .with_hint(
                        "give the iOS project's folder, or `ios.project` / `ios.workspace`",
                    ))
                }
                _ => {
                    return Err(Error::validation(format!(
                        "`{}` holds several: {}",
                        dir.display(),
                        workspaces
                            .iter()
                            .chain(projects.iter())
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .with_hint("name one with `ios.workspace` or `ios.project`"))
                }
            }
        }
    };
    if let Some(s) = &x.scheme {
        check_setting("scheme", s)?;
    }
    let configuration = x.configuration.clone().unwrap_or_else(|| "Debug".into());
    check_setting("configuration", &configuration)?;
    let destination = match (&x.destination, i.device) {
        (Some(d), _) => d.clone(),
        (None, Some(d)) if d.kind == DeviceKind::Simulator => {
            format!("platform=iOS Simulator,id={}", d.udid)
        }
        (None, Some(_)) => "generic/platform=iOS".into(),
        (None, None) => "generic/platform=iOS Simulator".into(),
    };
    check_setting("destination", &destination)?;
    let derived_data = match &x.derived_data {
        Some(d) => inside(dir, "derived_data", d)?,
        None => i.derived_data.to_path_buf(),
    };
    Ok(PlannedTool::Xcode {
        xcodebuild: xcodebuild.to_path_buf(),
        container,
        scheme: x.scheme.clone(),
        configuration,
        destination,
        derived_data,
    })
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
