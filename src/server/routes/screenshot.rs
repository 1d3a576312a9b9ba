//! `GET /api/v1/device/screenshot`: the screen as an image.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::Result;
use crate::server::{ApiErrors, ApiQuery, AppState};

/// Which device to capture.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ScreenshotQuery {
    pub udid: Option<String>,
}

/// The screen as PNG at the device's native resolution.
#[utoipa::path(get, path = "/api/v1/device/screenshot", tag = "inspect", params(ScreenshotQuery),
    responses((status = 200, description = "The screen", content_type = "image/png", body = Vec<u8>), ApiErrors))]
pub async fn screenshot(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<ScreenshotQuery>,
) -> Result<Response> {
    let (_device, png) = s.controller.screenshot_png(q.udid.as_deref()).await?;
    Ok(([(header::CONTENT_TYPE, "image/png")], png).into_response())
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(screenshot))
}
