//! Annotated screenshots: an outline and a ref tag ("e12") per element, optional grid overlay.
//!
//! The drawing happens *after* downscaling, in output pixels: outlines stay a crisp 2–3 px and
//! labels are rasterised at a size chosen for the output (never blurred by the resampler), and
//! it is cheaper than drawing on the full-size image. The outline's outer edge sits exactly on
//! the box's bounds mapped to the output (`round(x × scale)`; at scale 1.0 that is `x` itself and
//! `x + w - 1`), so the picture agrees with the coordinates the API taps.
//!
//! Order: grid lines, outlines (large boxes first so small ones stay visible), tags (small boxes
//! pick their spot first, avoiding the grid labels), grid labels on top.

use ::image::{Rgb, RgbImage};

use super::encode::{decode_scaled, finish};
use super::font::{self, Ink};
use super::grid::{self, GridSpec};
use super::{ImageError, RenderOptions, Rendered};

/// An element to outline, in the screenshot's pixel space (the caller converts element bounds:
/// Android pixels 1:1, iOS points × scale factor). Named `RefBox` rather than `Box` so it does
/// not shadow `std::boxed::Box` where it is imported.
#[derive(Debug, Clone, PartialEq)]
pub struct RefBox {
    /// The ref drawn in the tag, e.g. "e12".
    pub label: String,
    /// Left edge, in image pixels.
    pub x: f64,
    /// Top edge, in image pixels.
    pub y: f64,
    /// Width, in image pixels.
    pub w: f64,
    /// Height, in image pixels.
    pub h: f64,
}

/// Box colours (outline and tag background) with the label colour that contrasts with each;
/// box `i` uses entry `i % PALETTE.len()`.
pub const PALETTE: [(Rgb<u8>, Rgb<u8>); 8] = [
    (Rgb([230, 25, 75]), Rgb([255, 255, 255])),  // red
    (Rgb([0, 92, 230]), Rgb([255, 255, 255])),   // blue
    (Rgb([0, 140, 60]), Rgb([255, 255, 255])),   // green
    (Rgb([255, 200, 0]), Rgb([0, 0, 0])),        // yellow
    (Rgb([190, 0, 190]), Rgb([255, 255, 255])),  // magenta
    (Rgb([255, 120, 20]), Rgb([0, 0, 0])),       // orange
    (Rgb([0, 170, 190]), Rgb([0, 0, 0])),        // cyan
    (Rgb([110, 50, 200]), Rgb([255, 255, 255])), // purple
];

/// (box colour, label colour) of the `i`-th box.
pub fn box_color(i: usize) -> (Rgb<u8>, Rgb<u8>) {
    PALETTE[i % PALETTE.len()]
}

/// A box mapped to output pixels: inclusive corners, possibly partly off the image.
#[derive(Debug, Clone, Copy)]
struct PxRect {
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
}

impl PxRect {
    fn overlaps(&self, o: &PxRect) -> bool {
        self.x0 <= o.x1 && o.x0 <= self.x1 && self.y0 <= o.y1 && o.y0 <= self.y1
    }
    fn area(&self) -> i64 {
        (self.x1 - self.x0 + 1) * (self.y1 - self.y0 + 1)
    }
}

