//! Drawing onto image buffers: filled and outlined rectangles, and a line of text in a
//! TrueType font, blended into the picture by the glyphs' coverage.
//!
//! This is all the product draws (the labels of annotated screenshots, the virtual device's
//! screens: [`screen`]). `ab_glyph` lays out and rasterises the glyphs; what is left is a few loops, kept
//! here instead of depending on `imageproc`, whose linear-algebra stack (nalgebra, simba, rand)
//! costs every build, check and cross check about fifteen crates for these three functions.

pub mod screen;

use ab_glyph::{point, Font, GlyphId, PxScale, ScaleFont};
use image::{ImageBuffer, Pixel};

/// An 8-bit image buffer of any pixel layout (`RgbImage`, `RgbaImage`, `GrayImage`, …).
pub type Canvas<P> = ImageBuffer<P, Vec<u8>>;

/// A rectangle of whole pixels: its top-left corner and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

impl Rect {
    pub fn new(x: i32, y: i32, width: u32, height: u32) -> Self {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    /// The part of the rectangle inside a `width` × `height` picture, as pixel ranges
    /// (`None` when nothing of it is).
    fn clip(
        &self,
        width: u32,
        height: u32,
    ) -> Option<(std::ops::Range<u32>, std::ops::Range<u32>)> {
        let span = |start: i32, len: u32, limit: u32| {
            let lo = i64::from(start).clamp(0, i64::from(limit));
            let hi = (i64::from(start) + i64::from(len)).clamp(0, i64::from(limit));
            (lo < hi).then_some(lo as u32..hi as u32)
        };
        Some((
            span(self.x, self.width, width)?,
            span(self.y, self.height, height)?,
        ))
    }
}

/// Paints every pixel of `rect` that lies inside the picture.
pub fn fill_rect<P: Pixel<Subpixel = u8>>(img: &mut Canvas<P>, rect: Rect, color: P) {
    if let Some((xs, ys)) = rect.clip(img.width(), img.height()) {
        for y in ys {
            for x in xs.clone() {
                img.put_pixel(x, y, color);
            }
        }
    }
}

/// Paints the one-pixel border of `rect` (its first and last rows and columns), clipped to
/// the picture.
pub fn outline_rect<P: Pixel<Subpixel = u8>>(img: &mut Canvas<P>, rect: Rect, color: P) {
    if rect.width == 0 || rect.height == 0 {
        return;
    }
    // The last column and row, wide in i64 so a rectangle reaching past `i32::MAX` is clipped
    // rather than overflowing.
    let last = |start: i32, len: u32| {
        (i64::from(start) + i64::from(len) - 1).min(i64::from(i32::MAX)) as i32
    };
    let (right, bottom) = (last(rect.x, rect.width), last(rect.y, rect.height));
    fill_rect(img, Rect::new(rect.x, rect.y, rect.width, 1), color);
    fill_rect(img, Rect::new(rect.x, bottom, rect.width, 1), color);
    fill_rect(img, Rect::new(rect.x, rect.y, 1, rect.height), color);
    fill_rect(img, Rect::new(right, rect.y, 1, rect.height), color);
}

/// Draws one line of `text` at `px` pixels with the top of its layout box (the font's ascent
/// above the baseline) at `y` and its pen starting at `x`. Each glyph pixel is mixed into the
/// picture by its coverage; what falls outside the picture is dropped.
pub fn draw_text<P: Pixel<Subpixel = u8>>(
    img: &mut Canvas<P>,
    color: P,
    (x, y): (i32, i32),
    px: f32,
    font: &impl Font,
    text: &str,
) {
    let scale = PxScale::from(px);
    let scaled = font.as_scaled(scale);
    let (width, height) = (img.width() as i32, img.height() as i32);
    let mut pen = 0.0f32;
    let mut last: Option<GlyphId> = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(prev) = last {
            pen += scaled.kern(prev, id);
        }
        let glyph = id.with_scale_and_position(scale, point(pen, scaled.ascent()));
        pen += scaled.h_advance(id);
        last = Some(id);
        let Some(outline) = font.outline_glyph(glyph) else {
            continue;
        };
        let bounds = outline.px_bounds();
        let (left, top) = (
            x.saturating_add(bounds.min.x.round() as i32),
            y.saturating_add(bounds.min.y.round() as i32),
        );
        outline.draw(|gx, gy, coverage| {
            let (px_x, px_y) = (
                left.saturating_add(gx as i32),
                top.saturating_add(gy as i32),
            );
            if (0..width).contains(&px_x) && (0..height).contains(&px_y) {
                let under = img.get_pixel_mut(px_x as u32, px_y as u32);
                *under = mix(*under, color, coverage.clamp(0.0, 1.0));
            }
        });
    }
}

