//! `am instrument [-w] [-r] [-e KEY VALUE]… PKG/RUNNER` (also `cmd activity instrument`), as
//! ActivityManager and AndroidJUnitRunner answer it: an instrumentation no installed package
//! declares (or whose target is not installed) fails with `INSTRUMENTATION_FAILED` and exit 1;
//! UiAutomator2's starts the server ([`super::start`]); with `-w` the `am` process stays until
//! the server's run ends, then prints the end of its one test (`OK (1 test)`) or the crash
//! (`INSTRUMENTATION_RESULT: shortMsg=Process crashed.`), in raw status lines with `-r`.
//! Another installed instrumentation runs no tests.

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::watch;

use super::{End, RUNNER, SERVER_PKG, TEST_PKG};
use crate::applets::AppletResult;
use crate::Device;

/// The JUnit class whose one test (`startServer`) runs the server.
const TEST_CLASS: &str = "io.appium.uiautomator2.server.test.AppiumUiAutomator2Server";

/// The arguments after `instrument` when `argv` is an `am instrument`.
pub fn args_of(argv: &[String]) -> Option<&[String]> {
    let words: Vec<&str> = argv.iter().take(3).map(String::as_str).collect();
    match words[..] {
        ["am", "instrument", ..] => Some(&argv[2..]),
        ["cmd", "activity", "instrument"] => Some(&argv[3..]),
        _ => None,
    }
}

/// What `am` does next.
pub enum Outcome {
    /// It answers now.
    Done(AppletResult),
    /// (`-w`) It printed `head` and waits for the run's end.
    Wait(Waiting),
}

pub struct Waiting {
    pub head: String,
    raw: bool,
    started: Instant,
    ended: watch::Receiver<Option<End>>,
}

impl Waiting {
    /// Waits for the run's end; what `am` prints then.
    pub async fn tail(mut self) -> String {
        let end = match self.ended.wait_for(Option::is_some).await {
            Ok(v) => v.unwrap_or(End::Crashed),
            Err(_) => End::Crashed,
        };
        let secs = self.started.elapsed().as_secs_f64();
        match (end, self.raw) {
            (End::Crashed, _) => {
                "INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n"
                    .into()
            }
            (End::Finished, false) => format!(".\n\nTime: {secs:.3}\n\nOK (1 test)\n\n\n"),
            (End::Finished, true) => format!(
                "{}INSTRUMENTATION_STATUS: stream=.\nINSTRUMENTATION_STATUS: test=startServer\nINSTRUMENTATION_STATUS_CODE: 0\nINSTRUMENTATION_RESULT: stream=\n\nTime: {secs:.3}\n\nOK (1 test)\n\n\nINSTRUMENTATION_CODE: -1\n",
                status_head()
            ),
        }
    }
}

fn status_head() -> String {
    format!("INSTRUMENTATION_STATUS: class={TEST_CLASS}\nINSTRUMENTATION_STATUS: current=1\nINSTRUMENTATION_STATUS: id=AndroidJUnitRunner\nINSTRUMENTATION_STATUS: numtests=1\n")
}

const USAGE: &str = "usage: am instrument [-r] [-e <NAME> <VALUE>] [-p <FILE>] [-w]\n                [--user <USER_ID> | current]\n                [--no-window-animation] [--abi <ABI>] <COMPONENT>\n";

/// ActivityManager's refusal, as `am` prints it (exit 1).
fn failed(component: &str, why: &str) -> AppletResult {
    AppletResult::Output {
        code: 1,
        stdout: format!("INSTRUMENTATION_STATUS: Error={why}\nINSTRUMENTATION_STATUS: id=ActivityManagerService\nINSTRUMENTATION_STATUS_CODE: -1\n").into_bytes(),
        stderr: format!("android.util.AndroidException: INSTRUMENTATION_FAILED: {component}\n\tat com.android.commands.am.Instrument.run(Instrument.java:519)\n\tat com.android.commands.am.Am.runInstrument(Am.java:196)\n\tat com.android.commands.am.Am.onRun(Am.java:80)\n\tat com.android.internal.os.BaseCommand.run(BaseCommand.java:60)\n\tat com.android.commands.am.Am.main(Am.java:50)\n\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)\n\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:399)\n").into_bytes(),
    }
}

pub async fn start(dev: &Arc<Device>, args: &[String]) -> Outcome {
    let (mut wait, mut raw, mut component) = (false, false, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-w" => wait = true,
            "-r" => raw = true,
            "-e" => {
                it.next();
                it.next();
            }
            "-p" | "--user" | "--abi" => {
                it.next();
            }
            s if s.starts_with('-') => {}
            s => component = Some(s.to_string()),
        }
    }
    let Some(component) = component else {
        return Outcome::Done(AppletResult::fail(
            1,
            format!("Error: No instrumentation component specified\n\n{USAGE}"),
        ));
    };
    let Some((pkg, runner)) = component.split_once('/') else {
        return Outcome::Done(AppletResult::fail(
            1,
            format!("Error: Bad component name: {component}\n"),
        ));
    };
    let runner = if runner.starts_with('.') {
        format!("{pkg}{runner}")
    } else {
        runner.to_string()
    };
    let target = {
        let st = dev.state();
        st.instrumentations
            .get(pkg)
            .and_then(|list| list.iter().find(|(name, _)| *name == runner))
            .map(|(_, target)| target.clone())
            .map(|t| {
                let installed = st.installed.contains_key(&t) || t == st.app.spec.package;
                (t, installed)
            })
    };
    let shown = format!("{pkg}/{runner}");
    let target = match target {
        None => {
            return Outcome::Done(failed(
                &shown,
                &format!("Unable to find instrumentation info for: ComponentInfo{{{shown}}}"),
            ))
        }
        Some((t, false)) => {
            return Outcome::Done(failed(
                &shown,
                &format!("Unable to find instrumentation target package: {t}"),
            ))
        }
        Some((t, true)) => t,
    };
    if !(pkg == TEST_PKG && runner == RUNNER && target == SERVER_PKG) {
        // Some other test package: its runner finds no tests here.
        let out = if wait {
            "\nTime: 0.001\n\nOK (0 tests)\n\n\n"
        } else {
            ""
        };
        return Outcome::Done(AppletResult::ok(out));
    }
    let started = Instant::now();
    let ended = super::start(dev).await;
    if !wait {
        return Outcome::Done(AppletResult::ok(""));
    }
    let head = if raw {
        format!("{}INSTRUMENTATION_STATUS: stream=\n{TEST_CLASS}:\nINSTRUMENTATION_STATUS: test=startServer\nINSTRUMENTATION_STATUS_CODE: 1\n", status_head())
    } else {
        format!("\n{TEST_CLASS}:")
    };
    Outcome::Wait(Waiting {
        head,
        raw,
        started,
        ended,
    })
}
