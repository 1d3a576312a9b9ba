//! The reader: build output in, line by line, events out (a stage entered, a step done, a new
//! diagnostic), and at the end the diagnostics, their counts, the steps and the failure.
//!
//! It holds what spans lines: javac's diagnostic until its caret line gives the column, the
//! linker's undefined and duplicate symbol blocks until `ld:` sums them up, xcodebuild's
//! "The following build commands failed:" list (which repeats steps already counted and is
//! skipped), and Gradle's "* What went wrong:" section (the failure's own words). Diagnostics are
//! de-duplicated on (severity, file, line, column, message): xcodebuild and Gradle print many
//! twice. Of the failures the output shows, the most specific wins ([`failure::rank`]); the
//! reader reports one only when the output failed (a failure marker or an error). A failure's
//! line that ends with ':' takes the indented line after it (what xcodebuild could not find or
//! resolve), and an indented line telling the same kind of failure, a detail of it, gives the
//! hint (the platform that is not installed, the artifact Gradle could not find).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::wire::{
    Diagnostic, DiagnosticTool, Failure, FailureKind, Phase, PhaseName, Severity, Toolchain,
};
use crate::{clean, diag, failure, gradle, xcode};

/// How many diagnostics the reader keeps (after de-duplication); it counts all.
pub const MAX_DIAGNOSTICS: usize = 500;
/// How many lines of Gradle's "What went wrong" the failure's message keeps.
const WENT_WRONG_LINES: usize = 4;

/// What a line of output tells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The build started a step of this stage.
    Phase(Phase),
    /// A diagnostic not seen before (only the first [`MAX_DIAGNOSTICS`] are told).
    Diagnostic(Diagnostic),
    /// Steps done so far (compile units, link, sign… for Xcode; distinct tasks for Gradle).
    Step {
        /// Count of steps seen, this one included.
        done: usize,
    },
}

/// javac's diagnostic waiting for its caret line.
struct Javac {
    diagnostic: Diagnostic,
    lines_after: u8,
}

/// The linker's multi-line report of symbols.
struct LinkBlock {
    header: String,
    symbols: Vec<String>,
}

/// Reads one build's output. See the module's documentation.
pub struct Reader {
    toolchain: Toolchain,
    diagnostics: Vec<Diagnostic>,
    seen: HashSet<u64>,
    errors: usize,
    warnings: usize,
    steps: usize,
    tasks: HashSet<String>,
    testing: bool,
    failed: bool,
    failed_line: Option<String>,
    explicit: Option<Failure>,
    explicit_open: bool,
    first_compile: Option<Diagnostic>,
    first_link: Option<Diagnostic>,
    first_other: Option<Diagnostic>,
    went_wrong: Vec<String>,
    in_went_wrong: bool,
    in_failed_commands: bool,
    javac: Option<Javac>,
    link: Option<LinkBlock>,
}

impl Reader {
    /// A reader of `toolchain`'s output.
    pub fn new(toolchain: Toolchain) -> Reader {
        Reader {
            toolchain,
            diagnostics: Vec::new(),
            seen: HashSet::new(),
            errors: 0,
            warnings: 0,
            steps: 0,
            tasks: HashSet::new(),
            testing: false,
            failed: false,
            failed_line: None,
            explicit: None,
            explicit_open: false,
            first_compile: None,
            first_link: None,
            first_other: None,
            went_wrong: Vec::new(),
            in_went_wrong: false,
            in_failed_commands: false,
            javac: None,
            link: None,
        }
    }

