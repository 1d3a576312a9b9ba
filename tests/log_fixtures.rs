//! The log parsers and the crash detection on every recorded log of `fixtures/`: each crash
//! and ANR in them found with its app, pid and exception; none found where there is none;
//! what is not a log of the format read is said so, not mistaken for entries.

use std::path::PathBuf;

use mobilectl::logs::android::{crash::Detector, ps, tombstone};
use mobilectl::logs::ios::{ndjson, report};
use mobilectl::logs::{
    Crash, CrashKind, CrashSource, DeviceClock, Ingest, IngestStats, LogEntry, LogFormat,
};

fn fixture(rel: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A clock after every capture (2026-12-31 UTC), so each date falls in its year.
fn clock() -> DeviceClock {
    DeviceClock::utc(1_798_675_200_000)
}

/// A capture read the way the live stream is: in chunks, numbered, through the detector.
fn read_logcat(rel: &str) -> (Vec<LogEntry>, Vec<Crash>, IngestStats) {
    let bytes = fixture(rel);
    let mut ingest = Ingest::new(LogFormat::AndroidLogcat, clock());
    let mut detector = Detector::default();
    let (mut entries, mut crashes) = (Vec::new(), Vec::new());
    let mut chunks: Vec<&[u8]> = bytes.chunks(4093).collect();
    chunks.push(&[]);
    for (i, chunk) in chunks.iter().enumerate() {
        let mut got = ingest.feed(chunk);
        if i + 1 == chunks.len() {
            got.extend(ingest.finish());
        }
        for mut e in got {
            e.seq = entries.len() as u64 + 1;
            detector.push(&e, &mut crashes);
            entries.push(e);
        }
    }
    detector.flush(&mut crashes);
    (entries, crashes, ingest.stats)
}

#[test]
fn crash_buffer_capture_holds_one_java_crash() {
    let (entries, crashes, stats) =
        read_logcat("android_logs/android_logcat_b_crash_fatal_exception_unsatisfiedlinkerror.txt");
    assert_eq!((entries.len(), stats.unreadable), (18, 0), "{stats:?}");
    assert_eq!(crashes.len(), 1, "{crashes:?}");
    let c = &crashes[0];
    assert_eq!(c.kind, CrashKind::JavaCrash);
    assert_eq!(
        c.app.as_deref(),
        Some("io.github.clash_verge_rev.clash_verge_rev.debug")
    );
    assert_eq!(c.pid, Some(10682));
    assert_eq!(
        c.exception.as_deref(),
        Some("java.lang.UnsatisfiedLinkError")
    );
    assert!(c
        .message
        .as_deref()
        .unwrap()
        .starts_with("No implementation found for"));
    assert_eq!(c.frames.len(), 8);
    assert!(
        c.frames[0].ends_with("nativeGetVersion(Native Method)"),
        "{:?}",
        c.frames
    );
    assert_eq!(c.first_seq, Some(1));
    let s = c.summary();
    assert!(
        s.contains("crashed with java.lang.UnsatisfiedLinkError"),
        "{s}"
    );
    assert!(
        s.contains("first app frame") || s.contains("Top frame"),
        "{s}"
    );
}

#[test]
fn samsung_capture_with_bom_holds_one_anr_and_no_crash() {
    let (entries, crashes, stats) =
        read_logcat("android_logs/android_logcat_threadtime_anr_in_samsung_utf8bom.txt");
    assert!(entries.len() > 5000, "{stats:?}");
    assert_eq!(stats.unreadable, 0, "{stats:?}");
    assert_eq!(
        entries[0].tag, "BtGatt.GattService",
        "the BOM line is a separator"
    );
    // The WindowManager notice, crash_dump's ANR traces and libc's failed helper are no
    // crashes: one ANR.
    assert_eq!(
        crashes.len(),
        1,
        "{:#?}",
        crashes.iter().map(Crash::summary).collect::<Vec<_>>()
    );
    let a = &crashes[0];
    assert_eq!(a.kind, CrashKind::Anr);
    assert_eq!(
        (a.app.as_deref(), a.pid),
        (Some("com.mojojojoo.sosifyapp"), Some(24598))
    );
    assert!(a
        .message
        .as_deref()
        .unwrap()
        .starts_with("Input dispatching timed out"));
    assert!(a.text.contains("CPU usage from"), "the whole block is kept");
}

#[test]
fn android15_capture_holds_two_java_crashes_with_their_cause() {
    let (_, crashes, stats) =
        read_logcat("android_misc/logcat_threadtime_fatal_exception_android15.txt");
    assert_eq!(stats.unreadable, 0);
    assert_eq!(crashes.len(), 2, "{crashes:?}");
    assert_eq!(
        crashes.iter().map(|c| c.pid).collect::<Vec<_>>(),
        [Some(4314), Some(4398)]
    );
    for c in &crashes {
        assert_eq!(c.app.as_deref(), Some("com.coded.capstone"));
        assert_eq!(c.exception.as_deref(), Some("java.lang.RuntimeException"));
        assert!(
            c.message.as_deref().unwrap().contains("SecurityException"),
            "{c:?}"
        );
        assert!(
            c.frames[0].starts_with("android.app.ActivityThread."),
            "{:?}",
            c.frames
        );
    }
    assert_ne!(crashes[0].id, crashes[1].id);
}

#[test]
fn mediatek_and_android3_captures_hold_no_crash() {
    let (entries, crashes, stats) =
        read_logcat("android_misc/logcat_threadtime_mediatek_android.txt");
    assert!(entries.len() > 100 && stats.unreadable == 0, "{stats:?}");
    assert!(crashes.is_empty(), "{crashes:?}");
    // Android 3.2's default `brief` format, CRLF: entries without a time.
    let (entries, crashes, stats) = read_logcat("android_misc/logcat_brief_android3.2_tf201.txt");
    assert_eq!(stats.unreadable, 0, "{stats:?}");
    assert!(entries.len() > 1000);
    assert!(entries
        .iter()
        .all(|e| e.time_ms.is_none() && e.pid.is_some()));
    assert!(entries.iter().all(|e| !e.message.ends_with('\r')));
    assert!(crashes.is_empty(), "{crashes:?}");
}

#[test]
fn unity_export_holds_its_fatal_exception() {
    let (entries, crashes, stats) =
        read_logcat("android_misc/logcat_unity_export_fatal_unitymain.txt");
    assert!(entries.len() > 100 && stats.unreadable == 0, "{stats:?}");
    assert_eq!(crashes.len(), 1, "{crashes:?}");
    let c = &crashes[0];
    assert_eq!(c.kind, CrashKind::JavaCrash);
    assert_eq!(
        (c.app.as_deref(), c.pid),
        (
            Some("com.UnityTechnologies.com.unity.template.urpblank"),
            Some(29876)
        )
    );
    assert!(c.frames[0].contains("UnsafeAppendBuffer"), "{:?}", c.frames);
}

#[test]
fn anr_traces_and_tombstone_files_are_not_logcat() {
    // `/data/anr/traces.txt` is thread dumps, not log lines: nothing is read from it.
    let (entries, crashes, stats) = read_logcat("android_misc/anr_traces_samsung_j3_android7.txt");
    assert!(entries.is_empty() && crashes.is_empty(), "{stats:?}");
    assert!(stats.unreadable > 100);
    // A tombstone file is read by the tombstone parser.
    let text = String::from_utf8(fixture(
        "android_logs/android_tombstone_pixel7a_android16_rust_panic_sigabrt.txt",
    ))
    .unwrap();
    assert!(tombstone::is_start(text.lines().next().unwrap()));
    let c = tombstone::parse(&text, CrashSource::Tombstone);
    assert_eq!(c.kind, CrashKind::NativeCrash);
    assert_eq!(
        (c.pid, c.app.as_deref()),
        (Some(11126), Some("com.timspizza.swiftpan"))
    );
    assert_eq!(c.exception.as_deref(), Some("signal 6 (SIGABRT)"));
    assert_eq!(c.message.as_deref(), Some("fault addr --------"));
    assert_eq!(c.frames.len(), 8);
    assert_eq!(c.frames[0], "#00 abort+156 (libc.so)");
    assert!(c.frames[1].contains("abort_internal"), "{:?}", c.frames);
    // 2025-10-21 09:28:36.352 -06:00
    assert_eq!(c.time_ms, Some(1_761_060_516_352));
    assert!(c
        .summary()
        .starts_with("com.timspizza.swiftpan (pid 11126) died of signal 6 (SIGABRT)"));
}

#[test]
fn ps_listing_names_processes() {
    let procs =
        ps::parse(&String::from_utf8(fixture("android_misc/ps_A_android13_mtk.txt")).unwrap());
    assert!(procs.len() > 100, "{}", procs.len());
    assert_eq!(procs[0], (1, "init".to_string()));
    assert!(procs.iter().all(|(_, n)| !n.starts_with('[')));
    assert!(procs.iter().any(|(_, n)| n == "system_server"));
}

#[test]
fn ios_ndjson_stream_and_other_text_logs() {
    let bytes = fixture("ios_logs/ios_sim_log_stream_ndjson_coreauthd_ios27.ndjson");
    let mut ingest = Ingest::new(LogFormat::IosNdjson, clock());
    let mut entries = ingest.feed(&bytes);
    entries.extend(ingest.finish());
    assert_eq!(entries.len(), 2);
    let e = &entries[0];
    assert_eq!(
        (e.pid, e.process.as_deref()),
        (Some(40513), Some("coreauthd"))
    );
    assert_eq!(e.tag, "com.apple.LocalAuthentication:Notifications");
    assert_eq!(
        e.message,
        "Will post com.apple.LocalAuthentication.ui.presented"
    );
    assert_eq!(e.time_ms, Some(1_791_225_485_031));
    // Syslog, the default style and a device syslog are not ndjson: nothing is mistaken
    // for an event.
    for rel in [
        "ios_logs/simulator_system_asl.log",
        "ios_logs/sim_log_stream_default_style_predicate.txt",
        "ios_logs/idevicesyslog_ipad_device.txt",
    ] {
        let text = fixture(rel);
        let events = text
            .split(|b| *b == b'\n')
            .filter(|l| matches!(ndjson::parse_line(l), ndjson::Line::Entry(_)))
            .count();
        assert_eq!(events, 0, "{rel}");
    }
}

#[test]
fn ios_crash_reports() {
    let read = |rel: &str| report::parse(&String::from_utf8(fixture(rel)).unwrap()).unwrap();
    let t = read("ios_logs/sim_app_tablesearch.crash");
    assert_eq!(t.kind, CrashKind::IosCrash);
    assert_eq!(
        (t.process.as_deref(), t.pid, t.app.as_deref()),
        (Some("TableSearch"), Some(37083), Some("TableSearch"))
    );
    assert_eq!(t.exception.as_deref(), Some("NSInvalidArgumentException"));
    assert!(t
        .message
        .as_deref()
        .unwrap()
        .contains("unrecognized selector"));
    assert_eq!(
        t.udid.as_deref(),
        Some("2FF8DD07-20B7-4D04-97F0-092DF61CD3C3")
    );
    assert_eq!(t.frames[0], "__exceptionPreprocess + 180 (CoreFoundation)");
    assert_eq!(t.time_ms, Some(1_458_030_401_996));

    let w = read("ios_logs/sim_webdriveragent.crash");
    assert_eq!(w.process.as_deref(), Some("WebDriverAgent"));
    assert_eq!(w.udid, None, "no UDID in it");
    assert!(report::from_simulator(&w.text));

    let a = read("ios_logs/sim_assetsd_system_daemon.crash");
    assert_eq!(
        a.exception.as_deref(),
        Some("NSInternalInconsistencyException")
    );
    assert_eq!(a.message.as_deref(), Some("notify_get_state() failed."));

    let x = read("ios_logs/xctest_concatenated_json.ips");
    assert_eq!(x.source, CrashSource::Ips);
    assert_eq!(
        (x.process.as_deref(), x.pid),
        (Some("xctest3"), Some(82406))
    );
    assert_eq!(x.exception.as_deref(), Some("EXC_BREAKPOINT (SIGTRAP)"));
    assert_eq!(
        x.udid.as_deref(),
        Some("D95B17F2-6822-4CD1-B7AA-E73DB34FFD4E")
    );
    assert_eq!(x.frames[0], "-[TpxUnitTests testExample1] (TpxUnitTests)");
    let ids: std::collections::HashSet<&str> =
        [&t, &w, &a, &x].iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), 4);
}