/// Decodes `png`, scales it per `opts`, outlines and tags each box, overlays `grid` if given,
/// and encodes. Boxes with non-finite or non-positive sizes, or wholly off the image, are skipped.
pub fn annotate(
    png: &[u8],
    boxes: &[RefBox],
    grid: Option<GridSpec>,
    opts: &RenderOptions,
) -> Result<Rendered, ImageError> {
    opts.validate()?;
    if let Some(g) = grid {
        g.validate()?;
    }
    let (mut img, original, scale) = decode_scaled(png, opts)?;
    let (w, h) = img.dimensions();
    let sx = f64::from(w) / f64::from(original.0);
    let sy = f64::from(h) / f64::from(original.1);

    if let Some(g) = grid {
        grid::draw_lines(&mut img, g);
    }
    let mut rects: Vec<(usize, PxRect)> = boxes
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((i, to_px(b, sx, sy, w, h)?)))
        .collect();
    let thickness = if w.min(h) >= 720 { 3 } else { 2 };
    rects.sort_by_key(|(_, r)| -r.area());
    for (i, r) in &rects {
        outline(&mut img, *r, thickness, box_color(*i).0);
    }
    rects.reverse();
    let labels = match grid {
        Some(g) => grid::label_layout(w, h, g)?,
        None => Vec::new(),
    };
    let obstacles: Vec<PxRect> = labels
        .iter()
        .map(|l| {
            let (x, y, lw, lh) = l.rect;
            let (x, y) = (i64::from(x), i64::from(y));
            PxRect {
                x0: x,
                y0: y,
                x1: x + i64::from(lw) - 1,
                y1: y + i64::from(lh) - 1,
            }
        })
        .collect();
    draw_tags(&mut img, boxes, &rects, obstacles)?;
    grid::draw_labels(&mut img, &labels)?;
    finish(&img, original, scale, opts)
}

/// Maps a box to output pixels; `None` if it is invalid or does not touch the image.
fn to_px(b: &RefBox, sx: f64, sy: f64, w: u32, h: u32) -> Option<PxRect> {
    let fine = [b.x, b.y, b.w, b.h].iter().all(|v| v.is_finite()) && b.w > 0.0 && b.h > 0.0;
    if !fine {
        return None;
    }
    let x0 = (b.x * sx).round() as i64;
    let y0 = (b.y * sy).round() as i64;
    let x1 = (((b.x + b.w) * sx).round() as i64 - 1).max(x0);
    let y1 = (((b.y + b.h) * sy).round() as i64 - 1).max(y0);
    let on_image = x1 >= 0 && y1 >= 0 && x0 < i64::from(w) && y0 < i64::from(h);
    on_image.then_some(PxRect { x0, y0, x1, y1 })
}

/// Fills the inclusive rectangle, clipped to the image.
fn fill(img: &mut RgbImage, r: PxRect, c: Rgb<u8>) {
    let (w, h) = (i64::from(img.width()), i64::from(img.height()));
    for y in r.y0.max(0)..=r.y1.min(h - 1) {
        for x in r.x0.max(0)..=r.x1.min(w - 1) {
            img.put_pixel(x as u32, y as u32, c);
        }
    }
}

/// Draws an outline `t` pixels thick whose outer edge is `r`.
fn outline(img: &mut RgbImage, r: PxRect, t: i64, c: Rgb<u8>) {
    let t = t.min((r.x1 - r.x0 + 1).min(r.y1 - r.y0 + 1)).max(1);
    let edges = [
        PxRect {
            y1: r.y0 + t - 1,
            ..r
        },
        PxRect {
            y0: r.y1 - t + 1,
            ..r
        },
        PxRect {
            x1: r.x0 + t - 1,
            ..r
        },
        PxRect {
            x0: r.x1 - t + 1,
            ..r
        },
    ];
    for e in edges {
        fill(img, e, c);
    }
}

