//! Streamed screenshot decoding: the PNG is inflated row by row on a helper thread while the
//! calling thread resizes (and, for JPEG, encodes) the rows already decoded.
//!
//! Inflating a phone screenshot (10 MB of RGBA) is more than half of a scaled screenshot's cost
//! and cannot itself be split, but nothing after it has to wait for all of it: a destination row
//! needs only the source rows under its filter window, and the JPEG encoder consumes rows top to
//! bottom. So [`BandedResize`] resizes destination rows as soon as their source rows exist, and
//! [`encode_jpeg`] hands the encoder each row the moment it is asked for. The crop window given
//! to the resampler (`resample.rs`) keeps the full image's sampling grid (same scale, same
//! centres) and its filter windows are clamped only at rows no finished destination row needs,
//! so the output equals the whole-image resize (a test compares them byte for byte).
//!
//! Handles non-interlaced PNGs that decode (after expanding palettes and stripping 16-bit) to
//! 8-bit RGB or RGBA — what `screencap` and `simctl` produce. Anything else returns `Ok(None)`
//! and the caller decodes the whole image instead.

use std::cell::RefCell;
use std::io::Cursor;
use std::sync::mpsc;

use ::image::{DynamicImage, RgbImage, RgbaImage};
use jpeg_encoder::{ImageBuffer, JpegColorType};
use png::{BitDepth, ColorType, Transformations};

use super::resample::{Crop, Pixels, Resampler, FILTER_REACH};
use super::ImageError;

/// Source rows handed from the decoding thread to the resizing one at a time.
const BAND_ROWS: usize = 64;
/// Bands in flight before the decoder waits for the resizer.
const BANDS_IN_FLIGHT: usize = 8;
/// Decoder memory limit, as generous as `image`'s own default.
const DECODE_LIMIT_BYTES: usize = 512 * 1024 * 1024;

type Band = Result<Vec<u8>, ImageError>;

/// Decodes `png` and scales it to `size` (≤ the PNG's size), overlapping the two. `Ok(None)`:
/// this PNG's layout is not one the streamed path handles (see the module docs).
pub(super) fn decode_downscaled(
    png: &[u8],
    size: (u32, u32),
) -> Result<Option<RgbImage>, ImageError> {
    with_decoder(png, size, |rows| {
        let pixels = rows.pixels;
        to_rgb(rows.finish()?, size, pixels)
    })
}

/// Decodes `png`, scales it to `size` (≤ the PNG's size) and encodes it as JPEG at `quality`,
/// all three overlapping. `Ok(None)` as for [`decode_downscaled`].
pub(super) fn encode_jpeg(
    png: &[u8],
    size: (u32, u32),
    quality: u8,
) -> Result<Option<Vec<u8>>, ImageError> {
    let (w, h) = (jpeg_side(size.0)?, jpeg_side(size.1)?);
    with_decoder(png, size, |rows| {
        let mut out = Vec::with_capacity((size.0 as usize * size.1 as usize) / 4);
        let source = RowSource {
            rows: RefCell::new(rows),
            width: w,
            height: h,
        };
        let encoded = jpeg_encoder::Encoder::new(&mut out, quality.clamp(1, 100))
            .encode_image(&source)
            .map_err(|e| ImageError::Encode(e.to_string()));
        // A decoding error beats the encoder's view of the (zero-filled) rows it was given.
        if let Some(e) = source.rows.into_inner().failed.take() {
            return Err(e);
        }
        encoded.map(|()| out)
    })
}

pub(super) fn jpeg_side(v: u32) -> Result<u16, ImageError> {
    u16::try_from(v).map_err(|_| ImageError::Encode(format!("{v} px is too large for JPEG")))
}

