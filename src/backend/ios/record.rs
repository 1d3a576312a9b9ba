//! Screen recording of a Simulator: `xcrun simctl io UDID recordVideo --codec h264 --force
//! DEST`, which writes frames until it is sent SIGINT and then finalises the file. It says
//! `Recording started` on stderr once the first frame is in; the start waits for those words,
//! so a recording that cannot start (simulator not booted, destination not writable) is an
//! error of the start, not an empty file at the stop.

use std::path::{Path, PathBuf};
use std::time::Duration;

use async_trait::async_trait;

use super::SimctlBackend;
use crate::backend::exec_error;
use crate::backend::Recording;
use crate::device::{Device, RecordingOptions, ScreenRecorder};
use crate::error::{Error, ErrorCode, Result};
use crate::exec::{StreamChild, Tool};

/// What `recordVideo` prints once it records.
const STARTED: &str = "Recording started";
/// How long `recordVideo` may take to start.
const START_LIMIT: Duration = Duration::from_secs(15);
/// How long it may take to finalise after SIGINT.
const FINALISE_LIMIT: Duration = Duration::from_secs(30);

/// A running `simctl io recordVideo`.
pub struct SimctlRecorder {
    child: StreamChild,
    dest: PathBuf,
}

#[async_trait]
impl ScreenRecorder for SimctlRecorder {
    async fn finish(self: Box<Self>) -> Result<()> {
        let SimctlRecorder { mut child, dest } = *self;
        child.interrupt();
        let mut buf = [0u8; 4096];
        let closed = tokio::time::timeout(FINALISE_LIMIT, async {
            while matches!(child.read(&mut buf).await, Ok(n) if n > 0) {}
        })
        .await;
        let end = child.finish(FINALISE_LIMIT).await;
        if closed.is_err() || !dest.is_file() {
            return Err(Error::new(
                ErrorCode::CommandFailed,
                format!(
                    "simctl recordVideo did not finalise {} (exit {:?}): {}",
                    dest.display(),
                    end.code,
                    end.stderr.trim()
                ),
            ));
        }
        Ok(())
    }
}

#[async_trait]
impl Recording for SimctlBackend {
    async fn start_recording(
        &self,
        device: &Device,
        options: &RecordingOptions,
        dest: &Path,
    ) -> Result<Box<dyn ScreenRecorder>> {
        if options != &RecordingOptions::default() {
            return Err(Error::validation(
                "`size`, `scale` and `bit_rate` are Android's: a Simulator records at its screen's size",
            )
            .with_hint("leave them out; scale the MP4 afterwards if needed"));
        }
        let mut child = self
            .simctl()?
            .args([
                "io",
                &device.udid,
                "recordVideo",
                "--codec",
                "h264",
                "--force",
            ])
            .arg(dest.as_os_str())
            .timeout(START_LIMIT)
            .spawn_stream()
            .await
            .map_err(|e| exec_error(Tool::Xcrun, e))?;
        let started = tokio::time::timeout(START_LIMIT, child.wait_stderr(STARTED)).await;
        if !matches!(started, Ok(true)) {
            child.interrupt();
            let end = child.finish(Duration::from_secs(2)).await;
            return Err(Error::new(
                ErrorCode::CommandFailed,
                format!("simctl recordVideo did not start: {}", end.stderr.trim()),
            )
            .with_hint("the Simulator must be booted (`xcrun simctl boot UDID`)"));
        }
        Ok(Box::new(SimctlRecorder {
            child,
            dest: dest.to_path_buf(),
        }))
    }
}
