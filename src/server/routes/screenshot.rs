//! Screenshots an agent can afford: scaled, PNG or JPEG, annotated with the refs of the same
//! snapshot `GET /ui` serves, optionally with a lettered grid. Image work runs on the blocking
//! pool. Headers say how image pixels map to tap coordinates.

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};

use crate::api::wire::inspect::*;
use crate::controller::Shot;
use crate::error::{Error, ErrorCode, Result};
use crate::image::{self, GridSpec, ImageError, RefBox, RenderOptions, Rendered};
use crate::server::reply::{tag, Image, Tagged};
use crate::server::AppState;
use crate::ui::ViewOptions;

/// The encoding both screenshot queries ask for (`format`, `quality`, `scale`, `max_size`),
/// refused when out of range.
fn options(
    format: Option<ImageFormat>,
    quality: Option<u8>,
    scale: Option<f32>,
    max_size: Option<u32>,
) -> Result<RenderOptions> {
    let opts = RenderOptions {
        format: match format.unwrap_or_default() {
            ImageFormat::Png => image::Format::Png,
            ImageFormat::Jpeg => image::Format::Jpeg,
        },
        quality: quality.unwrap_or(image::DEFAULT_QUALITY),
        scale,
        max_size,
    };
    opts.validate()
        .map_err(|e| Error::validation(e.to_string()))?;
    Ok(opts)
}

fn image_error(e: ImageError) -> Error {
    match e {
        ImageError::Options(o) => Error::validation(o.to_string()),
        ImageError::Grid(g) => Error::validation(g.to_string()),
        ImageError::Decode(_) | ImageError::Empty(..) => {
            Error::new(ErrorCode::CommandFailed, e.to_string())
                .with_hint("the device returned an unreadable screenshot; retry")
        }
        other => Error::internal(other.to_string()),
    }
}

/// Runs image work off the async runtime, at most [`image::MAX_CONCURRENT`] at a time (a
/// decoded phone screen is ~10 MB: a burst of screenshots must not hold dozens at once). The
/// freed memory goes back to the system when the server goes quiet (`crate::server::memory`).
pub(super) async fn blocking<F>(work: F) -> Result<Rendered>
where
    F: FnOnce() -> std::result::Result<Rendered, ImageError> + Send + 'static,
{
    let _slot = image::WORK_SLOTS
        .acquire()
        .await
        .map_err(|e| Error::internal(format!("image slots closed: {e}")))?;
    let encoding = std::time::Instant::now();
    let rendered = tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Error::internal(format!("image task failed: {e}")))?;
    crate::exec::timing::record("encode", encoding.elapsed());
    rendered.map_err(image_error)
}

/// What a screenshot shows: a hash of the device's own image bytes.
fn png_tag(png: &[u8]) -> String {
    blake3::hash(png).to_hex()[..16].to_string()
}

/// The answer: the image with its geometry headers.
fn respond(shot: &Shot, r: Rendered) -> Response {
    let mut h = HeaderMap::new();
    let mut put = |k: &'static str, v: String| {
        if let Ok(v) = HeaderValue::from_str(&v) {
            h.insert(HeaderName::from_static(k), v);
        }
    };
    put("content-type", r.content_type.to_string());
    put(
        "x-original-size",
        format!("{}x{}", r.original.0, r.original.1),
    );
    put("x-image-size", format!("{}x{}", r.size.0, r.size.1));
    put("x-scale", format!("{}", r.scale));
    if let Some(px) = shot.px_per_tap {
        // tap = image pixel × this (per axis, from the real sizes).
        let per_x = f64::from(r.original.0) / f64::from(r.size.0.max(1)) / px;
        put("x-tap-per-image-pixel", format!("{per_x:.6}"));
    }
    let space = match shot.coordinate_space {
        crate::ui::CoordinateSpace::Pixels => "pixels",
        crate::ui::CoordinateSpace::Points => "points",
    };
    put("x-coordinate-space", space.to_string());
    if let Some(s) = &shot.snapshot {
        put("x-snapshot-id", s.id.clone());
    }
    (h, r.bytes).into_response()
}

/// The screen as an image. Headers: `x-original-size`, `x-image-size`, `x-scale`,
/// `x-coordinate-space` (pixels on Android, points on iOS) and `x-tap-per-image-pixel`
/// (multiply an image pixel position by it to get tap coordinates).
pub async fn screenshot(s: AppState, q: ScreenshotQuery) -> Result<Tagged<Image>> {
    let opts = options(q.format, q.quality, q.scale, q.max_size)?;
    let shot = s.controller.screenshot(q.udid.as_deref()).await?;
    let etag = tag(
        &png_tag(&shot.png),
        &(q.format, q.quality, q.scale, q.max_size),
    );
    let png = shot.png.clone();
    let rendered = blocking(move || image::render(&png, &opts)).await?;
    Ok(Tagged(Image(respond(&shot, rendered)), etag))
}

/// The screen with a box and a ref tag on each element that has a ref — the refs of the
/// snapshot taken at the same moment, which becomes the device's latest (`x-snapshot-id`).
pub async fn annotated(s: AppState, q: AnnotatedQuery) -> Result<Tagged<Image>> {
    let opts = options(q.format, q.quality, q.scale, q.max_size)?;
    let shot = s.controller.annotated_shot(q.udid.as_deref()).await?;
    let snapshot = shot
        .snapshot
        .clone()
        .expect("annotated shots carry their snapshot");
    let view = snapshot.view(&ViewOptions {
        interactive_only: q.interactive_only,
    });
    let k = shot.px_per_tap.unwrap_or(1.0);
    let boxes: Vec<RefBox> = view
        .refs
        .entries
        .iter()
        .filter(|e| view.listed.contains(&e.node))
        .map(|e| RefBox {
            label: e.r#ref.clone(),
            x: e.bounds.x * k,
            y: e.bounds.y * k,
            w: e.bounds.w * k,
            h: e.bounds.h * k,
        })
        .collect();
    let grid = q
        .grid
        .then(|| GridSpec::for_size(view.screen.w, view.screen.h));
    let etag = tag(
        &png_tag(&shot.png),
        &(
            &view.fingerprint,
            q.format,
            q.quality,
            q.scale,
            q.max_size,
            q.interactive_only,
            q.grid,
        ),
    );
    let png = shot.png.clone();
    let rendered = blocking(move || image::annotate(&png, &boxes, grid, &opts)).await?;
    Ok(Tagged(Image(respond(&shot, rendered)), etag))
}

/// The screen now against a baseline: the changed regions (merged, noise dropped, the status
/// bar and `mask` left out), the share of pixels changed, and with `save` the outlined image.
pub async fn diff(
    s: AppState,
    r: crate::api::wire::diff::DiffRequest,
) -> Result<axum::Json<crate::api::wire::diff::DiffResult>> {
    let mask = r.mask.unwrap_or_default();
    crate::api::wire::diff::check_masks(&mask)?;
    let spec = crate::controller::DiffSpec {
        baseline: r.baseline.spec()?,
        mask,
        mask_status_bar: r.mask_status_bar.unwrap_or(true),
        channel_threshold: r
            .channel_threshold
            .unwrap_or(crate::image::diff::DEFAULT_CHANNEL_THRESHOLD),
        save: r.save,
    };
    Ok(axum::Json(
        s.controller
            .screenshot_diff(r.udid.as_deref(), spec)
            .await?,
    ))
}