/// Reads the PNG header, starts inflating on a helper thread, and runs `consume` with the rows
/// as they come; joins the helper before returning.
fn with_decoder<T>(
    png: &[u8],
    size: (u32, u32),
    consume: impl FnOnce(&mut BandedResize) -> Result<T, ImageError>,
) -> Result<Option<T>, ImageError> {
    let mut decoder = png::Decoder::new_with_limits(
        Cursor::new(png),
        png::Limits {
            bytes: DECODE_LIMIT_BYTES,
        },
    );
    decoder.set_transformations(Transformations::EXPAND | Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(decode_error)?;
    let pixels = match reader.output_color_type() {
        (ColorType::Rgb, BitDepth::Eight) => Pixels::Rgb8,
        (ColorType::Rgba, BitDepth::Eight) => Pixels::Rgba8,
        _ => return Ok(None),
    };
    if reader.info().interlaced {
        return Ok(None);
    }
    let (width, height) = (reader.info().width, reader.info().height);
    if width == 0 || height == 0 {
        return Err(ImageError::Empty(width, height));
    }
    if size.0 == 0 || size.1 == 0 || size.0 > width || size.1 > height {
        return Err(ImageError::Decode(format!(
            "cannot scale {width}x{height} to {}x{}",
            size.0, size.1
        )));
    }
    let stride = width as usize * pixels.size();

    let (band_tx, band_rx) = mpsc::sync_channel::<Band>(BANDS_IN_FLIGHT);
    std::thread::scope(|scope| {
        let decoder_thread = std::thread::Builder::new().name("png-decode".into());
        let spawned = decoder_thread.spawn_scoped(scope, move || {
            let mut band = Vec::with_capacity(BAND_ROWS * stride);
            loop {
                match reader.next_row() {
                    Ok(Some(row)) => band.extend_from_slice(row.data()),
                    Ok(None) => break,
                    Err(e) => {
                        // The consumer may already have given up; nothing else to tell.
                        let _ = band_tx.send(Err(decode_error(e)));
                        return;
                    }
                }
                if band.len() >= BAND_ROWS * stride {
                    let full = std::mem::replace(&mut band, Vec::with_capacity(BAND_ROWS * stride));
                    if band_tx.send(Ok(full)).is_err() {
                        return;
                    }
                }
            }
            if !band.is_empty() {
                let _ = band_tx.send(Ok(band));
            }
        });
        // No thread to be had (resource limits): the caller decodes the whole image instead.
        let Ok(decoding) = spawned else {
            return Ok(None);
        };
        let mut rows = BandedResize::new(band_rx, (width, height), size, pixels);
        let result = consume(&mut rows);
        // Stop the decoder early if the consumer gave up before the end.
        drop(rows);
        if decoding.join().is_err() {
            return Err(ImageError::Decode(
                "the PNG decoder stopped unexpectedly".into(),
            ));
        }
        result.map(Some)
    })
}

/// Destination rows, resized from the source rows received so far, on demand.
struct BandedResize {
    bands: mpsc::Receiver<Band>,
    /// Source pixels received and still needed: rows `first_row..first_row + source rows`.
    /// When resizing, rows no destination row still needs are dropped, so the buffer stays a
    /// few bands long (cache-warm, no fresh pages); otherwise it is the whole image.
    source: Vec<u8>,
    first_row: u32,
    /// Destination pixels; rows 0..`done` are final. Empty when no resize is needed (the
    /// source rows are the destination rows).
    out: Vec<u8>,
    done: u32,
    size: (u32, u32),
    out_size: (u32, u32),
    pixels: Pixels,
    resampler: Resampler,
    /// The first error met; later requests return zeroed rows and the caller reports this.
    failed: Option<ImageError>,
}

impl BandedResize {
    fn new(
        bands: mpsc::Receiver<Band>,
        size: (u32, u32),
        out_size: (u32, u32),
        pixels: Pixels,
    ) -> Self {
        let channels = pixels.size();
        let stride = size.0 as usize * channels;
        let (source_rows, out) = if out_size == size {
            (size.1 as usize, Vec::new())
        } else {
            let window = (BANDS_IN_FLIGHT + 2) * BAND_ROWS;
            (
                window.min(size.1 as usize),
                vec![0u8; out_size.0 as usize * channels * out_size.1 as usize],
            )
        };
        BandedResize {
            bands,
            source: Vec::with_capacity(stride * source_rows),
            first_row: 0,
            out,
            done: 0,
            size,
            out_size,
            pixels,
            resampler: Resampler::new(),
            failed: None,
        }
    }

    fn stride(&self) -> usize {
        self.size.0 as usize * self.pixels.size()
    }

    fn out_stride(&self) -> usize {
        self.out_size.0 as usize * self.pixels.size()
    }

    /// Source rows received so far, kept or dropped.
    fn received_rows(&self) -> u32 {
        self.first_row + (self.source.len() / self.stride()) as u32
    }

    fn identity(&self) -> bool {
        self.out_size == self.size
    }

    /// Destination row `y` (`y` < the destination height), waiting for the decoder as needed.
    /// After an error, a row of zeros (see `failed`).
    fn row(&mut self, y: u32) -> &[u8] {
        if self.failed.is_none() {
            if let Err(e) = self.ensure(y + 1) {
                self.failed = Some(e);
            }
        }
        let stride = self.out_stride();
        let start = y as usize * stride;
        let pixels = if self.identity() {
            &self.source
        } else {
            &self.out
        };
        pixels.get(start..start + stride).unwrap_or(&[])
    }

    /// All destination pixels, row after row.
    fn finish(&mut self) -> Result<Vec<u8>, ImageError> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.ensure(self.out_size.1)?;
        Ok(if self.identity() {
            std::mem::take(&mut self.source)
        } else {
            std::mem::take(&mut self.out)
        })
    }

    /// Receives bands until destination rows 0..`rows` are final.
    fn ensure(&mut self, rows: u32) -> Result<(), ImageError> {
        while self.done < rows {
            let band = match self.bands.recv() {
                Ok(band) => band?,
                Err(mpsc::RecvError) => {
                    return Err(ImageError::Decode(format!(
                        "image data ended after {} of {} rows",
                        self.received_rows(),
                        self.size.1
                    )))
                }
            };
            self.source.extend_from_slice(&band);
            self.take_queued()?;
            self.resize_ready()?;
        }
        Ok(())
    }

    /// Takes the bands already waiting as well: fewer, larger resizes cost less (each resize
    /// call has a fixed cost of its own).
    fn take_queued(&mut self) -> Result<(), ImageError> {
        while let Ok(band) = self.bands.try_recv() {
            self.source.extend_from_slice(&band?);
        }
        Ok(())
    }

    /// Resizes the destination rows whose source rows have all arrived, then drops the source
    /// rows that no remaining destination row reaches.
    fn resize_ready(&mut self) -> Result<(), ImageError> {
        let (width, height) = self.size;
        let (out_w, out_h) = self.out_size;
        let received = self.received_rows();
        if self.identity() {
            self.done = received;
            return Ok(());
        }
        let ratio = f64::from(height) / f64::from(out_h);
        // Destination row j is centred on source row (j + 0.5) × ratio; its filter reaches
        // `reach` source rows either way (two rows of slack for rounding).
        let reach = FILTER_REACH * ratio.max(1.0) + 2.0;
        let ready = if received >= height {
            out_h
        } else {
            (((f64::from(received) - reach) / ratio - 0.5)
                .floor()
                .max(0.0) as u32)
                .min(out_h)
        };
        if ready <= self.done {
            return Ok(());
        }
        let stride = self.stride();
        let out_stride = self.out_stride();
        let kept = received - self.first_row;
        // The crop is relative to the kept rows; its scale is the whole image's (`min` only
        // trims floating-point excess at the image's bottom edge).
        let top = f64::from(self.done) * ratio - f64::from(self.first_row);
        let rows = (f64::from(ready - self.done) * ratio).min(f64::from(kept) - top);
        let target_rows =
            &mut self.out[self.done as usize * out_stride..ready as usize * out_stride];
        let crop = Crop {
            left: 0.0,
            top,
            width: f64::from(width),
            height: rows,
        };
        self.resampler
            .resample(
                self.pixels,
                (&self.source, (width, kept)),
                (target_rows, (out_w, ready - self.done)),
                Some(crop),
            )
            .map_err(|e| ImageError::Decode(e.to_string()))?;
        self.done = ready;
        // The next destination row reaches no higher than this.
        let needed_from = ((f64::from(ready) + 0.5) * ratio - reach).floor().max(0.0) as u32;
        if needed_from > self.first_row {
            let drop = (needed_from - self.first_row).min(kept);
            self.source.drain(..drop as usize * stride);
            self.first_row += drop;
        }
        Ok(())
    }
}

