//! `doctor`: which tools are installed, where, at which version, and what follows for each
//! platform.

use std::time::Duration;

use serde::Serialize;
use utoipa::ToSchema;

use crate::exec::{Command, Tool, Toolbox};

/// One tool's check.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ToolCheck {
    pub tool: Tool,
    pub found: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// First line of the tool's own version output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What to do when it is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remediation: Option<String>,
}

/// How usable something is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Readiness {
    /// Everything needed is there.
    Ready,
    /// Usable, with some features missing.
    Degraded,
    /// Not usable at all.
    Blocked,
}

/// The doctor's answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DoctorReport {
    /// `ready`: every platform whose base tool exists is fully usable; `degraded`: some UI
    /// features are missing; `blocked`: no platform can be driven.
    pub overall: Readiness,
    pub android: Readiness,
    pub ios: Readiness,
    pub tools: Vec<ToolCheck>,
}

fn version_args(tool: Tool) -> &'static [&'static str] {
    match tool {
        Tool::Adb => &["version"],
        Tool::Emulator => &["-version"],
        Tool::Xcrun => &["--version"],
        Tool::Axe | Tool::Idb => &["--version"],
    }
}

/// Reads the version line of one tool (a tool that cannot say its version is still found).
async fn check(tools: &Toolbox, tool: Tool) -> ToolCheck {
    let Some(path) = tools.path(tool) else {
        return ToolCheck {
            tool,
            found: false,
            path: None,
            version: None,
            remediation: Some(tool.install_hint().to_string()),
        };
    };
    let out = Command::new(path)
        .args(version_args(tool))
        .timeout(Duration::from_secs(10))
        .run()
        .await;
    let version = out.ok().filter(|o| o.success()).and_then(|o| {
        let text = o.stdout_text() + &o.stderr_text();
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        // adb prints "Android Debug Bridge version 1.0.41" then "Version 35.0.2-…".
        match (tool, lines.as_slice()) {
            (Tool::Adb, [first, second, ..]) if second.starts_with("Version") => {
                Some(format!("{first} ({second})"))
            }
            (_, [first, ..]) => Some(first.to_string()),
            _ => None,
        }
    });
    ToolCheck {
        tool,
        found: true,
        path: Some(path.display().to_string()),
        version,
        remediation: None,
    }
}

/// Checks every tool concurrently.
pub async fn diagnose(tools: &Toolbox) -> DoctorReport {
    let checks = futures_join(tools).await;
    let found = |t: Tool| checks.iter().any(|c| c.tool == t && c.found);
    let android = if found(Tool::Adb) {
        Readiness::Ready
    } else {
        Readiness::Blocked
    };
    let ios = match (found(Tool::Xcrun), found(Tool::Axe) || found(Tool::Idb)) {
        (true, true) => Readiness::Ready,
        (true, false) => Readiness::Degraded,
        (false, _) => Readiness::Blocked,
    };
    let overall = match (android, ios) {
        (Readiness::Blocked, Readiness::Blocked) => Readiness::Blocked,
        (_, Readiness::Degraded) => Readiness::Degraded,
        _ => Readiness::Ready,
    };
    DoctorReport {
        overall,
        android,
        ios,
        tools: checks,
    }
}

async fn futures_join(tools: &Toolbox) -> Vec<ToolCheck> {
    let mut set = tokio::task::JoinSet::new();
    for (i, tool) in Tool::ALL.into_iter().enumerate() {
        let tools = tools.clone();
        set.spawn(async move { (i, check(&tools, tool).await) });
    }
    let mut checks: Vec<(usize, ToolCheck)> = Vec::new();
    while let Some(Ok(c)) = set.join_next().await {
        checks.push(c);
    }
    checks.sort_by_key(|(i, _)| *i);
    checks.into_iter().map(|(_, c)| c).collect()
}
