//! Screenshots: `simctl io UDID screenshot --type=png PATH` into a private temporary directory,
//! then read back. The PNG is at the device's pixel resolution (see [`super::screen_scale`]).

use std::ffi::OsStr;
use std::time::Duration;

use super::SimctlBackend;
use crate::error::{Error, ErrorCode, Result};
use crate::image::png_dimensions;

/// Time limit of a screenshot.
pub const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(30);

impl SimctlBackend {
    pub(super) async fn screenshot(&self, udid: &str) -> Result<Vec<u8>> {
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
}
