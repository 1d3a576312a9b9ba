//! Apps: install, launch, terminate, reset, list, and open-url.

use axum::Json;

use crate::api::wire::act::DeviceBody;
use crate::api::wire::apps::*;
use crate::api::wire::system::SettingDone;
use crate::device::LaunchOptions;
use crate::error::{Error, Result};
use crate::server::AppState;

/// Installs an app (Android `adb install -r`; iOS `simctl install`).
pub async fn install(s: AppState, r: InstallRequest) -> Result<Json<AppDone>> {
    let device = s.controller.install_app(r.udid.as_deref(), &r.path).await?;
    Ok(Json(AppDone {
        success: true,
        device,
        bundle_id: None,
    }))
}

/// Launches an app and reports its launch time.
pub async fn launch(s: AppState, r: LaunchRequest) -> Result<Json<LaunchDone>> {
    if r.cold == Some(false) && r.relaunch {
        return Err(Error::validation(
            "`cold: false` measures a start of the running app; `relaunch` stops it first",
        )
        .with_hint("leave out one of them; `cold: true` is `relaunch`"));
    }
    let opts = LaunchOptions {
        arguments: r.arguments,
        extras: r.extras.into_iter().collect(),
        relaunch: r.relaunch || r.cold == Some(true),
        time_first_screen: r.measure || r.repeat.is_some(),
        clear_keychain: r.clear_keychain,
        activity: r.activity,
    };
    let repeat = r.repeat.unwrap_or(1);
    if !(1..=MAX_REPEAT).contains(&repeat) {
        return Err(
            Error::validation(format!("`repeat` is 1 to {MAX_REPEAT}; got {repeat}"))
                .with_hint("for example 5, with `relaunch: true` for cold starts"),
        );
    }
    let bundle_id = app_or_default(&r.bundle_id)?;
    if r.cold == Some(false) {
        // Started once, unmeasured: the starts measured below find it running. A start that
        // crashed is the answer.
        let (device, launched, crash) = s
            .controller
            .launch_app(r.udid.as_deref(), &bundle_id, &opts)
            .await?;
        if let Some(crash) = crash {
            return Ok(Json(LaunchDone {
                success: false,
                device,
                launched,
                starts: None,
                failure_code: Some(crate::controller::crash_code(&crash)),
                crash: Some(crate::controller::crash_brief(&crash)),
                perf: None,
            }));
        }
    }
    let mut runs = Vec::new();
    let mut perf = None;
    let (device, crash) = loop {
        let before = match r.measure {
            true => {
                s.controller
                    .measure_before_start(r.udid.as_deref(), &bundle_id)
                    .await?
            }
            false => None,
        };
        let asked = std::time::Instant::now();
        let (device, launched, crash) = s
            .controller
            .launch_app(r.udid.as_deref(), &bundle_id, &opts)
            .await?;
        if r.measure {
            perf = Some(
                s.controller
                    .measure_after_start(&device, &bundle_id, before.as_ref(), asked.elapsed())
                    .await,
            );
        }
        runs.push(launched);
        // A start that crashed ends the series: the next would measure another thing.
        if crash.is_some() || runs.len() as u32 == repeat {
            break (device, crash);
        }
    };
    let starts = r.repeat.is_some().then(|| Starts::of(&runs));
    let launched = runs
        .pop()
        .ok_or_else(|| Error::internal("a launch made no start"))?;
    Ok(Json(LaunchDone {
        success: crash.is_none(),
        device,
        launched,
        starts,
        failure_code: crash.as_ref().map(crate::controller::crash_code),
        crash: crash.as_ref().map(crate::controller::crash_brief),
        perf,
    }))
}

/// Stops an app (Android `am force-stop`; iOS `simctl terminate`).
pub async fn terminate(s: AppState, r: AppRequest) -> Result<Json<AppDone>> {
    let bundle_id = app_or_default(&r.bundle_id)?;
    let device = s
        .controller
        .terminate_app(r.udid.as_deref(), &bundle_id)
        .await?;
    Ok(Json(AppDone {
        success: true,
        device,
        bundle_id: Some(bundle_id),
    }))
}

/// Clears an app's data (Android `pm clear`; iOS: reinstall-free reset is not offered by simctl).
pub async fn reset(s: AppState, r: AppRequest) -> Result<Json<AppDone>> {
    let bundle_id = app_or_default(&r.bundle_id)?;
    let device = s
        .controller
        .reset_app(r.udid.as_deref(), &bundle_id)
        .await?;
    Ok(Json(AppDone {
        success: true,
        device,
        bundle_id: Some(bundle_id),
    }))
}

/// Empties the device's keychain (iOS Simulator; nothing to do on Android).
pub async fn reset_keychain(s: AppState, r: DeviceBody) -> Result<Json<SettingDone>> {
    let device = s.controller.reset_keychain(r.udid.as_deref()).await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note: None,
    }))
}

/// Lists installed apps (`kind`: `user` or `system`; iOS: user apps first).
pub async fn list(s: AppState, q: AppListQuery) -> Result<Json<AppList>> {
    let (device, apps) = s.controller.list_apps(q.udid.as_deref()).await?;
    Ok(Json(AppList { device, apps }))
}

/// Opens a URL on the device (Android VIEW intent; iOS `simctl openurl`).
pub async fn open_url(s: AppState, r: OpenUrlRequest) -> Result<Json<AppDone>> {
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

/// The app a request names, else its session's default app.
fn app_or_default(given: &str) -> Result<String> {
    super::app_or_session(Some(given), "bundle_id")
}
