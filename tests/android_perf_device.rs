//! Performance samples of the demo app on the virtual device through the real adb: the
//! product's own one-command sample (`sample_script`) run by `adb shell`, its output read by
//! the product's own reader (`read_sample`), as on a phone. The figures move with what the app
//! does: swipes over its list draw frames (some janky), use CPU ticks and load rows into
//! memory; `reset` clears the frames; an idle app's ticks stay nearly flat.

use mobilectl::backend::android::perf::procstat::CLK_TCK;
use mobilectl::backend::android::perf::sample::{cpu_between, read_sample, sample_script, Sample};
use mobilectl::error::ErrorCode;
use mobilectl::perf::SampleAsk;
use virtual_device::testing::VdHarness;

const BIN: &str = env!("CARGO_BIN_EXE_mobilectl");
const PKG: &str = "com.mobilectl.demo";

fn start() -> VdHarness {
    VdHarness::start(BIN, &[]).expect("virtual device + adb")
}

/// Starts the demo app's login screen (a new process when it was stopped).
fn launch_app(vd: &VdHarness) {
    let activity = format!("{PKG}/.LoginActivity");
    let out = vd.adb(&["shell", "am", "start", "-n", &activity]);
    assert!(out.success(), "{}", out.stdout_text());
}

const ALL: SampleAsk = SampleAsk {
    memory: true,
    frames: true,
    reset_frames: false,
};

/// One sample of `pkg`, as the product takes it.
fn sample(vd: &VdHarness, pkg: &str, parts: SampleAsk) -> mobilectl::error::Result<Sample> {
    let script = sample_script(pkg, parts).unwrap();
    let out = vd.adb(&["shell", &script]);
    assert!(out.success(), "{}{}", out.stdout_text(), out.stderr_text());
    read_sample(&out.stdout_text(), pkg)
}

fn frames(s: &Sample) -> u64 {
    let g = s.gfxinfo.as_ref().expect("gfxinfo read");
    g.summary.as_ref().expect("the summary").frames
}

fn ticks(s: &Sample) -> u64 {
    s.process.as_ref().expect("the process's stat").ticks()
}

fn pss(s: &Sample) -> u64 {
    s.memory
        .as_ref()
        .and_then(|m| m.pss_total_kib)
        .expect("TOTAL PSS")
}

/// A swipe up over the demo's list.
fn scroll(vd: &VdHarness) {
    let out = vd.adb(&[
        "shell", "input", "swipe", "540", "1800", "540", "600", "300",
    ]);
    assert!(out.success(), "{}", out.stderr_text());
}

