//! Decode a PNG screenshot, downscale it, encode PNG or JPEG.
//!
//! Screenshots are opaque, so everything works on 8-bit RGB: the alpha channel of
//! `screencap`/`simctl` PNGs is dropped at decode time (a quarter less work for the resize, and
//! JPEG has no alpha anyway). Downscaling uses `fast_image_resize` (SIMD, called in
//! `resample.rs`) with a bilinear convolution whose support widens with the reduction factor,
//! so text is averaged rather than sampled as nearest-neighbour would do. JPEG is encoded with
//! `jpeg-encoder` (AVX2 when the CPU has it); both are several times faster than `image`'s own
//! resize and JPEG encoder.

use std::io::Cursor;

use ::image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use ::image::{DynamicImage, ImageFormat, RgbImage};

use super::resample::{Pixels, Resampler};
use super::{Format, ImageError, RenderOptions, Rendered};

/// Decodes, downscales and encodes a PNG screenshot according to `opts`.
pub fn render(png: &[u8], opts: &RenderOptions) -> Result<Rendered, ImageError> {
    opts.validate()?;
    let original = png_size(png)?;
    let scale = opts.effective_scale(original.0, original.1);
    let size = super::scaled_size(original.0, original.1, scale);
    let direct = match opts.format {
        // Full-size PNG asked: the device's own bytes, without a decode and re-encode.
        Format::Png if size == original => Some(png.to_vec()),
        Format::Png => None,
        Format::Jpeg => super::stream::encode_jpeg(png, size, opts.quality)?,
    };
    if let Some(bytes) = direct {
        return Ok(Rendered {
            bytes,
            content_type: opts.format.content_type(),
            original,
            size,
            scale,
        });
    }
    let (img, original, scale) = decode_scaled(png, opts)?;
    finish(&img, original, scale, opts)
}

/// Decodes and downscales per `opts`: the opaque RGB image, the original size and the scale.
/// 8-bit RGB(A) PNGs stream (rows are resized while the rest is still being inflated, see
/// [`super::stream`]); other layouts decode the whole image first. An RGBA screenshot
/// (`screencap`) is resized as RGBA and converted to RGB only at its small size, which saves
/// converting every pixel of the full-size image.
pub(super) fn decode_scaled(
    png: &[u8],
    opts: &RenderOptions,
) -> Result<(RgbImage, (u32, u32), f32), ImageError> {
    let (w, h) = png_size(png)?;
    let scale = opts.effective_scale(w, h);
    let size = super::scaled_size(w, h, scale);
    if let Some(rgb) = super::stream::decode_downscaled(png, size)? {
        return Ok((rgb, (w, h), scale));
    }
    decode_whole(png, opts)
}

/// [`decode_scaled`] by decoding the whole image, then resizing it.
pub(super) fn decode_whole(
    png: &[u8],
    opts: &RenderOptions,
) -> Result<(RgbImage, (u32, u32), f32), ImageError> {
    let img = ::image::load_from_memory_with_format(png, ImageFormat::Png)
        .map_err(|e| ImageError::Decode(e.to_string()))?;
    let original = (img.width(), img.height());
    if original.0 == 0 || original.1 == 0 {
        return Err(ImageError::Empty(original.0, original.1));
    }
    let scale = opts.effective_scale(original.0, original.1);
    let (nw, nh) = super::scaled_size(original.0, original.1, scale);
    let rgb = match img {
        DynamicImage::ImageRgba8(rgba) if (nw, nh) != original => {
            let mut out = ::image::RgbaImage::new(nw, nh);
            match Resampler::new().resample(
                Pixels::Rgba8,
                (rgba.as_raw(), original),
                (&mut out, (nw, nh)),
                None,
            ) {
                Ok(()) => DynamicImage::ImageRgba8(out).to_rgb8(),
                Err(_) => downscale(DynamicImage::ImageRgba8(rgba).to_rgb8(), scale),
            }
        }
        DynamicImage::ImageRgb8(rgb) => downscale(rgb, scale),
        other => downscale(other.to_rgb8(), scale),
    };
    Ok((rgb, original, scale))
}

