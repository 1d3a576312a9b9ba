//! The device's file system and shell environment.
//!
//! A temporary folder holds `root/` (the device's `/`: `sdcard/`, `data/local/tmp/`,
//! `data/app/`, and `storage/emulated/0` + `storage/self/primary` as symlinks to `sdcard`),
//! `bin/` (the only `PATH` entry) and `vd.sock` (the applet/control socket).
//!
//! `bin/` holds one symlink per program a device command may run, every one pointing at the
//! mobilectl binary; run under that name with `MOBILECTL_VD_SOCKET` set, mobilectl acts as that
//! program ([`super::applet_entry`]): it sends its argv to the device process, which journals it
//! and either answers (stand-ins such as `input`, `uiautomator`, `am`) or tells the client to
//! `exec` the real host utility (`cat`, `ls`, `sh` → mksh, …) with device paths translated.
//! Anything else (`reboot`, `su`, `curl`, …) is "not found".
//!
//! Path mapping, chosen over chroot or mount namespaces so it works unprivileged anywhere:
//! absolute device paths in program arguments and in `sync:` requests (`/sdcard/x`,
//! `/data/local/tmp/x`, any path except `/dev/…` and `/proc/…`) are mapped under `root/`.
//! Every mapping stays inside `root/` ([`Sandbox::host_path`]): `.` and `..` are resolved
//! lexically, a `..` at the device's `/` staying there as on any file system, and a path that
//! leads out of `root/` through a symlink is refused — the device answers as for a missing
//! file. Limits: mksh builtins see host paths — `cd /sdcard` and redirections such as
//! `> /sdcard/x` do not map (use relative paths: the shell starts in `root/`, so `sdcard/x`
//! works), and `pwd` prints a host path. The shell is not a security boundary: a command may
//! still run a host program by its absolute path, which is why only authorised adb keys get a
//! shell (see [`crate::auth`]).

use std::path::{Component, Path, PathBuf};
use std::process::Stdio;

/// Environment variable naming the applet socket inside device commands.
pub const SOCKET_ENV: &str = "MOBILECTL_VD_SOCKET";

/// Stand-in programs answered by the device process.
pub const APPLETS: &[&str] = &[
    "input",
    "uiautomator",
    "screencap",
    "am",
    "pm",
    "monkey",
    "cmd",
    "dumpsys",
    "wm",
    "getprop",
    "setprop",
    "settings",
    "logcat",
    "log",
    "ps",
    "pidof",
    "id",
    "getenforce",
    "ime",
    "screenrecord",
    "pkill",
    "stat",
    "date",
];

/// Harmless utilities passed through to the host's program of the same name.
pub const UTILITIES: &[&str] = &[
    "cat",
    "ls",
    "mkdir",
    "rm",
    "rmdir",
    "cp",
    "mv",
    "touch",
    "chmod",
    "sleep",
    "sh",
    "head",
    "tail",
    "wc",
    "grep",
    "md5sum",
    "cksum",
    "sha256sum",
    "base64",
    "printf",
    "true",
    "false",
    "echo",
    "sed",
    "sort",
    "uniq",
    "tr",
    "cut",
    "xargs",
    "find",
    "which",
];

pub struct Sandbox {
    _dir: tempfile::TempDir,
    /// The device's `/` (as created; [`Self::host_path`] answers paths under it).
    pub root: PathBuf,
    /// `root` with symlinks resolved, what every mapped path must stay under.
    root_real: PathBuf,
    pub bin: PathBuf,
    pub socket: PathBuf,
    pub mksh: PathBuf,
    /// The host's program folders, as the device process found them when it started.
    host_dirs: Vec<PathBuf>,
}

/// Where the host keeps its programs: the device process's own `PATH` (Homebrew's
/// `/opt/homebrew/bin` on a Mac), else the usual system folders.
fn host_path_dirs() -> Vec<PathBuf> {
    match std::env::var_os("PATH").filter(|p| !p.is_empty()) {
        Some(path) => std::env::split_paths(&path).collect(),
        None => ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
            .iter()
            .map(PathBuf::from)
            .collect(),
    }
}

