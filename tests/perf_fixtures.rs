//! The recorded performance outputs (`fixtures/android_perf/`): each one listed in the
//! manifest with its size, and each one (with the android_misc outputs the readers take) read
//! by a test of the readers in `src/backend/android/perf/`.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The android_misc outputs the performance readers are tested on, besides `android_perf/`.
const MISC: [&str; 4] = [
    "android_misc/dumpsys_gfxinfo_miui.txt",
    "android_misc/dumpsys_meminfo_pkg_miui.txt",
    "android_misc/dumpsys_gfxinfo_no_process_error.txt",
    "android_misc/am_start_output.txt",
];

fn perf_fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("fixtures/android_perf"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn every_perf_fixture_is_in_the_manifest_with_its_size() {
    let manifest = std::fs::read_to_string(Path::new(ROOT).join("fixtures/MANIFEST.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = manifest
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|r| r[0] == "android_perf")
        .collect();
    let files = perf_fixtures();
    assert_eq!(rows.len(), files.len(), "one manifest row per file");
    for f in &files {
        let name = f.file_name().unwrap().to_str().unwrap();
        let row = rows
            .iter()
            .find(|r| r[1] == name)
            .unwrap_or_else(|| panic!("{name} has no manifest row"));
        assert_eq!(
            row.len(),
            7,
            "{name}: category, name, repo, path, commit, size, notes"
        );
        let size = std::fs::metadata(f).unwrap().len();
        assert_eq!(row[5].parse::<u64>().unwrap(), size, "{name}: size_bytes");
        assert_eq!(row[4].len(), 40, "{name}: a full commit");
    }
}

#[test]
fn every_perf_fixture_is_read_by_a_reader_test() {
    let dir = Path::new(ROOT).join("src/backend/android/perf");
    let tests: String = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    let mut wanted: Vec<String> = perf_fixtures()
        .iter()
        .map(|f| format!("android_perf/{}", f.file_name().unwrap().to_str().unwrap()))
        .collect();
    wanted.extend(MISC.iter().map(|m| m.to_string()));
    let unread: Vec<&String> = wanted
        .iter()
        .filter(|w| !tests.contains(&format!("\"{w}\"")))
        .collect();
    assert!(unread.is_empty(), "fixtures no test reads: {unread:#?}");
    assert!(wanted.len() >= 19, "{}", wanted.len());
}
