//! The reader against real build logs (fixtures/build_logs, sources in fixtures/MANIFEST.tsv).
//! The expected numbers were counted in the logs with grep, not taken from the reader.

use crate::reader::{Event, Reader};
use crate::wire::{DiagnosticTool, FailureKind, PhaseName, Severity, Toolchain};

/// A log of fixtures/build_logs, whole.
pub(crate) fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../../fixtures/build_logs/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn read(toolchain: Toolchain, name: &str) -> (Reader, Vec<Event>) {
    let mut reader = Reader::new(toolchain);
    let mut events = Vec::new();
    for line in fixture(name).split('\n') {
        events.extend(reader.line(line));
    }
    events.extend(reader.finish());
    (reader, events)
}

#[test]
fn gradle_97_kotlin_errors() {
    let (r, events) = read(
        Toolchain::Gradle,
        "gradle_assembleDebug_kotlin_errors_97_plaid.txt",
    );
    // grep -c '^e: ' → 97, all distinct; 30 distinct "> Task" paths (:app:compileDebugKotlin twice).
    assert_eq!(r.errors(), 97);
    assert_eq!(r.warnings(), 0);
    assert_eq!(r.steps_done(), 30);
    let first = &r.diagnostics()[0];
    assert_eq!(
        first.file.as_deref(),
        Some("/home/runner/work/plaid-android/plaid-android/app/src/main/java/com/yourcompany/myagenticbrowser/agent/AiAgent.kt")
    );
    assert_eq!((first.line, first.column), (Some(98), Some(73)));
    assert_eq!(
        first.message,
        "Unresolved reference: performNaturalLanguageSearch"
    );
    assert_eq!(
        (first.severity, first.tool),
        (Severity::Error, DiagnosticTool::Kotlinc)
    );
    let f = r.failure().unwrap();
    assert_eq!(f.kind, FailureKind::Compile);
    assert!(
        f.message
            .ends_with("AiAgent.kt:98:73: Unresolved reference: performNaturalLanguageSearch"),
        "{}",
        f.message
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::Step { .. }))
            .count(),
        30
    );
    assert!(events.contains(&Event::Step { done: 30 }));
}

#[test]
fn gradle_1_kotlin_error() {
    let (r, _) = read(
        Toolchain::Gradle,
        "gradle_assembleDebug_kotlin_error_1_plaid.txt",
    );
    assert_eq!(r.errors(), 1);
    assert_eq!(r.steps_done(), 37);
    let d = &r.diagnostics()[0];
    assert!(d
        .file
        .as_deref()
        .unwrap()
        .ends_with("/ai/puter/PuterSearchOrchestrator.kt"));
    assert_eq!(
        (d.line, d.column, d.message.as_str()),
        (Some(253), Some(1), "Expecting a top level declaration")
    );
    assert_eq!(r.failure().unwrap().kind, FailureKind::Compile);
}

#[test]
fn gradle_actions_job_log_with_bom_and_timestamps() {
    let (r, _) = read(
        Toolchain::Gradle,
        "gradle_github_actions_job_log_kotlin_errors_snapify.txt",
    );
    // Two `e: file://…SettingsActivity.kt` lines; 47 distinct tasks once the timestamps are off.
    assert_eq!(r.errors(), 2);
    assert_eq!(r.warnings(), 0);
    assert_eq!(r.steps_done(), 47);
    let places: Vec<_> = r.diagnostics().iter().map(|d| (d.line, d.column)).collect();
    assert_eq!(places, vec![(Some(11), Some(19)), (Some(73), Some(48))]);
    assert_eq!(
        r.diagnostics()[0].file.as_deref(),
        Some("/home/runner/work/Ko/Ko/app/src/main/kotlin/com/ko/app/ui/SettingsActivity.kt")
    );
    assert_eq!(
        r.diagnostics()[0].message,
        "Unresolved reference 'BuildConfig'."
    );
    let f = r.failure().unwrap();
    assert_eq!(f.kind, FailureKind::Compile);
    assert!(f.hint.contains("SettingsActivity.kt:11:19"));
}

