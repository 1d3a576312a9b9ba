//! The shapes of diagnostic lines, whichever tool printed them: the compilers'
//! `path:line:col: error: message` (clang, swiftc, ld's `<unknown>:0:`), javac's
//! `path:line: error: message` and the caret line that gives its column, Kotlin's
//! `e: file:///path:line:col message` (Kotlin ≥ 1.8) and `e: path: (line, col): message`,
//! AAPT2's `path:line: AAPT: error: message`, and the tools' own `xcodebuild: error:`,
//! `clang: error:`, `ld: …`, `error:` / `warning:` lines.

use std::sync::LazyLock;

use regex::Regex;

use crate::clean;
use crate::wire::{Diagnostic, DiagnosticTool, Severity};

/// What a line says as a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// A whole diagnostic.
    Diagnostic(Diagnostic),
    /// javac's first line: its column is on the caret line two lines below.
    Javac(Diagnostic),
    /// A compiler's `note:`, which belongs to the diagnostic before it (dropped).
    Note,
}

static COMPILER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<file>[^\s:][^:]*(?::[\\/][^:]*)?):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<sev>fatal error|error|warning|note): (?P<msg>.*)$")
        .expect("regex")
});
static FILE_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<file>(?:/|[A-Za-z]:[\\/])[^:]*): (?P<sev>error|warning|note): (?P<msg>.*)$")
        .expect("regex")
});
static JAVAC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<file>\S.*?\.java):(?P<line>\d+): (?P<sev>error|warning): (?P<msg>.*)$")
        .expect("regex")
});
static KOTLIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<sev>[ew]): (?:file://)?(?P<file>(?:/|[A-Za-z]:[\\/]).*?\.kts?):(?P<line>\d+):(?P<col>\d+) (?P<msg>.*)$").expect("regex")
});
static KOTLIN_OLD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<sev>[ew]): (?P<file>\S.*?\.kts?): \((?P<line>\d+), (?P<col>\d+)\): (?P<msg>.*)$",
    )
    .expect("regex")
});
static AAPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:ERROR: ?)?(?P<file>\S.*?)(?::(?P<line>\d+))?: AAPT: (?P<sev>error|warning): (?P<msg>.*)$").expect("regex")
});

