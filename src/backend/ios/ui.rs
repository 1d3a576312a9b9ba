//! The simulator UI through AXe (preferred) or idb: which one runs, the native dump, and the
//! gestures. Coordinates are in points (the UI tree's space), never screenshot pixels.
//!
//! AXe: `axe describe-ui --udid U`, `axe tap -x X -y Y --udid U`, `axe tap --id|--label V
//! --udid U`, `axe touch -x X -y Y --down --up --delay S --udid U` (long press),
//! `axe swipe --start-x … --start-y … --end-x … --end-y … --duration S --udid U`.
//! idb: `idb ui describe-all --json --udid U`, `idb ui tap X Y [--duration S] --udid U`,
//! `idb ui swipe X1 Y1 X2 Y2 --duration S --udid U` (idb takes integer coordinates).

use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;

use super::keys::{self, ios_key, IosKey};
use super::typing::{is_hid_typeable, HID_MINUS};
use super::SimctlBackend;
use crate::backend::tap_button;
use crate::backend::validate::screen_point as check_point;
use crate::backend::Alerts;
use crate::backend::Input;
use crate::backend::TypedWith;
use crate::backend::{command_failed, exec_error, tool_command, unsupported};
use crate::device::AlertChoice;
use crate::device::Device;
use crate::device::KeyPress;
use crate::device::{Platform, Point};
use crate::error::{Error, ErrorCode, Result};
use crate::exec::{Command, Output, Tool};
use crate::ui::AlertButton;

/// Time limit of a UI command, on top of the gesture's own duration.
pub const UI_TIMEOUT: Duration = Duration::from_secs(30);
/// AXe refuses touch holds longer than this.
const MAX_HOLD_MS: u64 = 10_000;

/// The tool that drives the simulator UI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UiTool {
    /// AXe (`axe`), preferred.
    Axe,
    /// Meta's idb (`idb`).
    Idb,
}

impl UiTool {
    /// The tool's command name (`axe`, `idb`), as reports show it.
    pub fn name(self) -> &'static str {
        match self {
            UiTool::Axe => "axe",
            UiTool::Idb => "idb",
        }
    }

    /// The tool as the toolbox knows it.
    pub fn tool(self) -> Tool {
        match self {
            UiTool::Axe => Tool::Axe,
            UiTool::Idb => Tool::Idb,
        }
    }
}

/// How AXe finds an element by itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AxeSelector {
    /// The accessibility identifier (`axe tap --id`).
    Id(String),
    /// The accessibility label (`axe tap --label`).
    Label(String),
}

/// `TOOL_MISSING` when neither UI tool is installed, with both install hints.
pub fn ui_tools_missing() -> Error {
    Error::new(
        ErrorCode::ToolMissing,
        "iOS UI automation needs AXe or idb, and neither was found",
    )
    .with_hint(format!(
        "{}; alternatively {}. Device, app, screenshot and settings routes work without them",
        Tool::Axe.install_hint(),
        Tool::Idb.install_hint()
    ))
    .with_details(json!({
        "tools": ["axe", "idb"],
        "env_override": [Tool::Axe.env_override(), Tool::Idb.env_override()],
    }))
}

