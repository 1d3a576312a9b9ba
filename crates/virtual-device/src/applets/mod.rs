//! Stand-in programs, run in the device process on behalf of an applet client (see
//! [`super::sandbox`]). Each gets the argv mksh produced, the client's working directory and
//! (for `pm`/`cmd package install -S N`) N bytes of its stdin, and answers with output and an
//! exit code — or, for passed-through utilities, with the host program to `exec` (`cat` of
//! the device's own `/proc` files is answered: [`procfs`]).

mod am;
mod coreutils;
mod gfxinfo;
mod input;
mod intent;
mod logcat;
mod meminfo;
mod proc_table;
mod procfs;
mod procs;
pub mod screenrecord;
mod system;
mod ui;

pub use logcat::{follow as follow_log, Options as LogcatOptions};
pub use proc_table::system_ids;
pub(crate) use ui::idle_within;

/// `input ARGS…` (what the UiAutomator2 stand-in's gestures and keys run).
pub(crate) fn input(dev: &Device, args: &[String]) -> AppletResult {
    let r = input::run(dev, args);
    crate::web::reconcile(dev);
    r
}

use std::path::PathBuf;

use super::sandbox::{APPLETS, UTILITIES};
use super::Device;

/// What the applet client must do.
pub enum AppletResult {
    Output {
        code: i32,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    },
    Exec {
        program: PathBuf,
        args: Vec<String>,
    },
}

impl AppletResult {
    pub fn ok(stdout: impl Into<Vec<u8>>) -> Self {
        AppletResult::Output {
            code: 0,
            stdout: stdout.into(),
            stderr: Vec::new(),
        }
    }

    pub fn fail(code: i32, stderr: impl Into<Vec<u8>>) -> Self {
        AppletResult::Output {
            code,
            stdout: Vec::new(),
            stderr: stderr.into(),
        }
    }
}

/// The options of a `logcat` that follows the log (answered as a stream by the caller), or
/// `None` for anything [`run`] answers.
pub fn follow_options(dev: &Device, argv: &[String]) -> Option<LogcatOptions> {
    if argv.first().map(String::as_str) != Some("logcat") {
        return None;
    }
    let available = dev.state().log.available.clone();
    logcat::parse(&argv[1..], &available)
        .ok()
        .filter(LogcatOptions::follows)
}

/// Journals `argv` and runs it; then the WebView's Chromium follows what it did to the app
/// (a force-stop takes its socket away before the command returns).
pub fn run(dev: &Device, argv: &[String], stdin: Vec<u8>) -> AppletResult {
    let r = run_one(dev, argv, stdin);
    crate::web::reconcile(dev);
    r
}

fn run_one(dev: &Device, argv: &[String], stdin: Vec<u8>) -> AppletResult {
    dev.journal.argv(argv);
    let Some(name) = argv.first() else {
        return AppletResult::fail(1, "empty argv\n");
    };
    let args = &argv[1..];
    match name.as_str() {
        "input" => input::run(dev, args),
        "uiautomator" => ui::uiautomator(dev, args),
        "screencap" => ui::screencap(dev, args),
        // Answered as a stream by the caller (`ipc`) once its options are good.
        "screenrecord" => match screenrecord::parse(args, dev.recorders.limit_s()) {
            Ok(_) => AppletResult::fail(1, "screenrecord: needs a streaming connection\n"),
            Err((0, text)) => AppletResult::ok(text),
            Err((code, text)) => AppletResult::fail(code, text),
        },
        "pkill" => screenrecord::pkill(dev, args),
        "am" => am::am(dev, args),
        "pm" => am::pm(dev, args, stdin),
        "monkey" => am::monkey(dev, args),
        "cmd" => am::cmd(dev, args, stdin),
        "dumpsys" => system::dumpsys(dev, args),
        "wm" => system::wm(dev, args),
        "getprop" => system::getprop(dev, args),
        "setprop" => system::setprop(dev, args),
        "settings" => system::settings(dev, args),
        "logcat" => logcat::run(dev, args),
        "ps" => procs::ps(dev, args),
        "pidof" => procs::pidof(dev, args),
        "log" => procs::log(dev, args),
        "id" => AppletResult::ok("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3003(inet) context=u:r:shell:s0\n"),
        "getenforce" => AppletResult::ok("Enforcing\n"),
        // Input method switching: accepted; the IME in use does not change what typing does.
        "ime" => AppletResult::ok(""),
        "stat" => coreutils::stat(dev, args),
        "date" => coreutils::date(args),
        // The device's own `/proc` files; any other `cat` is the host's.
        "cat" if procfs::takes(args) => procfs::cat(dev, args),
        n if UTILITIES.contains(&n) => match dev.sandbox.real_program(n) {
            Some(program) => {
                let translated: Result<Vec<String>, &String> = args
                    .iter()
                    .map(|a| if n == "sh" { Some(a.clone()) } else { dev.sandbox.translate_arg(a) }.ok_or(a))
                    .collect();
                match translated {
                    Ok(args) => AppletResult::Exec { program, args },
                    // A path out of the device's `/`: the device has no such file.
                    Err(path) => AppletResult::fail(1, format!("{n}: {path}: No such file or directory\n")),
                }
            }
            None => AppletResult::fail(127, format!("/system/bin/sh: {n}: inaccessible or not found\n")),
        },
        n => {
            debug_assert!(!APPLETS.contains(&n));
            AppletResult::fail(127, format!("/system/bin/sh: {n}: inaccessible or not found\n"))
        }
    }
}
