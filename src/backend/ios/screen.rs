//! Screenshots: `simctl io UDID screenshot --type=png PATH` into a private temporary directory,
//! then read back. The PNG is at the device's pixel resolution (see [`super::screen_scale`]).

use async_trait::async_trait;

use std::ffi::OsStr;
use std::time::Duration;

use super::ui::{UiTool, UI_TIMEOUT};
use super::SimctlBackend;
use crate::backend::command_failed;
use crate::backend::Screen;
use crate::backend::UiSource;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::exec::Command;
use crate::image::png_dimensions;

/// Time limit of a screenshot.
pub const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(30);

impl SimctlBackend {
    /// The command that prints the whole UI tree: `axe describe-ui`, `idb ui describe-all
    /// --json`.
    pub(super) fn describe_command(
        &self,
        tool: UiTool,
        udid: &str,
        timeout: Duration,
    ) -> Result<Command> {
        let args: &[&str] = match tool {
            UiTool::Axe => &["describe-ui", "--udid", udid],
            UiTool::Idb => &["describe-all", "--json", "--udid", udid],
        };
        Ok(self.ui_command(tool)?.args(args).timeout(timeout))
    }
}

#[async_trait]
impl Screen for SimctlBackend {
    async fn screenshot_png(&self, device: &Device) -> Result<Vec<u8>> {
        let udid = device.udid.as_str();
        let dir = tempfile::tempdir()
            .map_err(|e| Error::internal(format!("no temporary directory: {e}")))?;
        let path = dir.path().join("screen.png");
        self.simctl_ok(
            [
                OsStr::new("io"),
                OsStr::new(udid),
                OsStr::new("screenshot"),
                OsStr::new("--type=png"),
                path.as_os_str(),
            ],
            SCREENSHOT_TIMEOUT,
            "simctl io screenshot",
            "",
        )
        .await?;
        let png = tokio::fs::read(&path).await.map_err(|e| {
            Error::new(
                ErrorCode::CommandFailed,
                format!("simctl io screenshot wrote no image: {e}"),
            )
        })?;
        if png_dimensions(&png).is_none() {
            return Err(Error::new(
                ErrorCode::CommandFailed,
                "simctl io screenshot wrote something that is not a PNG",
            ));
        }
        Ok(png)
    }

    /// The native accessibility dump (AXe or idb JSON), unparsed.
    async fn dump_ui(&self, device: &Device) -> Result<UiSource> {
        let udid = device.udid.as_str();
        let tool = self.ui_tool()?;
        let cmd = self.describe_command(tool, udid, UI_TIMEOUT)?;
        let out = self.ui_run(tool, cmd, "reading the UI").await?;
        let text = out.stdout_text();
        if text.trim().is_empty() {
            return Err(command_failed(
                tool.tool(),
                "reading the UI (empty output)",
                &out,
            ));
        }
        Ok(UiSource {
            text,
            tool: tool.name(),
            foreground: None,
            notes: Vec::new(),
            web: Vec::new(),
        })
    }
}
