//! Wire types of building apps from source: the request (and the session defaults it falls
//! back on), the streamed events, the answer, the running builds and cancelling one. What a
//! build's output tells (diagnostics, phases, the failure and its hint) is typed by the
//! `mobilectl-build` crate and re-exported here.

// The fields and variants of these wire types are described by the API schema, where
// descriptions are kept short on purpose (token budget).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use build_output::wire::{
    Diagnostic, DiagnosticTool, Failure, FailureKind, Phase, PhaseName, Severity, Toolchain,
};

use crate::api::wire::error::ErrorBody;
use crate::device::{Device, Platform};

/// How an iOS app is built with `xcodebuild`; each field left out comes from the session's
/// defaults, then from the project folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IosBuild {
    /// The `.xcodeproj`, relative to the project folder (default: the folder's only one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The `.xcworkspace`, relative to the project folder (default: the folder's only one,
    /// preferred over a project).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Default: the only scheme `xcodebuild -list` shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    /// Default `Debug`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<String>,
    /// An `xcodebuild -destination` value (default: the target device's, or a generic
    /// Simulator without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    /// Derived data folder, relative to the project folder (default: in the run's folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_data: Option<String>,
}

/// How an Android app is built with the project's Gradle wrapper; each field left out comes
/// from the session's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AndroidBuild {
    /// The Gradle module of the app (default `app`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// The build variant (default `debug`; `freeDebug` with flavours): its assemble task runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// What a build falls back on: a session's defaults (set when it is created, and by each
/// build in it), so a second build needs no arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BuildDefaults {
    /// The project folder, under the server's build root (`serve --build-root DIR`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_dir: Option<String>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub ios: IosBuild,
    #[serde(default, skip_serializing_if = "is_default")]
    pub android: AndroidBuild,
}

fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

/// Build an app from source; optionally install and launch it.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BuildRequest {
    /// The device it is built for (and installed on): its platform picks the tool, an iOS
    /// Simulator's udid the destination.
    pub udid: Option<String>,
    /// The project folder under the build root (relative paths are taken there); default: the
    /// session's.
    pub project_dir: Option<String>,
    /// Default: the device's; without a device, what the folder holds (`gradlew`: Android;
    /// an `.xcodeproj` or `.xcworkspace`: iOS).
    pub platform: Option<Platform>,
    #[serde(default)]
    pub ios: IosBuild,
    #[serde(default)]
    pub android: AndroidBuild,
    /// Install the built app on the device.
    #[serde(default)]
    pub install: bool,
    /// Install and start it (its id from the build's own output).
    #[serde(default)]
    pub launch: bool,
    /// Stop the build after this long: 1000–14400000 ms, default 1800000 (30 min).
    #[schema(minimum = 1000, maximum = 14400000)]
    pub timeout_ms: Option<u64>,
}

/// The app a build made.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BuiltApp {
    /// The `.apk` file or `.app` folder on the server's machine.
    pub path: String,
    /// Its package name or bundle identifier, as the build tells it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_id: Option<String>,
}

/// How a build ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BuildStatus {
    Succeeded,
    Failed,
    Cancelled,
    TimedOut,
}

/// A build's outcome: `success: false` is an answer (the diagnostics say why), not an error.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BuildResult {
    /// `bld-` and 12 hex digits.
    pub id: String,
    pub success: bool,
    pub status: BuildStatus,
    pub platform: Platform,
    /// The project folder, resolved.
    pub project_dir: String,
    /// The command that ran (argv).
    pub command: Vec<String>,
    /// Its exit code (none when it was stopped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    /// Build steps seen (compile units, Gradle tasks).
    pub steps: usize,
    pub errors: usize,
    pub warnings: usize,
    /// The first 500 distinct errors and warnings, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// What made it fail, when the output says, with what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<BuiltApp>,
    /// The device it was installed on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed_on: Option<Device>,
    /// It was started after the install; its start time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch_time_ms: Option<u64>,
    /// The whole output: the run and artifact that hold it (never in the answer).
    pub log: BuildLog,
}

/// Where a build's whole output is kept.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BuildLog {
    pub run: String,
    pub artifact: String,
    pub bytes: u64,
    /// The output went past the log's limit (1 GiB) and its end was left out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// A build as it runs.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BuildProgress {
    pub id: String,
    pub platform: Platform,
    pub project_dir: String,
    /// What it is doing now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    pub steps: usize,
    pub errors: usize,
    pub warnings: usize,
    pub elapsed_ms: u64,
    /// The session that started it (its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// An event of a streamed build: `started` (its id and command), `progress` (each build step
/// and phase), `diagnostic` (each distinct error or warning as it is seen), then `result` or
/// `error`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BuildEvent {
    Started(BuildStarted),
    Progress(BuildProgress),
    Diagnostic(Diagnostic),
    Result(Box<BuildResult>),
    Error(ErrorBody),
}

/// A build has started.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BuildStarted {
    pub id: String,
    pub platform: Platform,
    pub project_dir: String,
    pub command: Vec<String>,
}

/// The builds running now.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BuildList {
    pub builds: Vec<BuildProgress>,
}

/// Stop a running build (its whole process tree).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelBuild {
    /// The build's id (its `started` event and `GET /api/v1/apps/builds` tell it).
    pub id: String,
}

/// A build was asked to stop.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BuildCancelled {
    pub id: String,
    pub cancelled: bool,
}
