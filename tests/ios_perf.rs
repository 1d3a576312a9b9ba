//! An iOS Simulator app's CPU and memory, read on the host (`GET /device/perf`): a Simulator's
//! app is a process of the Mac, so the fake `xcrun` answers `simctl spawn UDID launchctl list`
//! with the recorded listing plus one row naming a real process this test starts, busy on one
//! core and grown by a known amount. The test reads that process's figures from `/proc` itself
//! and compares: the product reads it through its own code (sysinfo), not through the test's.

use crate::common;

use std::process::Command;

use axum::http::StatusCode;
use common::*;
use mobilectl::exec::Tool;

const SIMS: &str =
    "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json";
/// The one booted simulator of that listing.
const UDID: &str = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
const LAUNCHCTL: &str = "ios_simctl/simctl_spawn_launchctl_list_mobilesafari_xcode11.4.txt";
const APP: &str = "com.example.busy";

/// A fake `xcrun` whose launchd listing is the recorded one, plus `APP` running as `pid` when
/// one is given.
fn app_listing(fakes: &FakeTools, pid: Option<u32>) -> axum::Router {
    let row = pid
        .map(|p| {
            format!("; printf '%s\\t0\\t%s\\n' {p} 'UIKitApplication:{APP}[0x1a2b][rb-legacy]'")
        })
        .unwrap_or_default();
    let xcrun = fake_xcrun_with(
        fakes,
        SIMS,
        &format!(
            "  \"simctl spawn {UDID} launchctl list\") cat '{}'{row} ;;",
            fixture(LAUNCHCTL).display()
        ),
    );
    app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), loopback_policy())
}

fn launchctl_calls(fakes: &FakeTools) -> Vec<Vec<String>> {
    calls_except_list(fakes, "xcrun")
}

fn launchctl_call() -> Vec<String> {
    ["simctl", "spawn", UDID, "launchctl", "list"]
        .map(String::from)
        .to_vec()
}

fn assert_not_running(status: StatusCode, body: &serde_json::Value, app: &str) {
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(error_code(body), "NOT_FOUND");
    let e = &body["error"];
    assert!(e["message"].as_str().unwrap().contains(app), "{body}");
    assert!(e["hint"].as_str().unwrap().contains("launch"), "{body}");
    assert_eq!(e["details"]["app"], app);
}

#[tokio::test]
async fn an_app_the_simulator_does_not_run_is_not_found_with_a_hint() {
    let fakes = FakeTools::new();
    let app = app_listing(&fakes, None);
    let absent = "com.example.absent";
    let (status, body) = call(&app, get(&format!("/api/v1/device/perf?app={absent}"))).await;
    assert_not_running(status, &body, absent);
    assert_eq!(launchctl_calls(&fakes), [launchctl_call()]);
}

/// launchd still lists the app's pid, but the process is gone by the time the host reads it.
#[tokio::test]
async fn an_app_listed_whose_process_has_exited_is_not_found() {
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let fakes = FakeTools::new();
    let app = app_listing(&fakes, Some(gone.id()));
    let (status, body) = call(&app, get(&format!("/api/v1/device/perf?app={APP}"))).await;
    assert_not_running(status, &body, APP);
}

/// What needs the test to read `/proc`: Linux.
#[cfg(target_os = "linux")]
mod measured {
    use super::*;

    use std::io::{BufRead, BufReader};
    use std::process::{Child, Stdio};

    /// A process busy on one core (a Python loop) after growing by `mib` MiB (a `bytes` object,
    /// every page written); ended when dropped.
    struct Busy(Child);

    impl Busy {
        fn start(mib: usize) -> Busy {
            let script = format!(
                "import sys\n\
                 grown = bytes([1]) * ({mib} * 1024 * 1024)\n\
                 sys.stdout.write('ready\\n'); sys.stdout.flush()\n\
                 while True: pass\n"
            );
            let mut child = Command::new("python3")
                .args(["-c", &script])
                .stdout(Stdio::piped())
                .spawn()
                .expect("python3");
            let mut line = String::new();
            BufReader::new(child.stdout.take().unwrap())
                .read_line(&mut line)
                .unwrap();
            assert_eq!(line.trim(), "ready", "the busy process did not start");
            Busy(child)
        }

        fn pid(&self) -> u32 {
            self.0.id()
        }
    }

