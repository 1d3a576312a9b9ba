//! Screenshots downscaled: packed 8-bit RGB or RGBA rows resized with a bilinear convolution
//! whose support widens with the reduction factor, so text is averaged rather than sampled.
//!
//! The one call of `fast_image_resize`'s resizer. It is generic over the image types it is
//! given, and each pair instantiates the SIMD kernels of every pixel type it dispatches to at
//! run time; the screenshot paths (a decoded RGBA or RGB image, streamed rows) all come here
//! with borrowed bytes, so they are instantiated once (the main library's LLVM IR: 4.56 → 4.20
//! million lines, `cargo llvm-lines`).

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};

/// The filter: bilinear, with the support widened by the reduction factor, keeps small text
/// legible at 0.5 (see the bench and the stripes test).
const FILTER: FilterType = FilterType::Bilinear;

/// How far the filter reaches from a destination pixel's centre, in destination pixels (in
/// source pixels, this times the reduction factor).
pub(crate) const FILTER_REACH: f64 = 1.0;

/// How the pixels of a buffer are packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pixels {
    /// 8-bit red, green, blue.
    Rgb8,
    /// 8-bit red, green, blue, alpha.
    Rgba8,
}

impl Pixels {
    /// Bytes per pixel.
    pub(crate) fn size(self) -> usize {
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
pub(crate) struct Crop {
    pub(crate) left: f64,
    pub(crate) top: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
}

/// A resize the buffers given could not take (a size that does not match its buffer, a zero
/// side).
#[derive(Debug, thiserror::Error)]
#[error("resize: {0}")]
pub(crate) struct ResampleError(String);

/// A buffer of packed pixels and its width and height.
pub(crate) type Pixmap<'a> = (&'a [u8], (u32, u32));
/// A destination buffer of packed pixels and its width and height.
pub(crate) type PixmapMut<'a> = (&'a mut [u8], (u32, u32));

/// Resizes pixels, keeping its working buffers from one call to the next.
#[derive(Default)]
pub(crate) struct Resampler {
    resizer: Resizer,
}

impl Resampler {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Resizes `src` (or the part of it `crop` names) into `dst`, both packed as `pixels`,
    /// without premultiplying by alpha (screenshots are opaque).
    pub(crate) fn resample(
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two columns, black and white, halved to one: the filter averages them.
    #[test]
    fn halving_averages_neighbouring_pixels() {
        let src = [0u8, 0, 0, 255, 255, 255, 0, 0, 0, 255, 255, 255];
        let mut out = [0u8; 3];
        Resampler::new()
            .resample(Pixels::Rgb8, (&src, (2, 2)), (&mut out, (1, 1)), None)
            .unwrap();
        assert!(out.iter().all(|&v| (120..=135).contains(&v)), "{out:?}");
    }

    /// The bottom quarter of a black-over-white image, cropped then resized, is white: the
    /// filter reads around the crop too (the streamed resize relies on it), and there it finds
    /// white rows only.
    #[test]
    fn a_crop_resizes_only_its_part() {
        let mut src = vec![0u8; 4 * 8 * 4];
        src[4 * 4 * 4..].fill(255);
        let mut out = [0u8; 2 * 4];
        let crop = Crop {
            left: 0.0,
            top: 6.0,
            width: 4.0,
            height: 2.0,
        };
        Resampler::new()
            .resample(
                Pixels::Rgba8,
                (&src, (4, 8)),
                (&mut out, (2, 1)),
                Some(crop),
            )
            .unwrap();
        assert_eq!(out, [255u8; 8]);
        // Without the crop, the same resize averages black and white.
        let mut whole = [0u8; 2 * 4];
        Resampler::new()
            .resample(Pixels::Rgba8, (&src, (4, 8)), (&mut whole, (2, 1)), None)
            .unwrap();
        assert!(whole[0] < 200, "{whole:?}");
    }

    #[test]
    fn a_buffer_of_the_wrong_size_is_an_error_not_a_panic() {
        let mut out = [0u8; 3];
        let err = Resampler::new()
            .resample(Pixels::Rgb8, (&[0u8; 5], (2, 2)), (&mut out, (1, 1)), None)
            .unwrap_err();
        assert!(err.to_string().starts_with("resize: "), "{err}");
    }
}
