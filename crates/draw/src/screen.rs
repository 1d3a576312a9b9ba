//! A whole screen painted from a list of shapes (the virtual device's `screencap` and
//! `screenrecord` frames), and encoded as PNG. Not generic on purpose: the pixel loops of
//! [`super::fill_rect`], [`super::draw_text`] and the PNG encoder are instantiated here, in this
//! small crate's profile (optimised in the dev profile, so a debug build's screenshots stay
//! fast), instead of in the crate that says what to paint, which then builds unoptimised.

use ab_glyph::FontRef;
use image::{ImageEncoder, Rgba, RgbaImage};

use super::{draw_text, fill_rect, outline_rect, Rect};

/// One thing on the screen: a rectangle, filled or not, outlined or not, with a line of text.
#[derive(Debug, Clone)]
pub struct Shape {
    /// Where it is.
    pub rect: Rect,
    /// Its fill, if any.
    pub fill: Option<Rgba<u8>>,
    /// Its outline's colour, if any.
    pub outline: Option<Rgba<u8>>,
    /// Its text, if any.
    pub text: Option<Text>,
}

/// A line of text on a shape.
#[derive(Debug, Clone)]
pub struct Text {
    /// What it says.
    pub label: String,
    /// Its colour.
    pub colour: Rgba<u8>,
    /// Its top-left corner.
    pub origin: (i32, i32),
    /// Its height in pixels.
    pub size: f32,
}

/// A `width` × `height` picture of `background` with `shapes` painted in order.
pub fn paint(
    width: u32,
    height: u32,
    background: Rgba<u8>,
    shapes: &[Shape],
    font: &FontRef<'_>,
) -> RgbaImage {
    let mut img = RgbaImage::from_pixel(width.max(1), height.max(1), background);
    for s in shapes {
        if let Some(c) = s.fill {
            fill_rect(&mut img, s.rect, c);
        }
        if let Some(c) = s.outline {
            outline_rect(&mut img, s.rect, c);
        }
        if let Some(t) = &s.text {
            draw_text(&mut img, t.colour, t.origin, t.size, font, &t.label);
        }
    }
    img
}

/// The picture as PNG (fast compression, the `Sub` filter: a screenshot every few hundred
/// milliseconds, not an archive).
pub fn png(img: &RgbaImage) -> Vec<u8> {
    let mut out = Vec::new();
    let enc = image::codecs::png::PngEncoder::new_with_quality(
        &mut out,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Sub,
    );
    enc.write_image(
        img.as_raw(),
        img.width(),
        img.height(),
        image::ExtendedColorType::Rgba8,
    )
    .expect("PNG encoding into memory");
    out
}