#[test]
fn gradle_success_with_repeated_warnings() {
    let (r, _) = read(
        Toolchain::Gradle,
        "gradle_spotless_detekt_test_success_kotlin_warnings_snapify.txt",
    );
    // 16 `w: ` lines, each printed twice: 8 distinct; 161 distinct tasks; BUILD SUCCESSFUL.
    assert_eq!(r.errors(), 0);
    assert_eq!(r.warnings(), 8);
    assert_eq!(r.steps_done(), 161);
    assert!(!r.failed());
    assert_eq!(r.failure(), None);
    assert!(r
        .diagnostics()
        .iter()
        .all(|d| d.tool == DiagnosticTool::Kotlinc && d.severity == Severity::Warning));
}

#[test]
fn gradle_javac_errors_take_their_columns() {
    let (r, _) = read(
        Toolchain::Gradle,
        "gradle_javac_errors_windows_tasks_issue710.txt",
    );
    assert_eq!(r.errors(), 2);
    assert_eq!(r.steps_done(), 1);
    let d = &r.diagnostics()[0];
    assert_eq!(
        d.file.as_deref(),
        Some(r"D:\dev_weurk\sand-box\tasks\app\src\amazon\java\org\tasks\analytics\Tracker.java")
    );
    // The caret sits under the '.' before google_analytics: 40 spaces, column 41.
    assert_eq!(
        (d.line, d.column, d.tool),
        (Some(32), Some(41), DiagnosticTool::Javac)
    );
    assert_eq!(d.message, "cannot find symbol");
    let d = &r.diagnostics()[1];
    assert!(d
        .file
        .as_deref()
        .unwrap()
        .ends_with(r"\LimitOffsetDataSource.java"));
    assert_eq!((d.line, d.column), (Some(35), Some(14)));
    assert!(r.failed());
    assert_eq!(r.failure().unwrap().kind, FailureKind::Compile);
}

#[test]
fn gradle_sdk_location_not_found() {
    let (r, _) = read(
        Toolchain::Gradle,
        "gradle_sdk_location_not_found_sigblock_pr1.txt",
    );
    assert_eq!(r.errors(), 0);
    assert!(r.failed());
    let f = r.failure().unwrap();
    assert_eq!(f.kind, FailureKind::SdkMissing);
    assert!(
        f.message.starts_with("SDK location not found."),
        "{}",
        f.message
    );
    assert!(
        f.hint.contains("ANDROID_HOME") && f.hint.contains("local.properties"),
        "{}",
        f.hint
    );
}

#[test]
fn gradle_incremental_assemble_all_up_to_date() {
    let (r, events) = read(
        Toolchain::Gradle,
        "gradle_assembleDebug_incremental_all_up_to_date_android_studio_rapilab.txt",
    );
    // grep -c '^> Task ' → 32, all distinct (27 UP-TO-DATE, 5 NO-SOURCE; "21 actionable tasks:
    // 21 up-to-date"): each is a step though none ran. No error or warning line; BUILD SUCCESSFUL.
    assert_eq!(r.steps_done(), 32);
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::Step { .. }))
            .count(),
        32
    );
    assert_eq!((r.errors(), r.warnings()), (0, 0));
    assert!(r.diagnostics().is_empty());
    assert!(!r.failed());
    assert_eq!(r.failure(), None);
    // compileDebugAidl, compileDebugRenderscript, compileDebugKotlin, javaPreCompileDebug,
    // compileDebugJavaWithJavac, compileDebugSources, compileDebugShaders.
    let compile = events
        .iter()
        .filter(|e| matches!(e, Event::Phase(p) if p.name == PhaseName::Compile))
        .count();
    assert_eq!(compile, 7);
    assert!(events.contains(&Event::Phase(crate::wire::Phase {
        name: PhaseName::Compile,
        detail: ":app:compileDebugKotlin".into()
    })));
    assert!(events.contains(&Event::Phase(crate::wire::Phase {
        name: PhaseName::Package,
        detail: ":app:assembleDebug".into()
    })));
}

