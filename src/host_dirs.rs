//! Where mobilectl keeps its files on this host: the cache folder (runs, recordings, baselines)
//! and the state folder (autostarted servers' logs and pids, the proxy's CA, named sessions).
//!
//! Each is, in order: mobilectl's own variable (`MOBILECTL_CACHE_DIR`, `MOBILECTL_STATE_DIR`);
//! the XDG variable where it is set, on any platform (`XDG_CACHE_HOME`, `XDG_STATE_HOME`);
//! else the platform's folder through the `dirs` crate — `~/.cache` and `~/.local/state` on
//! Linux, `~/Library/Caches` and `~/Library/Application Support` on macOS, `%LOCALAPPDATA%`
//! on Windows — with `mobilectl` below it.

use std::ffi::OsString;
use std::path::PathBuf;

/// The folder's name below the platform's.
const APP: &str = "mobilectl";

/// One of the two folders, and the variables that choose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Folder {
    /// Runs, their traces and artifacts (GC-managed).
    Cache,
    /// Autostarted servers' logs and pids, the proxy's CA, named sessions.
    State,
}

impl Folder {
    /// mobilectl's own variable, which names the folder itself.
    pub fn own_var(self) -> &'static str {
        match self {
            Folder::Cache => "MOBILECTL_CACHE_DIR",
            Folder::State => "MOBILECTL_STATE_DIR",
        }
    }

    /// The XDG variable, which names the folder `mobilectl` goes in.
    pub fn xdg_var(self) -> &'static str {
        match self {
            Folder::Cache => "XDG_CACHE_HOME",
            Folder::State => "XDG_STATE_HOME",
        }
    }

    /// The platform's folder for this kind of file (`None` without a home directory).
    fn platform(self) -> Option<PathBuf> {
        match self {
            Folder::Cache => dirs::cache_dir(),
            // Only Linux has a state folder; elsewhere local application data is the place.
            Folder::State => dirs::state_dir().or_else(dirs::data_local_dir),
        }
    }

    /// The folder, from the process's environment (not created).
    pub fn path(self) -> PathBuf {
        choose(self, |k| std::env::var_os(k), self.platform())
    }
}

/// The choice itself, given how to read a variable and the platform's folder: the pure part,
/// tested the same on every platform.
pub fn choose(
    folder: Folder,
    var: impl Fn(&str) -> Option<OsString>,
    platform: Option<PathBuf>,
) -> PathBuf {
    let set = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(own) = set(folder.own_var()) {
        return own;
    }
    if let Some(xdg) = set(folder.xdg_var()) {
        return xdg.join(APP);
    }
    // No home at all (a service account): the working directory, as before.
    platform.unwrap_or_else(|| PathBuf::from(".")).join(APP)
}

/// The cache folder (not created).
pub fn cache_dir() -> PathBuf {
    Folder::Cache.path()
}

/// The state folder (not created).
pub fn state_dir() -> PathBuf {
    Folder::State.path()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn own_variable_then_xdg_then_the_platforms_folder() {
        let platform = Some(PathBuf::from("/Users/u/Library/Caches"));
        assert_eq!(
            choose(Folder::Cache, env(&[]), platform.clone()),
            PathBuf::from("/Users/u/Library/Caches/mobilectl")
        );
        assert_eq!(
            choose(
                Folder::Cache,
                env(&[("XDG_CACHE_HOME", "/x/cache")]),
                platform.clone()
            ),
            PathBuf::from("/x/cache/mobilectl")
        );
        assert_eq!(
            choose(
                Folder::Cache,
                env(&[
                    ("XDG_CACHE_HOME", "/x/cache"),
                    ("MOBILECTL_CACHE_DIR", "/m")
                ]),
                platform.clone()
            ),
            PathBuf::from("/m")
        );
        // The other folder's variables do not count; empty ones are unset.
        assert_eq!(
            choose(
                Folder::State,
                env(&[("XDG_CACHE_HOME", "/x/cache"), ("XDG_STATE_HOME", "")]),
                Some(PathBuf::from("/home/u/.local/state"))
            ),
            PathBuf::from("/home/u/.local/state/mobilectl")
        );
        assert_eq!(
            choose(Folder::State, env(&[]), None),
            PathBuf::from("./mobilectl")
        );
    }

    /// On this host for real: the folder is below the platform's own (Linux: `~/.cache`).
    #[test]
    fn the_platforms_folder_is_below_home() {
        let platform = Folder::Cache.platform().expect("a home directory");
        // On Linux `dirs` itself reads XDG_CACHE_HOME, which may point anywhere.
        if std::env::var_os("XDG_CACHE_HOME").is_none() {
            let home = dirs::home_dir().unwrap();
            assert!(platform.starts_with(&home), "{platform:?}");
            #[cfg(target_os = "linux")]
            assert_eq!(platform, home.join(".cache"));
        }
        #[cfg(target_os = "macos")]
        assert!(platform.ends_with("Library/Caches"));
    }
}
