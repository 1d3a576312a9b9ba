//! Which app a log entry belongs to: Android names processes by pid (`ps`: an app's process
//! is its package, or `package:service`), iOS entries carry their executable, which an app
//! index maps to a bundle id. Names of processes that ended are kept (their lines are still in
//! the ring) until the map grows too large.

use std::collections::HashMap;

use super::android::tombstone::looks_like_package;
use super::entry::LogEntry;

/// One process as a device lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessName {
    /// Android: the pid.
    pub pid: Option<u32>,
    /// iOS: the executable's name.
    pub executable: Option<String>,
    /// The process name (Android) or the app's bundle id (iOS).
    pub name: String,
}

/// Names kept at most (beyond, names of ended processes are forgotten).
const MAX_NAMES: usize = 8192;

/// pid → name and executable → app.
#[derive(Debug, Default)]
pub struct Processes {
    by_pid: HashMap<u32, String>,
    by_exec: HashMap<String, String>,
}

impl Processes {
    /// Takes a new listing; names of processes no longer listed are kept (within bounds).
    pub fn update(&mut self, list: Vec<ProcessName>) {
        if self.by_pid.len() + list.len() > MAX_NAMES {
            let listed: std::collections::HashSet<u32> =
                list.iter().filter_map(|p| p.pid).collect();
            self.by_pid.retain(|pid, _| listed.contains(pid));
        }
        for p in list {
            match (p.pid, p.executable) {
                (Some(pid), _) => {
                    self.by_pid.insert(pid, p.name);
                }
                (None, Some(exe)) => {
                    self.by_exec.insert(exe, p.name);
                }
                (None, None) => {}
            }
        }
    }

    /// Whether a listing named this pid (Android).
    pub fn knows_pid(&self, pid: u32) -> bool {
        self.by_pid.contains_key(&pid)
    }

    /// The process name listed for this pid (Android), if any.
    pub fn name_of(&self, pid: u32) -> Option<&str> {
        self.by_pid.get(&pid).map(String::as_str)
    }

    /// The app `e` belongs to: its process's package (without `:service`), or its
    /// executable's bundle id.
    pub fn app_of(&self, e: &LogEntry) -> Option<&str> {
        if let Some(name) = e.pid.and_then(|p| self.by_pid.get(&p)) {
            if looks_like_package(name) {
                return Some(name.split(':').next().unwrap_or(name));
            }
        }
        e.process
            .as_deref()
            .and_then(|exe| self.by_exec.get(exe))
            .map(String::as_str)
    }
}

/// A process start ActivityManager announces (`Start proc 4302:com.example/u0a123 for …`):
/// its pid and name, known before any listing.
pub fn started_process(e: &LogEntry) -> Option<ProcessName> {
    if e.tag != "ActivityManager" {
        return None;
    }
    let rest = e.message.trim_start().strip_prefix("Start proc ")?;
    let (pid, rest) = rest.split_once(':')?;
    let name = rest.split(['/', ' ']).next()?;
    Some(ProcessName {
        pid: Some(pid.parse().ok()?),
        executable: None,
        name: name.to_string(),
    })
    .filter(|p| !p.name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::entry::Level;

    fn entry(pid: u32, process: Option<&str>) -> LogEntry {
        LogEntry {
            seq: 1,
            time_ms: None,
            pid: Some(pid),
            tid: None,
            level: Level::Info,
            tag: "T".into(),
            message: String::new(),
            process: process.map(str::to_string),
        }
    }

    #[test]
    fn process_starts_in_the_log() {
        let mut e = entry(580, None);
        e.tag = "ActivityManager".into();
        e.message =
            "Start proc 4302:com.example.app/u0a123 for top-activity {com.example.app/.Main}"
                .into();
        let p = started_process(&e).unwrap();
        assert_eq!((p.pid, p.name.as_str()), (Some(4302), "com.example.app"));
        e.message = "Start proc for activity x".into();
        assert!(started_process(&e).is_none());
    }

    #[test]
    fn pids_and_executables_to_apps() {
        let mut p = Processes::default();
        p.update(vec![
            ProcessName {
                pid: Some(580),
                executable: None,
                name: "system_server".into(),
            },
            ProcessName {
                pid: Some(4301),
                executable: None,
                name: "com.example.app:sync".into(),
            },
            ProcessName {
                pid: None,
                executable: Some("Example".into()),
                name: "com.example.ios".into(),
            },
        ]);
        assert_eq!(p.app_of(&entry(4301, None)), Some("com.example.app"));
        assert_eq!(p.app_of(&entry(580, None)), None);
        assert_eq!(
            p.app_of(&entry(9, Some("Example"))),
            Some("com.example.ios")
        );
        // An ended process keeps its name for its lines.
        p.update(vec![ProcessName {
            pid: Some(580),
            executable: None,
            name: "system_server".into(),
        }]);
        assert_eq!(p.app_of(&entry(4301, None)), Some("com.example.app"));
    }
}
