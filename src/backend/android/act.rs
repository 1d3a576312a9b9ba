//! An input step and the screen read after it, as one device script (one adb round trip): the
//! step's commands, a marker, the settle time, then the snapshot script of [`super::screen`],
//! and — when the crash check asks — the log's newest line (`logcat -d -t 1`) after a second
//! marker. What `tap` with `observe`, `type` with its read-back and each step of `scroll-to`
//! cost: one `uiautomator dump` plus the input, with no second connection.
//!
//! The step comes first and is checked as [`super::AdbBackend::input`] checks it; text that
//! needs the ADB Keyboard is refused by the IME guard before anything ran (the script ends
//! there, without the marker). A dump that fails after the step is read again with the usual
//! retries.

use crate::backend::tap_button;
use crate::backend::Alerts;
use crate::backend::Input;
use crate::backend::Logs;
use crate::backend::Screen;
use crate::backend::TypeJob;
use crate::device::AlertChoice;
use crate::device::Key;
use crate::device::KeyPress;
use crate::device::Point;
use crate::ui::AlertButton;
use async_trait::async_trait;

use std::time::Duration;

use super::input::{self, NO_IME_MARKER};
use super::logs::missing_buffer;
use super::screen::{classify_dump, dump_script, DumpOutcome, DUMP_TIMEOUT};
use super::{check_input_output, input_time_limit, AdbBackend};
use crate::backend::{Acted, AfterAction, InputStep, TypedWith, UiSource};
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::logs::{LogFormat, LogRead, LogText};

/// Printed between the step's output and the dump's.
const ACTED_MARKER: &str = "__MOBILECTL_ACTED__";
/// Printed between the dump's output and the log's.
const LOG_MARKER: &str = "__MOBILECTL_LOG__";

/// The device commands of a step, and the typing method for a `Type`.
pub fn step_script(step: &InputStep<'_>) -> Result<(String, Option<&'static str>)> {
    Ok(match step {
        InputStep::Tap(at) => (input::tap_script(*at), None),
        InputStep::LongPress { at, duration_ms } => {
            (input::swipe_script(*at, *at, *duration_ms), None)
        }
        InputStep::Swipe {
            from,
            to,
            duration_ms,
        } => (input::swipe_script(*from, *to, *duration_ms), None),
        InputStep::Press(key) => (input::key_script(*key)?, None),
        InputStep::Type(job) => {
            let (script, with) = input::type_job_script(job)?;
            (script, Some(with))
        }
    })
}

/// The whole script: the step (its errors joined to its output), the marker, the settle
/// time, the dump.
pub fn act_and_dump_script(
    step: &str,
    settle: Duration,
    known: Option<&str>,
    log_read: Option<&str>,
) -> String {
    let mut s = format!("{{ {step}; }} 2>&1; echo {ACTED_MARKER}; ");
    if !settle.is_zero() {
        s += &format!("sleep {:.3}; ", settle.as_secs_f64());
    }
    s += &dump_script(known);
    if let Some(read) = log_read {
        s += &format!("; echo {LOG_MARKER}; {read} 2>&1");
    }
    s
}

/// The dump's output and the log's, when the script read it.
pub fn split_log(dump_output: &str) -> (&str, Option<&str>) {
    match dump_output.split_once(LOG_MARKER) {
        Some((dump, log)) => (dump, Some(log.strip_prefix('\n').unwrap_or(log))),
        None => (dump_output, None),
    }
}

/// The step's output and the dump's, or the refusal the step printed.
pub fn split_output(output: &str, text: &str) -> Result<(String, String)> {
    match output.split_once(ACTED_MARKER) {
        Some((step, dump)) => Ok((step.to_string(), dump.to_string())),
        None if output.contains(NO_IME_MARKER) => Err(input::unsupported_text(text)),
        None => Err(
            Error::new(ErrorCode::CommandFailed, "the input step did not complete")
                .with_details(serde_json::json!({ "output": output })),
        ),
    }
}

#[async_trait]
impl Input for AdbBackend {
    async fn tap(&self, device: &Device, at: Point) -> Result<()> {
        if self
            .act_by_resident(device, &InputStep::Tap(at))
            .await
            .is_some()
        {
            return Ok(());
        }
        self.input(device, &input::tap_script(at)).await.map(drop)
    }

    async fn long_press(&self, device: &Device, at: Point, duration_ms: u64) -> Result<()> {
        if self
            .act_by_resident(device, &InputStep::LongPress { at, duration_ms })
            .await
            .is_some()
        {
            return Ok(());
        }
        self.input(device, &input::swipe_script(at, at, duration_ms))
            .await
            .map(drop)
    }