/// The diagnostic a line is, if it is one.
pub fn parse(line: &str) -> Option<Parsed> {
    if let Some(c) = KOTLIN.captures(line).or_else(|| KOTLIN_OLD.captures(line)) {
        return Some(Parsed::Diagnostic(Diagnostic {
            severity: if &c["sev"] == "e" {
                Severity::Error
            } else {
                Severity::Warning
            },
            file: Some(uri_path(&c["file"])),
            line: c["line"].parse().ok(),
            column: c["col"].parse().ok(),
            message: message(&c["msg"]),
            tool: DiagnosticTool::Kotlinc,
        }));
    }
    if let Some(rest) = line
        .strip_prefix("e: ")
        .or_else(|| line.strip_prefix("w: "))
    {
        // A Kotlin diagnostic without a place (`e: java.lang.OutOfMemoryError…`, KSP's).
        if !rest.is_empty() {
            return Some(Parsed::Diagnostic(Diagnostic {
                severity: if line.starts_with('e') {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                file: None,
                line: None,
                column: None,
                message: message(rest),
                tool: DiagnosticTool::Kotlinc,
            }));
        }
    }
    if let Some(c) = AAPT.captures(line) {
        return Some(Parsed::Diagnostic(Diagnostic {
            severity: severity(&c["sev"]),
            file: Some(c["file"].to_string()),
            line: c.name("line").and_then(|m| m.as_str().parse().ok()),
            column: None,
            message: message(&c["msg"]),
            tool: DiagnosticTool::Aapt,
        }));
    }
    if let Some(c) = JAVAC.captures(line) {
        return Some(Parsed::Javac(Diagnostic {
            severity: severity(&c["sev"]),
            file: Some(c["file"].to_string()),
            line: c["line"].parse().ok(),
            column: None,
            message: message(&c["msg"]),
            tool: DiagnosticTool::Javac,
        }));
    }
    if let Some(c) = COMPILER.captures(line) {
        if &c["sev"] == "note" {
            return Some(Parsed::Note);
        }
        let file = &c["file"];
        let msg = &c["msg"];
        let known = file != "<unknown>";
        let line_no: Option<u32> = c["line"].parse().ok().filter(|n| *n > 0 || known);
        let mut tool = tool_for(file);
        // XCTest and OCUnit write a failed test as `File.m:82: error: -[Class test] : …`.
        if c.name("col").is_none() && msg.starts_with("-[") {
            tool = DiagnosticTool::Other;
        }
        if crate::failure::is_signing(msg) {
            tool = DiagnosticTool::Codesign;
        }
        return Some(Parsed::Diagnostic(Diagnostic {
            severity: severity(&c["sev"]),
            file: known.then(|| file.to_string()),
            line: if known { line_no } else { None },
            column: if known {
                c.name("col").and_then(|m| m.as_str().parse().ok())
            } else {
                None
            },
            message: message(msg),
            tool,
        }));
    }
    if let Some(c) = FILE_ONLY.captures(line) {
        // `/x/App.xcodeproj: error: …`: the build system about a project or a file, no line.
        if &c["sev"] == "note" {
            return Some(Parsed::Note);
        }
        let msg = &c["msg"];
        let tool = if crate::failure::is_signing(msg) {
            DiagnosticTool::Codesign
        } else {
            tool_for(&c["file"])
        };
        return Some(Parsed::Diagnostic(Diagnostic {
            severity: severity(&c["sev"]),
            file: Some(c["file"].to_string()),
            line: None,
            column: None,
            message: message(msg),
            tool,
        }));
    }
    bare(line)
}

/// The tools' own lines: `xcodebuild: error:`, `clang: error:`, `ld: …`, `error:`, `warning:`.
fn bare(line: &str) -> Option<Parsed> {
    let (severity, msg, tool) = if let Some(m) = line.strip_prefix("xcodebuild: error: ") {
        (Severity::Error, m, DiagnosticTool::Xcodebuild)
    } else if let Some(m) = line.strip_prefix("xcodebuild: warning: ") {
        (Severity::Warning, m, DiagnosticTool::Xcodebuild)
    } else if let Some(m) = line
        .strip_prefix("clang: error: ")
        .or_else(|| line.strip_prefix("clang++: error: "))
    {
        let tool = if m.starts_with("linker command failed") {
            DiagnosticTool::Ld
        } else {
            DiagnosticTool::Clang
        };
        (Severity::Error, m, tool)
    } else if let Some(m) = line.strip_prefix("ld: warning: ") {
        (Severity::Warning, m, DiagnosticTool::Ld)
    } else if let Some(m) = line.strip_prefix("ld: ") {
        (Severity::Error, m, DiagnosticTool::Ld)
    } else if let Some(m) = line
        .strip_prefix("error: ")
        .or_else(|| line.strip_prefix("fatal error: "))
    {
        (Severity::Error, m, DiagnosticTool::Xcodebuild)
    } else if let Some(m) = line.strip_prefix("warning: ") {
        (Severity::Warning, m, DiagnosticTool::Xcodebuild)
    } else if line.starts_with("note: ") {
        return Some(Parsed::Note);
    } else {
        return None;
    };
    let tool = if tool != DiagnosticTool::Ld && crate::failure::is_signing(msg) {
        DiagnosticTool::Codesign
    } else {
        tool
    };
    Some(Parsed::Diagnostic(Diagnostic {
        severity,
        file: None,
        line: None,
        column: None,
        message: message(msg),
        tool,
    }))
}

/// The column javac's caret line points at (1-based), if the line is one.
pub fn caret_column(line: &str) -> Option<u32> {
    let trimmed = line.trim_end();
    if !trimmed.ends_with('^') || trimmed.trim_start() != "^" {
        return None;
    }
    u32::try_from(trimmed.chars().count()).ok()
}

/// The tool a file's diagnostics come from, by its extension.
pub fn tool_for(file: &str) -> DiagnosticTool {
    let ext = file
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "swift" | "swiftinterface" => DiagnosticTool::Swiftc,
        "c" | "h" | "m" | "mm" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "pch" | "modulemap"
        | "def" => DiagnosticTool::Clang,
        "kt" | "kts" => DiagnosticTool::Kotlinc,
        "java" => DiagnosticTool::Javac,
        "xml" => DiagnosticTool::Aapt,
        "gradle" => DiagnosticTool::Gradle,
        "xcodeproj" | "xcworkspace" | "plist" | "xcconfig" | "xcassets" | "entitlements"
        | "storyboard" | "xib" => DiagnosticTool::Xcodebuild,
        _ => DiagnosticTool::Other,
    }
}