/// The host program `name` found in `dirs`, skipping `own_bin` (the sandbox's stand-ins, which
/// would find themselves).
fn find_program_in(name: &str, dirs: &[PathBuf], own_bin: &Path) -> Option<PathBuf> {
    let dirs = dirs.iter().filter(|d| d.as_path() != own_bin);
    let path = std::env::join_paths(dirs).ok()?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    which::which_in(name, Some(path), cwd).ok()
}

/// A host program the device runs (`mksh`, `ffmpeg`), found on `PATH`.
pub fn find_host_program(name: &str) -> Option<PathBuf> {
    find_program_in(name, &host_path_dirs(), Path::new(""))
}

impl Sandbox {
    pub fn create(mobilectl_bin: &Path, mksh: &Path) -> std::io::Result<Sandbox> {
        let dir = tempfile::Builder::new().prefix("mobilectl-vd-").tempdir()?;
        let root = dir.path().join("root");
        let bin = dir.path().join("bin");
        for d in [
            "sdcard/Download",
            "data/local/tmp",
            "data/app",
            "storage/emulated",
            "storage/self",
        ] {
            std::fs::create_dir_all(root.join(d))?;
        }
        std::os::unix::fs::symlink("../../sdcard", root.join("storage/emulated/0"))?;
        std::os::unix::fs::symlink("../../sdcard", root.join("storage/self/primary"))?;
        std::fs::create_dir_all(&bin)?;
        let target = std::fs::canonicalize(mobilectl_bin)?;
        for name in APPLETS.iter().chain(UTILITIES) {
            std::os::unix::fs::symlink(&target, bin.join(name))?;
        }
        Ok(Sandbox {
            socket: dir.path().join("vd.sock"),
            root_real: std::fs::canonicalize(&root)?,
            root,
            bin,
            mksh: mksh.to_path_buf(),
            host_dirs: host_path_dirs(),
            _dir: dir,
        })
    }

    /// The host path for a device path, or `None` when it would lead out of the device's
    /// `/` (a real device has no such file). Absolute device paths live under `root/`, relative
    /// ones are relative to the device's working directory (`root/`), and a host path already
    /// under `root/` (what `pwd` prints) is taken as the device path below it. `.` and `..`
    /// are resolved lexically (`/..` is `/`); then the deepest part of the path that exists is
    /// resolved through its symlinks and must still be under `root/`, so a symlink (even a
    /// dangling one) cannot carry a read or a write out.
    pub fn host_path(&self, device_path: &str) -> Option<PathBuf> {
        let p = Path::new(device_path);
        let below_root = p.strip_prefix(&self.root).unwrap_or(p);
        let mut inside = PathBuf::new();
        for c in below_root.components() {
            match c {
                Component::Normal(name) => inside.push(name),
                Component::ParentDir => {
                    inside.pop();
                }
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            }
        }
        let host = self.root.join(inside);
        self.stays_inside(&host).then_some(host)
    }

    /// Whether `host` (under `root/`, without `..`) stays under `root/` once the deepest part
    /// of it that exists is resolved; a part that exists but cannot be resolved (a dangling or
    /// looping symlink) does not.
    fn stays_inside(&self, host: &Path) -> bool {
        let Some(existing) = host
            .ancestors()
            .find(|a| std::fs::symlink_metadata(a).is_ok())
        else {
            return false;
        };
        std::fs::canonicalize(existing).is_ok_and(|real| real.starts_with(&self.root_real))
    }

    /// Translates one argument of a passed-through utility: a device path becomes its host
    /// path; `None` for a path that leads out of the device's `/` (see [`Self::host_path`]).
    /// `/dev/…` and `/proc/…` (the host's, without `..`), the sandbox's own `bin/` programs
    /// and anything not a path are passed as they are.
    pub fn translate_arg(&self, arg: &str) -> Option<String> {
        let no_parent = !Path::new(arg)
            .components()
            .any(|c| c == Component::ParentDir);
        let keep = !arg.starts_with('/')
            || (no_parent
                && (arg.starts_with("/dev/")
                    || arg == "/dev"
                    || arg.starts_with("/proc/")
                    || Path::new(arg).starts_with(&self.bin)));
        if keep {
            Some(arg.to_string())
        } else {
            self.host_path(arg)
                .map(|p| p.to_string_lossy().into_owned())
        }
    }