    impl Drop for Busy {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// `/proc/PID/stat`'s user + system CPU time, s.
    fn cpu_time_s(pid: u32) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        // The fields after the command name, which ends at the last ')': state is field 3, utime 14.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = after.split_whitespace().collect();
        let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
        // SAFETY: sysconf only reads a system setting.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        ticks as f64 / hz as f64
    }

    /// A `/proc/PID/status` figure (`VmRSS:`, `Threads:`), its number.
    fn status_figure(pid: u32, key: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in\n{status}"))
    }

    fn within(got: f64, want: f64, share: f64) -> bool {
        (got - want).abs() <= want * share
    }

    /// The reading answers what the test measures of the same process over the same time: CPU
    /// within 10 % of the share of a core the test saw it use around the request (near 100 % on
    /// a quiet machine), resident memory within 10 % of the test's own `VmRSS` and of the grown
    /// size, the threads `/proc` counts.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_busy_grown_process_reads_as_the_host_measures_it() {
        const GROWN_MIB: usize = 256;
        const WINDOW_MS: u64 = 2000;
        let busy = Busy::start(GROWN_MIB);
        let pid = busy.pid();
        let fakes = FakeTools::new();
        let app = app_listing(&fakes, Some(pid));

        let started = std::time::Instant::now();
        let cpu_before = cpu_time_s(pid);
        let (status, body) = call(
            &app,
            get(&format!(
                "/api/v1/device/perf?app={APP}&window_ms={WINDOW_MS}"
            )),
        )
        .await;
        let cpu_after = cpu_time_s(pid);
        let elapsed_s = started.elapsed().as_secs_f64();
        let rss_kib = status_figure(pid, "VmRSS:");
        let threads = status_figure(pid, "Threads:");
        assert_eq!(status, StatusCode::OK, "{body}");

        // The test's measure: the share of a core the process used over the interval that holds
        // the reading's window (the window plus the two samples' launchctl calls).
        let measured_percent = (cpu_after - cpu_before) / elapsed_s * 100.0;
        let cpu = &body["cpu"];
        let percent = cpu["percent"].as_f64().unwrap();
        eprintln!(
            "perf of a busy process: {percent}% of a core over {} ms; the test measured \
             {measured_percent:.2}% over {elapsed_s:.3} s; resident {} KiB, VmRSS {rss_kib} KiB, \
             grown {} KiB",
            cpu["window_ms"],
            body["memory"]["resident_kib"],
            GROWN_MIB * 1024
        );
        // On a loaded machine the loop gets what the scheduler leaves it (17 % of a core was
        // seen with the whole suite running on two cores): enough that an idle reading of ~0
        // could not pass for it.
        assert!(
            measured_percent > 5.0,
            "the loop barely ran: {measured_percent}%"
        );
        assert!(
            within(percent, measured_percent, 0.10),
            "{percent}% against {measured_percent}% measured"
        );
        let window_ms = cpu["window_ms"].as_u64().unwrap();
        assert!(
            (WINDOW_MS..WINDOW_MS + 1000).contains(&window_ms),
            "{window_ms}"
        );

        let memory = &body["memory"];
        let resident = memory["resident_kib"].as_u64().unwrap() as f64;
        assert!(
            within(resident, rss_kib as f64, 0.10),
            "{resident} against VmRSS {rss_kib}"
        );
        let grown_kib = (GROWN_MIB * 1024) as f64;
        assert!(
            resident >= grown_kib,
            "{resident} KiB, grown by {grown_kib}"
        );
        assert!(
            within(resident, grown_kib, 0.10),
            "{resident} against {grown_kib}"
        );
        assert_eq!(memory["source"], "process");
        // Linux has no footprint: the figure is absent, not zero.
        assert!(memory.get("footprint_kib").is_none(), "{memory}");

        assert_eq!(body["threads"], threads);
        assert_eq!(body["pid"], pid);
        assert_eq!(body["app"], APP);
        assert_eq!(body["udid"], UDID);
        assert_eq!(body["measured_on"], "host");
        // Simulators keep no frame statistics: said, not zeroed.
        assert!(body.get("frames").is_none(), "{body}");
        assert_eq!(body["missing"], serde_json::json!(["frames"]));
        assert_eq!(body["cost"]["samples"], 2);
        assert_eq!(
            launchctl_calls(&fakes),
            [launchctl_call(), launchctl_call()]
        );
    }
}
