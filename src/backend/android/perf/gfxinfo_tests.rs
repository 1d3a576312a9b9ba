//! `dumpsys gfxinfo` of real devices, Android 4.3 to 12+.

use super::*;
use crate::backend::android::perf::fixture;
use crate::error::ErrorCode;

fn read(rel: &str, package: &str) -> Gfxinfo {
    parse_gfxinfo(&fixture(rel), package).unwrap()
}

fn missing(s: &FrameStats) -> Vec<&str> {
    s.missing.iter().map(String::as_str).collect()
}

#[test]
fn android9_summary() {
    let g = read(
        "android_perf/gfxinfo_chrome_android9_skia_droidmonitor.txt",
        "com.android.chrome",
    );
    assert_eq!(
        (g.pid, g.process.as_deref()),
        (Some(2720), Some("com.android.chrome"))
    );
    let s = g.frame_stats(BUDGET_60HZ_MS).unwrap();
    assert_eq!(s.source, FrameSource::Summary);
    assert_eq!(
        (s.frames, s.janky_frames, s.janky_percent),
        (43, Some(7), Some(16.28))
    );
    assert_eq!(
        (s.p50_ms, s.p90_ms, s.p95_ms, s.p99_ms),
        (Some(5.0), Some(69.0), Some(150.0), Some(200.0))
    );
    assert_eq!((s.missed_vsync, s.high_input_latency), (Some(5), Some(14)));
    assert_eq!(
        (
            s.slow_ui_thread,
            s.slow_bitmap_uploads,
            s.slow_draw,
            s.deadline_missed
        ),
        (Some(5), Some(0), Some(1), Some(5))
    );
    assert!(s.missing.is_empty(), "{:?}", s.missing);
    assert_eq!(g.display_lists_kb, Some(51.84));
    assert!(g.frames.is_empty() && g.profile_ms.is_empty());
}

/// After a reset (or before a first frame) Android prints its last bucket, 4950 ms, at every
/// percentile: those are no frame times.
#[test]
fn no_frames_have_no_percentiles() {
    let text = "** Graphics info for pid 4301 [com.x.y] **\n\nStats since: 25000000000ns\n\
                Total frames rendered: 0\nJanky frames: 0 (0.00%)\n\
                Janky frames (legacy): 0 (0.00%)\n50th percentile: 4950ms\n\
                90th percentile: 4950ms\n95th percentile: 4950ms\n99th percentile: 4950ms\n\
                Number Missed Vsync: 0\n";
    let s = parse_gfxinfo(text, "com.x.y").unwrap().summary.unwrap();
    assert_eq!((s.frames, s.janky_frames), (0, Some(0)));
    assert_eq!((s.p50_ms, s.p99_ms), (None, None));
    assert!(missing(&s).contains(&"p50_ms"), "{:?}", s.missing);
}

#[test]
fn android12_janky_is_not_the_legacy_count() {
    let g = read(
        "android_perf/gfxinfo_instagram_android12plus_legacy_gpu_toster.txt",
        "com.instagram.android",
    );
    let s = g.summary.unwrap();
    // `Janky frames (legacy): 13 (25.49%)` and the gpu percentiles are other lines.
    assert_eq!(
        (s.frames, s.janky_frames, s.janky_percent),
        (51, Some(9), Some(17.65))
    );
    assert_eq!((s.p50_ms, s.p99_ms), (Some(7.0), Some(300.0)));
    assert_eq!(
        (s.high_input_latency, s.deadline_missed),
        (Some(83), Some(9))
    );
    // `Total RenderNode     : 595,86 kB (used) / 1204,11 kB (capacity)`: a decimal comma.
    assert_eq!(g.display_lists_kb, Some(595.86));
}

#[test]
fn miui_summary() {
    let g = read("android_misc/dumpsys_gfxinfo_miui.txt", "com.adnan.lumisky");
    assert_eq!(g.pid, Some(31024));
    let s = g.summary.unwrap();
    assert_eq!(
        (s.frames, s.janky_frames, s.janky_percent),
        (218, Some(142), Some(65.14))
    );
    assert_eq!(
        (s.p50_ms, s.p90_ms, s.p95_ms, s.p99_ms),
        (Some(42.0), Some(85.0), Some(113.0), Some(250.0))
    );
    assert_eq!((s.slow_ui_thread, s.slow_draw), (Some(138), Some(137)));
    assert_eq!(g.display_lists_kb, Some(23.8));
}

#[test]
fn android7_summary_has_no_deadline_line() {
    let g = read(
        "android_perf/gfxinfo_settings_android7_histogram_droidmonitor.txt",
        "com.android.settings",
    );
    let s = g.frame_stats(BUDGET_60HZ_MS).unwrap();
    assert_eq!(
        (s.frames, s.janky_frames, s.janky_percent),
        (24, Some(14), Some(58.33))
    );
    assert_eq!((s.p50_ms, s.p95_ms), (Some(19.0), Some(150.0)));
    assert_eq!((s.slow_bitmap_uploads, s.slow_draw), (Some(1), Some(12)));
    assert_eq!(missing(&s), ["deadline_missed"]);
}

