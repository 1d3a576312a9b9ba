//! Running a planned build: the tool's output read line by line (both pipes), every byte into
//! the log file (up to [`LOG_LIMIT`]), every line through the output reader
//! (`mobilectl-build`), whose phases, steps and diagnostics update the running build's
//! progress and go to the caller's events as they come. The build stops at its deadline or
//! when cancelled, its whole process tree with it; then the built app is found from the
//! tool's own account of it (`xcodebuild -showBuildSettings -json`, the Android Gradle
//! Plugin's `output-metadata.json`), never guessed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use build_output::{Event, Reader};

use super::plan::{Plan, PlannedTool};
use super::registry::Running;
use crate::api::wire::build::{BuildEvent, BuildStatus, BuiltApp, Diagnostic, Failure, Phase};
use crate::backend::exec_error;
use crate::error::{Error, ErrorCode, Result};
use crate::exec::{Command, ExecError, Tool};

/// The most of a build's output kept in its log; the rest is counted, not kept.
pub const LOG_LIMIT: u64 = 1 << 30;

/// How long `xcodebuild -list` or `-showBuildSettings` may take (they resolve packages).
const ASK_TIMEOUT: Duration = Duration::from_secs(180);

/// How often progress events go out at most (steps can come by the thousand).
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Where a build's events go, when someone listens.
pub type Events = tokio::sync::mpsc::UnboundedSender<BuildEvent>;

/// How the build itself went.
pub struct Ran {
    /// How it ended.
    pub status: BuildStatus,
    /// The tool's exit code (none when it was stopped).
    pub exit_code: Option<i32>,
    /// How long it ran.
    pub duration: Duration,
    /// Build steps seen.
    pub steps: usize,
    /// Distinct errors.
    pub errors: usize,
    /// Distinct warnings.
    pub warnings: usize,
    /// The first distinct diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// What made it fail, when the output says.
    pub failure: Option<Failure>,
    /// Bytes of output, all of it (the log keeps at most [`LOG_LIMIT`]).
    pub output_bytes: u64,
}

/// The scheme of an Xcode plan that names none: the only one `xcodebuild -list -json` shows,
/// else `400 VALIDATION` listing them.
pub async fn settle_scheme(plan: &mut Plan) -> Result<()> {
    let PlannedTool::Xcode {
        xcodebuild,
        container,
        scheme,
        ..
    } = &mut plan.tool
    else {
        return Ok(());
    };
    if scheme.is_some() {
        return Ok(());
    }
    let mut args = vec!["-list".to_string(), "-json".to_string()];
    args.extend(container.iter().cloned());
    let listed = ask_xcodebuild(xcodebuild, args, &plan.project_dir, "-list")
        .await
        .map_err(|e| {
            e.with_hint("check that the project opens in Xcode; name the scheme with `ios.scheme`")
        })?;
    let schemes = build_output::xcode::schemes(&listed).map_err(|e| {
        Error::new(
            ErrorCode::CommandFailed,
            format!("`xcodebuild -list -json` answered what cannot be read: {e}"),
        )
    })?;
    match schemes.as_slice() {
        [one] => {
            plan.remembered.ios.scheme = Some(one.clone());
            *scheme = Some(one.clone());
            Ok(())
        }
        [] => Err(Error::validation(format!("`{}` has no schemes", container[1]))
            .with_hint("share a scheme in Xcode (Product › Scheme › Manage Schemes › Shared), or name one with `ios.scheme`")),
        many => Err(Error::validation(format!(
            "`{}` has {} schemes: {}",
            container[1],
            many.len(),
            many.join(", ")
        ))
        .with_hint("name one with `ios.scheme`; a build in a session remembers it")
        .with_details(serde_json::json!({ "schemes": many }))),
    }
}

