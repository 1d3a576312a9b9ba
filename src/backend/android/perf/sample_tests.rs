//! The sample script and its reader, on real outputs concatenated as the script prints them,
//! and (on Linux) the script itself run by `sh` against this test's own process.

use super::*;
use crate::backend::android::perf::fixture;
use crate::perf::{FrameSource, MemorySource};

const TASKS: &str = "android_perf/proc_pid_task_stat_rn_app_sample1_flashlight.txt";

/// What the script prints: each section after its marker, an empty line before the markers
/// that follow a command's output.
fn printed(pid: &str, uptime: &str, stat: &str, tasks: &str, meminfo: &str, gfx: &str) -> String {
    format!(
        "{}\n{pid}\n{}\n{uptime}\n{}\n{stat}\n{}\n{tasks}\n{}\n{meminfo}\n{}\n{gfx}\n{}\n",
        Section::Pid.marker(),
        Section::Uptime.marker(),
        Section::Stat.marker(),
        Section::Tasks.marker(),
        Section::Meminfo.marker(),
        Section::Gfxinfo.marker(),
        end_marker(),
    )
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap()
}

#[test]
fn a_sample_of_real_outputs() {
    let tasks = fixture(TASKS);
    let gfx = fixture("android_misc/dumpsys_gfxinfo_miui.txt")
        + &fixture("android_perf/gfxinfo_framestats_profiledata_android6_androidviewclient.txt");
    let out = printed(
        "21455",
        "102154.52 380000.10",
        first_line(&tasks),
        &tasks,
        &fixture("android_misc/dumpsys_meminfo_pkg_miui.txt"),
        &gfx,
    );
    let text = split_sample(&out).unwrap();
    assert!(text.complete);
    assert_eq!(text.section(Section::Pid).map(str::trim), Some("21455"));
    assert!(text
        .section(Section::Gfxinfo)
        .unwrap()
        .contains("---PROFILEDATA---"));
    let s = read_sample(&out, "com.adnan.lumisky").unwrap();
    assert_eq!(
        (s.pid, s.uptime_s, s.threads),
        (21455, Some(102_154.52), Some(42))
    );
    assert_eq!(s.process.as_ref().unwrap().ticks(), 3089 + 1079);
    assert_eq!(s.tasks.len(), 42);
    let m = s.memory.unwrap();
    assert_eq!(
        (m.source, m.pss_total_kib),
        (MemorySource::AppSummary, Some(311_291))
    );
    let g = s.gfxinfo.unwrap();
    assert_eq!(g.summary.as_ref().unwrap().janky_percent, Some(65.14));
    assert_eq!((g.frames.len(), g.flagged_frames), (2, 1));
    assert_eq!(g.frame_stats(16.67).unwrap().source, FrameSource::Summary);
}

#[test]
fn cpu_between_two_samples_on_the_device_clock() {
    let tasks = fixture(TASKS);
    let stat = first_line(&tasks);
    // 2.5 s later the process used 125 more user ticks: half a core.
    let later = stat.replacen(" 3089 1079 ", " 3214 1079 ", 1);
    let a = read_sample(
        &printed("21455", "100.00 1", stat, &tasks, "", ""),
        "com.x.y",
    )
    .unwrap();
    let b = read_sample(
        &printed("21455", "102.50 1", &later, &tasks, "", ""),
        "com.x.y",
    )
    .unwrap();
    let cpu = cpu_between(&a, &b, 100).unwrap();
    assert_eq!((cpu.percent, cpu.window_ms), (50.0, 2500));
    assert_eq!(cpu_between(&b, &a, 100), None);
    // A clock gone wild (an uptime of 1e300 s) gives no reading rather than a panic.
    let wild = read_sample(
        &printed("21455", "1e300 1", &later, &tasks, "", ""),
        "com.x.y",
    )
    .unwrap();
    assert_eq!(cpu_between(&a, &wild, 100), None);
    // Unrecognised dumpsys sections are `None`, not zeros.
    assert_eq!((a.memory, a.gfxinfo), (None, None));
}

#[test]
fn an_app_without_a_process_is_not_running() {
    let gone = fixture("android_misc/dumpsys_gfxinfo_no_process_error.txt");
    let out = printed("", "5.0 1", "", "", &gone, &gone);
    let e = read_sample(&out, "com.funnyenglish.app").unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    let e = read_sample(&printed("", "5.0 1", "", "", "", ""), "com.x.y").unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    // Without pidof, dumpsys's pid stands in.
    let mem = fixture("android_perf/meminfo_android4.4_droidmonitor.txt");
    let s = read_sample(
        &printed("", "5.0 1", "", "", &mem, ""),
        "com.sample.package",
    )
    .unwrap();
    assert_eq!((s.pid, s.process, s.threads), (30125, None, None));
}

#[test]
fn cut_and_foreign_outputs() {
    assert_eq!(split_sample("").unwrap_err().code, ErrorCode::CommandFailed);
    assert_eq!(
        split_sample("sh: pidof: not found\n").unwrap_err().code,
        ErrorCode::CommandFailed
    );
    let tasks = fixture(TASKS);
    let full = printed("21455", "9.5 1", first_line(&tasks), &tasks, "", "");
    let cut = &full[..full.find("21460 (Signal").unwrap() + 20];
    let s = read_sample(cut, "com.x.y").unwrap();
    assert!(!s.complete);
    assert_eq!((s.tasks.len(), s.uptime_s), (1, Some(9.5)));
}