/// Width and height of a PNG, read from its header.
pub fn png_dimensions(png: &[u8]) -> Option<(u32, u32)> {
    const MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";
    if png.len() < 24 || &png[..8] != MAGIC || &png[12..16] != b"IHDR" {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&png[16..20]), be(&png[20..24])))
}

/// The size in a PNG's header, without decoding the pixels.
fn png_size(png: &[u8]) -> Result<(u32, u32), ImageError> {
    let (w, h) = ::image::ImageReader::with_format(Cursor::new(png), ImageFormat::Png)
        .into_dimensions()
        .map_err(|e| ImageError::Decode(e.to_string()))?;
    if w == 0 || h == 0 {
        return Err(ImageError::Empty(w, h));
    }
    Ok((w, h))
}

/// Downscales by `scale` (≤ 1.0; 1.0 returns the image untouched).
pub(super) fn downscale(img: RgbImage, scale: f32) -> RgbImage {
    let (w, h) = img.dimensions();
    let (nw, nh) = super::scaled_size(w, h, scale);
    if (nw, nh) == (w, h) {
        return img;
    }
    let mut out = RgbImage::new(nw, nh);
    match Resampler::new().resample(
        Pixels::Rgb8,
        (img.as_raw(), (w, h)),
        (&mut out, (nw, nh)),
        None,
    ) {
        Ok(()) => out,
        // Both images are 8-bit RGB of non-zero size, so this cannot fail; keep the original
        // rather than panic if it ever does.
        Err(_) => img,
    }
}

/// Encodes `img` and wraps it with its geometry.
pub(super) fn finish(
    img: &RgbImage,
    original: (u32, u32),
    scale: f32,
    opts: &RenderOptions,
) -> Result<Rendered, ImageError> {
    Ok(Rendered {
        bytes: encode(img, opts.format, opts.quality)?,
        content_type: opts.format.content_type(),
        original,
        size: img.dimensions(),
        scale,
    })
}