/// The JPEG encoder's view of the streamed rows: it asks for rows top to bottom (repeating the
/// last one as padding), and each request waits only for the rows it needs.
struct RowSource<'a> {
    rows: RefCell<&'a mut BandedResize>,
    width: u16,
    height: u16,
}

impl ImageBuffer for &RowSource<'_> {
    fn get_jpeg_color_type(&self) -> JpegColorType {
        JpegColorType::Ycbcr
    }

    fn width(&self) -> u16 {
        self.width
    }

    fn height(&self) -> u16 {
        self.height
    }

    fn fill_buffers(&self, y: u16, buffers: &mut [Vec<u8>; 4]) {
        let mut rows = self.rows.borrow_mut();
        let channels = rows.pixels.size();
        let row = rows.row(u32::from(y));
        let [luma, cb, cr, _] = buffers;
        if row.is_empty() {
            // A decoding error: give the encoder the row length it expects; the error is
            // reported once it returns.
            for buffer in [luma, cb, cr] {
                buffer.resize(buffer.len() + usize::from(self.width), 0);
            }
            return;
        }
        // Converted in fixed-size chunks so the compiler can vectorise the arithmetic.
        const CHUNK: usize = 16;
        let (mut l, mut b, mut r) = ([0u8; CHUNK], [0u8; CHUNK], [0u8; CHUNK]);
        for pixels in row.chunks(channels * CHUNK) {
            let n = pixels.len() / channels;
            for (i, px) in pixels.chunks_exact(channels).enumerate() {
                (l[i], b[i], r[i]) = jpeg_encoder::rgb_to_ycbcr(px[0], px[1], px[2]);
            }
            luma.extend_from_slice(&l[..n]);
            cb.extend_from_slice(&b[..n]);
            cr.extend_from_slice(&r[..n]);
        }
    }
}

