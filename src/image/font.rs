//! The embedded label font (DejaVu Sans Bold from the `dejavu` crate; nothing is downloaded) and
//! a small text layout helper that knows the ink box of a label, so tags can hug their text.

use std::sync::OnceLock;

use ::image::{Rgb, RgbImage};
use ab_glyph::{Font, FontRef, PxScale, ScaleFont};

use super::ImageError;

/// The label font, parsed once.
pub(super) fn font() -> Result<&'static FontRef<'static>, ImageError> {
    static FONT: OnceLock<Result<FontRef<'static>, String>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(dejavu::sans::bold()).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| ImageError::Font(e.clone()))
}

/// Where a line of text puts ink, relative to the top-left of its layout box.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ink {
    /// Advance width of the whole string.
    pub width: i32,
    /// Top of the ink below the layout origin (draw_text's `y`).
    pub top: i32,
    /// Bottom of the ink below the layout origin.
    pub bottom: i32,
}

impl Ink {
    pub fn height(&self) -> i32 {
        self.bottom - self.top
    }
}

/// Measures `text` at `px` pixels (the same layout `draw::draw_text` uses).
/// The vertical ink box is taken from the digits "0123456789" so every label of one size gets
/// the same height and the same baseline.
pub(super) fn measure(font: &FontRef<'static>, px: f32, text: &str) -> Ink {
    let scale = PxScale::from(px);
    let scaled = font.as_scaled(scale);
    let mut width = 0.0f32;
    let mut last = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(prev) = last {
            width += scaled.kern(prev, id);
        }
        width += scaled.h_advance(id);
        last = Some(id);
    }
    let (mut top, mut bottom) = (f32::MAX, f32::MIN);
    for c in "0123456789".chars() {
        let g = scaled
            .glyph_id(c)
            .with_scale_and_position(scale, ab_glyph::point(0.0, scaled.ascent()));
        if let Some(o) = font.outline_glyph(g) {
            let b = o.px_bounds();
            top = top.min(b.min.y);
            bottom = bottom.max(b.max.y);
        }
    }
    if top > bottom {
        (top, bottom) = (0.0, px);
    }
    Ink {
        width: width.ceil() as i32,
        top: top.floor() as i32,
        bottom: bottom.ceil() as i32,
    }
}

/// Draws `text` so its ink box's top-left lands at (`x`, `y`).
pub(super) fn draw(
    img: &mut RgbImage,
    font: &FontRef<'static>,
    px: f32,
    (x, y): (i32, i32),
    ink: Ink,
    color: Rgb<u8>,
    text: &str,
) {
    draw::draw_text(img, color, (x, y - ink.top), px, font, text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn font_parses_and_measures() {
        let f = font().unwrap();
        let a = measure(f, 20.0, "e1");
        let b = measure(f, 20.0, "e123");
        assert!(b.width > a.width && a.width > 0);
        assert!((10..=20).contains(&a.height()), "{a:?}");
        assert_eq!(a.height(), b.height());
    }

    #[test]
    fn text_is_drawn_inside_its_ink_box() {
        let f = font().unwrap();
        let mut img = RgbImage::new(100, 40);
        let ink = measure(f, 20.0, "e12");
        draw(
            &mut img,
            f,
            20.0,
            (10, 10),
            ink,
            Rgb([255, 255, 255]),
            "e12",
        );
        let mut lit = (u32::MAX, u32::MAX, 0, 0);
        for (x, y, p) in img.enumerate_pixels() {
            if p[0] > 128 {
                lit = (lit.0.min(x), lit.1.min(y), lit.2.max(x), lit.3.max(y));
            }
        }
        assert!(lit.0 >= 10 && lit.1 >= 9, "{lit:?}");
        assert!(lit.2 <= (10 + ink.width) as u32 && lit.3 <= (10 + ink.height()) as u32);
    }
}
