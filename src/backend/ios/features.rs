//! Device features on a Simulator through simctl: the pasteboard (`simctl pbcopy UDID` with
//! the text on stdin, `simctl pbpaste UDID` printing it). simctl has no rotation command and
//! intents are Android's: those answer 501 (the trait's defaults).

use super::{SimctlBackend, QUICK_TIMEOUT};
use crate::backend::command_failed;
use crate::error::Result;
use crate::exec::Tool;

impl SimctlBackend {
    pub(super) async fn pasteboard_get(&self, udid: &str) -> Result<String> {
        self.simctl_ok(["pbpaste", udid], QUICK_TIMEOUT, "simctl pbpaste", "")
            .await
            .map(|out| out.stdout_text())
    }

    pub(super) async fn pasteboard_set(&self, udid: &str, text: &str) -> Result<()> {
        let cmd = self
            .simctl()?
            .args(["pbcopy", udid])
            .stdin(text.as_bytes().to_vec())
            .timeout(QUICK_TIMEOUT);
        let out = self.run(cmd).await?;
        if !out.success() {
            return Err(command_failed(Tool::Xcrun, "simctl pbcopy", &out));
        }
        Ok(())
    }
}