    /// The host program that a passed-through utility runs.
    pub fn real_program(&self, name: &str) -> Option<PathBuf> {
        match name {
            "sh" => Some(self.mksh.clone()),
            other => find_program_in(other, &self.host_dirs, &self.bin),
        }
    }

    /// The environment of every device command.
    pub fn env(&self) -> Vec<(String, String)> {
        let tmp = self
            .root
            .join("data/local/tmp")
            .to_string_lossy()
            .into_owned();
        vec![
            ("PATH".into(), self.bin.to_string_lossy().into_owned()),
            (
                SOCKET_ENV.into(),
                self.socket.to_string_lossy().into_owned(),
            ),
            ("HOME".into(), self.root.to_string_lossy().into_owned()),
            ("TMPDIR".into(), tmp),
            ("EXTERNAL_STORAGE".into(), "/sdcard".into()),
            ("ANDROID_ROOT".into(), "/system".into()),
            ("ANDROID_DATA".into(), "/data".into()),
            ("HOSTNAME".into(), "localhost".into()),
            ("USER".into(), "shell".into()),
            ("LOGNAME".into(), "shell".into()),
            ("SHELL".into(), "/system/bin/sh".into()),
            ("LANG".into(), "C.UTF-8".into()),
            // The device's clock is UTC (logcat prints UTC times); `date` agrees.
            ("TZ".into(), "UTC".into()),
            ("PS1".into(), "virtual:/ $ ".into()),
        ]
    }