#[test]
fn xcode_incremental_build_with_nothing_to_do() {
    let (r, events) = read(
        Toolchain::Xcode,
        "xcodebuild_incremental_nothing_to_do_watchos_xcode7_xcpretty_issue166.txt",
    );
    // "=== BUILD TARGET …", "Check dependencies", ** BUILD SUCCEEDED **: no step ran.
    assert_eq!(r.steps_done(), 0);
    assert!(!events.iter().any(|e| matches!(e, Event::Step { .. })));
    assert_eq!((r.errors(), r.warnings()), (0, 0));
    assert!(!r.failed());
    assert_eq!(r.failure(), None);
}

#[test]
fn xcode_sdk_cannot_be_located() {
    let (r, _) = read(
        Toolchain::Xcode,
        "xcodebuild_sdk_cannot_be_located_iphoneos9.3_travis_issue6628.txt",
    );
    // One `xcodebuild: error:` line; no step; no BUILD FAILED line (Travis says "exited with 64").
    assert_eq!((r.errors(), r.warnings()), (1, 0));
    assert_eq!(r.steps_done(), 0);
    assert_eq!(r.diagnostics()[0].tool, DiagnosticTool::Xcodebuild);
    let f = r.failure().unwrap();
    assert_eq!(f.kind, FailureKind::SdkMissing);
    assert_eq!(f.message, "SDK \"iphoneos9.3\" cannot be located.");
    assert!(
        f.hint.contains("\"iphoneos9.3\"") && f.hint.contains("xcodebuild -showsdks"),
        "{}",
        f.hint
    );
}

#[test]
fn xcode_destination_not_found() {
    let (r, _) = read(
        Toolchain::Xcode,
        "xcodebuild_destination_not_found_simulator_carthage_issue2860.txt",
    );
    // One `xcodebuild: error:` line; the indented lines under it are its specifier and the
    // scheme's ineligible destinations, not errors; no step.
    assert_eq!((r.errors(), r.warnings()), (1, 0));
    assert_eq!(r.steps_done(), 0);
    let f = r.failure().unwrap();
    assert_eq!(f.kind, FailureKind::SdkMissing);
    assert_eq!(
        f.message,
        "Unable to find a destination matching the provided destination specifier: { platform:iOS Simulator, OS:latest, name:iPhone Xs }"
    );
    assert!(f.hint.contains("-showdestinations"), "{}", f.hint);
    assert!(!f.hint.contains("is not installed"), "{}", f.hint);
}

#[test]
fn xcode_destination_not_found_platform_not_installed() {
    let (r, _) = read(
        Toolchain::Xcode,
        "xcodebuild_destination_not_found_ios17.2_not_installed_gamemaker_issue4834.txt",
    );
    // The only ineligible destination says "error:iOS 17.2 is not installed.": that is the cause.
    assert_eq!(r.errors(), 1);
    let f = r.failure().unwrap();
    assert_eq!(f.kind, FailureKind::SdkMissing);
    assert_eq!(
        f.message,
        "Unable to find a destination matching the provided destination specifier: { platform:iOS, id:00008110-000605880240401E }"
    );
    assert!(f.hint.contains("(iOS 17.2 is not installed)"), "{}", f.hint);
    assert!(f.hint.contains("-downloadPlatform iOS"), "{}", f.hint);
}

