//! An app's start on a Simulator as mobilectl measures it: from the `simctl launch` call to the
//! end of the first UI read (AXe or idb, as a snapshot reads it) that shows the app's first
//! screen ([`first_screen::front`]). Reads follow each other [`POLL_INTERVAL`] apart until the
//! screen shows or the bound ([`FIRST_SCREEN_LIMIT`] unless set otherwise) is reached; a read
//! never outlasts the bound. The precision is the gap between the last read without the screen
//! and the end of the one with it (the interval plus one read), answered as `earliest_ms`.

use std::time::{Duration, Instant};

use super::first_screen::{self, Awaited, Front};
use super::ui::{UiTool, UI_TIMEOUT};
use super::{SimctlBackend, QUICK_TIMEOUT};
use crate::exec::ExecError;
use crate::perf::{MeasuredBy, StartupMeasure};

/// The pause between two UI reads.
pub const POLL_INTERVAL: Duration = Duration::from_millis(100);
/// How long a launch waits for the app's first screen by default.
pub const FIRST_SCREEN_LIMIT: Duration = Duration::from_secs(15);

/// What a launch watches for: the UI tool that reads the screen, and the app's display name.
#[derive(Debug, Clone)]
pub(super) struct Watch {
    tool: UiTool,
    name: Option<String>,
}

/// How a watch ended.
enum Ended {
    /// The first screen showed, at the end of the last read.
    Shown,
    /// The bound was reached.
    Timeout,
    /// The UI tool could not run at all.
    Failed(String),
}

impl SimctlBackend {
    /// What a launch of `bundle_id` watches for, asked before the launch so that the measure
    /// does not include it: `None` without a UI tool (the launch is then timed by its command
    /// alone). The name comes from `simctl listapps`; without it the app is known by its pid.
    pub(super) async fn first_screen_watch(&self, udid: &str, bundle_id: &str) -> Option<Watch> {
        let tool = self.ui_tool().ok()?;
        let listed = match self.simctl() {
            Ok(cmd) => self
                .run(cmd.args(["listapps", udid]).timeout(QUICK_TIMEOUT))
                .await
                .ok()
                .filter(|out| out.success()),
            Err(_) => None,
        };
        let name = listed
            .and_then(|out| super::parse_listapps(&out.stdout).ok())
            .and_then(|apps| apps.into_iter().find(|a| a.bundle_id == bundle_id))
            .and_then(|a| a.name);
        Some(Watch { tool, name })
    }

    /// Reads the UI until it shows the app's first screen or the bound is reached, counting
    /// from `started` (the launch call); `launch` is the launch command's own time. `None`
    /// when nothing could tell the app from another one (no pid, no name).
    pub(super) async fn await_first_screen(
        &self,
        udid: &str,
        watch: &Watch,
        pid: Option<u32>,
        started: Instant,
        launch: Duration,
    ) -> Option<StartupMeasure> {
        let app = Awaited {
            pid,
            name: watch.name.as_deref(),
        };
        if !app.recognisable() {
            return None;
        }
        let deadline = started + self.first_screen_limit;
        let ms = |d: Duration| d.as_millis() as u64;
        let mut reads = 0u32;
        // The start of the last read that showed the UI without the first screen.
        let mut absent_at = Duration::ZERO;
        let mut seen = String::from("no read finished");
        let ended = loop {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break Ended::Timeout;
            };
            let read_at = started.elapsed();
            let cmd = match self.describe_command(watch.tool, udid, left.min(UI_TIMEOUT)) {
                Ok(cmd) => cmd,
                Err(e) => break Ended::Failed(e.message),
            };
            reads += 1;
            match cmd.run().await {
                Ok(out) if out.success() => match first_screen::front(&out.stdout_text(), &app) {
                    Front::FirstScreen { .. } => break Ended::Shown,
                    other => {
                        seen = seen_text(&other);
                        absent_at = read_at;
                    }
                },
                Ok(out) => {
                    let words = out.stderr_text();
                    let line = words.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                    seen = format!("{} failed: {}", watch.tool.name(), line.trim());
                }
                // Stopped at the bound (or at a read's own limit, then read again).
                Err(ExecError::Timeout { .. }) => {}
                Err(ExecError::Busy { why, .. }) => seen = format!("no read: {why}"),
                Err(e) => break Ended::Failed(e.to_string()),
            }
            let left = deadline.saturating_duration_since(Instant::now());
            tokio::time::sleep(POLL_INTERVAL.min(left)).await;
        };
        let total = started.elapsed();
        let mut measure = StartupMeasure {
            measured_by: MeasuredBy::Mobilectl,
            status: None,
            launch_state: None,
            activity: None,
            total_time_ms: None,
            wait_time_ms: Some(ms(launch)),
            this_time_ms: None,
            earliest_ms: Some(ms(absent_at)),
            reads: Some(reads),
            warning: None,
            complete: false,
        };
        match ended {
            Ended::Shown => {
                measure.status = Some("ok".into());
                measure.total_time_ms = Some(ms(total));
                measure.complete = true;
            }
            Ended::Timeout => {
                measure.status = Some("timeout".into());
                measure.warning = Some(format!(
                    "no first screen within {} ms; last seen: {seen}",
                    ms(self.first_screen_limit)
                ));
            }
            Ended::Failed(why) => {
                measure.status = Some("failed".into());
                measure.warning = Some(format!("the UI could not be read: {why}"));
            }
        }
        Some(measure)
    }
}

/// What a read showed instead of the first screen, in words.
fn seen_text(front: &Front) -> String {
    match front {
        Front::Unreadable => "output that is no UI tree with an application".into(),
        Front::Other { label: None } => "an unnamed application in front (the home screen)".into(),
        Front::Other { label: Some(l) } => format!("`{l}` in front"),
        Front::Starting => "the app in front with no element of its own".into(),
        Front::FirstScreen { .. } => "the first screen".into(),
    }
}
