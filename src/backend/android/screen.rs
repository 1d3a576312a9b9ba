//! Reading an Android screen: the UI dump (uiautomator to a file, then `cat`, plus the focused
//! window from `dumpsys window` when the screen's structure changed since it was last read,
//! all in one adb round trip, retried on uiautomator's transient failures) and screenshots
//! (`exec-out screencap -p`).

use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;

use super::AdbBackend;
use crate::backend::Screen;
use crate::backend::UiSource;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};

/// Where the dump is written on the device.
pub const DUMP_PATH: &str = "/data/local/tmp/mobilectl.xml";
const FOCUS_MARKER: &str = "__MOBILECTL_FOCUS__";
/// Starts the line with the dump's structure (see [`dump_script`]).
const SHAPE_MARKER: &str = "__MOBILECTL_SHAPE__";
/// Time limit of one dump attempt.
pub const DUMP_TIMEOUT: Duration = Duration::from_secs(30);
const SCREENCAP_TIMEOUT: Duration = Duration::from_secs(20);
/// Tries of a dump before giving up.
pub const DUMP_ATTEMPTS: u32 = 3;

/// The one script of a snapshot: the dump (on failure, uiautomator's own words instead of
/// XML), then the dump's structure — the `cksum` of its package, class and resource-id
/// attributes in order (no text, no bounds) — then the focused window from `dumpsys window`,
/// only when the structure is not `known` (the structure of this device's last focus read).
/// Another window or activity in front changes the structure; typing, scrolling alike rows or
/// ticking a box does not, and then the read runs one device tool (uiautomator; `grep` and
/// `cksum` are tiny). (No shell builtins touch the dump's path, so a sandboxed device maps it
/// like a real one.)
pub fn dump_script(known: Option<&str>) -> String {
    format!(
        "rm -f {p}; out=$(uiautomator dump {p} 2>&1); cat {p} 2>/dev/null || echo \"$out\"; \
         echo; echo {FOCUS_MARKER}; \
         s=$(grep -oE ' (package|class|resource-id)=\"[^\"]*\"' {p} 2>/dev/null | cksum); \
         echo \"{SHAPE_MARKER}$s\"; \
         [ \"$s\" = {known} ] || dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'",
        p = DUMP_PATH,
        known = super::shell::quote(known.unwrap_or("")),
    )
}

/// The focus part of a dump's output.
#[derive(Debug, PartialEq, Clone)]
pub enum Focus {
    /// `dumpsys window` ran: the focused window (`package/activity`), when it named one.
    Read(Option<String>),
    /// The structure was the known one: the last focus read holds.
    Unchanged,
}

/// What one dump attempt gave.
#[derive(Debug, PartialEq)]
pub enum DumpOutcome {
    /// A dump: uiautomator's XML, its structure, and the focused window.
    Xml {
        /// The uiautomator XML, trimmed.
        xml: String,
        /// The dump's structure as the device summed it (`cksum`'s answer).
        shape: Option<String>,
        /// The focused window, or that it is the last one read.
        focus: Focus,
    },
    /// uiautomator's transient failures: worth another try.
    Transient(String),
    /// Any other failure, in uiautomator's words: not retried.
    Failed(String),
}

/// `mCurrentFocus=Window{… u0 com.example/com.example.MainActivity}` → `com.example/com.example.MainActivity`.
pub fn parse_focus(text: &str) -> Option<String> {
    let line = text
        .lines()
        .find(|l| l.contains("mCurrentFocus") && l.contains('/'))
        .or_else(|| {
            text.lines()
                .find(|l| l.contains("mFocusedApp") && l.contains('/'))
        })?;
    line.split_whitespace()
        .find(|w| w.contains('/'))
        .map(|w| w.trim_end_matches('}').to_string())
}