/// Places and draws one tag per rect (in the given order, so earlier rects get the preferred
/// spots): inside the top-left corner, else above it (each also tried right of the grid's row
/// numbers), else the other inside corners, else below; the first spot that overlaps no earlier
/// tag or grid label wins, moved inside the image.
fn draw_tags(
    img: &mut RgbImage,
    boxes: &[RefBox],
    rects: &[(usize, PxRect)],
    obstacles: Vec<PxRect>,
) -> Result<(), ImageError> {
    let f = font::font()?;
    let (w, h) = (i64::from(img.width()), i64::from(img.height()));
    let px = (w.min(h) as f32 / 36.0).clamp(12.0, 30.0);
    let (padx, pady) = (
        (px / 4.0).round() as i64,
        (px / 6.0).round().max(2.0) as i64,
    );
    // Grid labels at the left edge: a tag that would sit on one moves right past it.
    let margin = obstacles
        .iter()
        .filter(|o| o.x0 == 0)
        .map(|o| o.x1 + 2)
        .max()
        .unwrap_or(0);
    let mut placed = obstacles;
    for (i, r) in rects {
        let label = boxes[*i].label.as_str();
        if label.is_empty() {
            continue;
        }
        let ink: Ink = font::measure(f, px, label);
        let tw = i64::from(ink.width) + 2 * padx;
        let th = i64::from(ink.height()) + 2 * pady;
        let at = |x: i64, y: i64| {
            let x = x.clamp(0, (w - tw).max(0));
            let y = y.clamp(0, (h - th).max(0));
            PxRect {
                x0: x,
                y0: y,
                x1: x + tw - 1,
                y1: y + th - 1,
            }
        };
        let spots = [
            at(r.x0, r.y0),
            at(r.x0.max(margin), r.y0),
            at(r.x0, r.y0 - th),
            at(r.x0.max(margin), r.y0 - th),
            at(r.x1 + 1 - tw, r.y0),
            at(r.x0, r.y1 + 1 - th),
            at(r.x1 + 1 - tw, r.y1 + 1 - th),
            at(r.x0, r.y1 + 1),
        ];
        let spot = spots
            .iter()
            .find(|s| !placed.iter().any(|p| p.overlaps(s)))
            .copied()
            .unwrap_or(spots[0]);
        let (bg, fg) = box_color(*i);
        fill(img, spot, bg);
        let origin = ((spot.x0 + padx) as i32, (spot.y0 + pady) as i32);
        font::draw(img, f, px, origin, ink, fg, label);
        placed.push(spot);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::encode::tests::synthetic_png;
    use super::super::Format;
    use super::*;

    fn b(label: &str, x: f64, y: f64, w: f64, h: f64) -> RefBox {
        RefBox {
            label: label.into(),
            x,
            y,
            w,
            h,
        }
    }

    fn pixels(r: &Rendered) -> RgbImage {
        ::image::load_from_memory(&r.bytes).unwrap().to_rgb8()
    }

    #[test]
    fn outline_sits_exactly_on_the_bounds() {
        let png = synthetic_png(300, 400);
        let boxes = [b("e1", 40.0, 250.0, 60.0, 30.0)];
        let r = annotate(&png, &boxes, None, &RenderOptions::default()).unwrap();
        let img = pixels(&r);
        let red = box_color(0).0;
        for (x, y) in [
            (40, 250),
            (99, 279),
            (99, 250),
            (40, 279),
            (70, 279),
            (99, 265),
        ] {
            assert_eq!(*img.get_pixel(x, y), red, "({x},{y}) on the outline");
        }
        for (x, y) in [
            (39, 265),
            (100, 265),
            (99, 280),
            (70, 249),
            (100, 280),
            (39, 249),
        ] {
            assert_ne!(*img.get_pixel(x, y), red, "({x},{y}) outside the box");
        }
        // Thickness 2 on a small image: the third pixel in is the screenshot again.
        assert_eq!(*img.get_pixel(98, 265), red);
        assert_ne!(*img.get_pixel(97, 265), red);
    }

    #[test]
    fn tag_is_filled_and_carries_contrasting_text() {
        let png = synthetic_png(300, 400);
        let boxes = [b("e12", 40.0, 250.0, 120.0, 60.0)];
        let r = annotate(&png, &boxes, None, &RenderOptions::default()).unwrap();
        let img = pixels(&r);
        let (bg, fg) = box_color(0);
        let (mut n_bg, mut n_fg) = (0, 0);
        for y in 250..270 {
            for x in 40..80 {
                let p = *img.get_pixel(x, y);
                n_bg += usize::from(p == bg);
                n_fg += usize::from(p.0.iter().zip(fg.0).all(|(a, b)| a.abs_diff(b) < 60));
            }
        }
        assert!(n_bg > 200, "tag background: {n_bg}");
        assert!(n_fg > 25, "label ink: {n_fg}");
    }

    #[test]
    fn outline_follows_the_scale() {
        let png = synthetic_png(300, 400);
        let boxes = [b("e1", 40.0, 250.0, 60.0, 30.0)];
        let opts = RenderOptions {
            scale: Some(0.5),
            ..Default::default()
        };
        let r = annotate(&png, &boxes, None, &opts).unwrap();
        assert_eq!(r.size, (150, 200));
        let img = pixels(&r);
        let red = box_color(0).0;
        assert_eq!(*img.get_pixel(20, 125), red);
        assert_eq!(*img.get_pixel(49, 139), red);
        assert_ne!(*img.get_pixel(50, 139), red);
        assert_ne!(*img.get_pixel(49, 140), red);
    }

    #[test]
    fn tags_stay_inside_and_bad_boxes_are_skipped() {
        let png = synthetic_png(200, 200);
        let boxes = [
            b("e1", 190.0, 195.0, 30.0, 30.0), // partly off the bottom-right corner
            b("e2", 500.0, 500.0, 10.0, 10.0), // wholly off the image
            b("e3", f64::NAN, 0.0, 10.0, 10.0),
            b("e4", 0.0, 0.0, 0.0, 10.0),
        ];
        let r = annotate(&png, &boxes, None, &RenderOptions::default()).unwrap();
        let img = pixels(&r);
        let red = box_color(0).0;
        assert_eq!(*img.get_pixel(199, 199), red);
        // e1's tag was pushed left, inside the image.
        let n = (150..200)
            .filter(|&x| *img.get_pixel(x, 190) == red)
            .count();
        assert!(n > 15, "{n}");
    }

    #[test]
    fn overlapping_tags_move_apart() {
        let png = synthetic_png(300, 400);
        // Same top-left corner: the smaller box keeps the corner, the bigger one's tag moves.
        let boxes = [
            b("e1", 40.0, 100.0, 200.0, 200.0),
            b("e2", 40.0, 100.0, 80.0, 40.0),
        ];
        let r = annotate(&png, &boxes, None, &RenderOptions::default()).unwrap();
        let img = pixels(&r);
        assert_eq!(
            *img.get_pixel(41, 101),
            box_color(1).0,
            "e2's tag in the corner"
        );
        assert_eq!(*img.get_pixel(41, 98), box_color(0).0, "e1's tag above it");
    }

    #[test]
    fn tags_avoid_the_grid_row_numbers() {
        let png = synthetic_png(300, 600);
        let g = GridSpec::for_size(300.0, 600.0);
        let boxes = [b("e1", 0.0, 300.0, 200.0, 200.0)];
        let r = annotate(&png, &boxes, Some(g), &RenderOptions::default()).unwrap();
        let img = pixels(&r);
        let labels = grid::label_layout(300, 600, g).unwrap();
        let margin = labels
            .iter()
            .filter(|l| l.rect.0 == 0)
            .map(|l| l.rect.2)
            .max();
        // Row 11's number sits at the left edge near y=315: e1's tag moves right of it.
        let m = margin.unwrap() as u32;
        let red = box_color(0).0;
        let n = (m..m + 40)
            .filter(|&x| *img.get_pixel(x, 304) == red)
            .count();
        assert!(n > 10, "tag right of the row numbers: {n}");
        assert_ne!(
            *img.get_pixel(2, 304),
            red,
            "no tag at the corner, under the number"
        );
    }

    #[test]
    fn grid_and_jpeg() {
        let png = synthetic_png(300, 600);
        let opts = RenderOptions {
            format: Format::Jpeg,
            max_size: Some(300),
            ..Default::default()
        };
        let g = GridSpec::for_size(300.0, 600.0);
        let r = annotate(&png, &[b("e1", 10.0, 10.0, 50.0, 50.0)], Some(g), &opts).unwrap();
        assert_eq!(r.content_type, "image/jpeg");
        assert_eq!(&r.bytes[..3], &[0xFF, 0xD8, 0xFF]);
        assert_eq!(r.size, (150, 300));
        let bad = GridSpec { cols: 0, rows: 3 };
        assert!(matches!(
            annotate(&png, &[], Some(bad), &opts),
            Err(ImageError::Grid(_))
        ));
    }
}