    /// One line of output (without its newline; may carry a trailing '\r'). Returns what the
    /// line tells, if anything. A javac diagnostic is told when its caret line (or the line
    /// after its source line) comes; [`Reader::finish`] tells what is still waiting.
    pub fn line(&mut self, line: &str) -> Vec<Event> {
        let text = clean::line(line);
        let mut events = Vec::new();

        // The indented line after a failure's "…destination specifier:" or "…dependencies:".
        if std::mem::take(&mut self.explicit_open) {
            let detail = text.trim();
            if text.starts_with(char::is_whitespace) && !detail.is_empty() {
                if let Some(f) = self.explicit.as_mut() {
                    let message = format!("{} {detail}", f.message);
                    f.message = clean::cap(&message, clean::MAX_MESSAGE).to_string();
                }
            }
        }

        if let Some(mut pending) = self.javac.take() {
            if let Some(column) = diag::caret_column(&text) {
                pending.diagnostic.column = Some(column);
                self.add(pending.diagnostic, &mut events);
                return events;
            }
            pending.lines_after += 1;
            let starts_something = diag::parse(&text).is_some() || gradle::task(&text).is_some();
            if pending.lines_after == 1 && !starts_something {
                // The source line javac echoes before its caret.
                self.javac = Some(pending);
                return events;
            }
            self.add(pending.diagnostic, &mut events);
        }

        if let Some(block) = self.link.as_mut() {
            if text.starts_with("ld: ") {
                let block = self.link.take().expect("block");
                self.add_link_block(block, &mut events);
                return events;
            }
            if text.starts_with(char::is_whitespace) && !text.trim().is_empty() {
                if let Some(symbol) = text.trim().strip_suffix(", referenced from:") {
                    block.symbols.push(symbol.to_string());
                }
                return events;
            }
            let block = self.link.take().expect("block");
            self.add_link_block(block, &mut events);
        }
        if text.starts_with("Undefined symbols for architecture ")
            || text.starts_with("duplicate symbol ")
        {
            let header = text
                .trim_end_matches(':')
                .trim_end_matches(" in")
                .to_string();
            self.link = Some(LinkBlock {
                header,
                symbols: Vec::new(),
            });
            return events;
        }

        if self.in_failed_commands {
            let trimmed = text.trim();
            if trimmed.starts_with('(') && trimmed.contains("failure") {
                self.in_failed_commands = false;
                return events;
            }
            if trimmed.is_empty() || text.starts_with(char::is_whitespace) {
                return events;
            }
            self.in_failed_commands = false;
        }
        if text == "The following build commands failed:" {
            self.in_failed_commands = true;
            self.mark_failed(&text);
            return events;
        }

        if text.starts_with("* What went wrong:") {
            self.in_went_wrong = true;
            return events;
        }
        if self.in_went_wrong {
            if text.is_empty() || text.starts_with("* ") {
                self.in_went_wrong = false;
            } else if self.went_wrong.len() < WENT_WRONG_LINES {
                let said = text.trim().trim_start_matches("> ").trim();
                self.went_wrong
                    .push(clean::cap(said, clean::MAX_MESSAGE).to_string());
            }
        }

        if (text.starts_with("** ") && text.ends_with(" FAILED **"))
            || text.starts_with("BUILD FAILED")
            || text.starts_with("FAILURE: Build")
        {
            self.mark_failed(&text);
        }

        if let Some(kind_hint) = failure::classify(self.toolchain, &text) {
            let said = text.trim().trim_start_matches("> ").trim();
            let said = said.strip_prefix("xcodebuild: error: ").unwrap_or(said);
            let detail = text.starts_with(char::is_whitespace);
            self.offer(kind_hint.0, said, kind_hint.1, detail);
        }

        if let Some((path, phase)) = gradle::task(&text) {
            if self.tasks.insert(path.clone()) {
                self.step(phase, path, &mut events);
            }
            return events;
        }
        if let Some((phase, detail)) = xcode::step(&text) {
            self.step(phase, detail, &mut events);
            return events;
        }
        if let Some(project) = text.strip_prefix("> Configure project ") {
            events.push(Event::Phase(Phase {
                name: PhaseName::Resolve,
                detail: project.trim().to_string(),
            }));
            return events;
        }
        if !self.testing
            && (text.starts_with("Test Suite '")
                || text.starts_with("Test Case '")
                || text.starts_with("Testing started"))
        {
            self.testing = true;
            events.push(Event::Phase(Phase {
                name: PhaseName::Test,
                detail: String::new(),
            }));
            return events;
        }

        match diag::parse(&text) {
            Some(diag::Parsed::Diagnostic(d)) => self.add(d, &mut events),
            Some(diag::Parsed::Javac(d)) => {
                self.javac = Some(Javac {
                    diagnostic: d,
                    lines_after: 0,
                })
            }
            Some(diag::Parsed::Note) => {}
            None => {
                // Signing failures xcodebuild prints as a sentence of their own.
                if self.toolchain == Toolchain::Xcode
                    && !text.starts_with(char::is_whitespace)
                    && failure::is_signing(&text)
                {
                    let message = clean::cap(text.trim(), clean::MAX_MESSAGE).to_string();
                    self.add(
                        Diagnostic {
                            severity: Severity::Error,
                            file: None,
                            line: None,
                            column: None,
                            message,
                            tool: DiagnosticTool::Codesign,
                        },
                        &mut events,
                    );
                }
            }
        }
        events
    }

