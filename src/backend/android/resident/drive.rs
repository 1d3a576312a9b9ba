//! Reads and acts through a running server: the page source (with the focused window, read
//! by adb only when the screen's structure changed, [`super::super::focus`]), taps, presses
//! and swipes as W3C pointer actions, keys by code, text set into the focused field. Each
//! answers `Err(fallback)` when it could not: the caller then does the same with the
//! one-shot tools and passes the note on, when there is one.

use std::sync::Arc;

use reqwest::Method;

use super::start::Server;
use super::{protocol, Fallback};
use crate::backend::android::input::keycode;
use crate::backend::android::AdbBackend;
use crate::backend::{InputStep, TypeJob, TypedWith, UiSource};
use crate::device::{Device, Key, KeyPress};

/// The name of the reads made through the server, in snapshots (`source`).
pub const TOOL: &str = "uiautomator2-server";

/// How a `type` is reported when the server set the text.
pub const TYPED_WITH: &str = "uiautomator2_set_text";

impl AdbBackend {
    /// The screen, read by `server`.
    pub(crate) async fn resident_read(
        &self,
        server: &Arc<Server>,
        device: &Device,
    ) -> Result<UiSource, Fallback> {
        let value = self
            .resident_call(server, Method::GET, "/source", None)
            .await?;
        let xml = match protocol::page_source(value) {
            Ok(xml) => xml,
            Err(r) => {
                let warning = format!("the UiAutomator2 server's page source is unusable ({r}); uiautomator dump reads instead");
                self.give_up(server, super::Absent::Failed(r.to_string()))
                    .await;
                return Err(Some(warning));
            }
        };
        let foreground = self.focus_of(&device.udid, &xml).await;
        Ok(UiSource {
            text: xml,
            tool: TOOL,
            foreground,
            notes: Vec::new(),
            web: Vec::new(),
        })
    }

    /// Runs one input step through `server`.
    pub(crate) async fn resident_act(
        &self,
        server: &Arc<Server>,
        step: &InputStep<'_>,
    ) -> Result<Option<TypedWith>, Fallback> {
        match step {
            InputStep::Tap(at) => self.pointer(server, protocol::tap(*at)).await?,
            InputStep::LongPress { at, duration_ms } => {
                self.pointer(server, protocol::long_press(*at, *duration_ms))
                    .await?
            }
            InputStep::Swipe {
                from,
                to,
                duration_ms,
            } => {
                self.pointer(server, protocol::swipe(*from, *to, *duration_ms))
                    .await?
            }
            InputStep::Press(key) => self.resident_key(server, *key).await?,
            InputStep::Type(job) => return self.resident_type(server, job).await.map(Some),
        }
        Ok(None)
    }

    async fn pointer(
        &self,
        server: &Arc<Server>,
        actions: serde_json::Value,
    ) -> Result<(), Fallback> {
        self.resident_call(server, Method::POST, "/actions", Some(&actions))
            .await
            .map(drop)
    }

    /// A key by its Android code. A named key Android lacks is refused by the caller's
    /// one-shot path, which says so.
    async fn resident_key(&self, server: &Arc<Server>, key: KeyPress) -> Result<(), Fallback> {
        let code = match key {
            KeyPress::Code(c) => c,
            // The one-shot path refuses it, saying so.
            KeyPress::Named(k) => keycode(k).ok_or(None)?,
        };
        self.resident_call(
            server,
            Method::POST,
            "/appium/device/press_keycode",
            Some(&protocol::key_code(code)),
        )
        .await
        .map(drop)
    }

    /// Tap, then the text set into the focused field (in place of what it holds when the
    /// job clears it), then Enter.
    async fn resident_type(
        &self,
        server: &Arc<Server>,
        job: &TypeJob<'_>,
    ) -> Result<TypedWith, Fallback> {
        if let Some(at) = job.tap {
            self.pointer(server, protocol::tap(at)).await?;
        }
        let with = if job.text.is_empty() && job.clear_chars.is_none() {
            TypedWith("none")
        } else {
            self.resident_call(
                server,
                Method::POST,
                "/keys",
                Some(&protocol::keys(job.text, job.clear_chars.is_some())),
            )
            .await?;
            TypedWith(if job.text.is_empty() {
                "none"
            } else {
                TYPED_WITH
            })
        };
        if job.submit {
            self.resident_key(server, KeyPress::Named(Key::Enter))
                .await?;
        }
        Ok(with)
    }
}
