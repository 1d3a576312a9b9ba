//! Device features: the clipboard, the screen's orientation, Android intents, files, media,
//! notifications, biometrics, multi-touch and airplane mode.

use axum::Json;

use crate::api::wire::features::*;
use crate::api::wire::inspect::DeviceQuery;
use crate::api::wire::system::SettingDone;
use crate::device::IntentParts;
use crate::error::{Error, Result};
use crate::server::AppState;

/// The clipboard's text.
pub async fn get_clipboard(s: AppState, q: DeviceQuery) -> Result<Json<ClipboardView>> {
    let (device, text) = s.controller.clipboard_get(q.udid.as_deref()).await?;
    Ok(Json(ClipboardView { device, text }))
}

/// Puts text on the clipboard.
pub async fn set_clipboard(s: AppState, r: ClipboardSet) -> Result<Json<SettingDone>> {
    let device = s
        .controller
        .clipboard_set(r.udid.as_deref(), &r.text)
        .await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note: None,
    }))
}

/// The screen's orientation.
pub async fn get_orientation(s: AppState, q: DeviceQuery) -> Result<Json<OrientationView>> {
    let now = s.controller.orientation_get(q.udid.as_deref()).await?;
    Ok(Json(OrientationView {
        device: now.device,
        orientation: now.orientation,
        auto_rotate: now.auto_rotate,
    }))
}

/// Turns the screen, or gives the rotation back to the sensor.
pub async fn set_orientation(s: AppState, r: OrientationRequest) -> Result<Json<SettingDone>> {
    let to = match (r.orientation, r.restore) {
        (Some(o), false) => Some(o),
        (None, true) => None,
        _ => {
            return Err(
                Error::validation("give `orientation`, or `restore: true`").with_hint(
                    "orientation: portrait, landscape, portrait_reverse or landscape_reverse",
                ),
            )
        }
    };
    let device = s.controller.orientation_set(r.udid.as_deref(), to).await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note: to.is_none().then(|| "auto-rotate is on again".to_string()),
    }))
}

/// Starts an activity with an intent, or broadcasts it (Android).
pub async fn send_intent(s: AppState, r: IntentRequest) -> Result<Json<IntentDone>> {
    let parts = IntentParts {
        mode: r.mode,
        action: r.action.as_deref(),
        data: r.data.as_deref(),
        component: r.component.as_deref(),
        package: r.package.as_deref(),
        categories: &r.category,
        flags: r.flags,
        extras: &r.extras,
    };
    let (device, outcome) = s.controller.intent(r.udid.as_deref(), &parts).await?;
    Ok(Json(IntentDone {
        success: true,
        device,
        mode: r.mode,
        output: outcome.output,
        activity: outcome.activity,
    }))
}

/// Copies a file under the files root to the device.
pub async fn push_file(s: AppState, r: FilePush) -> Result<Json<FileDone>> {
    let root = s.options.files_root();
    let (local, bytes) = crate::controller::resolve_read(&root, &r.local_path)?;
    not_private(&s, &local)?;
    let device = s
        .controller
        .push_file(
            r.udid.as_deref(),
            &local,
            &r.device_path,
            r.bundle_id.as_deref(),
        )
        .await?;
    Ok(Json(FileDone {
        success: true,
        device,
        local_path: local.display().to_string(),
        device_path: r.device_path,
        bytes,
    }))
}

/// Copies a device file into the files root.
pub async fn pull_file(s: AppState, r: FilePull) -> Result<Json<FileDone>> {
    let root = s.options.files_root();
    let local = crate::controller::resolve_write(&root, &r.local_path, r.overwrite)?;
    let (device, bytes) = s
        .controller
        .pull_file(
            r.udid.as_deref(),
            &r.device_path,
            r.bundle_id.as_deref(),
            &local,
        )
        .await?;
    Ok(Json(FileDone {
        success: true,
        device,
        local_path: local.display().to_string(),
        device_path: r.device_path,
        bytes,
    }))
}

/// Posts a notification.
pub async fn post_notification(s: AppState, r: NotificationRequest) -> Result<Json<SettingDone>> {
    let device = s
        .controller
        .post_notification(
            r.udid.as_deref(),
            r.bundle_id.as_deref(),
            r.title.as_deref(),
            r.body.as_deref(),
            r.payload.as_ref(),
        )
        .await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note: None,
    }))
}

/// The notifications in the shade.
pub async fn list_notifications(s: AppState, q: DeviceQuery) -> Result<Json<NotificationList>> {
    let (device, notifications) = s.controller.notifications(q.udid.as_deref()).await?;
    Ok(Json(NotificationList {
        device,
        notifications,
    }))
}

/// Drives the simulated biometric sensor.
pub async fn biometric(s: AppState, r: BiometricRequest) -> Result<Json<SettingDone>> {
    let device = s
        .controller
        .biometric(r.udid.as_deref(), r.action, r.kind, r.finger)
        .await?;
    Ok(Json(SettingDone {
        success: true,
        device,
        note: None,
    }))
}

/// Turns airplane mode on or off, or toggles it; answers the mode read back.
pub async fn airplane_mode(s: AppState, r: AirplaneModeRequest) -> Result<Json<AirplaneModeDone>> {
    let now = s
        .controller
        .airplane_mode(r.udid.as_deref(), r.enabled)
        .await?;
    Ok(Json(AirplaneModeDone {
        success: true,
        device: now.device,
        enabled: now.enabled,
        note: now.note,
    }))
}

/// A pinch or a rotation with two fingers.
pub async fn multi_touch(
    s: AppState,
    r: MultiTouchRequest,
) -> Result<Json<crate::api::wire::act::ActionResult>> {
    Ok(Json(
        s.controller
            .multi_touch(
                r.udid.as_deref(),
                &r.target,
                r.gesture == Gesture::Pinch,
                r.scale,
                r.degrees,
            )
            .await?,
    ))
}

/// Adds a photo or video under the files root to the gallery.
pub async fn add_media(s: AppState, r: MediaRequest) -> Result<Json<MediaDone>> {
    let root = s.options.files_root();
    let (local, bytes) = crate::controller::resolve_read(&root, &r.local_path)?;
    not_private(&s, &local)?;
    let (device, location) = s.controller.add_media(r.udid.as_deref(), &local).await?;
    Ok(Json(MediaDone {
        success: true,
        device,
        location,
        bytes,
    }))
}

/// Refuses a local file in the server's state directory (the proxy CA's key), even under the
/// files root: no request sends it anywhere.
fn not_private(s: &AppState, local: &std::path::Path) -> Result<()> {
    let state = s.proxy.options().state_dir.as_deref();
    let state = state.and_then(|d| d.canonicalize().ok());
    crate::controller::not_private(local, state.as_deref())
}