    async fn swipe(&self, device: &Device, from: Point, to: Point, duration_ms: u64) -> Result<()> {
        if self
            .act_by_resident(
                device,
                &InputStep::Swipe {
                    from,
                    to,
                    duration_ms,
                },
            )
            .await
            .is_some()
        {
            return Ok(());
        }
        self.input(device, &input::swipe_script(from, to, duration_ms))
            .await
            .map(drop)
    }

    async fn type_text(&self, device: &Device, text: &str) -> Result<TypedWith> {
        let job = TypeJob {
            tap: None,
            clear_chars: None,
            text,
            submit: false,
        };
        self.type_job(device, &job).await
    }

    /// Tap, clear, type and Enter in one adb round trip; text that needs the ADB Keyboard is
    /// checked on the device before the first step.
    async fn type_job(&self, device: &Device, job: &TypeJob<'_>) -> Result<TypedWith> {
        if let Some(Some(with)) = self
            .act_by_resident(device, &InputStep::Type(job.clone()))
            .await
        {
            return Ok(with);
        }
        let (script, with) = input::type_job_script(job)?;
        if self
            .input(device, &script)
            .await?
            .contains(input::NO_IME_MARKER)
        {
            return Err(input::unsupported_text(job.text));
        }
        Ok(TypedWith(with))
    }

    async fn press_key(&self, device: &Device, key: KeyPress) -> Result<()> {
        if self
            .act_by_resident(device, &InputStep::Press(key))
            .await
            .is_some()
        {
            return Ok(());
        }
        self.input(device, &input::key_script(key)?).await.map(drop)
    }

    async fn clear_field(&self, device: &Device, chars: usize) -> Result<()> {
        self.input(device, &input::clear_script(chars))
            .await
            .map(drop)
    }

    async fn hide_keyboard(&self, device: &Device) -> Result<()> {
        let back = InputStep::Press(KeyPress::Named(Key::Back));
        if self.act_by_resident(device, &back).await.is_some() {
            return Ok(());
        }
        self.input(device, &input::key_script(KeyPress::Named(Key::Back))?)
            .await
            .map(drop)
    }

    /// `uiautomator dump` waits for the UI to be idle before it reads, so no settle time is
    /// added by default.
    fn settle_time(&self) -> Duration {
        Duration::ZERO
    }

    async fn act_then_read(
        &self,
        device: &Device,
        step: &InputStep<'_>,
        settle: Duration,
        log_tail: Option<&LogRead>,
        _screen: &dyn Screen,
        logs: Option<&dyn Logs>,
    ) -> Result<AfterAction> {
        let mut notes = Vec::new();
        let resident = match self.resident(&device.udid).await {
            Ok(server) => Some(server),
            Err(note) => {
                notes.extend(note);
                None
            }
        };
        if let Some(server) = resident {
            match self.resident_act(&server, step).await {
                Ok(typed_with) => {
                    if !settle.is_zero() {
                        tokio::time::sleep(settle).await;
                    }
                    let ui = match self.resident_read(&server, device).await {
                        Ok(mut ui) => {
                            self.add_web(&device.udid, &mut ui).await;
                            ui
                        }
                        Err(note) => {
                            let mut ui = self.dump_ui(device).await?;
                            ui.notes.splice(0..0, note);
                            ui
                        }
                    };
                    let log = match (log_tail, logs) {
                        (Some(read), Some(logs)) => logs.log_read(device, read).await.ok(),
                        _ => None,
                    };
                    return Ok(AfterAction {
                        acted: Acted { typed_with },
                        ui,
                        log,
                    });
                }
                Err(note) => notes.extend(note),
            }
        }
        let (script, typed_with) = step_script(step)?;
        let limit = input_time_limit(&script) + settle + DUMP_TIMEOUT * 2;
        let log_read = log_tail.map(|r| self.log_read_script(&device.udid, r));
        let known = self.focus.device_shape(&device.udid);
        let whole = act_and_dump_script(&script, settle, known.as_deref(), log_read.as_deref());
        let out = self.exec_out(&device.udid, &whole, limit).await?;
        let text = match step {
            InputStep::Type(job) => job.text,
            _ => "",
        };
        let (step_output, rest) = split_output(&out.stdout_text(), text)?;
        check_input_output(&step_output)?;
        let acted = Acted {
            typed_with: typed_with.map(TypedWith),
        };
        let (dump_output, log_output) = split_log(&rest);
        let ui = match classify_dump(dump_output) {
            DumpOutcome::Xml { xml, shape, focus } => UiSource {
                text: xml,
                tool: "uiautomator",
                foreground: self.focus.settle(&device.udid, shape, focus),
                notes: Vec::new(),
                web: Vec::new(),
            },
            // The step ran; only the read failed: read again, with the usual retries.
            _ => self.uiautomator_dump(device).await?,
        };
        let mut ui = ui;
        ui.notes = notes;
        // A log the device could not read as asked (a buffer it lacks) is left to the crash
        // check's own read, which knows what to do about it.
        let log = log_output
            .filter(|l| missing_buffer(l).is_none())
            .map(|l| LogText {
                format: LogFormat::AndroidLogcat,
                bytes: l.as_bytes().to_vec(),
            });
        self.add_web(&device.udid, &mut ui).await;
        Ok(AfterAction { acted, ui, log })
    }
}

