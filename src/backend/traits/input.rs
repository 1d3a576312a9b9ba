//! Input on the device, in the backend's coordinate space
//! ([`crate::device::Capability::Input`], [`crate::device::Capability::MultiTouch`]), and
//! alerts ([`crate::device::Capability::Alerts`]).

use std::time::Duration;

use async_trait::async_trait;

use super::{Acted, AfterAction, InputStep, Logs, Screen, TypeJob, TypedWith};
use crate::device::{AlertChoice, Device, Key, KeyPress, MultiTouch as Gesture, Point};
use crate::error::Result;
use crate::logs::LogRead;
use crate::ui::{Alert, AlertButton};

/// Taps, presses, swipes, keys and typing.
#[async_trait]
pub trait Input: Send + Sync {
    /// Taps at a point.
    async fn tap(&self, device: &Device, at: Point) -> Result<()>;
    /// Presses at a point for `duration_ms` milliseconds.
    async fn long_press(&self, device: &Device, at: Point, duration_ms: u64) -> Result<()>;
    /// Swipes from one point to another in `duration_ms` milliseconds.
    async fn swipe(&self, device: &Device, from: Point, to: Point, duration_ms: u64) -> Result<()>;
    /// Types into the focused field; says which method was used.
    async fn type_text(&self, device: &Device, text: &str) -> Result<TypedWith>;
    /// Presses a key: a named one (home, back, enter…) or a platform key code.
    async fn press_key(&self, device: &Device, key: KeyPress) -> Result<()>;
    /// Dismisses the on-screen keyboard.
    async fn hide_keyboard(&self, device: &Device) -> Result<()>;
    /// Runs a typing job. A backend that can tell whether the text is typable at all checks
    /// that before the first step, so a refusal never leaves the field tapped or emptied; the
    /// default runs the steps one by one.
    async fn type_job(&self, device: &Device, job: &TypeJob<'_>) -> Result<TypedWith> {
        if let Some(at) = job.tap {
            self.tap(device, at).await?;
        }
        if let Some(n) = job.clear_chars {
            self.clear_field(device, n).await?;
        }
        let with = if job.text.is_empty() {
            TypedWith("none")
        } else {
            self.type_text(device, job.text).await?
        };
        if job.submit {
            self.press_key(device, KeyPress::Named(Key::Enter)).await?;
        }
        Ok(with)
    }
    /// Deletes `chars` characters before the cursor of the focused field (after moving the
    /// cursor to the end where the platform can).
    async fn clear_field(&self, device: &Device, chars: usize) -> Result<()> {
        for _ in 0..chars {
            self.press_key(device, KeyPress::Named(Key::Delete)).await?;
        }
        Ok(())
    }
    /// How long to let the screen settle after an input step before reading it, when the
    /// caller does not say: long enough for a transition to start showing. A backend whose
    /// dump itself waits for the UI to be idle answers zero.
    fn settle_time(&self) -> Duration {
        Duration::from_millis(300)
    }
    /// Runs one input step with the methods above.
    async fn act(&self, device: &Device, step: &InputStep<'_>) -> Result<Acted> {
        match step {
            InputStep::Tap(at) => self.tap(device, *at).await?,
            InputStep::LongPress { at, duration_ms } => {
                self.long_press(device, *at, *duration_ms).await?
            }
            InputStep::Swipe {
                from,
                to,
                duration_ms,
            } => self.swipe(device, *from, *to, *duration_ms).await?,
            InputStep::Press(key) => self.press_key(device, *key).await?,
            InputStep::Type(job) => {
                return Ok(Acted {
                    typed_with: Some(self.type_job(device, job).await?),
                })
            }
        }
        Ok(Acted::default())
    }
    /// Runs one input step, waits `settle`, then reads the screen with `screen` — and, when
    /// `log_tail` is given, the log's newest lines with `logs` after that (what tells the
    /// crash check how far the log must be read). The default does it step by step; a
    /// backend that can send all of it at once (Android: one device script, one adb round
    /// trip) overrides it. A refusal of the step (text it cannot type) comes before anything
    /// ran, as with [`Self::act`]. A log tail that could not be read is `None`, not an
    /// error: the action happened.
    async fn act_then_read(
        &self,
        device: &Device,
        step: &InputStep<'_>,
        settle: Duration,
        log_tail: Option<&LogRead>,
        screen: &dyn Screen,
        logs: Option<&dyn Logs>,
    ) -> Result<AfterAction> {
        let acted = self.act(device, step).await?;
        if !settle.is_zero() {
            tokio::time::sleep(settle).await;
        }
        let ui = screen.dump_ui(device).await?;
        let log = match (log_tail, logs) {
            (Some(read), Some(logs)) => logs.log_read(device, read).await.ok(),
            _ => None,
        };
        Ok(AfterAction { acted, ui, log })
    }
}

/// Two fingers at once.
#[async_trait]
pub trait MultiTouchInput: Send + Sync {
    /// Two fingers at once around `center` (a pinch or a rotation), where the platform can
    /// inject simultaneous touches. Never faked with one finger after the other.
    async fn multi_touch(&self, device: &Device, center: Point, gesture: Gesture) -> Result<()>;
}

/// Alerts: the controller finds one in the UI tree (or asks the device), picks the button,
/// and has it answered here.
#[async_trait]
pub trait Alerts: Send + Sync {
    /// The alert on screen as the device itself reports it (WebDriverAgent's
    /// `GET /alert/text`), asked when the UI tree shows none. The default: none.
    async fn native_alert(&self, _device: &Device) -> Result<Option<Alert>> {
        Ok(None)
    }
    /// Answers the alert on screen: the controller found it and picked `button` for
    /// `choice`. A backend without alert commands of its own taps it ([`tap_button`]); one
    /// with them (WebDriverAgent's `/alert/accept`) uses them.
    async fn answer_alert(
        &self,
        device: &Device,
        choice: &AlertChoice,
        button: &AlertButton,
    ) -> Result<()>;
}

/// Answers an alert by tapping the centre of its button.
pub async fn tap_button(input: &dyn Input, device: &Device, button: &AlertButton) -> Result<()> {
    let (x, y) = button.bounds.center();
    let at = Point {
        x: x.round(),
        y: y.round(),
    };
    input.tap(device, at).await
}
