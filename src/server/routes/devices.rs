//! Devices: listing, the active device, boot and shutdown.

use axum::Json;

use crate::api::wire::devices::*;
use crate::error::Result;
use crate::server::AppState;

/// Lists Android devices (adb) and iOS Simulators (simctl). A missing tool is not an error:
/// that platform is absent and `tools` says why.
pub async fn list(state: AppState, q: ListQuery) -> Result<Json<DeviceList>> {
    let mut list = state.controller.list().await;
    list.devices.retain(|d| {
        q.platform.is_none_or(|p| d.platform == p) && q.state.is_none_or(|s| d.state == s)
    });
    Ok(Json(list))
}

/// One device by udid or unique name, from the listing: its state, model and capabilities.
pub async fn get_device(state: AppState, q: DevicePath) -> Result<Json<Device>> {
    let list = state.controller.list().await;
    Ok(Json(crate::controller::resolve_target(
        Some(&q.udid),
        None,
        &list.devices,
    )?))
}

/// The device that requests without `udid` go to.
pub async fn get_active(state: AppState) -> Result<Json<ActiveDevice>> {
    let udid = state.controller.active();
    let device = match &udid {
        Some(u) => state
            .controller
            .list()
            .await
            .devices
            .into_iter()
            .find(|d| &d.udid == u),
        None => None,
    };
    Ok(Json(ActiveDevice { device, udid }))
}

/// Chooses the device that requests without `udid` go to.
pub async fn put_active(state: AppState, body: SetActive) -> Result<Json<ActiveDevice>> {
    match body.udid {
        Some(udid) => {
            let device = state.controller.set_active(&udid).await?;
            Ok(Json(ActiveDevice {
                udid: Some(device.udid.clone()),
                device: Some(device),
            }))
        }
        None => {
            state.controller.clear_active();
            Ok(Json(ActiveDevice {
                device: None,
                udid: None,
            }))
        }
    }
}

/// Boots an iOS Simulator (`udid`: udid or name) or an Android emulator (`avd`).
pub async fn boot(state: AppState, body: BootRequest) -> Result<Json<PowerResult>> {
    Ok(Json(state.controller.boot(&body).await?))
}

/// Shuts down a simulator or an emulator.
pub async fn shutdown(state: AppState, body: ShutdownRequest) -> Result<Json<PowerResult>> {
    Ok(Json(state.controller.shutdown(&body).await?))
}

/// Installs the device's helper (Android: the UiAutomator2 server's APKs), from files under
/// the files root or from where npm or Appium put them.
pub async fn install_helper(
    state: AppState,
    body: HelperInstallRequest,
) -> Result<Json<HelperInstalled>> {
    let root = state.options.files_root();
    let given = body
        .apks
        .iter()
        .map(|p| crate::controller::resolve_read(&root, p).map(|(path, _)| path))
        .collect::<Result<Vec<_>>>()?;
    let done = state
        .controller
        .install_helper(body.udid.as_deref(), &given)
        .await?;
    Ok(Json(done))
}
