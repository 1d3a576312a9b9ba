//! Screenshot decoding, scaling, encoding and annotation: pure, synchronous, no I/O (plus the
//! process-wide bound on concurrent image work, [`WORK_SLOTS`]).
//!
//! Backends hand over the device screenshot as PNG bytes (Android `screencap -p`: native pixels;
//! iOS `simctl io screenshot`: points × scale factor). This module turns those bytes into an image
//! an agent can afford:
//!
//! - [`render`]: decode, downscale (never upscale) with a good filter, encode PNG or JPEG. The
//!   decode is streamed: rows are resized (and JPEG-encoded) while the rest of the PNG is still
//!   being inflated on a helper thread (`stream`).
//! - [`annotate`]: the same, plus an outline and a ref tag (`e12`) for each [`RefBox`], and an
//!   optional lettered/numbered [`GridSpec`] overlay (the "tap C5" vision fallback).
//! - [`diff`]: which regions of the screen changed against a baseline image, with masks and
//!   noise thresholds (the visual diff and `expect screen_matches`).
//! - [`grid_cell_center`]: a grid cell name → the tap point, in whatever coordinate space the
//!   caller passes the screen size in (Android pixels, iOS points), so one function serves both.
//!
//! Everything here is CPU work (tens of milliseconds for a phone screenshot): async callers must
//! run it on a blocking thread (`tokio::task::spawn_blocking`).
//!
//! Coordinates: [`RefBox`] is in the *screenshot's* pixel space (the caller converts element
//! bounds: Android 1:1, iOS points × scale factor). [`Rendered`] reports the original and output
//! sizes; [`Rendered::to_original`] maps an output pixel back to a screenshot pixel.

mod annotate;
pub mod diff;
mod encode;
mod font;
mod grid;
mod resample;
mod stream;

/// Most screenshots decoded, resized or encoded at once (about the core count).
pub const MAX_CONCURRENT: usize = 2;

/// Slots of image work; see [`MAX_CONCURRENT`].
pub static WORK_SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(MAX_CONCURRENT);

pub use annotate::{annotate, box_color, RefBox, PALETTE};
pub use encode::{png_dimensions, render};
pub use grid::{grid_cell_center, grid_cell_rect, GridError, GridSpec};

/// Smallest accepted `scale`.
pub const MIN_SCALE: f32 = 0.1;
/// Largest accepted `scale` (the module never upscales).
pub const MAX_SCALE: f32 = 1.0;
/// Smallest accepted `max_size` (long edge in pixels); below that nothing is legible.
pub const MIN_MAX_SIZE: u32 = 16;
/// Largest `max_size` (larger than any phone screen).
pub const MAX_MAX_SIZE: u32 = 16384;
/// Default JPEG quality.
pub const DEFAULT_QUALITY: u8 = 80;

/// Output encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Lossless PNG (`image/png`).
    #[default]
    Png,
    /// JPEG at [`RenderOptions::quality`] (`image/jpeg`).
    Jpeg,
}

impl Format {
    /// The HTTP content type of this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
        }
    }
}

/// How to scale and encode a screenshot. `scale` wins over `max_size` when both are given;
/// with neither the image keeps its size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderOptions {
    /// Output encoding.
    pub format: Format,
    /// JPEG quality, 1..=100 (checked for PNG too, ignored there).
    pub quality: u8,
    /// Scale factor, 0.1..=1.0.
    pub scale: Option<f32>,
    /// Longest output edge in pixels (≥ [`MIN_MAX_SIZE`]); never upscales.
    pub max_size: Option<u32>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            format: Format::Png,
            quality: DEFAULT_QUALITY,
            scale: None,
            max_size: None,
        }
    }
}

/// An out-of-range [`RenderOptions`] field (the server answers 400 VALIDATION_FAILED).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptionsError {
    /// `quality` outside 1..=100.
    #[error("quality must be between 1 and 100, got {0}")]
    Quality(u8),
    /// `scale` outside 0.1..=1.0 or not a number.
    #[error("scale must be between {MIN_SCALE} and {MAX_SCALE}, got {0}")]
    Scale(f32),
    /// `max_size` outside 16..=16384.
    #[error("max_size must be between {MIN_MAX_SIZE} and {MAX_MAX_SIZE} pixels, got {0}")]
    MaxSize(u32),
}

impl RenderOptions {
    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), OptionsError> {
        if !(1..=100).contains(&self.quality) {
            return Err(OptionsError::Quality(self.quality));
        }
        if let Some(s) = self.scale {
            // `contains` is false for NaN, so NaN is rejected too.
            if !(MIN_SCALE..=MAX_SCALE).contains(&s) {
                return Err(OptionsError::Scale(s));
            }
        }
        if let Some(m) = self.max_size {
            if !(MIN_MAX_SIZE..=MAX_MAX_SIZE).contains(&m) {
                return Err(OptionsError::MaxSize(m));
            }
        }
        Ok(())
    }

    /// The scale factor applied to an image of `width`×`height`: explicit `scale`, else the
    /// factor that brings the long edge to `max_size`, else 1.0; never above 1.0.
    pub fn effective_scale(&self, width: u32, height: u32) -> f32 {
        let s = match (self.scale, self.max_size) {
            (Some(s), _) => s,
            (None, Some(m)) => {
                let long = width.max(height).max(1);
                (f64::from(m) / f64::from(long)) as f32
            }
            (None, None) => 1.0,
        };
        s.clamp(f32::MIN_POSITIVE, 1.0)
    }

    /// Output size for an image of `width`×`height` (each edge rounded, at least 1).
    pub fn output_size(&self, width: u32, height: u32) -> (u32, u32) {
        scaled_size(width, height, self.effective_scale(width, height))
    }
}