/// What the output of [`dump_script`] is: the dump and focus, or a failure transient or not.
pub fn classify_dump(output: &str) -> DumpOutcome {
    let (body, tail) = output.split_once(FOCUS_MARKER).unwrap_or((output, ""));
    let shape = tail
        .lines()
        .find_map(|l| l.trim().strip_prefix(SHAPE_MARKER))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let focus_lines: String = tail
        .lines()
        .filter(|l| !l.contains(SHAPE_MARKER))
        .collect::<Vec<_>>()
        .join("\n");
    let focus = if shape.is_some() && focus_lines.trim().is_empty() {
        Focus::Unchanged
    } else {
        Focus::Read(parse_focus(&focus_lines))
    };
    let body = body.trim();
    if body.starts_with("<?xml") || body.starts_with("<hierarchy") {
        return DumpOutcome::Xml {
            xml: body.to_string(),
            shape,
            focus,
        };
    }
    let lower = body.to_ascii_lowercase();
    if body.is_empty()
        || lower.contains("could not get idle state")
        || lower.contains("null root node")
        || lower.contains("killed")
    {
        DumpOutcome::Transient(body.to_string())
    } else {
        DumpOutcome::Failed(body.to_string())
    }
}

#[async_trait]
impl Screen for AdbBackend {
    /// `wm density`: the override when there is one, else the physical density.
    async fn density(&self, device: &Device) -> Option<f64> {
        let out = self
            .shell(&device.udid, "wm density", super::QUICK_TIMEOUT)
            .await
            .ok()?;
        parse_wm_density(&out.stdout_text())
    }

    async fn screenshot_png(&self, device: &Device) -> Result<Vec<u8>> {
        let out = self
            .exec_out(&device.udid, "screencap -p", SCREENCAP_TIMEOUT)
            .await?;
        if !out.stdout.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err(Error::new(
                ErrorCode::CommandFailed,
                "screencap did not return a PNG",
            )
            .with_hint("the screen may be secure (FLAG_SECURE) or the display off")
            .with_details(json!({ "output": String::from_utf8_lossy(&out.stdout[..out.stdout.len().min(500)]) })));
        }
        Ok(out.stdout)
    }

    /// The screen read by the resident UiAutomator2 server where it runs, else (and when it
    /// fails, said in the read's notes) the UI dump; a WebView that shows nothing and cannot
    /// be read over DevTools is said in the notes too ([`super::web`]).
    async fn dump_ui(&self, device: &Device) -> Result<UiSource> {
        let mut notes = Vec::new();
        let read = match self.resident(&device.udid).await {
            Ok(server) => match self.resident_read(&server, device).await {
                Ok(source) => Some(source),
                Err(note) => {
                    notes.extend(note);
                    None
                }
            },
            Err(note) => {
                notes.extend(note);
                None
            }
        };
        let mut source = match read {
            Some(source) => source,
            None => self.uiautomator_dump(device).await?,
        };
        source.notes = notes;
        self.add_web(&device.udid, &mut source).await;
        Ok(source)
    }
}