/// Encodes RGB pixels as PNG (fast deflate, adaptive filter) or JPEG at `quality`.
pub(super) fn encode(img: &RgbImage, format: Format, quality: u8) -> Result<Vec<u8>, ImageError> {
    let (w, h) = img.dimensions();
    // JPEG of a screenshot is roughly 1 bit per pixel at q80; PNG more.
    let mut out = Cursor::new(Vec::with_capacity((w as usize * h as usize) / 4));
    let res = match format {
        Format::Png => {
            let enc =
                PngEncoder::new_with_quality(&mut out, CompressionType::Fast, PngFilter::Adaptive);
            img.write_with_encoder(enc)
        }
        Format::Jpeg => {
            let (jw, jh) = (super::stream::jpeg_side(w)?, super::stream::jpeg_side(h)?);
            let enc = jpeg_encoder::Encoder::new(&mut out, quality.clamp(1, 100));
            return enc
                .encode(img.as_raw(), jw, jh, jpeg_encoder::ColorType::Rgb)
                .map(|()| out.into_inner())
                .map_err(|e| ImageError::Encode(e.to_string()));
        }
    };
    res.map_err(|e| ImageError::Encode(e.to_string()))?;
    Ok(out.into_inner())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use ::image::Rgb;

    /// A synthetic screenshot: stripes and a dark rectangle, encoded as RGBA PNG like `screencap`.
    pub(crate) fn synthetic_png(w: u32, h: u32) -> Vec<u8> {
        let img = ::image::RgbaImage::from_fn(w, h, |x, y| {
            if (w / 4..w / 2).contains(&x) && (h / 4..h / 2).contains(&y) {
                ::image::Rgba([20, 20, 20, 255])
            } else {
                ::image::Rgba([(x % 256) as u8, (y % 256) as u8, 200, 255])
            }
        });
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    fn decode_any(bytes: &[u8]) -> RgbImage {
        ::image::load_from_memory(bytes).unwrap().to_rgb8()
    }

    #[test]
    fn scale_half_halves_both_dimensions() {
        let png = synthetic_png(200, 300);
        let opts = RenderOptions {
            scale: Some(0.5),
            ..Default::default()
        };
        let r = render(&png, &opts).unwrap();
        assert_eq!(r.original, (200, 300));
        assert_eq!(r.size, (100, 150));
        assert_eq!(r.scale, 0.5);
        assert_eq!(decode_any(&r.bytes).dimensions(), (100, 150));
    }

    #[test]
    fn odd_sizes_round() {
        let png = synthetic_png(101, 51);
        let opts = RenderOptions {
            scale: Some(0.5),
            ..Default::default()
        };
        let r = render(&png, &opts).unwrap();
        assert_eq!(r.size, (51, 26));
        assert_eq!(decode_any(&r.bytes).dimensions(), (51, 26));
    }

    #[test]
    fn max_size_and_no_upscale() {
        let png = synthetic_png(120, 240);
        let o = |m| RenderOptions {
            max_size: Some(m),
            ..Default::default()
        };
        let r = render(&png, &o(60)).unwrap();
        assert_eq!((r.size, r.scale), ((30, 60), 0.25));
        let r = render(&png, &o(1000)).unwrap();
        assert_eq!((r.size, r.scale), ((120, 240), 1.0));
    }

    #[test]
    fn jpeg_has_content_type_and_magic() {
        let png = synthetic_png(64, 64);
        let opts = RenderOptions {
            format: Format::Jpeg,
            ..Default::default()
        };
        let r = render(&png, &opts).unwrap();
        assert_eq!(r.content_type, "image/jpeg");
        assert_eq!(&r.bytes[..3], &[0xFF, 0xD8, 0xFF]);
        assert_eq!(decode_any(&r.bytes).dimensions(), (64, 64));
    }

    #[test]
    fn png_has_content_type_and_signature() {
        let png = synthetic_png(64, 64);
        let r = render(&png, &RenderOptions::default()).unwrap();
        assert_eq!(r.content_type, "image/png");
        assert_eq!(&r.bytes[..8], b"\x89PNG\r\n\x1a\n");
        // Lossless at scale 1: the pixels survive the round trip (alpha dropped).
        let back = decode_any(&r.bytes);
        assert_eq!(*back.get_pixel(60, 60), Rgb([60, 60, 200]));
        assert_eq!(*back.get_pixel(20, 20), Rgb([20, 20, 20]));
    }

    #[test]
    fn bad_input_and_bad_options_are_errors() {
        assert!(matches!(
            render(b"not a png", &RenderOptions::default()),
            Err(ImageError::Decode(_))
        ));
        let png = synthetic_png(8, 8);
        let opts = RenderOptions {
            quality: 0,
            ..Default::default()
        };
        assert!(matches!(render(&png, &opts), Err(ImageError::Options(_))));
    }

    #[test]
    fn downscale_averages_instead_of_sampling() {
        // One-pixel black/white vertical lines: nearest-neighbour would keep only one colour;
        // an area-aware filter gives grey.
        let img = RgbImage::from_fn(64, 8, |x, _| {
            if x % 2 == 0 {
                Rgb([0, 0, 0])
            } else {
                Rgb([255, 255, 255])
            }
        });
        let small = downscale(img, 0.5);
        let v = small.get_pixel(16, 2)[0];
        assert!((100..=155).contains(&v), "got {v}");
    }

    #[test]
    fn png_header() {
        let mut png = Vec::new();
        ::image::RgbaImage::new(7, 5)
            .write_to(
                &mut std::io::Cursor::new(&mut png),
                ::image::ImageFormat::Png,
            )
            .unwrap();
        assert_eq!(png_dimensions(&png), Some((7, 5)));
        assert_eq!(png_dimensions(b"not a png at all, really not"), None);
    }
}