/// A coordinate as AXe takes it: whole numbers without a fraction, else two decimals.
pub fn axe_coord(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A coordinate as idb takes it (argparse `type=int`).
pub fn idb_coord(v: f64) -> String {
    (v.round() as i64).to_string()
}

/// Milliseconds as seconds for `--duration`/`--delay` (`500` → `0.5`).
pub fn seconds(ms: u64) -> String {
    let s = format!("{:.3}", ms as f64 / 1000.0);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl SimctlBackend {
    /// AXe when it is installed, else idb, else `TOOL_MISSING`.
    pub fn ui_tool(&self) -> Result<UiTool> {
        if self.tools.path(Tool::Axe).is_some() {
            Ok(UiTool::Axe)
        } else if self.tools.path(Tool::Idb).is_some() {
            Ok(UiTool::Idb)
        } else {
            Err(ui_tools_missing())
        }
    }

    /// `axe ARGS` or `idb ui ARGS`.
    pub(super) fn ui_command(&self, tool: UiTool) -> Result<Command> {
        let cmd = tool_command(&self.tools, tool.tool())?;
        Ok(match tool {
            UiTool::Axe => cmd,
            UiTool::Idb => cmd.arg("ui"),
        })
    }

    /// Runs a UI command; a non-zero exit is `COMMAND_FAILED` with the tool's words.
    pub(super) async fn ui_run(&self, tool: UiTool, cmd: Command, what: &str) -> Result<Output> {
        let out = cmd.run().await.map_err(|e| exec_error(tool.tool(), e))?;
        if out.success() {
            Ok(out)
        } else {
            Err(command_failed(tool.tool(), what, &out))
        }
    }

    /// Taps an element that AXe finds itself by identifier or label (AXe only).
    pub async fn tap_element(&self, udid: &str, by: &AxeSelector) -> Result<()> {
        let (flag, value) = match by {
            AxeSelector::Id(v) => ("--id", v),
            AxeSelector::Label(v) => ("--label", v),
        };
        if value.is_empty() {
            return Err(Error::validation("the identifier or label is empty"));
        }
        if self.ui_tool()? == UiTool::Idb {
            return Err(unsupported(
                "tapping by identifier or label with idb",
                Platform::Ios.name(),
            )
            .with_hint("tap the element's centre by coordinates, or install AXe"));
        }
        let args = vec!["tap".into(), flag.into(), value.clone()];
        self.gesture(UiTool::Axe, udid, args, 0, "tap").await
    }

    /// Runs `ARGS --udid UDID` with the UI tool; the time limit grows with the gesture.
    pub(super) async fn gesture(
        &self,
        tool: UiTool,
        udid: &str,
        mut args: Vec<String>,
        gesture_ms: u64,
        what: &str,
    ) -> Result<()> {
        args.extend(["--udid".into(), udid.into()]);
        let cmd = self
            .ui_command(tool)?
            .args(args)
            .timeout(UI_TIMEOUT + Duration::from_millis(gesture_ms));
        self.ui_run(tool, cmd, what).await.map(drop)
    }
}

#[async_trait]
impl Input for SimctlBackend {
    async fn tap(&self, device: &Device, at: Point) -> Result<()> {
        let udid = device.udid.as_str();
        check_point(at)?;
        let tool = self.ui_tool()?;
        let args = match tool {
            UiTool::Axe => vec![
                "tap".into(),
                "-x".into(),
                axe_coord(at.x),
                "-y".into(),
                axe_coord(at.y),
            ],
            UiTool::Idb => vec!["tap".into(), idb_coord(at.x), idb_coord(at.y)],
        };
        self.gesture(tool, udid, args, 0, "tap").await
    }

    async fn long_press(&self, device: &Device, at: Point, ms: u64) -> Result<()> {
        let udid = device.udid.as_str();
        check_point(at)?;
        if ms > MAX_HOLD_MS {
            return Err(Error::validation(format!(
                "a long press lasts at most {MAX_HOLD_MS} ms on iOS"
            )));
        }
        let tool = self.ui_tool()?;
        let args = match tool {
            UiTool::Axe => vec![
                "touch".into(),
                "-x".into(),
                axe_coord(at.x),
                "-y".into(),
                axe_coord(at.y),
                "--down".into(),
                "--up".into(),
                "--delay".into(),
                seconds(ms),
            ],
            UiTool::Idb => vec![
                "tap".into(),
                idb_coord(at.x),
                idb_coord(at.y),
                "--duration".into(),
                seconds(ms),
            ],
        };
        self.gesture(tool, udid, args, ms, "long press").await
    }

    async fn swipe(&self, device: &Device, from: Point, to: Point, ms: u64) -> Result<()> {
        let udid = device.udid.as_str();
        check_point(from)?;
        check_point(to)?;
        if from == to {
            return Err(Error::validation(
                "a swipe needs different start and end points",
            ));
        }
        let tool = self.ui_tool()?;
        let mut args: Vec<String> = match tool {
            UiTool::Axe => vec![
                "swipe".into(),
                "--start-x".into(),
                axe_coord(from.x),
                "--start-y".into(),
                axe_coord(from.y),
                "--end-x".into(),
                axe_coord(to.x),
                "--end-y".into(),
                axe_coord(to.y),
            ],
            UiTool::Idb => vec![
                "swipe".into(),
                idb_coord(from.x),
                idb_coord(from.y),
                idb_coord(to.x),
                idb_coord(to.y),
            ],
        };
        if ms > 0 {
            args.extend(["--duration".into(), seconds(ms)]);
        }
        self.gesture(tool, udid, args, ms, "swipe").await
    }

    async fn type_text(&self, device: &Device, text: &str) -> Result<TypedWith> {
        let udid = device.udid.as_str();
        let tool = self.ui_tool()?;
        if text.is_empty() {
            return Ok(TypedWith(tool.name()));
        }
        if !is_hid_typeable(text) {
            return self.paste_text(udid, text).await;
        }
        match tool {
            UiTool::Axe => {
                let cmd = self
                    .ui_command(tool)?
                    .args(["type", "--stdin", "--udid", udid])
                    .stdin(text.as_bytes().to_vec())
                    .timeout(UI_TIMEOUT);
                self.ui_run(tool, cmd, "typing").await?;
            }
            UiTool::Idb => {
                let rest = text.trim_start_matches('-');
                for _ in 0..text.len() - rest.len() {
                    self.gesture(
                        tool,
                        udid,
                        vec!["key".into(), HID_MINUS.into()],
                        0,
                        "typing",
                    )
                    .await?;
                }
                if !rest.is_empty() {
                    self.gesture(tool, udid, vec!["text".into(), rest.into()], 0, "typing")
                        .await?;
                }
            }
        }
        Ok(TypedWith(tool.name()))
    }

    async fn press_key(&self, device: &Device, key: KeyPress) -> Result<()> {
        let udid = device.udid.as_str();
        let key = ios_key(key)?;
        let tool = self.ui_tool()?;
        let args: Vec<String> = match (key, tool) {
            (IosKey::Button { axe, .. }, UiTool::Axe) => vec!["button".into(), axe.into()],
            (IosKey::Button { idb, .. }, UiTool::Idb) => vec!["button".into(), idb.into()],
            (IosKey::Hid(code), _) => vec!["key".into(), code.to_string()],
        };
        self.gesture(tool, udid, args, 0, "pressing a key").await
    }

    async fn hide_keyboard(&self, _device: &Device) -> Result<()> {
        Err(keys::hide_keyboard_unsupported())
    }
}

/// Alerts are found in the UI tree and answered by tapping their button.
#[async_trait]
impl Alerts for SimctlBackend {
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

    #[test]
    fn number_formats() {
        assert_eq!(axe_coord(120.0), "120");
        assert_eq!(axe_coord(120.5), "120.5");
        assert_eq!(axe_coord(0.333_333), "0.33");
        assert_eq!(idb_coord(120.5), "121");
        assert_eq!(seconds(500), "0.5");
        assert_eq!(seconds(1000), "1");
        assert_eq!(seconds(1250), "1.25");
    }
}