    /// Spawns `sh -c CMD` (mksh; or an interactive one reading stdin) in its own process
    /// group. With `merged`, stdout and stderr share one pipe (returned), as adbd does for
    /// commands without the shell protocol, so their interleaving is kept.
    pub fn spawn_shell(
        &self,
        cmd: Option<&str>,
        merged: bool,
        interactive: bool,
    ) -> std::io::Result<(
        tokio::process::Child,
        Option<tokio::net::unix::pipe::Receiver>,
    )> {
        let mut c = tokio::process::Command::new(&self.mksh);
        c.arg0("sh");
        if let Some(cmd) = cmd {
            c.arg("-c").arg(cmd);
        } else if interactive {
            c.arg("-i");
        }
        c.env_clear()
            .envs(self.env())
            .current_dir(&self.root)
            .stdin(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut out = None;
        if merged {
            // Both ends are closed on exec; the child gets dups through `Stdio`.
            let (reader, writer) = std::io::pipe()?;
            c.stdout(writer.try_clone()?).stderr(writer);
            out = Some(tokio::net::unix::pipe::Receiver::from_owned_fd(
                std::os::fd::OwnedFd::from(reader),
            )?);
        } else {
            c.stdout(Stdio::piped()).stderr(Stdio::piped());
        }
        let child = c.spawn()?;
        drop(c);
        Ok((child, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_paths_map_under_root() {
        let sb = Sandbox::create(Path::new("/bin/true"), Path::new("/usr/bin/mksh")).unwrap();
        assert_eq!(
            sb.host_path("/sdcard/a.txt"),
            Some(sb.root.join("sdcard/a.txt"))
        );
        assert_eq!(
            sb.translate_arg("/data/local/tmp/x").unwrap(),
            sb.root.join("data/local/tmp/x").to_string_lossy()
        );
        assert_eq!(sb.translate_arg("/dev/null").unwrap(), "/dev/null");
        assert_eq!(sb.translate_arg("-la").unwrap(), "-la");
        let inside = sb.root.join("sdcard").to_string_lossy().into_owned();
        assert_eq!(sb.translate_arg(&inside).unwrap(), inside);
        assert!(sb.root.join("storage/emulated/0/Download").is_dir());
        // The device's own symlinks lead inside.
        assert_eq!(
            sb.host_path("/storage/emulated/0/Download/x"),
            Some(sb.root.join("storage/emulated/0/Download/x"))
        );
    }

    #[test]
    fn dot_dot_stays_at_the_devices_root() {
        let sb = Sandbox::create(Path::new("/bin/true"), Path::new("/usr/bin/mksh")).unwrap();
        for (device, inside) in [
            ("/data/../../../../etc/passwd", "etc/passwd"),
            ("/../../../../tmp/x", "tmp/x"),
            ("/sdcard/./Download/../a.txt", "sdcard/a.txt"),
            ("..", ""),
            ("../../etc/passwd", "etc/passwd"),
        ] {
            assert_eq!(sb.host_path(device), Some(sb.root.join(inside)), "{device}");
        }
        // A host path under the root (what `pwd` prints) cannot climb out either.
        let climbing = format!("{}/../../../etc/passwd", sb.root.display());
        assert_eq!(sb.host_path(&climbing), Some(sb.root.join("etc/passwd")));
        assert_eq!(
            sb.translate_arg(&climbing).unwrap(),
            sb.root.join("etc/passwd").to_string_lossy()
        );
        // So do `/dev/…`, `/proc/…` and `bin/` arguments with a `..`.
        assert_eq!(
            sb.translate_arg("/dev/../etc/passwd").unwrap(),
            sb.root.join("etc/passwd").to_string_lossy()
        );
        let bin_climb = format!("{}/../../etc/passwd", sb.bin.display());
        assert!(sb
            .translate_arg(&bin_climb)
            .unwrap()
            .starts_with(&*sb.root.to_string_lossy()));
    }

    #[test]
    fn symlinks_out_of_the_root_are_refused() {
        let sb = Sandbox::create(Path::new("/bin/true"), Path::new("/usr/bin/mksh")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), b"host").unwrap();
        let link = |name: &str, to: &Path| {
            std::os::unix::fs::symlink(to, sb.root.join("sdcard").join(name)).unwrap()
        };
        link("out", outside.path());
        link("secret", &outside.path().join("secret"));
        link("dangling", &outside.path().join("not-yet"));
        link("loop", &sb.root.join("sdcard/loop"));
        for device in [
            "/sdcard/out",
            "/sdcard/out/secret",
            "/sdcard/out/new/file",
            "/sdcard/secret",
            "/sdcard/dangling",
            "/sdcard/loop",
        ] {
            assert_eq!(sb.host_path(device), None, "{device}");
            assert_eq!(sb.translate_arg(device), None, "{device}");
        }
        // A symlink that stays inside is followed.
        link("inside", &sb.root.join("data/local/tmp"));
        assert_eq!(
            sb.host_path("/sdcard/inside/x"),
            Some(sb.root.join("sdcard/inside/x"))
        );
    }

    /// Host programs come from the host's `PATH` in order (Homebrew's folder on a Mac comes
    /// before the system's), only executable files count, and the sandbox's own stand-ins
    /// (which would run themselves) are never the answer.
    #[test]
    fn host_programs_are_found_on_path_in_order_skipping_the_sandbox() {
        use std::os::unix::fs::PermissionsExt;
        let dirs: Vec<PathBuf> = (0..3)
            .map(|_| tempfile::tempdir().unwrap().keep())
            .collect();
        let program = |dir: &Path, mode: u32| {
            let p = dir.join("ffmpeg");
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
            p
        };
        program(&dirs[0], 0o755); // the sandbox's stand-in
        program(&dirs[1], 0o644); // not executable
        let real = program(&dirs[2], 0o755);
        assert_eq!(find_program_in("ffmpeg", &dirs, &dirs[0]), Some(real));
        assert_eq!(
            find_program_in("ffmpeg", &dirs, Path::new("")),
            Some(dirs[0].join("ffmpeg"))
        );
        assert_eq!(find_program_in("ffmpeg", &dirs[..2], &dirs[0]), None);
        for d in dirs {
            std::fs::remove_dir_all(d).unwrap();
        }
    }
}