#[test]
fn the_script_checks_the_package_and_reads_what_is_asked() {
    for bad in [
        "com.x; reboot",
        "com.x$(id)",
        "com",
        "",
        "com.x y",
        "com.x\nreboot",
    ] {
        let e = sample_script(bad, SampleAsk::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationFailed, "{bad:?}");
    }
    let cpu_only = sample_script("com.example.app", SampleAsk::default()).unwrap();
    assert!(cpu_only.contains("pidof com.example.app") && !cpu_only.contains("dumpsys"));
    let all = SampleAsk {
        memory: true,
        frames: true,
        reset_frames: true,
    };
    let s = sample_script("com.example.app", all).unwrap();
    assert!(s.contains("dumpsys meminfo com.example.app;"), "{s}");
    assert!(
        s.contains("dumpsys gfxinfo com.example.app framestats reset;"),
        "{s}"
    );
}

/// The script run by the host's `sh` (and `mksh`) with `pidof` and `dumpsys` stand-ins: `pidof`
/// names this test's own process (and one more, as several processes may share a name), whose
/// `/proc` lines are real.
#[cfg(target_os = "linux")]
#[test]
fn the_script_runs_and_its_output_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let me = std::process::id();
    let bin = |name: &str, body: String| {
        let p = dir.path().join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    let fx = |rel: &str| format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"));
    bin("pidof", format!("echo {me} 99999"));
    bin(
        "dumpsys",
        format!(
            "case $1 in meminfo) cat {};; gfxinfo) cat {};; esac",
            fx("android_misc/dumpsys_meminfo_pkg_miui.txt"),
            fx("android_misc/dumpsys_gfxinfo_miui.txt")
        ),
    );
    let all = SampleAsk {
        memory: true,
        frames: true,
        reset_frames: false,
    };
    let script = sample_script("com.adnan.lumisky", all).unwrap();
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap()
    );
    // `sh` always; `mksh`, Android's own shell, where the host has it.
    let mut ran = 0;
    for shell in ["sh", "mksh"] {
        let run = std::process::Command::new(shell)
            .args(["-c", &script])
            .env("PATH", &path)
            .output();
        let Ok(out) = run else { continue };
        ran += 1;
        let out = String::from_utf8(out.stdout).unwrap();
        let s = read_sample(&out, "com.adnan.lumisky").unwrap();
        assert!(s.complete, "{shell}: {out}");
        assert_eq!((s.pid, s.process.as_ref().unwrap().id), (me, me), "{shell}");
        assert!(
            s.threads.unwrap() >= 1 && s.tasks.iter().any(|t| t.id == me),
            "{out}"
        );
        assert!(s.uptime_s.unwrap() > 0.0);
        assert_eq!(s.memory.unwrap().pss_total_kib, Some(311_291));
        assert_eq!(s.gfxinfo.unwrap().summary.unwrap().frames, 218);
    }
    assert!(ran >= 1);
}

proptest::proptest! {
    /// No output makes a reader panic: each gives a value or a typed error.
    #[test]
    fn readers_never_panic(text in "(?s).{0,400}", pick in 0usize..6) {
        use crate::backend::android::perf::{cpuinfo, gfxinfo, launch, meminfo, procstat};
        let pkg = "com.x.y";
        match pick {
            0 => drop(read_sample(&text, pkg)),
            1 => drop(gfxinfo::parse_gfxinfo(&text, pkg).map(|g| g.frame_stats(16.67))),
            2 => drop(meminfo::parse_meminfo(&text, pkg)),
            3 => drop(launch::parse_am_start(&text)),
            4 => drop(procstat::parse_task_stats(&text)),
            _ => drop((cpuinfo::cpuinfo_line(&text, pkg), cpuinfo::parse_top_line(&text))),
        }
    }

    /// Real outputs cut anywhere, alone and inside a sample, read without panic.
    #[test]
    fn cut_fixtures_never_panic(at in 0.0f64..1.0, which in 0usize..4) {
        use crate::backend::android::perf::{gfxinfo, meminfo};
        let rel = [
            "android_misc/dumpsys_meminfo_pkg_miui.txt",
            "android_perf/gfxinfo_framestats_profiledata_android6_androidviewclient.txt",
            "android_perf/meminfo_android4.3_droidmonitor.txt",
            "android_perf/gfxinfo_reactnativefeed_android10_skia_profile_ms_flashlight.txt",
        ][which];
        let text = fixture(rel);
        let mut cut = (text.len() as f64 * at) as usize;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let part = &text[..cut];
        drop(gfxinfo::parse_gfxinfo(part, "com.x.y").map(|g| g.frame_stats(16.67)));
        drop(meminfo::parse_meminfo(part, "com.x.y"));
        let spliced = format!("{}\n{part}\n{}", Section::Pid.marker(), Section::Gfxinfo.marker());
        drop(read_sample(&spliced, "com.x.y"));
    }
}