/// A `file://` URI's path (percent-escapes decoded; `/C:/x` made `C:/x`); other text as it is.
fn uri_path(file: &str) -> String {
    let mut out = Vec::with_capacity(file.len());
    let b = file.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            out.push(hex(b[i + 1]) * 16 + hex(b[i + 2]));
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    let path = String::from_utf8(out).unwrap_or_else(|_| file.to_string());
    let bytes = path.as_bytes();
    if bytes.len() > 3 && bytes[0] == b'/' && bytes[1].is_ascii_alphabetic() && bytes[2] == b':' {
        path[1..].to_string()
    } else {
        path
    }
}

fn severity(word: &str) -> Severity {
    if word == "warning" {
        Severity::Warning
    } else {
        Severity::Error
    }
}

fn message(text: &str) -> String {
    clean::cap(text.trim(), clean::MAX_MESSAGE).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(line: &str) -> Diagnostic {
        match parse(line) {
            Some(Parsed::Diagnostic(d)) | Some(Parsed::Javac(d)) => d,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn swift_and_clang_errors_with_columns() {
        let d = diag("/Users/k/Code/WardenApp/Warden/Utilities/SSEStreamParser.swift:23:66: error: passing non-escaping parameter 'onEvent' to function expecting an '@escaping' closure");
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(
            d.file.as_deref(),
            Some("/Users/k/Code/WardenApp/Warden/Utilities/SSEStreamParser.swift")
        );
        assert_eq!((d.line, d.column), (Some(23), Some(66)));
        assert_eq!(d.tool, DiagnosticTool::Swiftc);
        assert_eq!(
            d.message,
            "passing non-escaping parameter 'onEvent' to function expecting an '@escaping' closure"
        );

        let d = diag("/Users/m/SampleApp/Pods/Headers/LessCoolPod/SomeRandomClass.h:31:9: fatal error: 'SomeRandomHeader.h' file not found");
        assert_eq!(
            (d.severity, d.tool, d.line, d.column),
            (Severity::Error, DiagnosticTool::Clang, Some(31), Some(9))
        );

        let d = diag("/Users/k/Warden/WardenApp.swift:258:53: warning: use '#selector' instead of explicitly constructing a 'Selector'");
        assert_eq!(
            (d.severity, d.tool),
            (Severity::Warning, DiagnosticTool::Swiftc)
        );
        assert_eq!(parse("/Users/k/Warden/SSEStreamParser.swift:21:9: note: parameter 'onEvent' is implicitly non-escaping"), Some(Parsed::Note));
    }

    #[test]
    fn unknown_places_and_paths_with_spaces() {
        let d = diag("<unknown>:0: error: no such file or directory: '/Users/travis/build/x/Class + Category/Two Words/Missing.swift'");
        assert_eq!((d.file, d.line, d.column), (None, None, None));
        assert!(d.message.starts_with("no such file or directory"));
        let d = diag("/Users/me/Android Projects/app/src/main/cpp/native lib.cpp:7:3: error: use of undeclared identifier 'x'");
        assert_eq!(
            d.file.as_deref(),
            Some("/Users/me/Android Projects/app/src/main/cpp/native lib.cpp")
        );
        assert_eq!(d.tool, DiagnosticTool::Clang);
    }

    #[test]
    fn test_failures_written_as_errors_are_not_compiler_errors() {
        let d = diag("/Users/m/ObjectiveRecord/Example/SampleProjectTests/MappingsTests.m:61: error: -[MappingsTests Mappings_UsesMappedValuesWhenCreating] : 'Mappings' [FAILED]");
        assert_eq!(
            (d.tool, d.line, d.column),
            (DiagnosticTool::Other, Some(61), None)
        );
    }

    #[test]
    fn tools_own_lines() {
        let d = diag("xcodebuild: error: SDK \"iphoneos17.0\" cannot be located.");
        assert_eq!(
            (d.tool, d.severity, d.file),
            (DiagnosticTool::Xcodebuild, Severity::Error, None)
        );
        let d =
            diag("clang: error: linker command failed with exit code 1 (use -v to see invocation)");
        assert_eq!(d.tool, DiagnosticTool::Ld);
        let d = diag("ld: warning: ignoring duplicate libraries: '-lc++'");
        assert_eq!(
            (d.tool, d.severity),
            (DiagnosticTool::Ld, Severity::Warning)
        );
        let d = diag("ld: library not found for -lPods-App");
        assert_eq!((d.tool, d.severity), (DiagnosticTool::Ld, Severity::Error));
        let d = diag("warning: Skipping duplicate build file in Compile Sources build phase: /x/A.swift (in target 'W' from project 'W')");
        assert_eq!(
            (d.tool, d.severity),
            (DiagnosticTool::Xcodebuild, Severity::Warning)
        );
        let d = diag("error: unable to resolve product type 'com.apple.product-type.tool' for platform 'iphoneos' (in target 'Executable' from project 'ToolWithlibrary')");
        assert_eq!(d.tool, DiagnosticTool::Xcodebuild);
        let d = diag(
            "/x/App.xcodeproj: error: No profiles for 'com.x' were found: Xcode couldn't find any.",
        );
        assert_eq!(
            (d.tool, d.file.as_deref(), d.line),
            (DiagnosticTool::Codesign, Some("/x/App.xcodeproj"), None)
        );
        assert_eq!(
            parse("note: Building targets in dependency order"),
            Some(Parsed::Note)
        );
        assert_eq!(parse("Check dependencies"), None);
    }

    #[test]
    fn kotlin_new_and_old_shapes() {
        let d = diag("e: file:///home/runner/work/Ko/Ko/app/src/main/kotlin/com/ko/app/ui/SettingsActivity.kt:11:19 Unresolved reference 'BuildConfig'.");
        assert_eq!(
            d.file.as_deref(),
            Some("/home/runner/work/Ko/Ko/app/src/main/kotlin/com/ko/app/ui/SettingsActivity.kt")
        );
        assert_eq!(
            (d.line, d.column, d.tool, d.severity),
            (Some(11), Some(19), DiagnosticTool::Kotlinc, Severity::Error)
        );
        assert_eq!(d.message, "Unresolved reference 'BuildConfig'.");
        let d = diag("w: file:///C:/Users/me/My%20App/app/src/main/java/A.kt:3:5 Parameter 'x' is never used");
        assert_eq!(
            d.file.as_deref(),
            Some("C:/Users/me/My App/app/src/main/java/A.kt")
        );
        assert_eq!(d.severity, Severity::Warning);
        let d =
            diag("e: /home/u/app/src/main/java/com/x/Main.kt: (12, 5): Unresolved reference: foo");
        assert_eq!((d.line, d.column), (Some(12), Some(5)));
        assert_eq!(d.message, "Unresolved reference: foo");
        let d = diag("e: java.lang.OutOfMemoryError: Java heap space");
        assert_eq!((d.file, d.tool), (None, DiagnosticTool::Kotlinc));
    }

    #[test]
    fn javac_heads_and_carets() {
        match parse(
            r"D:\dev\tasks\app\src\amazon\java\org\tasks\analytics\Tracker.java:32: error: cannot find symbol",
        ) {
            Some(Parsed::Javac(d)) => {
                assert_eq!(
                    d.file.as_deref(),
                    Some(r"D:\dev\tasks\app\src\amazon\java\org\tasks\analytics\Tracker.java")
                );
                assert_eq!(
                    (d.line, d.column, d.tool),
                    (Some(32), None, DiagnosticTool::Javac)
                );
            }
            other => panic!("{other:?}"),
        }
        match parse("/x/Foo.java:12: warning: [deprecation] bar() in Baz has been deprecated") {
            Some(Parsed::Javac(d)) => assert_eq!(d.severity, Severity::Warning),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            caret_column("                                        ^"),
            Some(41)
        );
        assert_eq!(caret_column("^"), Some(1));
        assert_eq!(caret_column("            ~~ ^~~~~~~"), None);
        assert_eq!(caret_column("  symbol:   variable x"), None);
    }

    #[test]
    fn aapt_resource_errors() {
        let d = diag("ERROR: /x/app/src/main/res/layout/main.xml:12: AAPT: error: resource string/missing (aka com.x:string/missing) not found.");
        assert_eq!(
            (d.tool, d.line, d.file.as_deref()),
            (
                DiagnosticTool::Aapt,
                Some(12),
                Some("/x/app/src/main/res/layout/main.xml")
            )
        );
    }

    #[test]
    fn tools_by_extension() {
        assert_eq!(tool_for("/a/B.swift"), DiagnosticTool::Swiftc);
        assert_eq!(tool_for("/a/B.mm"), DiagnosticTool::Clang);
        assert_eq!(tool_for("/a/B.kt"), DiagnosticTool::Kotlinc);
        assert_eq!(tool_for("/a/App.xcodeproj"), DiagnosticTool::Xcodebuild);
        assert_eq!(tool_for("/a/README"), DiagnosticTool::Other);
    }
}