/// The resized pixels as opaque RGB (an RGBA source is converted only now, at its small size).
fn to_rgb(bytes: Vec<u8>, (w, h): (u32, u32), pixels: Pixels) -> Result<RgbImage, ImageError> {
    let rgb = if pixels == Pixels::Rgba8 {
        RgbaImage::from_raw(w, h, bytes).map(|rgba| DynamicImage::ImageRgba8(rgba).to_rgb8())
    } else {
        RgbImage::from_raw(w, h, bytes)
    };
    rgb.ok_or_else(|| ImageError::Decode(format!("resized buffer does not hold {w}x{h} pixels")))
}

fn decode_error(e: png::DecodingError) -> ImageError {
    ImageError::Decode(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::encode::decode_whole;
    use crate::image::RenderOptions;
    use ::image::{GenericImageView, ImageFormat, Rgb, Rgba};

    fn encoded(img: DynamicImage) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    /// Fine stripes, a diagonal and a dark block: every row differs from its neighbours, so a
    /// band seam resized from the wrong rows shows up as changed pixels.
    fn busy_rgba(w: u32, h: u32) -> Vec<u8> {
        encoded(DynamicImage::ImageRgba8(RgbaImage::from_fn(
            w,
            h,
            |x, y| {
                if (w / 3..w / 2).contains(&x) && (h / 3..h / 2).contains(&y) {
                    Rgba([10, 10, 10, 255])
                } else {
                    let v = ((x * 7 + y * 13) % 256) as u8;
                    Rgba([v, if y % 2 == 0 { 255 } else { 0 }, (x ^ y) as u8, 255])
                }
            },
        )))
    }

    fn streamed_equals_whole(png: &[u8], scale: f32) {
        let opts = RenderOptions {
            scale: Some(scale),
            ..Default::default()
        };
        let (whole, original, _) = decode_whole(png, &opts).unwrap();
        let size = crate::image::scaled_size(original.0, original.1, scale);
        let streamed = decode_downscaled(png, size)
            .unwrap()
            .expect("the streamed path takes 8-bit RGB(A)");
        assert_eq!(streamed.dimensions(), whole.dimensions(), "scale {scale}");
        let differing = streamed
            .as_raw()
            .iter()
            .zip(whole.as_raw())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differing, 0, "{original:?} at scale {scale}");
    }

    #[test]
    fn streamed_rgba_equals_the_whole_image_resize() {
        let png = busy_rgba(360, 800);
        for scale in [0.5, 0.1, 0.25, 0.33, 0.77, 0.999] {
            streamed_equals_whole(&png, scale);
        }
    }

    #[test]
    fn streamed_rgb_and_odd_sizes_equal_the_whole_image_resize() {
        let rgb = encoded(DynamicImage::ImageRgb8(RgbImage::from_fn(
            101,
            333,
            |x, y| Rgb([(x * 5) as u8, (y * 3) as u8, ((x + y) % 2 * 255) as u8]),
        )));
        for scale in [0.5, 0.3] {
            streamed_equals_whole(&rgb, scale);
        }
        // Shorter than one band, and a single row.
        streamed_equals_whole(&busy_rgba(200, 40), 0.5);
        streamed_equals_whole(&busy_rgba(300, 1), 0.5);
    }

    #[test]
    fn other_layouts_are_left_to_the_whole_image_path() {
        let gray = encoded(DynamicImage::ImageLuma8(::image::GrayImage::from_fn(
            40,
            40,
            |x, _| ::image::Luma([x as u8]),
        )));
        assert!(decode_downscaled(&gray, (20, 20)).unwrap().is_none());
        let opts = RenderOptions {
            scale: Some(0.5),
            ..Default::default()
        };
        let (img, original, _) = crate::image::encode::decode_scaled(&gray, &opts).unwrap();
        assert_eq!((img.dimensions(), original), ((20, 20), (40, 40)));
    }

    #[test]
    fn truncated_data_is_a_decode_error_not_a_short_image() {
        let png = busy_rgba(300, 600);
        for cut in [png.len() / 2, png.len() - 20, 60] {
            let err = decode_downscaled(&png[..cut], (150, 300)).unwrap_err();
            assert!(
                matches!(err, ImageError::Decode(_)),
                "cut at {cut}: {err:?}"
            );
        }
    }

    #[test]
    fn streamed_jpeg_matches_encoding_the_whole_image() {
        let png = busy_rgba(360, 800);
        for scale in [0.5, 0.3, 1.0] {
            let opts = RenderOptions {
                scale: Some(scale),
                ..Default::default()
            };
            let (whole, original, _) = decode_whole(&png, &opts).unwrap();
            let size = crate::image::scaled_size(original.0, original.1, scale);
            let streamed = encode_jpeg(&png, size, 80).unwrap().expect("RGBA streams");
            let reference =
                crate::image::encode::encode(&whole, crate::image::Format::Jpeg, 80).unwrap();
            assert_eq!(&streamed[..2], &[0xFF, 0xD8]);
            assert_eq!(
                ::image::load_from_memory(&streamed).unwrap().dimensions(),
                size
            );
            // Same pixels through the same encoder: the same file.
            assert!(
                streamed == reference,
                "scale {scale}: streamed JPEG differs"
            );
        }
    }

    #[test]
    fn streamed_jpeg_of_a_truncated_png_is_an_error() {
        let png = busy_rgba(300, 600);
        let err = encode_jpeg(&png[..png.len() / 2], (150, 300), 80).unwrap_err();
        assert!(matches!(err, ImageError::Decode(_)), "{err:?}");
    }

    #[test]
    fn rows_arriving_in_uneven_bands_resize_like_the_whole_image() {
        let png = busy_rgba(240, 700);
        let pixels = ::image::load_from_memory(&png)
            .unwrap()
            .to_rgba8()
            .into_raw();
        let stride = 240 * 4;
        for scale in [0.5, 0.37] {
            let opts = RenderOptions {
                scale: Some(scale),
                ..Default::default()
            };
            let (whole, _, _) = decode_whole(&png, &opts).unwrap();
            let size = crate::image::scaled_size(240, 700, scale);
            let (tx, rx) = mpsc::sync_channel::<Band>(64);
            let mut rows = BandedResize::new(rx, (240, 700), size, Pixels::Rgba8);
            // Bands of 1, 7, 64, 3, … rows, each resized as it arrives.
            let mut sent = 0;
            for band_rows in [1, 7, 64, 3, 100, 2, 13].iter().cycle() {
                let end = (sent + band_rows).min(700);
                tx.send(Ok(pixels[sent * stride..end * stride].to_vec()))
                    .unwrap();
                rows.take_queued().unwrap();
                rows.resize_ready().unwrap();
                assert!(rows.source.len() <= 300 * stride, "the window stays small");
                sent = end;
                if sent == 700 {
                    break;
                }
            }
            drop(tx);
            let streamed = to_rgb(rows.finish().unwrap(), size, Pixels::Rgba8).unwrap();
            assert!(streamed == whole, "scale {scale}: banded resize differs");
        }
    }
}