    /// The end of the output: tells what was still waiting for a following line (a javac
    /// diagnostic without its caret, a linker block without its `ld:` line).
    pub fn finish(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        if let Some(pending) = self.javac.take() {
            self.add(pending.diagnostic, &mut events);
        }
        if let Some(block) = self.link.take() {
            self.add_link_block(block, &mut events);
        }
        events
    }

    /// The first [`MAX_DIAGNOSTICS`] distinct diagnostics, in the order seen.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Distinct errors seen, those beyond the cap included.
    pub fn errors(&self) -> usize {
        self.errors
    }

    /// Distinct warnings seen, those beyond the cap included.
    pub fn warnings(&self) -> usize {
        self.warnings
    }

    /// Build steps seen: xcodebuild's step lines, Gradle's distinct tasks.
    pub fn steps_done(&self) -> usize {
        self.steps
    }

    /// Whether the output said the build failed (`** BUILD FAILED **`, `BUILD FAILED`,
    /// `FAILURE:`, "The following build commands failed:").
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// The most specific failure the output shows: signing, a missing SDK, scheme or project
    /// beat dependencies, which beat compile errors, which beat link errors, which beat the rest.
    /// None if the output shows no failure marker and no error.
    pub fn failure(&self) -> Option<Failure> {
        if !self.failed && self.errors == 0 {
            return None;
        }
        let compile = self.first_compile.as_ref().map(|d| {
            let at = place(d);
            Failure {
                kind: FailureKind::Compile,
                message: match &at {
                    Some(at) => format!("{at}: {}", d.message),
                    None => d.message.clone(),
                },
                hint: failure::compile_hint(at.as_deref()),
            }
        });
        let link = self.first_link.as_ref().map(|d| Failure {
            kind: FailureKind::Link,
            message: d.message.clone(),
            hint: failure::link_hint(self.toolchain),
        });
        let other_message = match self.toolchain {
            Toolchain::Gradle => self
                .went_wrong_text()
                .or_else(|| self.first_other.as_ref().map(|d| d.message.clone())),
            Toolchain::Xcode => self
                .first_other
                .as_ref()
                .map(|d| d.message.clone())
                .or_else(|| self.went_wrong_text()),
        }
        .or_else(|| self.failed_line.clone())
        .unwrap_or_else(|| "the build failed".into());
        let other = Failure {
            kind: FailureKind::Other,
            message: other_message,
            hint: failure::other_hint(self.toolchain),
        };
        [compile, self.explicit.clone(), link, Some(other)]
            .into_iter()
            .flatten()
            .fold(None, |best: Option<Failure>, f| match best {
                Some(b) if failure::rank(b.kind) >= failure::rank(f.kind) => Some(b),
                _ => Some(f),
            })
    }

    fn went_wrong_text(&self) -> Option<String> {
        (!self.went_wrong.is_empty())
            .then(|| clean::cap(&self.went_wrong.join(" "), clean::MAX_MESSAGE).to_string())
    }

    fn mark_failed(&mut self, text: &str) {
        self.failed = true;
        if self.failed_line.is_none() {
            self.failed_line = Some(clean::cap(text.trim(), clean::MAX_MESSAGE).to_string());
        }
    }

