//! Screenshots downscaled: packed 8-bit RGB or RGBA rows resized with a bilinear convolution
//! whose support widens with the reduction factor, so text is averaged rather than sampled.
//!
//! A crate of its own because `fast_image_resize`'s resizer is generic: its caller instantiates
//! the SIMD kernels of every pixel type it dispatches to at run time, about 900,000 lines of
//! LLVM IR in a debug build (`cargo llvm-lines`), which the main crate would compile twice, for
//! its library and for its unit tests. Here they are compiled once, behind one non-generic call
//! (docs/measurements.md).

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};

/// The filter: bilinear, with the support widened by the reduction factor, keeps small text
/// legible at 0.5 (see the main crate's bench and its stripes test).
const FILTER: FilterType = FilterType::Bilinear;

/// How far the filter reaches from a destination pixel's centre, in destination pixels (in
/// source pixels, this times the reduction factor).
pub const FILTER_REACH: f64 = 1.0;

/// How the pixels of a buffer are packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pixels {
    /// 8-bit red, green, blue.
    Rgb8,
    /// 8-bit red, green, blue, alpha.
    Rgba8,
}

impl Pixels {
    /// Bytes per pixel.
    pub fn size(self) -> usize {
        match self {
            Pixels::Rgb8 => 3,
            Pixels::Rgba8 => 4,
        }
    }

    fn pixel_type(self) -> PixelType {
        match self {
            Pixels::Rgb8 => PixelType::U8x3,
            Pixels::Rgba8 => PixelType::U8x4,
        }
    }
}

/// Part of the source, in source pixels (fractions allowed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crop {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

/// A resize the buffers given could not take (a size that does not match its buffer, a zero
/// side).
#[derive(Debug, thiserror::Error)]
#[error("resize: {0}")]
pub struct ResampleError(String);

/// A buffer of packed pixels and its width and height.
pub type Pixmap<'a> = (&'a [u8], (u32, u32));
/// A destination buffer of packed pixels and its width and height.
pub type PixmapMut<'a> = (&'a mut [u8], (u32, u32));

/// Resizes pixels, keeping its working buffers from one call to the next.
#[derive(Default)]
pub struct Resampler {
    resizer: Resizer,
}

impl Resampler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Resizes `src` (or the part of it `crop` names) into `dst`, both packed as `pixels`,
    /// without premultiplying by alpha (screenshots are opaque).
    pub fn resample(
        &mut self,
        pixels: Pixels,
        src: Pixmap<'_>,
        dst: PixmapMut<'_>,
        crop: Option<Crop>,
    ) -> Result<(), ResampleError> {
        let failed = |e: &dyn std::fmt::Display| ResampleError(e.to_string());
        let (bytes, (width, height)) = src;
        let source =
            ImageRef::new(width, height, bytes, pixels.pixel_type()).map_err(|e| failed(&e))?;
        let (out_bytes, (out_width, out_height)) = dst;
        let mut target =
            Image::from_slice_u8(out_width, out_height, out_bytes, pixels.pixel_type())
                .map_err(|e| failed(&e))?;
        let mut options = ResizeOptions::new()
            .resize_alg(ResizeAlg::Convolution(FILTER))
            .use_alpha(false);
        if let Some(c) = crop {
            options = options.crop(c.left, c.top, c.width, c.height);
        }
        self.resizer
            .resize(&source, &mut target, &options)
            .map_err(|e| failed(&e))
    }
}
