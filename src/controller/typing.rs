//! `type`: everything a request needs is checked before the first device command (length, text
//! no method can type, a disabled or non-editable target, no focused field on a fresh read),
//! so a refusal never leaves a field tapped or emptied. Tap, clear, type and Enter then go to
//! the backend as one job (one adb round trip on Android); the field is read back and the
//! answer says whether it holds the text: `success: false` with `TEXT_MISMATCH` or
//! `NO_FOCUSED_FIELD` when it does not. Password fields are never read back into the answer.

use serde_json::json;

use super::actions::Observe;
use super::DeviceController;
use crate::api::wire::act::{ActionResult, ActionTarget, TypeOptions};
use crate::backend::{InputStep, TypeJob};
use crate::error::{Error, ErrorCode, Result, Step};
use crate::ui::Screen;

/// The most characters one `type` takes; longer text is refused before anything runs (on
/// Android the device script grows with the text, and a shell argument cannot exceed 128 KiB).
pub const MAX_TYPE_CHARS: usize = 4096;

/// The focused editable element of a screen.
pub(super) fn focused_node(screen: &Screen) -> Option<usize> {
    screen
        .elements
        .iter()
        .position(|e| e.states.focused && e.states.editable)
        .or_else(|| {
            let r = screen.focused.as_deref()?;
            screen.refs.get(r).map(|e| e.node)
        })
}

fn text_of(screen: &Screen, node: usize) -> Option<String> {
    let e = &screen.elements[node];
    e.text.clone().or_else(|| e.value.clone())
}

/// The editable element at `node`: itself, or the first editable element inside it (a
/// clickable container around a text field).
fn editable_at(screen: &Screen, node: usize) -> Option<usize> {
    let mut stack = vec![node];
    while let Some(i) = stack.pop() {
        let e = &screen.elements[i];
        if e.states.editable {
            return Some(i);
        }
        stack.extend(e.children.iter().rev().copied());
    }
    None
}

/// Characters that no typing method carries.
fn untypable(text: &str) -> Option<char> {
    text.chars()
        .find(|c| c.is_control() && *c != '\n' && *c != '\t')
}

impl DeviceController {
    /// Types text into the focused field, or into `target` after tapping it; then reads the
    /// field back (unless `verify` is false) and says whether it holds the text.
    pub async fn type_text(&self, req: &TypeOptions) -> Result<ActionResult> {
        if req.text.is_empty() && !req.clear {
            return Err(Error::validation("`text` is empty")
                .with_next("pass {0} to empty a field", [Step::field_is("clear", true)]));
        }
        let chars = req.text.chars().count();
        if chars > MAX_TYPE_CHARS {
            return Err(Error::new(
                ErrorCode::PayloadTooLarge,
                format!("`text` has {chars} characters; one type takes at most {MAX_TYPE_CHARS}"),
            )
            .with_next(
                "type long text in several calls ({0} only on the first)",
                [Step::field("clear")],
            )
            .with_details(json!({ "limit": MAX_TYPE_CHARS, "chars": chars })));
        }
        if let Some(c) = untypable(&req.text) {
            return Err(Error::new(
                ErrorCode::UnsupportedText,
                format!("the control character U+{:04X} cannot be typed", c as u32),
            )
            .with_hint("remove control characters; newlines and tabs are fine"));
        }
        let mut action = self.begin(req.udid.as_deref(), "type").await?;
        let mut target_report = None;
        let mut tap = None;
        let mut field = None;
        if !req.target.is_empty() {
            let resolved = self.aim(&mut action, &req.target).await?;
            if let (Some(s), Some(n)) = (resolved.snapshot.clone(), resolved.node) {
                if !s.screen.elements[n].states.enabled {
                    return Err(Error::new(
                        ErrorCode::ElementNotInteractable,
                        "the field is disabled",
                    ));
                }
                match editable_at(&s.screen, n) {
                    Some(f) => field = Some(text_of(&s.screen, f)),
                    None => {
                        let report = ActionTarget::of(&req.target, &resolved);
                        let why =
                            json!({ "note": "the target is not a text field; nothing was done" });
                        return self.refused(
                            action,
                            Some(report),
                            ErrorCode::ElementNotEditable,
                            why,
                        );
                    }
                }
            }
            tap = Some(resolved.point());
            target_report = Some(ActionTarget::of(&req.target, &resolved));
        } else if let Some(s) = action.session.fresh() {
            // A fresh read shows where keys would go: nowhere editable means nothing to do.
            if focused_node(&s.screen).is_none() {
                let why = json!({ "note": "no text field has the focus; nothing was typed" });
                return self.refused(action, None, ErrorCode::NoFocusedField, why);
            }
            field = focused_node(&s.screen).map(|f| text_of(&s.screen, f));
        }
        let clear_chars = match (req.clear, field) {
            (false, _) => None,
            (true, Some(text)) => Some(text.map_or(0, |t| t.chars().count())),
            (true, None) => {
                let current = self
                    .fresh_or_dump_locked(&action.device, &action.session)
                    .await?;
                let now = focused_node(&current.screen).and_then(|f| text_of(&current.screen, f));
                Some(now.map_or(0, |t| t.chars().count()))
            }
        };
        let job = TypeJob {
            tap,
            clear_chars,
            text: &req.text,
            submit: req.submit,
        };
        // With the read-back, the job and the read are one step (one round trip on Android).
        let read_back = req.verify && !req.submit;
        let read = Observe {
            read: read_back,
            settle_ms: Some(0),
            measure: req.measure,
        };
        let acted = self
            .perform(&mut action, &InputStep::Type(job), read)
            .await?;
        let with = acted.typed_with.map_or("none", |w| w.0);
        let mut details = json!({ "typed_with": with, "chars": chars });
        let mut failure = None;
        if let Some(after) = action.latest() {
            match focused_node(&after.screen) {
                None => {
                    details["readback"] = json!(null);
                    details["matched"] = json!(false);
                    failure = Some(ErrorCode::NoFocusedField);
                }
                Some(f) if after.screen.elements[f].states.password => {
                    details["matched"] = json!(null);
                    details["note"] = json!("a password field: not read back");
                }
                Some(f) => {
                    let readback = text_of(&after.screen, f);
                    let matched = match &readback {
                        Some(v) if req.clear => v == &req.text,
                        Some(v) => v.contains(&req.text),
                        None => req.text.is_empty(),
                    };
                    if !matched {
                        failure = Some(ErrorCode::TextMismatch);
                    }
                    details["readback"] = json!(readback);
                    details["matched"] = json!(matched);
                }
            }
        }
        let mut result = self.finish(action, target_report, Some(details)).await?;
        if let Some(code) = failure {
            result.success = false;
            result.failure_code = Some(code);
            result.retryable = Some(code.retryable());
        }
        Ok(result)
    }
}
