//! An app's performance ([`crate::device::Capability::Perf`]): one sample of its process,
//! taken in one round trip, which the controller turns into readings and windows.

use async_trait::async_trait;

use crate::device::Device;
use crate::error::Result;
use crate::perf::{PerfSample, SampleAsk};

/// Sampling a running app's CPU time, memory, threads and frames.
#[async_trait]
pub trait Perf: Send + Sync {
    /// One sample of `app`'s process with what `ask` names. An app without a process is
    /// `404 NOT_FOUND` (never a sample of zeros).
    async fn perf_sample(&self, device: &Device, app: &str, ask: SampleAsk) -> Result<PerfSample>;
}
