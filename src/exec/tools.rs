//! Where the external tools live. Each tool is found by its environment override first
//! (`MOBILECTL_ADB`, `MOBILECTL_XCRUN`, `MOBILECTL_AXE`, `MOBILECTL_IDB`, `MOBILECTL_EMULATOR`),
//! then by the SDK location where one applies (`$ANDROID_HOME`, `$ANDROID_SDK_ROOT`), then on
//! `PATH`. Lookups go through the `which` crate: an executable file on Unix, a name with one of
//! `PATHEXT`'s extensions (`adb.exe`) on Windows.

use std::path::{Path, PathBuf};

use serde::Serialize;
use utoipa::ToSchema;

use crate::device::Tool;

/// Where a tool was looked for and found.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ToolInfo {
    /// The tool looked for.
    pub tool: Tool,
    /// Whether it was found.
    pub found: bool,
    /// Where it was found, as a printable path; None when it was not.
    pub path: Option<String>,
}

impl Tool {
    /// SDK-relative locations tried before `PATH`, below each SDK folder given.
    fn sdk_candidates_in(self, sdk_dirs: impl Iterator<Item = PathBuf>) -> Vec<PathBuf> {
        let below = match self {
            Tool::Adb => Path::new("platform-tools/adb"),
            Tool::Emulator => Path::new("emulator/emulator"),
            _ => return Vec::new(),
        };
        sdk_dirs.map(|d| d.join(below)).collect()
    }

    /// SDK-relative locations from `$ANDROID_HOME` and `$ANDROID_SDK_ROOT`.
    fn sdk_candidates(self) -> Vec<PathBuf> {
        let sdk_dirs = ["ANDROID_HOME", "ANDROID_SDK_ROOT"]
            .iter()
            .filter_map(std::env::var_os)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        self.sdk_candidates_in(sdk_dirs)
    }

    /// Finds the tool, or `None` when it is nowhere to be found.
    pub fn resolve(self) -> Option<PathBuf> {
        if let Some(v) = std::env::var_os(self.env_override()).filter(|v| !v.is_empty()) {
            // A bare program name is looked up on PATH; a path is taken as it is (with
            // Windows' extensions tried).
            return executable(Path::new(&v));
        }
        self.sdk_candidates()
            .iter()
            .find_map(|p| executable(p))
            .or_else(|| executable(Path::new(self.name())))
    }
}

/// The executable file `p` names: a bare name found on `PATH`, a path checked (on Windows with
/// `PATHEXT`'s extensions tried when it has none).
fn executable(p: &Path) -> Option<PathBuf> {
    which::which(p).ok()
}

/// The resolved locations of every tool, fixed when the server starts (or built explicitly by
/// tests), so that no request reads the process environment.
#[derive(Debug, Clone, Default)]
pub struct Toolbox {
    paths: std::collections::HashMap<Tool, PathBuf>,
}

impl Toolbox {
    /// Resolves every tool from the environment.
    pub fn from_env() -> Self {
        Toolbox {
            paths: Tool::ALL
                .iter()
                .filter_map(|&t| t.resolve().map(|p| (t, p)))
                .collect(),
        }
    }

    /// A toolbox with exactly these tools (tests, embedding).
    pub fn with(paths: impl IntoIterator<Item = (Tool, PathBuf)>) -> Self {
        Toolbox {
            paths: paths.into_iter().collect(),
        }
    }

    /// Where `tool` was found; None when it was not.
    pub fn path(&self, tool: Tool) -> Option<&Path> {
        self.paths.get(&tool).map(PathBuf::as_path)
    }

    /// Whether and where `tool` was found.
    pub fn info(&self, tool: Tool) -> ToolInfo {
        let path = self.path(tool);
        ToolInfo {
            tool,
            found: path.is_some(),
            path: path.map(|p| p.display().to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdk_locations_are_below_each_sdk_folder() {
        let dirs = || ["/sdk/a", "/sdk/b"].into_iter().map(PathBuf::from);
        assert_eq!(
            Tool::Adb.sdk_candidates_in(dirs()),
            [
                PathBuf::from("/sdk/a/platform-tools/adb"),
                PathBuf::from("/sdk/b/platform-tools/adb")
            ]
        );
        assert_eq!(
            Tool::Emulator.sdk_candidates_in(dirs()),
            [
                PathBuf::from("/sdk/a/emulator/emulator"),
                PathBuf::from("/sdk/b/emulator/emulator")
            ]
        );
        assert!(Tool::Xcrun.sdk_candidates_in(dirs()).is_empty());
    }

    /// A tool is found as the platform names programs (`adb` with its execute bit on Unix,
    /// `adb.exe` on Windows) and not found as a plain file.
    #[test]
    fn tools_are_found_with_the_platforms_program_names() {
        let dir = tempfile::tempdir().unwrap();
        let tools = dir.path().join("platform-tools");
        std::fs::create_dir(&tools).unwrap();
        let file = tools.join(format!("adb{}", std::env::consts::EXE_SUFFIX));
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        let candidate = tools.join("adb");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(executable(&candidate), None, "not executable");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert_eq!(executable(&candidate), Some(file));
        assert_eq!(executable(&tools.join("emulator")), None);
    }
}
