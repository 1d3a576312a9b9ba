//! `dumpsys meminfo` of real devices: Android 4.3, 4.4, 11 and MIUI (Android 12+).

use super::*;
use crate::backend::android::perf::fixture;
use crate::error::ErrorCode;

fn read(rel: &str) -> Meminfo {
    parse_meminfo(&fixture(rel), "com.sample.package").unwrap()
}

#[test]
fn app_summary_of_miui() {
    let m = read("android_misc/dumpsys_meminfo_pkg_miui.txt");
    assert_eq!(
        (m.pid, m.process.as_deref()),
        (Some(31024), Some("com.adnan.lumisky"))
    );
    let r = &m.memory;
    assert_eq!(r.source, MemorySource::AppSummary);
    assert_eq!(r.pss_total_kib, Some(311_291));
    assert_eq!(
        (r.java_heap_kib, r.native_heap_kib),
        (Some(19_724), Some(78_696))
    );
    assert_eq!(
        (r.code_kib, r.stack_kib, r.graphics_kib),
        (Some(70_780), Some(1_660), Some(117_928))
    );
    // The table agrees where the two count the same thing: TOTAL, and graphics as
    // Gfx dev 26360 + EGL mtrack 90800 + GL mtrack 768.
    let block = &fixture("android_misc/dumpsys_meminfo_pkg_miui.txt");
    let t = table(block);
    assert_eq!(
        (t.pss_total_kib, t.graphics_kib),
        (Some(311_291), Some(117_928))
    );
    assert_eq!(
        (t.native_heap_kib, t.java_heap_kib),
        (Some(78_728), Some(11_850))
    );
}

#[test]
fn android43_shared_and_private_dirty_columns() {
    let m = read("android_perf/meminfo_android4.3_droidmonitor.txt");
    assert_eq!(m.pid, Some(29607));
    let r = &m.memory;
    assert_eq!(r.source, MemorySource::Table);
    // `TOTAL 28929 7308 25960 …`: the Pss column, not Shared Dirty.
    assert_eq!(r.pss_total_kib, Some(28_929));
    assert_eq!(
        (r.native_heap_kib, r.java_heap_kib),
        (Some(24), Some(11_976))
    );
    assert_eq!(
        (r.graphics_kib, r.code_kib, r.stack_kib),
        (None, None, None)
    );
}

#[test]
fn android44_pss_total_column() {
    let m = read("android_perf/meminfo_android4.4_droidmonitor.txt");
    assert_eq!(m.pid, Some(30125));
    let r = &m.memory;
    assert_eq!(r.source, MemorySource::Table);
    assert_eq!(r.pss_total_kib, Some(44_563));
    // `Native Heap 0 0 0 0 8948 …`: a PSS of zero as printed, not the heap size.
    assert_eq!(
        (r.native_heap_kib, r.java_heap_kib),
        (Some(0), Some(23_195))
    );
}

#[test]
fn android11_trimmed_table_has_no_total() {
    let m = read("android_perf/meminfo_systemui_android11_header_trimmed_perfetto.txt");
    assert_eq!(
        (m.pid, m.process.as_deref()),
        (Some(1974), Some("com.android.systemui"))
    );
    let r = &m.memory;
    assert_eq!(r.pss_total_kib, None);
    assert_eq!(
        (r.native_heap_kib, r.java_heap_kib),
        (Some(16_840), Some(9_110))
    );
}

#[test]
fn column_names_pair_the_two_header_lines() {
    let names = column_names(
        "                   Pss  Private  Private  SwapPss      Rss     Heap     Heap     Heap",
        "                 Total    Dirty    Clean    Dirty    Total     Size    Alloc     Free",
    );
    assert_eq!(names[0], "Pss Total");
    assert_eq!(names[3], "SwapPss Dirty");
    assert_eq!(names[4], "Rss Total");
    let old = column_names(
        "                         Shared  Private     Heap     Heap     Heap",
        "                   Pss    Dirty    Dirty     Size    Alloc     Free",
    );
    assert_eq!(old[..3], ["Pss", "Shared Dirty", "Private Dirty"]);
}

#[test]
fn bad_outputs_are_typed() {
    let e = parse_meminfo("No process found for: com.x.y\n", "com.x.y").unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    for bad in ["", "garbage", "Applications Memory Usage (kB):\nUptime: 1"] {
        assert_eq!(
            parse_meminfo(bad, "com.x.y").unwrap_err().code,
            ErrorCode::CommandFailed
        );
    }
    // Cut off after the header: a reading of nothing, not zeros.
    let m = parse_meminfo("** MEMINFO in pid 12 [com.x.y] **\n  Pss", "com.x.y").unwrap();
    assert_eq!(
        (m.pid, m.memory.pss_total_kib, m.memory.java_heap_kib),
        (Some(12), None, None)
    );
}