/// What `xcodebuild ARGS` (run in the project folder for its `what`: `-list`,
/// `-showBuildSettings`) prints; its failure as `COMMAND_FAILED` with its last words.
async fn ask_xcodebuild(
    xcodebuild: &Path,
    args: Vec<String>,
    dir: &Path,
    what: &str,
) -> Result<String> {
    let out = Command::new(xcodebuild)
        .args(args)
        .current_dir(dir)
        .timeout(ASK_TIMEOUT)
        .run()
        .await
        .map_err(|e| exec_error(Tool::Xcodebuild, e))?;
    if !out.success() {
        return Err(Error::new(
            ErrorCode::CommandFailed,
            format!(
                "`xcodebuild {what}` failed: {}",
                last_words(&out.stderr_text(), &out.stdout_text())
            ),
        ));
    }
    Ok(out.stdout_text())
}

/// The last non-empty line of `a`, else of `b`: a tool's last words.
fn last_words(a: &str, b: &str) -> String {
    [a, b]
        .iter()
        .find_map(|t| t.lines().rev().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or("(no output)")
        .chars()
        .take(500)
        .collect()
}

/// Runs the build of `plan` (its scheme settled) to its end, its deadline or its
/// cancelling, writing its output to `log`; see the module's doc.
pub async fn run(
    plan: &Plan,
    running: &Running,
    log: &Path,
    timeout: Duration,
    events: Option<&Events>,
) -> Result<Ran> {
    let (program, args) = plan.tool.argv(&["build"]);
    let cmd = Command::new(program)
        .args(args)
        .current_dir(&plan.project_dir)
        .timeout(Duration::from_secs(30));
    let mut child = cmd.spawn_lines().await.map_err(|e| match (&plan.tool, e) {
        (PlannedTool::Xcode { .. }, e) => exec_error(Tool::Xcodebuild, e),
        (PlannedTool::Gradle { wrapper, .. }, ExecError::NotFound { .. }) => Error::validation(
            format!("`{}` cannot be run", wrapper.display()),
        )
        .with_hint("make the Gradle wrapper executable (`chmod +x gradlew`), or run `gradle wrapper` in the project"),
        (PlannedTool::Gradle { .. }, e @ ExecError::Busy { .. }) => {
            Error::new(ErrorCode::Busy, e.to_string())
                .with_hint("the server is running as many long commands as it allows; retry shortly")
        }
        (PlannedTool::Gradle { .. }, e) => Error::new(
            ErrorCode::CommandFailed,
            format!("the Gradle wrapper could not start: {e}"),
        ),
    })?;
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(log)
            .map_err(|e| Error::internal(format!("the build log `{}`: {e}", log.display())))?,
    );
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + timeout;
    let mut reader = Reader::new(plan.toolchain());
    let mut output_bytes = 0u64;
    let mut last_told: Option<Instant> = None;
    let mut told_steps = usize::MAX;
    let stopped = loop {
        tokio::select! {
            line = child.next_line() => {
                let Some(line) = line else { break None };
                if output_bytes < LOG_LIMIT {
                    let _ = file.write_all(&line.bytes).and_then(|_| file.write_all(b"\n"));
                }
                output_bytes += line.bytes.len() as u64 + 1;
                let text = String::from_utf8_lossy(&line.bytes);
                let mut phase = None;
                for e in reader.line(&text) {
                    match e {
                        Event::Phase(p) => phase = Some(p),
                        Event::Diagnostic(d) => {
                            if let Some(tx) = events {
                                let _ = tx.send(BuildEvent::Diagnostic(d));
                            }
                        }
                        Event::Step { .. } => {}
                    }
                }
                tell(running, &reader, phase.clone());
                let due = phase.is_some()
                    || last_told.is_none_or(|t| t.elapsed() >= PROGRESS_EVERY);
                if let Some(tx) = events.filter(|_| due && reader.steps_done() != told_steps) {
                    last_told = Some(Instant::now());
                    told_steps = reader.steps_done();
                    let _ = tx.send(BuildEvent::Progress(running.progress()));
                }
            }
            _ = running.cancelled() => break Some(BuildStatus::Cancelled),
            _ = tokio::time::sleep_until(deadline) => break Some(BuildStatus::TimedOut),
        }
    };
    // What the reader held back (a diagnostic waiting for a line that never came).
    for e in reader.finish() {
        if let (Event::Diagnostic(d), Some(tx)) = (e, events) {
            let _ = tx.send(BuildEvent::Diagnostic(d));
        }
    }
    tell(running, &reader, None);
    let _ = file.flush();
    let exit_code = match stopped {
        Some(_) => {
            child.kill();
            None
        }
        None => child.finish(Duration::from_secs(30)).await,
    };
    let status = stopped.unwrap_or(if exit_code == Some(0) {
        BuildStatus::Succeeded
    } else {
        BuildStatus::Failed
    });
    Ok(Ran {
        status,
        exit_code,
        duration: started.elapsed(),
        steps: reader.steps_done(),
        errors: reader.errors(),
        warnings: reader.warnings(),
        diagnostics: reader.diagnostics().to_vec(),
        failure: reader.failure(),
        output_bytes,
    })
}