#[test]
fn android6_summary_without_a_median() {
    let g = read(
        "android_perf/gfxinfo_chrome_api23_janky_90th_droidmonitor.txt",
        "com.android.chrome",
    );
    let s = g.frame_stats(BUDGET_60HZ_MS).unwrap();
    assert_eq!(
        (s.frames, s.janky_frames, s.janky_percent),
        (3, Some(2), Some(66.67))
    );
    assert_eq!(
        (s.p50_ms, s.p90_ms, s.p99_ms),
        (None, Some(101.0), Some(101.0))
    );
    assert_eq!(missing(&s), ["p50_ms", "deadline_missed"]);
    assert_eq!(s.slow_ui_thread, Some(2));
}

#[test]
fn android10_summary_wins_over_its_profile_rows() {
    let g = read(
        "android_perf/gfxinfo_reactnativefeed_android10_skia_profile_ms_flashlight.txt",
        "com.reactnativefeed",
    );
    let s = g.frame_stats(BUDGET_60HZ_MS).unwrap();
    assert_eq!(s.source, FrameSource::Summary);
    assert_eq!(
        (s.frames, s.janky_frames, s.janky_percent),
        (35360, Some(23595), Some(66.73))
    );
    assert_eq!((s.p50_ms, s.p90_ms), (Some(28.0), Some(48.0)));
    assert_eq!(
        (s.slow_bitmap_uploads, s.deadline_missed),
        (Some(3), Some(12149))
    );
    // The 120 `Draw Prepare Process Execute` rows, each summed into one frame time.
    assert_eq!(g.profile_ms.len(), 120);
    assert!((g.profile_ms[0] - 44.5).abs() < 1e-9, "{}", g.profile_ms[0]);
    assert_eq!(g.display_lists_kb, Some(120.86));
    // Without the summary, the rows give the stats (checked independently with awk).
    let rows = Gfxinfo { summary: None, ..g }
        .frame_stats(BUDGET_60HZ_MS)
        .unwrap();
    assert_eq!(rows.source, FrameSource::ProfileData);
    assert_eq!((rows.frames, rows.janky_frames), (120, Some(85)));
    assert_eq!(
        (rows.p50_ms, rows.p90_ms, rows.p95_ms, rows.p99_ms),
        (Some(27.29), Some(48.81), Some(51.75), Some(58.21))
    );
}

#[test]
fn android5_has_no_frame_figures_and_says_so() {
    let g = read(
        "android_perf/gfxinfo_chrome_api21_renderNode_ops_droidmonitor.txt",
        "com.android.chrome",
    );
    assert_eq!(g.pid, Some(26834));
    assert_eq!(g.summary, None);
    assert_eq!(g.frame_stats(BUDGET_60HZ_MS), None);
    // `Total DisplayList:  51,03 kB`: a decimal comma.
    assert_eq!(g.display_lists_kb, Some(51.03));
}

#[test]
fn android43_gives_a_frame_count_only() {
    let g = read(
        "android_perf/gfxinfo_chrome_api18_displaylist_ops_droidmonitor.txt",
        "com.android.chrome",
    );
    assert_eq!(g.pid, Some(29541));
    let s = g.frame_stats(BUDGET_60HZ_MS).unwrap();
    assert_eq!((s.source, s.frames), (FrameSource::FrameCount, 191));
    assert_eq!((s.janky_frames, s.p50_ms, s.p99_ms), (None, None, None));
    assert_eq!(s.missing.len(), 12);
    assert_eq!(g.display_lists_kb, Some(1.36));
}

#[test]
fn framestats_blocks_skip_flagged_rows() {
    let g = read(
        "android_perf/gfxinfo_framestats_profiledata_android6_androidviewclient.txt",
        "com.example",
    );
    assert_eq!((g.frames.len(), g.flagged_frames), (2, 1));
    assert_eq!(g.frames[0].intended_vsync_ns, 1_538_750_837_982);
    assert_eq!(g.frames[0].frame_completed_ns, 1_539_087_148_465);
    let s = g.frame_stats(BUDGET_60HZ_MS).unwrap();
    assert_eq!(s.source, FrameSource::Framestats);
    // 336.310483 ms and 56.117129 ms; the flagged 265.9 ms frame is left out.
    assert_eq!(
        (s.frames, s.janky_frames, s.janky_percent),
        (2, Some(2), Some(100.0))
    );
    assert_eq!((s.p50_ms, s.p90_ms), (Some(56.12), Some(336.31)));
    assert!(missing(&s).contains(&"slow_ui_thread"));
}

#[test]
fn no_process_is_not_running() {
    let text = fixture("android_misc/dumpsys_gfxinfo_no_process_error.txt");
    let e = parse_gfxinfo(&text, "com.funnyenglish.app").unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.contains("com.funnyenglish.app"));
}

#[test]
fn other_output_is_not_recognised() {
    for bad in ["", "garbage\n", "Flags,IntendedVsync\n1,2"] {
        let e = parse_gfxinfo(bad, "com.x.y").unwrap_err();
        assert_eq!(e.code, ErrorCode::CommandFailed, "{bad:?}");
    }
    // A cut-off output reads as far as it goes.
    let full = fixture("android_perf/gfxinfo_chrome_android9_skia_droidmonitor.txt");
    let cut = &full[..full.find("90th percentile").unwrap()];
    let s = parse_gfxinfo(cut, "com.android.chrome")
        .unwrap()
        .summary
        .unwrap();
    assert_eq!((s.frames, s.p50_ms, s.p90_ms), (43, Some(5.0), None));
}