    /// A failure a line tells. It replaces the one held if it ranks higher; a `detail` (an
    /// indented line) of the same kind as the one held only gives it its more specific hint.
    fn offer(&mut self, kind: FailureKind, message: &str, hint: String, detail: bool) {
        match self.explicit.as_mut() {
            Some(f) if failure::rank(kind) <= failure::rank(f.kind) => {
                if detail && f.kind == kind {
                    f.hint = hint;
                }
            }
            _ => {
                self.explicit_open = message.trim_end().ends_with(':');
                self.explicit = Some(Failure {
                    kind,
                    message: clean::cap(message, clean::MAX_MESSAGE).to_string(),
                    hint,
                });
            }
        }
    }

    fn step(&mut self, name: PhaseName, detail: String, events: &mut Vec<Event>) {
        self.steps += 1;
        events.push(Event::Phase(Phase { name, detail }));
        events.push(Event::Step { done: self.steps });
    }

    fn add_link_block(&mut self, block: LinkBlock, events: &mut Vec<Event>) {
        let mut message = block.header;
        if !block.symbols.is_empty() {
            let shown: Vec<&str> = block.symbols.iter().take(5).map(String::as_str).collect();
            message = format!("{message}: {}", shown.join(", "));
            if block.symbols.len() > shown.len() {
                message = format!("{message} and {} more", block.symbols.len() - shown.len());
            }
        }
        let message = clean::cap(&message, clean::MAX_MESSAGE).to_string();
        self.add(
            Diagnostic {
                severity: Severity::Error,
                file: None,
                line: None,
                column: None,
                message,
                tool: DiagnosticTool::Ld,
            },
            events,
        );
    }

    fn add(&mut self, d: Diagnostic, events: &mut Vec<Event>) {
        let mut hasher = DefaultHasher::new();
        (d.severity, &d.file, d.line, d.column, &d.message).hash(&mut hasher);
        if !self.seen.insert(hasher.finish()) {
            return;
        }
        match d.severity {
            Severity::Warning => self.warnings += 1,
            Severity::Error => {
                self.errors += 1;
                let slot = match d.tool {
                    DiagnosticTool::Swiftc
                    | DiagnosticTool::Clang
                    | DiagnosticTool::Kotlinc
                    | DiagnosticTool::Javac
                    | DiagnosticTool::Aapt => &mut self.first_compile,
                    DiagnosticTool::Ld => &mut self.first_link,
                    DiagnosticTool::Codesign => {
                        let hint = failure::classify(Toolchain::Xcode, &d.message).map(|(_, h)| h);
                        let hint = hint.unwrap_or_else(|| "Build for the Simulator, which needs no signing, or fix the signing settings the error names.".into());
                        self.offer(FailureKind::Signing, &d.message, hint, false);
                        &mut self.first_other
                    }
                    _ => &mut self.first_other,
                };
                if slot.is_none() && d.tool != DiagnosticTool::Codesign {
                    *slot = Some(d.clone());
                }
            }
        }
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            self.diagnostics.push(d.clone());
            events.push(Event::Diagnostic(d));
        }
    }
}

