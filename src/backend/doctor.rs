//! `doctor`: which tools are installed, where, at which version, and what follows for each
//! registered backend (each judges its own readiness from the checks, and may add checks of
//! its own: endpoints it reaches, tools beyond the common list).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::DeviceBackend;
use crate::api::wire::service::{DoctorReport, Readiness, ToolCheck};
use crate::exec::{Command, Tool, Toolbox};

/// Whether the checks found `tool`.
pub fn found(checks: &[ToolCheck], tool: Tool) -> bool {
    checks.iter().any(|c| c.tool == tool && c.found)
}

fn version_args(tool: Tool) -> &'static [&'static str] {
    match tool {
        Tool::Adb => &["version"],
        Tool::Emulator => &["-version"],
        Tool::Xcrun => &["--version"],
        Tool::Axe | Tool::Idb => &["--version"],
        Tool::Xcodebuild => &["-version"],
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

/// Checks every tool concurrently, then asks each backend how usable it is.
pub async fn diagnose(tools: &Toolbox, backends: &[Arc<dyn DeviceBackend>]) -> DoctorReport {
    let checks = futures_join(tools).await;
    let mut readiness = BTreeMap::new();
    let mut own = Vec::new();
    let mut capabilities = BTreeMap::new();
    for b in backends {
        let (r, mut c) = b.doctor(&checks).await;
        readiness.insert(b.id().to_string(), r);
        capabilities.insert(b.id().to_string(), b.capabilities());
        own.append(&mut c);
    }
    DoctorReport {
        overall: overall(readiness.values().copied()),
        backends: readiness,
        tools: checks,
        checks: own,
        capabilities,
        sessions: Vec::new(),
    }
}

/// Blocked when no backend can drive anything; degraded when one misses features.
fn overall(each: impl Iterator<Item = Readiness>) -> Readiness {
    let each: Vec<Readiness> = each.collect();
    if each.iter().all(|r| *r == Readiness::Blocked) {
        Readiness::Blocked
    } else if each.contains(&Readiness::Degraded) {
        Readiness::Degraded
    } else {
        Readiness::Ready
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

#[cfg(test)]
mod tests {
    use super::*;
    use Readiness::*;

    #[test]
    fn overall_readiness_of_the_backends() {
        assert_eq!(overall([Blocked, Blocked].into_iter()), Blocked);
        assert_eq!(overall([Ready, Blocked].into_iter()), Ready);
        assert_eq!(overall([Blocked, Degraded].into_iter()), Degraded);
        assert_eq!(overall([Ready, Degraded, Ready].into_iter()), Degraded);
        assert_eq!(overall(std::iter::empty()), Blocked);
    }
}
