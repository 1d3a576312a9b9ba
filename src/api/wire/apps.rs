//! Wire types of the app operations: install, launch, terminate, reset, list, open-url.

// The fields and variants of these wire types are described by the API schema, where
// descriptions are kept short on purpose (token budget).
#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::device::Device;
pub use crate::device::{AppInfo, LaunchValue, Launched};

/// Install an app from a path on the server's machine.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InstallRequest {
    pub udid: Option<String>,
    /// Android: an `.apk` file; iOS Simulator: an `.app` folder.
    #[schema(value_type = String)]
    pub path: PathBuf,
}

/// Names an app.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AppRequest {
    pub udid: Option<String>,
    /// Android package name or iOS bundle identifier (in a session started with `app`: that
    /// one when left out).
    #[serde(default)]
    pub bundle_id: String,
}

/// Start an app.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LaunchRequest {
    pub udid: Option<String>,
    /// Android package name or iOS bundle identifier (in a session started with `app`: that
    /// one when left out).
    #[serde(default)]
    pub bundle_id: String,
    /// iOS launch arguments, passed as they are (Android apps take `extras`).
    #[serde(default)]
    pub arguments: Vec<String>,
    /// Named values for the app, typed as JSON types them, as Maestro's launch `arguments`:
    /// Android intent extras (`--es`, `--ez`, `--ei`/`--el`, `--ed`); iOS launch arguments
    /// after `arguments` (`-key value`, read with `UserDefaults`; a boolean as `key true`).
    #[serde(default)]
    pub extras: BTreeMap<String, LaunchValue>,
    /// Stop the app first if it runs.
    #[serde(default)]
    pub relaunch: bool,
    /// iOS Simulator: reset the whole keychain of the device first (`simctl keychain reset`).
    /// Android has no shared keychain: nothing is done there.
    #[serde(default)]
    pub clear_keychain: bool,
    /// Android: activity to start instead of the launcher activity.
    pub activity: Option<String>,
}

/// Open a URL (web or app scheme) on the device.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenUrlRequest {
    pub udid: Option<String>,
    /// `https://…` or an app scheme (`myapp://…`). `javascript:`, `file:`, `content:` and
    /// `data:` are refused unless the server runs with `--allow-any-url-scheme`.
    pub url: String,
}

/// What an app operation did.
#[derive(Debug, Serialize, ToSchema)]
pub struct AppDone {
    pub success: bool,
    pub device: Device,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle_id: Option<String>,
}

/// What a launch did.
#[derive(Debug, Serialize, ToSchema)]
pub struct LaunchDone {
    /// False when the app crashed or stopped responding as it started.
    pub success: bool,
    pub device: Device,
    #[serde(flatten)]
    pub launched: Launched,
    /// `APP_CRASHED` or `APP_NOT_RESPONDING`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_code: Option<crate::error::ErrorCode>,
    /// The crash (`id`, `kind`, `summary`; more at GET /api/v1/logs/crashes/{id}).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub crash: Option<serde_json::Value>,
}

/// Query of the app list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct AppListQuery {
    pub udid: Option<String>,
}

/// Installed apps.
#[derive(Debug, Serialize, ToSchema)]
pub struct AppList {
    pub device: Device,
    pub apps: Vec<AppInfo>,
}
