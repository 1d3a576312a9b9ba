//! `POST /api/v1/device/connect`: the one explicit way to make the adb server reach a device
//! over the network (a `udid` never does; see `crate::backend::android::connect`).

use axum::Json;

use crate::api::wire::devices::{ConnectRequest, ConnectResult};
use crate::error::Result;
use crate::server::AppState;

/// Connects adb to `host:port` (loopback, or a block the server allows) and answers the
/// device as listed.
pub async fn connect(state: AppState, r: ConnectRequest) -> Result<Json<ConnectResult>> {
    tracing::info!(host = %r.host, port = r.port, "device connect requested");
    let (device, already) = state.controller.connect(&r.host, r.port).await?;
    Ok(Json(ConnectResult {
        connected: device.udid.clone(),
        already,
        device,
    }))
}