/// `file:line:col` of a diagnostic, as much of it as is known.
fn place(d: &Diagnostic) -> Option<String> {
    let file = d.file.as_ref()?;
    Some(match (d.line, d.column) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}"),
        (Some(l), None) => format!("{file}:{l}"),
        _ => file.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(toolchain: Toolchain, text: &str) -> (Reader, Vec<Event>) {
        let mut r = Reader::new(toolchain);
        let mut events = Vec::new();
        for line in text.lines() {
            events.extend(r.line(line));
        }
        events.extend(r.finish());
        (r, events)
    }

    #[test]
    fn a_step_is_a_phase_then_a_count() {
        let mut r = Reader::new(Toolchain::Gradle);
        let events = r.line("> Task :app:compileDebugKotlin");
        assert_eq!(
            events,
            vec![
                Event::Phase(Phase {
                    name: PhaseName::Compile,
                    detail: ":app:compileDebugKotlin".into()
                }),
                Event::Step { done: 1 }
            ]
        );
        assert!(
            r.line("> Task :app:compileDebugKotlin FAILED").is_empty(),
            "a task counts once"
        );
        assert_eq!(r.steps_done(), 1);
    }

    #[test]
    fn diagnostics_are_told_once() {
        let line = "/x/A.swift:1:2: error: cannot find 'y' in scope";
        let (r, events) = read(
            Toolchain::Xcode,
            &format!("{line}\n{line}\n/x/A.swift:1:3: error: cannot find 'y' in scope\n"),
        );
        assert_eq!(r.errors(), 2);
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, Event::Diagnostic(_)))
                .count(),
            2
        );
    }

    #[test]
    fn javac_takes_its_column_from_the_caret() {
        let (r, _) = read(
            Toolchain::Gradle,
            "/x/Main.java:11: error: package R does not exist\n        setContentView(R.layout.activity_main);\n                        ^\n1 error\n",
        );
        assert_eq!(r.diagnostics()[0].column, Some(25));
        assert_eq!(r.diagnostics()[0].line, Some(11));
    }

    #[test]
    fn javac_without_a_caret_is_kept_without_column() {
        let (r, _) = read(
            Toolchain::Gradle,
            "/x/A.java:3: error: x\n/x/B.java:4: warning: y\n",
        );
        assert_eq!((r.errors(), r.warnings()), (1, 1));
        assert!(r.diagnostics().iter().all(|d| d.column.is_none()));
        let mut r = Reader::new(Toolchain::Gradle);
        r.line("/x/A.java:3: error: x");
        assert_eq!(r.errors(), 0, "waiting for its caret");
        assert_eq!(r.finish().len(), 1);
        assert_eq!(r.errors(), 1);
    }

    #[test]
    fn undefined_symbols_are_one_link_error() {
        let (r, _) = read(
            Toolchain::Xcode,
            "Undefined symbols for architecture arm64:\n  \"_foo\", referenced from:\n      _main in main.o\n  \"_bar\", referenced from:\n      _main in main.o\nld: symbol(s) not found for architecture arm64\nclang: error: linker command failed with exit code 1 (use -v to see invocation)\n** BUILD FAILED **\n",
        );
        assert_eq!(r.errors(), 2);
        assert_eq!(
            r.diagnostics()[0].message,
            "Undefined symbols for architecture arm64: \"_foo\", \"_bar\""
        );
        let f = r.failure().unwrap();
        assert_eq!(f.kind, FailureKind::Link);
    }

    #[test]
    fn failed_commands_are_not_steps() {
        let (r, _) = read(
            Toolchain::Xcode,
            "SwiftCompile normal arm64 /x/A.swift (in target 'A' from project 'A')\n** BUILD FAILED **\n\n\nThe following build commands failed:\n\tSwiftCompile normal arm64 /x/A.swift (in target 'A' from project 'A')\n\tBuilding project A with scheme A\n(2 failures)\n",
        );
        assert_eq!(r.steps_done(), 1);
        assert!(r.failed());
        assert_eq!(r.failure().unwrap().kind, FailureKind::Other);
    }

    #[test]
    fn signing_beats_compile_and_compile_beats_other() {
        let (r, _) = read(
            Toolchain::Xcode,
            "/x/A.swift:1:2: error: cannot find 'y' in scope\n/x/App.xcodeproj: error: Signing for \"App\" requires a development team. Select a development team in the Signing & Capabilities editor. (in target 'App' from project 'App')\n** BUILD FAILED **\n",
        );
        let f = r.failure().unwrap();
        assert_eq!(f.kind, FailureKind::Signing);
        assert!(f.hint.contains("development team"));
        let (r, _) = read(
            Toolchain::Xcode,
            "error: something broke\n/x/A.swift:1:2: error: cannot find 'y' in scope\n",
        );
        let f = r.failure().unwrap();
        assert_eq!(f.kind, FailureKind::Compile);
        assert_eq!(f.message, "/x/A.swift:1:2: cannot find 'y' in scope");
        assert!(f.hint.contains("/x/A.swift:1:2"));
    }

    #[test]
    fn no_failure_without_a_marker_or_an_error() {
        let (r, _) = read(Toolchain::Xcode, "warning: x\n** BUILD SUCCEEDED **\n");
        assert_eq!(r.failure(), None);
        assert_eq!(r.warnings(), 1);
        let (r, _) = read(Toolchain::Gradle, "BUILD SUCCESSFUL in 2s\n");
        assert_eq!(r.failure(), None);
    }

    #[test]
    fn gradle_what_went_wrong_is_the_other_failure() {
        let (r, _) = read(
            Toolchain::Gradle,
            "FAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':pro:lintDebug'.\n> Lint found errors in the project; aborting build.\n\n* Try:\n> Run with --stacktrace option to get the stack trace.\n\nBUILD FAILED in 31s\n",
        );
        let f = r.failure().unwrap();
        assert_eq!(f.kind, FailureKind::Other);
        assert_eq!(f.message, "Execution failed for task ':pro:lintDebug'. Lint found errors in the project; aborting build.");
    }

    #[test]
    fn a_failure_ending_in_a_colon_takes_the_indented_line_after_it() {
        let (r, _) = read(
            Toolchain::Xcode,
            "xcodebuild: error: Could not resolve package dependencies:\n  Failed to clone repository https://x/y.git\n\tnot this one\n",
        );
        let f = r.failure().unwrap();
        assert_eq!(f.kind, FailureKind::Dependency);
        assert_eq!(
            f.message,
            "Could not resolve package dependencies: Failed to clone repository https://x/y.git"
        );
        let (r, _) = read(
            Toolchain::Xcode,
            "xcodebuild: error: Unable to find a destination matching the provided destination specifier:\n** BUILD FAILED **\n",
        );
        assert!(r.failure().unwrap().message.ends_with("specifier:"));
    }

    #[test]
    fn an_indented_detail_of_the_same_failure_gives_the_hint() {
        let (r, _) = read(
            Toolchain::Gradle,
            "> Could not resolve all files for configuration ':app:debugRuntimeClasspath'.\n   > Could not find com.example:lib:1.2.3.\nBUILD FAILED in 1s\n",
        );
        let f = r.failure().unwrap();
        assert_eq!(f.kind, FailureKind::Dependency);
        assert!(
            f.message.starts_with("Could not resolve all files"),
            "{}",
            f.message
        );
        assert!(f.hint.contains("com.example:lib:1.2.3"), "{}", f.hint);
        // Not indented: a failure of its own, and the first of equals stays.
        let (r, _) = read(
            Toolchain::Xcode,
            "xcodebuild: error: SDK \"iphoneos9.3\" cannot be located.\nxcodebuild: error: SDK \"iphoneos9.2\" cannot be located.\n",
        );
        let f = r.failure().unwrap();
        assert!(f.hint.contains("iphoneos9.3") && !f.hint.contains("iphoneos9.2"));
    }

    #[test]
    fn the_cap_keeps_counting() {
        let text: String = (0..MAX_DIAGNOSTICS + 20)
            .map(|i| format!("/x/A.swift:{}:1: warning: w\n", i + 1))
            .collect();
        let (r, events) = read(Toolchain::Xcode, &text);
        assert_eq!(r.diagnostics().len(), MAX_DIAGNOSTICS);
        assert_eq!(r.warnings(), MAX_DIAGNOSTICS + 20);
        assert_eq!(events.len(), MAX_DIAGNOSTICS);
    }

    #[test]
    fn events_serialize_tagged() {
        let json = serde_json::to_string(&Event::Step { done: 3 }).unwrap();
        assert_eq!(json, r#"{"event":"step","done":3}"#);
        let json = serde_json::to_string(&Event::Phase(Phase {
            name: PhaseName::Sign,
            detail: "/x/A.app".into(),
        }))
        .unwrap();
        assert_eq!(
            json,
            r#"{"event":"phase","name":"sign","detail":"/x/A.app"}"#
        );
    }
}