/// `over` laid on `under` at `alpha` (0 keeps `under`, 1 gives `over`), channel by channel.
fn mix<P: Pixel<Subpixel = u8>>(under: P, over: P, alpha: f32) -> P {
    under.map2(&over, |u, o| {
        (f32::from(u) * (1.0 - alpha) + f32::from(o) * alpha)
            .round()
            .clamp(0.0, 255.0) as u8
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ab_glyph::FontRef;
    use image::{Rgb, RgbImage};

    const WHITE: Rgb<u8> = Rgb([255, 255, 255]);
    const RED: Rgb<u8> = Rgb([255, 0, 0]);

    fn lit(img: &RgbImage, color: Rgb<u8>) -> Vec<(u32, u32)> {
        img.enumerate_pixels()
            .filter(|(_, _, p)| **p == color)
            .map(|(x, y, _)| (x, y))
            .collect()
    }

    #[test]
    fn a_filled_rect_covers_exactly_its_pixels_and_is_clipped() {
        let mut img = RgbImage::new(10, 8);
        fill_rect(&mut img, Rect::new(2, 3, 4, 2), RED);
        assert_eq!(
            lit(&img, RED),
            vec![
                (2, 3),
                (3, 3),
                (4, 3),
                (5, 3),
                (2, 4),
                (3, 4),
                (4, 4),
                (5, 4)
            ]
        );
        let mut img = RgbImage::new(4, 4);
        fill_rect(&mut img, Rect::new(-2, 3, 3, 5), RED);
        assert_eq!(lit(&img, RED), vec![(0, 3)]);
        fill_rect(&mut img, Rect::new(4, 0, 2, 2), WHITE);
        fill_rect(
            &mut img,
            Rect::new(i32::MAX, i32::MIN, u32::MAX, u32::MAX),
            WHITE,
        );
        assert!(
            lit(&img, WHITE).is_empty(),
            "outside or overflowing: nothing"
        );
    }

    #[test]
    fn an_outline_is_the_border_only() {
        let mut img = RgbImage::new(6, 6);
        outline_rect(&mut img, Rect::new(1, 1, 4, 3), RED);
        let border = lit(&img, RED);
        assert_eq!(border.len(), 4 + 4 + 1 + 1);
        assert!(
            !border.contains(&(2, 2)) && !border.contains(&(3, 2)),
            "inside stays"
        );
        assert!(border.contains(&(4, 3)) && border.contains(&(1, 3)));
        outline_rect(&mut img, Rect::new(0, 0, 0, 5), WHITE);
        assert!(lit(&img, WHITE).is_empty());
        // Reaching past i32::MAX: the edges inside the picture are drawn, nothing overflows.
        outline_rect(&mut img, Rect::new(5, 5, u32::MAX, u32::MAX), WHITE);
        assert_eq!(lit(&img, WHITE), vec![(5, 5)]);
    }

    #[test]
    fn text_lands_right_of_and_below_its_origin_blended_by_coverage() {
        let font = FontRef::try_from_slice(dejavu::sans::regular()).unwrap();
        let mut img = RgbImage::from_pixel(120, 40, WHITE);
        draw_text(&mut img, Rgb([0, 0, 0]), (10, 5), 20.0, &font, "Hi 1");
        let inked: Vec<_> = img
            .enumerate_pixels()
            .filter(|(_, _, p)| p[0] < 250)
            .map(|(x, y, p)| (x, y, p[0]))
            .collect();
        assert!(inked.len() > 40, "{}", inked.len());
        assert!(inked
            .iter()
            .all(|&(x, y, _)| x >= 10 && (5..25).contains(&y)));
        assert!(
            inked.iter().any(|&(_, _, v)| v == 0),
            "full coverage is the colour"
        );
        assert!(inked.iter().any(|&(_, _, v)| v > 0), "edges are mixed");
        // A glyph cut by the picture's edge is drawn as far as it fits.
        let mut small = RgbImage::from_pixel(12, 8, WHITE);
        draw_text(&mut small, Rgb([0, 0, 0]), (8, 2), 20.0, &font, "W");
        assert!(small.pixels().any(|p| p[0] < 250));
        // An origin at the edge of i32 draws nothing and does not overflow.
        let mut far = RgbImage::from_pixel(12, 8, WHITE);
        draw_text(
            &mut far,
            Rgb([0, 0, 0]),
            (i32::MAX, i32::MAX),
            20.0,
            &font,
            "W",
        );
        assert!(far.pixels().all(|p| *p == WHITE));
    }
}