/// Records the reader's counts (and a new phase) in the running build.
fn tell(running: &Running, reader: &Reader, phase: Option<Phase>) {
    running.update(|p| {
        if phase.is_some() {
            p.phase = phase;
        }
        p.steps = reader.steps_done();
        p.errors = reader.errors();
        p.warnings = reader.warnings();
    });
}

/// The app a finished build made, as the tool tells it.
pub async fn built_app(plan: &Plan) -> Result<BuiltApp> {
    match &plan.tool {
        PlannedTool::Gradle { apk_dir, .. } => apk_of(apk_dir),
        PlannedTool::Xcode { .. } => app_of(plan).await,
    }
}

fn apk_of(apk_dir: &Path) -> Result<BuiltApp> {
    let metadata = apk_dir.join("output-metadata.json");
    let text = std::fs::read_to_string(&metadata).map_err(|e| {
        Error::new(
            ErrorCode::NotFound,
            format!(
                "the build left no `{}`: {e}",
                metadata.display()
            ),
        )
        .with_hint("the Android Gradle Plugin writes it beside the APK; check the module and variant (`android.module`, `android.variant`)")
    })?;
    let apk = build_output::gradle::apk_product(&text).map_err(|e| {
        Error::new(
            ErrorCode::CommandFailed,
            format!("`{}` cannot be read: {e}", metadata.display()),
        )
    })?;
    let path: PathBuf = apk_dir.join(&apk.file);
    if !path.is_file() {
        return Err(Error::new(
            ErrorCode::NotFound,
            format!(
                "`{}` names `{}`, which is not there",
                metadata.display(),
                path.display()
            ),
        ));
    }
    Ok(BuiltApp {
        path: path.display().to_string(),
        app_id: Some(apk.application_id),
    })
}

async fn app_of(plan: &Plan) -> Result<BuiltApp> {
    let (program, args) = plan.tool.argv(&["-showBuildSettings", "-json"]);
    let settings = ask_xcodebuild(&program, args, &plan.project_dir, "-showBuildSettings").await?;
    let app = build_output::xcode::app_product(&settings).map_err(|e| {
        Error::new(
            ErrorCode::CommandFailed,
            format!("the build settings do not name the app: {e}"),
        )
        .with_hint("the scheme must build an application target")
    })?;
    let path = PathBuf::from(&app.path);
    let path = if path.is_absolute() {
        path
    } else {
        plan.project_dir.join(path)
    };
    if !path.is_dir() {
        return Err(Error::new(
            ErrorCode::NotFound,
            format!(
                "the build settings name `{}`, which is not there",
                path.display()
            ),
        ));
    }
    Ok(BuiltApp {
        path: path.display().to_string(),
        app_id: app.bundle_id,
    })
}
