//! Building apps from source on the server's machine (`app build`): a project folder under
//! the build root (`serve --build-root DIR`) built with the project's Gradle wrapper or with
//! `xcodebuild`, its output read as it comes into phases, progress and diagnostics (the
//! `mobilectl-build` crate reads it), the whole log kept in the caller's run, and the built app
//! found from the tool's own account of it. [`plan`] turns a request into a command,
//! [`registry`] keeps the running builds (one per project; cancelling), [`run`] runs one. The
//! server's handlers (`crate::server::routes::build`) put these together with the device's
//! install and launch.

pub mod plan;
pub mod registry;
pub mod run;

pub use plan::{plan, Inputs, Plan, PlannedTool};
pub use registry::{Begun, Builds, Running};
pub use run::{built_app, settle_scheme, Events, Ran, LOG_LIMIT};

use std::time::Duration;

use crate::error::{Error, Result};

/// A build's time limit when the request gives none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// The shortest and longest time limit a request may give.
pub const TIMEOUT_RANGE_MS: std::ops::RangeInclusive<u64> = 1_000..=14_400_000;

/// The time limit of a request: its `timeout_ms` checked, else [`DEFAULT_TIMEOUT`].
pub fn timeout_of(timeout_ms: Option<u64>) -> Result<Duration> {
    match timeout_ms {
        None => Ok(DEFAULT_TIMEOUT),
        Some(ms) if TIMEOUT_RANGE_MS.contains(&ms) => Ok(Duration::from_millis(ms)),
        Some(ms) => Err(Error::validation(format!(
            "`timeout_ms` {ms} is out of range {}–{}",
            TIMEOUT_RANGE_MS.start(),
            TIMEOUT_RANGE_MS.end()
        ))
        .with_hint("give 1000–14400000 ms (4 h), or leave it out for 30 min")),
    }
}
