//! The iOS Simulator backend's [`Perf`]: a Simulator's app is a process of the Mac, so a sample
//! is the app's pid from the Simulator's launchd (`simctl spawn UDID launchctl list`, read by
//! [`super::launchctl`]) and that process read on the host ([`host_process`]): CPU time,
//! resident set, footprint (macOS), threads, on the host's monotonic clock. Simulators keep no
//! frame statistics (there is no `gfxinfo`): a sample has no frames.

use async_trait::async_trait;

use super::{launchctl, SimctlBackend, QUICK_TIMEOUT};
use crate::backend::{command_failed, host_process, not_running, unrecognised, Perf};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::exec::Tool;
use crate::perf::{PerfSample, SampleAsk};

#[async_trait]
impl Perf for SimctlBackend {
    async fn perf_sample(&self, device: &Device, app: &str, ask: SampleAsk) -> Result<PerfSample> {
        let pid = self.app_pid(device, app).await?;
        let read = tokio::task::spawn_blocking(move || host_process::read(pid))
            .await
            .map_err(|e| Error::internal(format!("reading process {pid}: {e}")))??;
        // Listed, but gone by the time it was read: it has just exited.
        let process = read.ok_or_else(|| not_running(app))?;
        Ok(host_process::sample_of(&process, ask))
    }
}

impl SimctlBackend {
    /// The host pid of `bundle_id`'s running process on the simulator, or `404 NOT_FOUND`.
    async fn app_pid(&self, device: &Device, bundle_id: &str) -> Result<u32> {
        let args = ["spawn", device.udid.as_str(), "launchctl", "list"];
        let out = self
            .run(self.simctl()?.args(args).timeout(QUICK_TIMEOUT))
            .await?;
        if !out.success() {
            return Err(command_failed(
                Tool::Xcrun,
                "simctl spawn launchctl list",
                &out,
            ));
        }
        let text = out.stdout_text();
        let jobs = launchctl::parse_jobs(&text);
        // A booted simulator runs dozens of jobs: none at all is not a listing.
        if jobs.is_empty() {
            return Err(unrecognised("`launchctl list`", &text));
        }
        launchctl::app_pid(&jobs, bundle_id).ok_or_else(|| not_running(bundle_id))
    }
}
