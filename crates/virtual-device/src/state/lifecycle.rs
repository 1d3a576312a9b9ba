//! The app's process as Android runs it: a new pid at each start (logged by ActivityManager;
//! the control `app-pid N` chooses the next), an uncaught exception that kills it (`FATAL
//! EXCEPTION` in the crash buffer, the launcher in front), and a blocked main thread: input is
//! not handled while it is blocked, and input left waiting longer than the ANR timeout makes
//! ActivityManager declare an ANR (`ANR in <package>`, with the reason), as InputDispatcher
//! does after 5 s.

use super::DeviceState;
use crate::log::Buffer;

/// Pids of the device's fixed processes.
pub const INIT_PID: u32 = 1;
pub const ZYGOTE_PID: u32 = 312;
pub const SYSTEM_SERVER_PID: u32 = 580;
pub const SYSTEM_SERVER_TID: u32 = 612;
pub const LAUNCHER_PID: u32 = 1043;
pub const IME_PID: u32 = 1212;

/// The app's first pid; each start takes the next one.
const FIRST_APP_PID: u32 = 4301;

/// Android's input dispatching timeout.
pub const DEFAULT_ANR_TIMEOUT_MS: u64 = 5_000;
/// How long `@freeze` blocks the main thread.
pub const DEFAULT_FREEZE_MS: u64 = 8_000;

/// The app's process.
#[derive(Debug, Clone)]
pub struct Process {
    /// Pid while running (the last one after it ended).
    pub pid: u32,
    next_pid: u32,
    /// The main thread is blocked until this time (ms).
    blocked_until: Option<u64>,
    /// Since when input waits for the blocked main thread (ms).
    input_waiting_since: Option<u64>,
    anr_declared: bool,
    pub anr_timeout_ms: u64,
    pub freeze_ms: u64,
    /// The app throws in `onCreate` each time it is started (a control knob).
    pub crash_on_launch: bool,
}

impl Default for Process {
    fn default() -> Self {
        Process {
            pid: 0,
            next_pid: FIRST_APP_PID,
            blocked_until: None,
            input_waiting_since: None,
            anr_declared: false,
            anr_timeout_ms: DEFAULT_ANR_TIMEOUT_MS,
            freeze_ms: DEFAULT_FREEZE_MS,
            crash_on_launch: false,
        }
    }
}

impl Process {
    /// Whether the main thread is blocked now.
    pub fn blocked(&self) -> bool {
        self.blocked_until.is_some()
    }
}

impl DeviceState {
    /// What the device logs once at boot, before any app runs.
    pub(super) fn boot(&mut self) {
        self.log.push(
            Buffer::Main,
            ZYGOTE_PID,
            ZYGOTE_PID,
            'I',
            "Zygote",
            "Preloading classes... done",
        );
    }

    /// The app's process starts: a new pid, announced by ActivityManager.
    pub(super) fn start_process(&mut self) {
        let pid = self.process.next_pid;
        self.process.next_pid += 1;
        self.process.pid = pid;
        self.process.blocked_until = None;
        self.process.input_waiting_since = None;
        self.process.anr_declared = false;
        let component = self.app.component(&self.screen);
        let package = self.app.spec.package.clone();
        self.log(
            'I',
            "ActivityManager",
            &format!("Start proc {pid}:{package}/u0a123 for top-activity {{{component}}}"),
        );
        let now = self.clock.uptime_ns();
        self.perf = super::perf::AppPerf::new(now, pid, &package);
        self.perf
            .work(now, super::perf::Work::ColdStart(self.screen.clone()));
    }

    /// The pid the app's next start takes (later starts take the ones after it); false for
    /// a pid the device's own processes hold.
    pub fn set_next_app_pid(&mut self, pid: u32) -> bool {
        let taken = [
            INIT_PID,
            ZYGOTE_PID,
            SYSTEM_SERVER_PID,
            LAUNCHER_PID,
            IME_PID,
        ];
        if pid < 2 || taken.contains(&pid) || (self.running && pid == self.process.pid) {
            return false;
        }
        self.process.next_pid = pid;
        true
    }

    /// The process ends (force-stop, crash): nothing of it is blocked any more.
    pub(super) fn end_process(&mut self) {
        self.process.blocked_until = None;
        self.process.input_waiting_since = None;
        let uptime = self.clock.uptime_ns();
        self.perf.unblock(uptime);
    }

    /// The processes `ps` lists: (pid, name).
    pub fn processes(&self) -> Vec<(u32, String)> {
        let mut v = vec![
            (INIT_PID, "init".to_string()),
            (ZYGOTE_PID, "zygote64".to_string()),
            (SYSTEM_SERVER_PID, "system_server".to_string()),
            (LAUNCHER_PID, super::LAUNCHER_PKG.to_string()),
            (IME_PID, super::IME_PKG.to_string()),
        ];
        if self.running {
            v.push((self.process.pid, self.app.spec.package.clone()));
        }
        v.extend(self.others.iter().map(|(p, n)| (*p, n.clone())));
        v
    }

    /// Another app's process starts (`package`, for an instrumentation): the next pid,
    /// announced by ActivityManager as Android does.
    pub fn start_other_process(&mut self, package: &str, why: &str) -> u32 {
        let mut pid = self.process.next_pid;
        while self.others.contains_key(&pid) || (self.running && pid == self.process.pid) {
            pid += 1;
        }
        self.process.next_pid = pid + 1;
        self.others.insert(pid, package.to_string());
        self.log(
            'I',
            "ActivityManager",
            &format!("Start proc {pid}:{package}/u0a124 for {why}"),
        );
        pid
    }