#[test]
fn xcode_swift_errors_and_repeated_warnings() {
    let (r, events) = read(
        Toolchain::Xcode,
        "xcodebuild_macos_swift_errors_xcode26_warden.txt",
    );
    // 2 distinct `…swift:L:C: error:` lines; 45 distinct placed warnings (47 lines) and 5 distinct
    // `warning: Skipping duplicate build file…`; notes not counted.
    assert_eq!(r.errors(), 2);
    assert_eq!(r.warnings(), 50);
    // Lines starting with one of xcode::STEPS' commands (or "Resolve Package Graph"), the
    // tab-indented "failed" list excluded: 173.
    assert_eq!(r.steps_done(), 173);
    let errors: Vec<_> = r
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert_eq!(
        errors[0].file.as_deref(),
        Some("/Users/karatsidhu/Code/WardenApp/Warden/Utilities/SSEStreamParser.swift")
    );
    assert_eq!((errors[0].line, errors[0].column), (Some(23), Some(66)));
    assert_eq!((errors[1].line, errors[1].column), (Some(65), Some(66)));
    assert_eq!(errors[0].tool, DiagnosticTool::Swiftc);
    let f = r.failure().unwrap();
    assert_eq!(f.kind, FailureKind::Compile);
    assert_eq!(
        f.message,
        "/Users/karatsidhu/Code/WardenApp/Warden/Utilities/SSEStreamParser.swift:23:66: passing non-escaping parameter 'onEvent' to function expecting an '@escaping' closure"
    );
    assert!(events.contains(&Event::Phase(crate::wire::Phase {
        name: PhaseName::Resolve,
        detail: String::new()
    })));
}

#[test]
fn xcode_clean_build_success() {
    let (r, events) = read(
        Toolchain::Xcode,
        "xcodebuild_clean_build_success_macos_xcode15.1_backyardbirds_xcbeautify.txt",
    );
    // No error line; two distinct "warning: … isn't code signed but requires entitlements".
    assert_eq!(r.errors(), 0);
    assert_eq!(r.warnings(), 2);
    assert_eq!(r.steps_done(), 545);
    assert!(!r.failed());
    assert_eq!(r.failure(), None);
    let phases: std::collections::HashSet<PhaseName> = events
        .iter()
        .filter_map(|e| match e {
            Event::Phase(p) => Some(p.name),
            _ => None,
        })
        .collect();
    for p in [
        PhaseName::Resolve,
        PhaseName::Compile,
        PhaseName::Link,
        PhaseName::Resources,
        PhaseName::Package,
    ] {
        assert!(phases.contains(&p), "{p:?}");
    }
    // Built with CODE_SIGNING_REQUIRED=NO: no CodeSign step in the log.
    assert!(!phases.contains(&PhaseName::Sign));
}

#[test]
fn xcode_signing_provisioning_clang_and_ld_snippets() {
    let (r, _) = read(
        Toolchain::Xcode,
        "xcodebuild_error_snippets_codesign_provisioning_clang_ld_xcpretty.txt",
    );
    // 8 signing/provisioning sentences, 3 clang errors (2 error, 1 fatal error), 1 `<unknown>:0:`
    // error, 1 undefined-symbols block, 1 duplicate-symbol block, 1 `clang: error: linker
    // command failed`.
    assert_eq!(r.errors(), 15);
    let signing = r
        .diagnostics()
        .iter()
        .filter(|d| d.tool == DiagnosticTool::Codesign)
        .count();
    assert_eq!(signing, 8);
    let clang: Vec<_> = r
        .diagnostics()
        .iter()
        .filter(|d| d.tool == DiagnosticTool::Clang)
        .collect();
    assert_eq!(clang.len(), 3);
    assert_eq!(
        (clang[0].line, clang[0].column, clang[0].message.as_str()),
        (Some(12), Some(59), "expected identifier")
    );
    let ld: Vec<_> = r
        .diagnostics()
        .iter()
        .filter(|d| d.tool == DiagnosticTool::Ld)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        ld,
        vec![
            "Undefined symbols for architecture x86_64: \"_OBJC_CLASS_$_CABasicAnimation\"",
            "duplicate symbol _OBJC_IVAR_$ClassName._ivarName",
            "linker command failed with exit code 1 (use -v to see invocation)",
        ]
    );
    let f = r.failure().unwrap();
    assert_eq!(f.kind, FailureKind::Signing);
    assert!(f
        .message
        .starts_with("Code Sign error: No code signing identites found"));
}