impl AdbBackend {
    /// The UI dump, retried with backoff on uiautomator's transient failures.
    pub(crate) async fn uiautomator_dump(&self, device: &Device) -> Result<UiSource> {
        let known = self.focus.device_shape(&device.udid);
        let script = dump_script(known.as_deref());
        let mut last = String::new();
        for attempt in 0..DUMP_ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(Duration::from_millis(250 * 2u64.pow(attempt - 1))).await;
            }
            let out = self.exec_out(&device.udid, &script, DUMP_TIMEOUT).await?;
            match classify_dump(&out.stdout_text()) {
                DumpOutcome::Xml { xml, shape, focus } => {
                    return Ok(UiSource {
                        text: xml,
                        tool: "uiautomator",
                        foreground: self.focus.settle(&device.udid, shape, focus),
                        notes: Vec::new(),
                        web: Vec::new(),
                    })
                }
                DumpOutcome::Transient(words) => {
                    tracing::info!(attempt, words = %words, "uiautomator dump failed; retrying");
                    last = words;
                }
                DumpOutcome::Failed(words) => {
                    return Err(Error::new(
                        ErrorCode::CommandFailed,
                        format!(
                            "uiautomator dump failed: {}",
                            words.lines().next().unwrap_or("")
                        ),
                    )
                    .with_details(json!({ "output": words })))
                }
            }
        }
        Err(Error::new(
            ErrorCode::CommandFailed,
            format!(
                "uiautomator dump failed {DUMP_ATTEMPTS} times: {}",
                if last.is_empty() { "empty output" } else { last.as_str() }
            ),
        )
        .with_hint("the screen may be animating (disable animations in Developer options) or another UiAutomation client holds the device")
        .with_details(json!({ "output": last, "attempts": DUMP_ATTEMPTS })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_with_focus() {
        let out = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"></hierarchy>\n\n__MOBILECTL_FOCUS__\n__MOBILECTL_SHAPE__3515704829 40\n  mCurrentFocus=Window{5c3 u0 com.example/com.example.MainActivity}\n  mFocusedApp=ActivityRecord{1 u0 com.example/.MainActivity t12}\n";
        let DumpOutcome::Xml { xml, shape, focus } = classify_dump(out) else {
            panic!()
        };
        assert!(xml.ends_with("</hierarchy>"));
        assert_eq!(shape.as_deref(), Some("3515704829 40"));
        assert_eq!(
            focus,
            Focus::Read(Some("com.example/com.example.MainActivity".into()))
        );
        // The structure was the known one: dumpsys did not run.
        let same = "<hierarchy rotation=\"0\"></hierarchy>\n__MOBILECTL_FOCUS__\n__MOBILECTL_SHAPE__3515704829 40\n";
        let DumpOutcome::Xml { focus, .. } = classify_dump(same) else {
            panic!()
        };
        assert_eq!(focus, Focus::Unchanged);
    }

    #[test]
    fn transient_and_hard_failures() {
        assert!(matches!(
            classify_dump("ERROR: could not get idle state.\n\n__MOBILECTL_FOCUS__\n"),
            DumpOutcome::Transient(_)
        ));
        assert!(matches!(classify_dump(""), DumpOutcome::Transient(_)));
        assert!(matches!(
            classify_dump("ERROR: null root node returned by UiTestAutomationBridge."),
            DumpOutcome::Transient(_)
        ));
        assert!(matches!(
            classify_dump("/system/bin/sh: uiautomator: not found"),
            DumpOutcome::Failed(_)
        ));
    }

    #[test]
    fn focus_from_recorded_dumpsys() {
        let emulator = include_str!(
            "../../../fixtures/android_misc/dumpsys_activity_activities_api34_emulator.txt"
        );
        assert_eq!(
            parse_focus(emulator).as_deref(),
            Some("com.google.android.apps.nexuslauncher/com.google.android.apps.nexuslauncher.NexusLauncherActivity")
        );
        // The notification shade has focus (no activity): the focused app is reported.
        let mtk = include_str!(
            "../../../fixtures/android_misc/dumpsys_activity_activities_android13_mtk.txt"
        );
        assert_eq!(
            parse_focus(mtk).as_deref(),
            Some("com.mediatek.camera/.CameraLauncher")
        );
    }
}

/// `Physical density: 420` (and `Override density: 480`, which wins).
pub fn parse_wm_density(text: &str) -> Option<f64> {
    let value = |prefix: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(prefix))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|d| *d > 0.0)
    };
    value("Override density:").or_else(|| value("Physical density:"))
}

#[cfg(test)]
mod density_tests {
    #[test]
    fn the_override_density_wins() {
        assert_eq!(
            super::parse_wm_density("Physical density: 420\n"),
            Some(420.0)
        );
        assert_eq!(
            super::parse_wm_density("Physical density: 420\nOverride density: 480\n"),
            Some(480.0)
        );
        assert_eq!(super::parse_wm_density("wm: error"), None);
    }
}