#[test]
fn a_sample_of_the_demo_app_moves_with_what_it_does() {
    let vd = start();
    vd.control(&["screen", "list"]).unwrap();
    let reset = SampleAsk {
        reset_frames: true,
        ..ALL
    };
    let first = sample(&vd, PKG, reset).unwrap();
    assert!(first.complete);
    assert_eq!(
        u64::from(first.pid),
        vd.state()["app_pid"].as_u64().unwrap()
    );
    assert!(first.threads.unwrap() > 1, "{:?}", first.threads);
    assert!(first.tasks.iter().any(|t| t.name == "RenderThread"));
    assert_eq!(first.tasks[0].id, first.pid, "the main thread first");
    let m = first.memory.as_ref().unwrap();
    assert!(
        (40_000..150_000).contains(&pss(&first)),
        "tens of MB: {m:?}"
    );
    assert!(m.java_heap_kib.is_some() && m.native_heap_kib.is_some() && m.graphics_kib.is_some());
    assert!(
        frames(&first) > 10,
        "the start and the list drew frames before the reset"
    );
    // Reset: nothing drawn since; idle, the ticks hardly move.
    let idle = sample(&vd, PKG, ALL).unwrap();
    assert_eq!(frames(&idle), 0);
    assert!(
        ticks(&idle) <= ticks(&first) + 2,
        "{} → {}",
        ticks(&first),
        ticks(&idle)
    );
    assert!(idle.uptime_s.unwrap() > first.uptime_s.unwrap());
    // Three swipes over the list: frames (some janky), CPU, rows loaded.
    for _ in 0..3 {
        scroll(&vd);
    }
    let busy = sample(&vd, PKG, reset).unwrap();
    let stats = busy.gfxinfo.as_ref().unwrap().summary.clone().unwrap();
    assert!(stats.frames >= 150, "{stats:?}");
    assert!(stats.janky_frames.unwrap() > 0, "{stats:?}");
    assert!(stats.p50_ms.unwrap() < 16.0, "{stats:?}");
    assert!(
        !busy.gfxinfo.as_ref().unwrap().frames.is_empty(),
        "framestats rows"
    );
    assert!(
        ticks(&busy) > ticks(&idle) + 50,
        "{} → {}",
        ticks(&idle),
        ticks(&busy)
    );
    let cpu = cpu_between(&idle, &busy, CLK_TCK).unwrap();
    assert!(cpu.percent > 0.0, "{cpu:?}");
    assert!(
        pss(&busy) > pss(&idle) + 1_000,
        "{} → {}",
        pss(&idle),
        pss(&busy)
    );
    // That sample reset the frames after printing them.
    let after = sample(&vd, PKG, ALL).unwrap();
    assert_eq!(frames(&after), 0);
    assert_eq!(after.pid, first.pid);
}

#[test]
fn an_app_without_a_process_is_not_found() {
    let vd = start();
    assert!(vd.adb(&["shell", "am", "force-stop", PKG]).success());
    for parts in [ALL, SampleAsk::default()] {
        for pkg in [PKG, "com.example.absent"] {
            let e = sample(&vd, pkg, parts).unwrap_err();
            assert_eq!(e.code, ErrorCode::NotFound, "{pkg}: {e:?}");
        }
    }
    // Started again: a new process, found.
    launch_app(&vd);
    let s = sample(&vd, PKG, ALL).unwrap();
    assert_eq!(u64::from(s.pid), vd.state()["app_pid"].as_u64().unwrap());
}

/// The app given the pid of a live host process: the shell expands `/proc/$p/task/*/stat`
/// to the host's threads of that pid (on Linux; a Mac passes the pattern), and the sample
/// still reads the device's own threads — with a single-threaded host process (its only
/// path is the device's main thread's) and with this test's own, which has several.
#[test]
fn the_threads_of_a_pid_the_host_also_has_are_the_devices() {
    let vd = start();
    let mut sleeper = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let first = sample(&vd, PKG, SampleAsk::default()).unwrap();
    for host_pid in [sleeper.id(), std::process::id()] {
        if vd.control(&["app-pid", &host_pid.to_string()]).is_err() {
            continue; // A pid of the device's own processes.
        }
        assert!(vd.adb(&["shell", "am", "force-stop", PKG]).success());
        launch_app(&vd);
        let s = sample(&vd, PKG, SampleAsk::default()).unwrap();
        assert_eq!(s.pid, host_pid);
        let names: Vec<&str> = s.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), first.tasks.len(), "{names:?}");
        assert!(names.contains(&"RenderThread") && names.contains(&"HeapTaskDaemon"));
        assert_eq!(s.tasks[0].id, host_pid);
        assert!(s.tasks.iter().all(|t| t.threads as usize == names.len()));
        // Where the host has that pid, `cat` got the host's thread paths, not the pattern.
        let cats = vd.journal_argvs();
        let handed = cats
            .iter()
            .rev()
            .find(|a| a[0] == "cat" && a.iter().any(|p| p.contains("/task/")))
            .unwrap();
        let on_host = std::path::Path::new(&format!("/proc/{host_pid}/task")).exists();
        assert_eq!(!handed[1].contains('*'), on_host, "{handed:?}");
    }
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
}