#[test]
fn xcode_objc_compile_errors() {
    let (r, _) = read(
        Toolchain::Xcode,
        "xcodebuild_objc_clang_errors_ios7_kiwi_xcpretty.txt",
    );
    assert_eq!(r.errors(), 2);
    assert_eq!(r.steps_done(), 1);
    let d = &r.diagnostics()[0];
    assert_eq!(
        d.file.as_deref(),
        Some("/Users/musalj/code/OSS/ObjectiveSugar/Classes/NSNumber+ObjectiveSugar.m")
    );
    assert_eq!(
        (d.line, d.column, d.tool),
        (Some(26), Some(5), DiagnosticTool::Clang)
    );
    assert_eq!(d.message, "use of undeclared identifier 'trololo'");
    assert_eq!(
        (r.diagnostics()[1].line, r.diagnostics()[1].column),
        (Some(47), Some(12))
    );
    assert_eq!(r.failure().unwrap().kind, FailureKind::Compile);
}

#[test]
fn xcode_test_run_with_failed_tests() {
    let (r, events) = read(
        Toolchain::Xcode,
        "xcodebuild_test_simulator_ios7_build_ok_kiwi_failures_xcpretty.txt",
    );
    // Everything up to date but 5 PhaseScriptExecution; 3 Kiwi failures written `file.m:N: error:`.
    assert_eq!(r.steps_done(), 5);
    assert_eq!(r.errors(), 3);
    assert!(r
        .diagnostics()
        .iter()
        .all(|d| d.tool == DiagnosticTool::Other && d.column.is_none()));
    assert_eq!(r.diagnostics()[0].line, Some(111));
    assert_eq!(r.failure().unwrap().kind, FailureKind::Other);
    assert!(events.contains(&Event::Phase(crate::wire::Phase {
        name: PhaseName::Test,
        detail: String::new()
    })));
}

#[test]
fn xcode_missing_scheme() {
    let (r, _) = read(
        Toolchain::Xcode,
        "xcodebuild_archive_missing_scheme_spm_jeffctown.txt",
    );
    // The scheme error, and "unable to resolve product type" printed twice.
    assert_eq!(r.errors(), 2);
    assert_eq!(r.steps_done(), 0);
    assert!(r.failed());
    let f = r.failure().unwrap();
    assert_eq!(f.kind, FailureKind::SchemeMissing);
    assert!(
        f.message
            .contains("does not contain a scheme named \"ToolWithLibrary-Package\""),
        "{}",
        f.message
    );
    assert!(f.hint.contains("xcodebuild -list"));
}

#[test]
fn the_same_log_read_as_either_toolchain_counts_the_same() {
    let a = read(
        Toolchain::Xcode,
        "gradle_assembleDebug_kotlin_errors_97_plaid.txt",
    )
    .0;
    let b = read(
        Toolchain::Gradle,
        "gradle_assembleDebug_kotlin_errors_97_plaid.txt",
    )
    .0;
    assert_eq!((a.errors(), a.steps_done()), (b.errors(), b.steps_done()));
}

#[test]
fn every_build_log_is_in_the_manifest_with_its_size() {
    let root = format!("{}/../../fixtures", env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(format!("{root}/MANIFEST.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = manifest
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|r| r[0] == "build_logs")
        .collect();
    let mut files: Vec<_> = std::fs::read_dir(format!("{root}/build_logs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
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
        assert_eq!(
            row[5].parse::<u64>().unwrap(),
            std::fs::metadata(f).unwrap().len(),
            "{name}: size_bytes"
        );
        // A file's commit, or "-" for text of an issue or pull request (its path says which).
        let commit_ok = row[4].len() == 40
            || (row[4] == "-" && (row[3].starts_with("issues/") || row[3].starts_with("pull/")));
        assert!(commit_ok, "{name}: a full commit");
    }
}
