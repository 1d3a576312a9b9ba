//! Where the external tools live. Each tool is found by its environment override first
//! (`MOBILECTL_ADB`, `MOBILECTL_XCRUN`, `MOBILECTL_AXE`, `MOBILECTL_IDB`, `MOBILECTL_EMULATOR`),
//! then by the SDK location where one applies (`$ANDROID_HOME`, `$ANDROID_SDK_ROOT`), then on
//! `PATH`.

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
    /// SDK-relative locations tried before `PATH`.
    fn sdk_candidates(self) -> Vec<PathBuf> {
        let sdk_dirs = ["ANDROID_HOME", "ANDROID_SDK_ROOT"]
            .iter()
            .filter_map(std::env::var_os)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        match self {
            Tool::Adb => sdk_dirs.map(|d| d.join("platform-tools/adb")).collect(),
            Tool::Emulator => sdk_dirs.map(|d| d.join("emulator/emulator")).collect(),
            _ => Vec::new(),
        }
    }

    /// Finds the tool, or `None` when it is nowhere to be found.
    pub fn resolve(self) -> Option<PathBuf> {
        if let Some(v) = std::env::var_os(self.env_override()).filter(|v| !v.is_empty()) {
            let p = PathBuf::from(v);
            // An override that names a bare program is looked up on PATH.
            return if p.components().count() == 1 {
                find_on_path(&p)
            } else {
                is_executable(&p).then_some(p)
            };
        }
        self.sdk_candidates()
            .into_iter()
            .find(|p| is_executable(p))
            .or_else(|| find_on_path(Path::new(self.name())))
    }
}

fn find_on_path(name: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
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
