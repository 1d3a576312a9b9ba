//! Apps: install, launch, terminate, reset, list, and open-url.

use std::path::PathBuf;

use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::backend::types::{AppInfo, LaunchOptions, Launched};
use crate::backend::Device;
use crate::error::Result;
use crate::server::{ApiErrors, ApiJson, ApiQuery, AppState};

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
    /// Android package name or iOS bundle identifier.
    pub bundle_id: String,
}

/// Start an app.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LaunchRequest {
    pub udid: Option<String>,
    /// Android package name or iOS bundle identifier.
    pub bundle_id: String,
    /// iOS launch arguments.
    #[serde(default)]
    pub arguments: Vec<String>,
    /// Stop the app first if it runs.
    #[serde(default)]
    pub relaunch: bool,
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
    pub success: bool,
    pub device: Device,
    #[serde(flatten)]
    pub launched: Launched,
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

/// Installs an app (Android `adb install -r`; iOS `simctl install`).
#[utoipa::path(post, path = "/api/v1/device/app/install", tag = "apps", request_body = InstallRequest,
    responses((status = 200, description = "Installed", body = AppDone), ApiErrors))]
pub async fn install(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<InstallRequest>,
) -> Result<Json<AppDone>> {
    let device = s.controller.install_app(r.udid.as_deref(), &r.path).await?;
    Ok(Json(AppDone {
        success: true,
        device,
        bundle_id: None,
    }))
}

/// Launches an app and reports its launch time.
#[utoipa::path(post, path = "/api/v1/device/app/launch", tag = "apps", request_body = LaunchRequest,
    responses((status = 200, description = "Launched", body = LaunchDone), ApiErrors))]
pub async fn launch(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<LaunchRequest>,
) -> Result<Json<LaunchDone>> {
    let opts = LaunchOptions {
        arguments: r.arguments,
        relaunch: r.relaunch,
        activity: r.activity,
    };
    let (device, launched) = s
        .controller
        .launch_app(r.udid.as_deref(), &r.bundle_id, &opts)
        .await?;
    Ok(Json(LaunchDone {
        success: true,
        device,
        launched,
    }))
}

/// Stops an app (Android `am force-stop`; iOS `simctl terminate`).
#[utoipa::path(post, path = "/api/v1/device/app/terminate", tag = "apps", request_body = AppRequest,
    responses((status = 200, description = "Stopped", body = AppDone), ApiErrors))]
pub async fn terminate(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<AppRequest>,
) -> Result<Json<AppDone>> {
    let device = s
        .controller
        .terminate_app(r.udid.as_deref(), &r.bundle_id)
        .await?;
    Ok(Json(AppDone {
        success: true,
        device,
        bundle_id: Some(r.bundle_id),
    }))
}

/// Clears an app's data (Android `pm clear`; iOS: reinstall-free reset is not offered by simctl).
#[utoipa::path(post, path = "/api/v1/device/app/reset", tag = "apps", request_body = AppRequest,
    responses((status = 200, description = "Data cleared", body = AppDone), ApiErrors))]
pub async fn reset(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<AppRequest>,
) -> Result<Json<AppDone>> {
    let device = s
        .controller
        .reset_app(r.udid.as_deref(), &r.bundle_id)
        .await?;
    Ok(Json(AppDone {
        success: true,
        device,
        bundle_id: Some(r.bundle_id),
    }))
}

/// Lists installed apps (`kind`: `user` or `system`; iOS: user apps first).
#[utoipa::path(get, path = "/api/v1/device/app/list", tag = "apps", params(AppListQuery),
    responses((status = 200, description = "Installed apps", body = AppList), ApiErrors))]
pub async fn list(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<AppListQuery>,
) -> Result<Json<AppList>> {
    let (device, apps) = s.controller.list_apps(q.udid.as_deref()).await?;
    Ok(Json(AppList { device, apps }))
}

/// Opens a URL on the device (Android VIEW intent; iOS `simctl openurl`).
#[utoipa::path(post, path = "/api/v1/device/open-url", tag = "apps", request_body = OpenUrlRequest,
    responses((status = 200, description = "Opened", body = AppDone), ApiErrors))]
pub async fn open_url(
    State(s): State<AppState>,
    ApiJson(r): ApiJson<OpenUrlRequest>,
) -> Result<Json<AppDone>> {
    let allow_any = s.options.allow_any_url_scheme;
    let device = s
        .controller
        .open_url(r.udid.as_deref(), &r.url, allow_any)
        .await?;
    Ok(Json(AppDone {
        success: true,
        device,
        bundle_id: None,
    }))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(install))
        .routes(routes!(launch))
        .routes(routes!(terminate))
        .routes(routes!(reset))
        .routes(routes!(list))
        .routes(routes!(open_url))
}