impl AdbBackend {
    /// Runs `step` through the resident server where one runs: `Some` with what it reported
    /// when it did, `None` when the caller must use the one-shot tools (no server, or it
    /// failed: logged, and later calls use the tools too).
    async fn act_by_resident(
        &self,
        device: &Device,
        step: &InputStep<'_>,
    ) -> Option<Option<TypedWith>> {
        let server = self.resident(&device.udid).await.ok()?;
        self.resident_act(&server, step).await.ok()
    }
}

/// Alerts are found in the UI tree and answered by tapping their button.
#[async_trait]
impl Alerts for AdbBackend {
    async fn answer_alert(
        &self,
        device: &Device,
        _choice: &AlertChoice,
        button: &AlertButton,
    ) -> Result<()> {
        tap_button(self, device, button).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::TypeJob;
    use crate::device::{Key, KeyPress, Point};

    #[test]
    fn the_step_comes_first_then_the_marker_the_settle_and_the_dump() {
        let (step, with) = step_script(&InputStep::Tap(Point {
            x: 540.0,
            y: 1290.4,
        }))
        .unwrap();
        assert_eq!((step.as_str(), with), ("input tap 540 1290", None));
        let s = act_and_dump_script(&step, Duration::from_millis(250), None, None);
        let marker = s.find(ACTED_MARKER).unwrap();
        assert!(s.starts_with("{ input tap 540 1290; } 2>&1; echo "), "{s}");
        assert!(s[marker..].contains("sleep 0.250; "), "{s}");
        assert!(s.ends_with(&dump_script(None)), "{s}");
        assert!(!act_and_dump_script(&step, Duration::ZERO, None, None).contains("sleep"));
    }

    #[test]
    fn typing_keeps_its_ime_guard_ahead_of_everything() {
        let job = TypeJob {
            tap: Some(Point { x: 10.0, y: 20.0 }),
            clear_chars: Some(2),
            text: "héllo",
            submit: false,
        };
        let (step, with) = step_script(&InputStep::Type(job)).unwrap();
        assert_eq!(with, Some("adb_keyboard"));
        let s = act_and_dump_script(&step, Duration::ZERO, None, None);
        let guard = s.find(NO_IME_MARKER).unwrap();
        let tap = s.find("input tap 10 20").unwrap();
        assert!(guard < tap, "{s}");
    }

    #[test]
    fn the_log_tail_comes_after_the_dump() {
        let s = act_and_dump_script(
            "input tap 1 2",
            Duration::ZERO,
            None,
            Some("logcat -d -t 1"),
        );
        assert!(
            s.ends_with("; echo __MOBILECTL_LOG__; logcat -d -t 1 2>&1"),
            "{s}"
        );
        let out = "<hierarchy/>\n__MOBILECTL_FOCUS__\nfocus\n__MOBILECTL_LOG__\n11-23 10:00:00.000  1  2 I x: y\n";
        let (dump, log) = split_log(out);
        assert!(dump.ends_with("focus\n"), "{dump:?}");
        assert_eq!(log, Some("11-23 10:00:00.000  1  2 I x: y\n"));
        assert_eq!(split_log("<hierarchy/>").1, None);
    }

    #[test]
    fn outputs_are_split_at_the_marker() {
        let out = format!("\n{ACTED_MARKER}\n<?xml version='1.0'?><hierarchy/>");
        let (step, dump) = split_output(&out, "").unwrap();
        assert_eq!(step.trim(), "");
        assert!(dump.contains("<hierarchy"));
        let refused = split_output(&format!("{NO_IME_MARKER}\n"), "héllo").unwrap_err();
        assert_eq!(refused.code, ErrorCode::UnsupportedText);
        let cut = split_output("", "").unwrap_err();
        assert_eq!(cut.code, ErrorCode::CommandFailed);
        let key = step_script(&InputStep::Press(KeyPress::Named(Key::Back)))
            .unwrap()
            .0;
        assert_eq!(key, "input keyevent 4");
    }
}