    /// Another app's process ends (`reason`: `force-stop`, `crash`, or its work finished).
    pub fn end_other_process(&mut self, pid: u32, reason: &str) {
        if let Some(package) = self.others.remove(&pid) {
            self.log(
                'I',
                "ActivityManager",
                &format!("Process {package} (pid {pid}) has died: {reason}"),
            );
        }
    }

    /// An uncaught exception on the main thread, thrown from the activity's `method`
    /// (`onClick`, `onCreate`): AndroidRuntime's `FATAL EXCEPTION` (one message, in the crash
    /// buffer), the process killed, its activity finished.
    pub(super) fn crash(&mut self, throw: Option<&str>, method: &str) {
        if !self.running {
            return;
        }
        let pid = self.process.pid;
        let package = self.app.spec.package.clone();
        let component = self.app.component(&self.screen);
        let activity = component
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .rsplit('.')
            .next()
            .unwrap_or("MainActivity")
            .to_string();
        let throw = throw.unwrap_or("java.lang.RuntimeException: uncaught exception");
        let caller = if method == "onCreate" {
            "\tat android.app.Activity.performCreate(Activity.java:8595)\n\
             \tat android.app.ActivityThread.performLaunchActivity(ActivityThread.java:3764)\n"
        } else {
            "\tat android.view.View.performClick(View.java:7659)\n\
             \tat android.view.View.performClickInternal(View.java:7636)\n\
             \tat android.view.View$PerformClick.run(View.java:30156)\n"
        };
        let trace = format!(
            "FATAL EXCEPTION: main\nProcess: {package}, PID: {pid}\n{throw}\n\
             \tat {package}.{activity}.{method}({activity}.kt:57)\n\
             {caller}\
             \tat android.os.Handler.handleCallback(Handler.java:958)\n\
             \tat android.os.Handler.dispatchMessage(Handler.java:99)\n\
             \tat android.os.Looper.loopOnce(Looper.java:205)\n\
             \tat android.os.Looper.loop(Looper.java:294)\n\
             \tat android.app.ActivityThread.main(ActivityThread.java:8177)\n\
             \tat java.lang.reflect.Method.invoke(Native Method)\n\
             \tat com.android.internal.os.RuntimeInit$MethodAndArgsCaller.run(RuntimeInit.java:552)\n\
             \tat com.android.internal.os.ZygoteInit.main(ZygoteInit.java:971)"
        );
        self.log.push(
            Buffer::Main,
            pid,
            pid,
            'D',
            "AndroidRuntime",
            "Shutting down VM",
        );
        self.log
            .push(Buffer::Crash, pid, pid, 'E', "AndroidRuntime", &trace);
        self.log.push(
            Buffer::Main,
            pid,
            pid,
            'I',
            "Process",
            &format!("Sending signal. PID: {pid} SIG: 9"),
        );
        self.log(
            'W',
            "ActivityTaskManager",
            &format!("  Force finishing activity {component}"),
        );
        self.log(
            'I',
            "ActivityManager",
            &format!("Process {package} (pid {pid}) has died: fg  TOP "),
        );
        self.force_stop();
    }

    /// The main thread blocks for `freeze_ms`; the click that did it waits to be handled.
    pub(super) fn freeze(&mut self) {
        let now = super::now_ms();
        self.app_log('W', "DemoApp", "FREEZE tapped: blocking the main thread");
        self.process.blocked_until = Some(now + self.process.freeze_ms);
        self.process.input_waiting_since = Some(now);
        self.process.anr_declared = false;
        let uptime = self.clock.uptime_ns();
        self.perf.block(uptime);
    }

    /// Input for the app while its main thread is blocked is not handled; the first such
    /// input starts the ANR clock. True when the input must be dropped.
    pub(super) fn input_blocked(&mut self) -> bool {
        if !self.foreground || !self.process.blocked() {
            return false;
        }
        if self.process.input_waiting_since.is_none() {
            self.process.input_waiting_since = Some(super::now_ms());
        }
        true
    }

    /// Advances time: declares the ANR once input has waited too long, and unblocks the main
    /// thread when its time is up.
    pub fn tick(&mut self, now: u64) {
        let Some(until) = self.process.blocked_until else {
            return;
        };
        if let Some(since) = self.process.input_waiting_since {
            let waited = now.saturating_sub(since);
            if !self.process.anr_declared && self.running && waited >= self.process.anr_timeout_ms {
                self.process.anr_declared = true;
                self.declare_anr(waited);
            }
        }
        if now >= until {
            let blocked_for = now.saturating_sub(until) + self.process.freeze_ms;
            self.process.blocked_until = None;
            self.process.input_waiting_since = None;
            let uptime = self.clock.uptime_ns();
            self.perf.unblock(uptime);
            let frames = blocked_for / 16;
            self.app_log(
                'I',
                "Choreographer",
                &format!("Skipped {frames} frames!  The application may be doing too much work on its main thread."),
            );
        }
    }

    fn declare_anr(&mut self, waited: u64) {
        let pid = self.process.pid;
        let package = self.app.spec.package.clone();
        let component = self.app.component(&self.screen);
        let short = component.replacen(&format!("{package}/{package}"), &format!("{package}/"), 1);
        let full = component.replacen(&format!("{package}/."), &format!("{package}/{package}."), 1);
        let window = format!("7d1c2e3 {full} (server)");
        self.log(
            'I',
            "WindowManager",
            &format!("ANR in Window{{{window}}}. Reason:{window} is not responding. Waited {waited}ms for MotionEvent"),
        );
        let block = format!(
            "ANR in {package} ({short})\nPID: {pid}\n\
             Reason: Input dispatching timed out ({window} is not responding. Waited {waited}ms for MotionEvent)\n\
             Parent: {short}\nFrozen: s[false] g[false]\nLoad: 1.21 / 0.96 / 0.52"
        );
        self.log('E', "ActivityManager", &block);
    }
}
