//! An action's cost to the app (`measure: true`): a sample of the app just before the action,
//! which resets its frame counters, and one just after it (and its read); the receipt's
//! `perf` is what lies between.

use std::time::Duration;

use crate::backend::concern;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::perf::{ActionCost, PerfSample, SampleAsk};

use super::super::actions::Action;
use super::super::DeviceController;

/// The sample before an action, and the app it is of.
pub(in crate::controller) struct Measuring {
    app: String,
    before: PerfSample,
}

/// What the samples around an action read: CPU time and frames.
const BEFORE: SampleAsk = SampleAsk {
    memory: false,
    frames: true,
    reset_frames: true,
};
const AFTER: SampleAsk = SampleAsk {
    memory: false,
    frames: true,
    reset_frames: false,
};

impl DeviceController {
    /// Samples the app an action is about to act on: the foreground app of the last read,
    /// else the session's. Refused when neither is known, or the app does not run.
    pub(in crate::controller) async fn measure_before(&self, action: &Action) -> Result<Measuring> {
        let app = action
            .session
            .last()
            .and_then(|s| s.app())
            .or_else(|| super::super::current_session().and_then(|s| s.app.clone()))
            .ok_or_else(|| {
                Error::validation("`measure` needs the app: none is known on this device yet")
                    .with_hint(
                        "read the screen first (its foreground app is measured), or start the \
                         session with `app`",
                    )
            })?;
        let perf = self.cap(&action.device, concern::Perf)?;
        let before = perf.perf_sample(&action.device, &app, BEFORE).await?;
        Ok(Measuring { app, before })
    }

    /// What the action cost the app measured by [`Self::measure_before`]. A sample that
    /// fails after the action (the app stopped) is said in the cost, not as the action's
    /// failure.
    pub(in crate::controller) async fn measure_after(
        &self,
        action: &Action,
        m: Measuring,
    ) -> ActionCost {
        let after = match self.cap(&action.device, concern::Perf) {
            Ok(perf) => perf.perf_sample(&action.device, &m.app, AFTER).await,
            Err(e) => Err(e),
        };
        match after {
            Ok(after) => ActionCost::between(&m.app, &m.before, &after),
            Err(e) => ActionCost::unread(&m.app, e.message),
        }
    }

    /// Samples `app` before a start (its frame counters reset): `None` when it does not run
    /// (the start will be cold).
    pub async fn measure_before_start(
        &self,
        udid: Option<&str>,
        app: &str,
    ) -> Result<Option<PerfSample>> {
        let device = self.resolve_ready(udid).await?;
        let perf = self.cap(&device, concern::Perf)?;
        match perf.perf_sample(&device, app, BEFORE).await {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.code == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// What the start of `app` on `device`, asked `elapsed` ago, cost it.
    pub async fn measure_after_start(
        &self,
        device: &Device,
        app: &str,
        before: Option<&PerfSample>,
        elapsed: Duration,
    ) -> ActionCost {
        let after = match self.cap(device, concern::Perf) {
            Ok(perf) => perf.perf_sample(device, app, AFTER).await,
            Err(e) => Err(e),
        };
        match after {
            Ok(after) => ActionCost::of_start(app, before, &after, elapsed),
            Err(e) => ActionCost::unread(app, e.message),
        }
    }
}