/// `width`×`height` scaled by `scale`, each edge rounded to the nearest pixel, at least 1.
pub fn scaled_size(width: u32, height: u32, scale: f32) -> (u32, u32) {
    let edge = |v: u32| ((f64::from(v) * f64::from(scale)).round() as u32).clamp(1, v.max(1));
    (edge(width), edge(height))
}

/// An encoded image and the geometry a client needs to map it back to tap coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// The encoded image.
    pub bytes: Vec<u8>,
    /// `image/png` or `image/jpeg`.
    pub content_type: &'static str,
    /// Size of the decoded screenshot (pixels).
    pub original: (u32, u32),
    /// Size of the encoded image (pixels).
    pub size: (u32, u32),
    /// Scale factor applied (output ≈ original × scale; edges are rounded).
    pub scale: f32,
}

impl Rendered {
    /// Maps a pixel of the output image back to the original screenshot's pixel space (per-axis
    /// ratio of the real sizes, so rounding of odd edges is accounted for). For Android that is
    /// the tap coordinate; for iOS divide by the device scale factor to get points.
    pub fn to_original(&self, x: f64, y: f64) -> (f64, f64) {
        let rx = f64::from(self.original.0) / f64::from(self.size.0.max(1));
        let ry = f64::from(self.original.1) / f64::from(self.size.1.max(1));
        (x * rx, y * ry)
    }
}

/// Why a screenshot could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// Out-of-range options (a caller's mistake: 400).
    #[error(transparent)]
    Options(#[from] OptionsError),
    /// Out-of-range grid (a caller's mistake: 400).
    #[error(transparent)]
    Grid(#[from] GridError),
    /// The screenshot bytes are not a decodable PNG (a device/backend fault).
    #[error("screenshot is not a decodable PNG: {0}")]
    Decode(String),
    /// The screenshot decoded to an empty image.
    #[error("screenshot is empty ({0}x{1})")]
    Empty(u32, u32),
    /// Encoding failed (should not happen for in-memory output).
    #[error("could not encode the image: {0}")]
    Encode(String),
    /// The embedded font could not be parsed (should not happen).
    #[error("embedded font unusable: {0}")]
    Font(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        let o = RenderOptions::default();
        assert_eq!(o.quality, 80);
        assert_eq!(o.format, Format::Png);
        o.validate().unwrap();
    }

    #[test]
    fn out_of_range_options_are_errors() {
        let bad = |f: fn(&mut RenderOptions)| {
            let mut o = RenderOptions::default();
            f(&mut o);
            o.validate().unwrap_err()
        };
        assert_eq!(bad(|o| o.quality = 0), OptionsError::Quality(0));
        assert_eq!(bad(|o| o.quality = 101), OptionsError::Quality(101));
        assert_eq!(bad(|o| o.scale = Some(0.09)), OptionsError::Scale(0.09));
        assert_eq!(bad(|o| o.scale = Some(1.01)), OptionsError::Scale(1.01));
        assert_eq!(bad(|o| o.scale = Some(0.0)), OptionsError::Scale(0.0));
        assert!(matches!(
            bad(|o| o.scale = Some(f32::NAN)),
            OptionsError::Scale(_)
        ));
        assert_eq!(bad(|o| o.max_size = Some(0)), OptionsError::MaxSize(0));
        assert_eq!(bad(|o| o.max_size = Some(15)), OptionsError::MaxSize(15));
        assert_eq!(
            bad(|o| o.max_size = Some(1 << 31)),
            OptionsError::MaxSize(1 << 31)
        );
        for ok in [0.1, 0.5, 1.0] {
            let o = RenderOptions {
                scale: Some(ok),
                ..Default::default()
            };
            o.validate().unwrap();
        }
        let o = RenderOptions {
            quality: 1,
            max_size: Some(16),
            ..Default::default()
        };
        o.validate().unwrap();
    }

    #[test]
    fn scale_half_halves_and_rounds_odd_edges() {
        let o = RenderOptions {
            scale: Some(0.5),
            ..Default::default()
        };
        assert_eq!(o.output_size(1080, 2400), (540, 1200));
        assert_eq!(o.output_size(1081, 2399), (541, 1200));
        assert_eq!(o.output_size(1, 1), (1, 1));
    }

    #[test]
    fn max_size_picks_the_long_edge_and_never_upscales() {
        let o = |m| RenderOptions {
            max_size: Some(m),
            ..Default::default()
        };
        assert_eq!(o(1200).output_size(1080, 2400), (540, 1200));
        assert_eq!(o(1200).effective_scale(1080, 2400), 0.5);
        assert_eq!(o(1200).output_size(2400, 1080), (1200, 540));
        assert_eq!(o(800).output_size(1179, 2556).1, 800);
        assert_eq!(o(5000).output_size(1080, 2400), (1080, 2400));
        assert_eq!(o(5000).effective_scale(1080, 2400), 1.0);
        // An explicit scale wins over max_size.
        let both = RenderOptions {
            scale: Some(0.25),
            max_size: Some(2000),
            ..Default::default()
        };
        assert_eq!(both.output_size(1080, 2400), (270, 600));
    }

    #[test]
    fn to_original_uses_real_ratios() {
        let r = Rendered {
            bytes: vec![],
            content_type: "image/png",
            original: (1081, 2400),
            size: (541, 1200),
            scale: 0.5,
        };
        let (x, y) = r.to_original(541.0, 600.0);
        assert!((x - 1081.0).abs() < 1e-9);
        assert!((y - 1200.0).abs() < 1e-9);
    }
}
