//! Visual diff of two screenshots: which parts of the screen changed, as a few boxes.
//!
//! Pure and synchronous (run it on a blocking thread). Both images are RGBA of the same size,
//! in screenshot pixels; a baseline of another size is first [`fit`] to the screen's (scaled
//! when the aspect ratios agree within 1%, else [`DiffError::Shape`] with both sizes).
//!
//! How [`diff`] decides, in one pass over the pixels then a few passes over a coarse grid:
//!
//! 1. A pixel changed when one of its R, G, B channels differs by more than
//!    [`DiffOptions::channel_threshold`] (default [`DEFAULT_CHANNEL_THRESHOLD`]: anti-aliasing
//!    and JPEG noise stay below it). Pixels inside a mask are not compared. Runs of 16 equal
//!    pixels are skipped with one memory comparison, so an unchanged screen costs about a
//!    `memcmp` of the frame.
//! 2. Changed pixels are counted per [`CELL`]×[`CELL`] cell, with the cell's tight bounds. A
//!    cell with fewer than [`MIN_CELL_PIXELS`] changed pixels is noise and forgotten.
//! 3. Changed cells whose tight bounds lie within [`DiffOptions::merge_gap`] pixels of each other
//!    form one region (connected components over the grid, with that reach); regions with fewer
//!    than [`DiffOptions::min_region_pixels`] changed pixels are dropped as noise; regions whose
//!    boxes then overlap or lie within the gap are merged.
//! 4. At most [`MAX_REGIONS`] regions are reported (those with the most changed pixels), in
//!    reading order (top to bottom, then left to right); [`DiffOutcome::omitted`] counts the rest.
//!
//! [`DiffOutcome::changed_share`] is the share of compared (unmasked) pixels that changed,
//! counting only the changes that make up regions: noise that step 2 or 3 dropped does not
//! count, so an unchanged screen is exactly `0.0` and the share agrees with the boxes.

use image::{imageops, RgbaImage};

/// Side of a grid cell, in pixels.
pub const CELL: u32 = 8;
/// Default per-channel difference a pixel may show and still count as unchanged.
pub const DEFAULT_CHANNEL_THRESHOLD: u8 = 16;
/// Default gap (pixels) across which changed areas are one region.
pub const DEFAULT_MERGE_GAP: u32 = 16;
/// Default number of changed pixels a region needs to be reported.
pub const DEFAULT_MIN_REGION_PIXELS: u64 = 24;
/// Changed pixels a cell needs to count (fewer: noise).
pub const MIN_CELL_PIXELS: u32 = 2;
/// Most regions reported.
pub const MAX_REGIONS: usize = 50;
/// Largest image accepted, in pixels (a 16K×8K frame; phone screens are under 5 MP).
pub const MAX_PIXELS: u64 = 16384 * 8192;
/// How far the aspect ratios of baseline and screen may differ for the baseline to be scaled.
pub const ASPECT_TOLERANCE: f64 = 0.01;

/// A rectangle in image pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PxRect {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
}

impl PxRect {
    /// The first column right of it.
    pub fn right(&self) -> u32 {
        self.x.saturating_add(self.w)
    }
    /// The first row below it.
    pub fn bottom(&self) -> u32 {
        self.y.saturating_add(self.h)
    }
    /// Its pixels.
    pub fn area(&self) -> u64 {
        u64::from(self.w) * u64::from(self.h)
    }
    /// The part of this rectangle inside a `w`×`h` image, if any.
    pub fn clip(&self, w: u32, h: u32) -> Option<PxRect> {
        let (x0, y0) = (self.x.min(w), self.y.min(h));
        let (x1, y1) = (self.right().min(w), self.bottom().min(h));
        (x1 > x0 && y1 > y0).then_some(PxRect {
            x: x0,
            y: y0,
            w: x1 - x0,
            h: y1 - y0,
        })
    }
    /// The smallest rectangle holding both.
    fn union(&self, o: &PxRect) -> PxRect {
        let (x0, y0) = (self.x.min(o.x), self.y.min(o.y));
        let (x1, y1) = (self.right().max(o.right()), self.bottom().max(o.bottom()));
        PxRect {
            x: x0,
            y: y0,
            w: x1 - x0,
            h: y1 - y0,
        }
    }
    /// Whether the two overlap or the space between them is at most `gap` pixels on both axes.
    fn near(&self, o: &PxRect, gap: u32) -> bool {
        let dx =
            o.x.saturating_sub(self.right())
                .max(self.x.saturating_sub(o.right()));
        let dy =
            o.y.saturating_sub(self.bottom())
                .max(self.y.saturating_sub(o.bottom()));
        dx <= gap && dy <= gap
    }
}

/// How to compare.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffOptions {
    /// A pixel changed when a channel differs by more than this.
    pub channel_threshold: u8,
    /// Changed areas this close (pixels) are one region.
    pub merge_gap: u32,
    /// Regions with fewer changed pixels are noise.
    pub min_region_pixels: u64,
    /// Rectangles not compared (status bar, clock, anything volatile).
    pub masks: Vec<PxRect>,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            channel_threshold: DEFAULT_CHANNEL_THRESHOLD,
            merge_gap: DEFAULT_MERGE_GAP,
            min_region_pixels: DEFAULT_MIN_REGION_PIXELS,
            masks: Vec::new(),
        }
    }
}

/// One changed area.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    /// Tight box around its changed pixels.
    pub rect: PxRect,
    /// Changed pixels inside it.
    pub changed_pixels: u64,
}

impl Region {
    /// Share of the box's pixels that changed.
    pub fn changed_share(&self) -> f64 {
        self.changed_pixels as f64 / self.rect.area().max(1) as f64
    }
}

/// What changed between two images.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffOutcome {
    /// Size of both images (the screen's).
    pub size: (u32, u32),
    /// Pixels compared (outside the masks).
    pub compared_pixels: u64,
    /// Changed pixels that make up regions (all of them, reported or omitted).
    pub changed_pixels: u64,
    /// The changed areas, in reading order, at most [`MAX_REGIONS`].
    pub regions: Vec<Region>,
    /// Regions left out beyond [`MAX_REGIONS`] (the smallest).
    pub omitted: usize,
}

impl DiffOutcome {
    /// Share of the compared pixels that changed (0.0 when nothing was compared).
    pub fn changed_share(&self) -> f64 {
        if self.compared_pixels == 0 {
            return 0.0;
        }
        self.changed_pixels as f64 / self.compared_pixels as f64
    }
}

/// Why two images cannot be compared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DiffError {
    /// The bytes are not a decodable PNG.
    #[error("the baseline is not a PNG image: {0}")]
    NotPng(String),
    /// The image is larger than [`MAX_PIXELS`].
    #[error("the image is {0}x{1} pixels, more than mobilectl compares")]
    TooLarge(u32, u32),
    /// The baseline's aspect ratio is not the screen's.
    #[error(
        "the baseline is {}x{} pixels and the screen {}x{}: their aspect ratios differ, so one \
         cannot be scaled onto the other",
        baseline.0, baseline.1, screen.0, screen.1
    )]
    Shape {
        /// The baseline's size.
        baseline: (u32, u32),
        /// The screen's size.
        screen: (u32, u32),
    },
}

/// Decodes a PNG into RGBA; anything else (JPEG included) is [`DiffError::NotPng`]. The size is
/// read from the header first, so a huge image is refused before it is inflated.
pub fn decode_png(bytes: &[u8]) -> Result<RgbaImage, DiffError> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if !bytes.starts_with(SIGNATURE) {
        let what = match bytes {
            [0xFF, 0xD8, 0xFF, ..] => "it is a JPEG",
            [] => "it is empty",
            _ => "it does not start with the PNG signature",
        };
        return Err(DiffError::NotPng(what.into()));
    }
    let (w, h) = super::png_dimensions(bytes)
        .ok_or_else(|| DiffError::NotPng("its header is unreadable".into()))?;
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(DiffError::TooLarge(w, h));
    }
    let img = image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
        .map_err(|e| DiffError::NotPng(e.to_string()))?;
    if img.width() == 0 || img.height() == 0 {
        return Err(DiffError::NotPng("it has no pixels".into()));
    }
    Ok(img.into_rgba8())
}

/// The baseline at the screen's `size`: as it is, or scaled when the aspect ratios agree within
/// [`ASPECT_TOLERANCE`] (a screenshot saved at half size, a device of another density).
pub fn fit(baseline: RgbaImage, size: (u32, u32)) -> Result<RgbaImage, DiffError> {
    let (bw, bh) = baseline.dimensions();
    if (bw, bh) == size {
        return Ok(baseline);
    }
    let (sw, sh) = size;
    let a = f64::from(bw) / f64::from(bh.max(1));
    let b = f64::from(sw) / f64::from(sh.max(1));
    if (a - b).abs() > ASPECT_TOLERANCE * b {
        return Err(DiffError::Shape {
            baseline: (bw, bh),
            screen: size,
        });
    }
    Ok(imageops::resize(
        &baseline,
        sw,
        sh,
        imageops::FilterType::Triangle,
    ))
}

/// Per cell: changed pixels and their tight bounds (inclusive).
#[derive(Debug, Clone, Copy)]
struct Cell {
    count: u32,
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

impl Cell {
    const EMPTY: Cell = Cell {
        count: 0,
        x0: u32::MAX,
        y0: u32::MAX,
        x1: 0,
        y1: 0,
    };

    fn rect(&self) -> PxRect {
        PxRect {
            x: self.x0,
            y: self.y0,
            w: self.x1 - self.x0 + 1,
            h: self.y1 - self.y0 + 1,
        }
    }
}

/// The column ranges `[start, end)` of row `y` that no mask covers, into `out`.
fn open_spans(y: u32, width: u32, masks: &[PxRect], out: &mut Vec<(u32, u32)>) {
    out.clear();
    let mut cut: Vec<(u32, u32)> = masks
        .iter()
        .filter(|m| m.y <= y && y < m.bottom())
        .map(|m| (m.x, m.right()))
        .collect();
    if cut.is_empty() {
        out.push((0, width));
        return;
    }
    cut.sort_unstable();
    let mut at = 0;
    for (a, b) in cut {
        if a > at {
            out.push((at, a));
        }
        at = at.max(b);
    }
    if at < width {
        out.push((at, width));
    }
}

/// Compares `base` with `now` (same size; see [`fit`]). Panics if the sizes differ.
pub fn diff(base: &RgbaImage, now: &RgbaImage, opts: &DiffOptions) -> DiffOutcome {
    assert_eq!(
        base.dimensions(),
        now.dimensions(),
        "diff needs equal sizes"
    );
    let (w, h) = now.dimensions();
    let masks: Vec<PxRect> = opts.masks.iter().filter_map(|m| m.clip(w, h)).collect();
    let (gw, gh) = (w.div_ceil(CELL) as usize, h.div_ceil(CELL) as usize);
    let mut cells = vec![Cell::EMPTY; gw * gh];
    let (a, b) = (base.as_raw(), now.as_raw());
    let t = opts.channel_threshold;
    let row_bytes = w as usize * 4;
    let mut compared: u64 = 0;
    let mut spans = Vec::new();
    const RUN: usize = 16 * 4;
    for y in 0..h {
        open_spans(y, w, &masks, &mut spans);
        let row = y as usize * row_bytes;
        let cells_row = (y / CELL) as usize * gw;
        for &(x0, x1) in &spans {
            compared += u64::from(x1 - x0);
            let (s, e) = (row + x0 as usize * 4, row + x1 as usize * 4);
            let (ra, rb) = (&a[s..e], &b[s..e]);
            if ra == rb {
                continue;
            }
            for (run, (ca, cb)) in ra.chunks(RUN).zip(rb.chunks(RUN)).enumerate() {
                if ca == cb {
                    continue;
                }
                for (i, (pa, pb)) in ca.chunks_exact(4).zip(cb.chunks_exact(4)).enumerate() {
                    let d = pa[0]
                        .abs_diff(pb[0])
                        .max(pa[1].abs_diff(pb[1]))
                        .max(pa[2].abs_diff(pb[2]));
                    if d > t {
                        let x = x0 + (run * 16 + i) as u32;
                        let c = &mut cells[cells_row + (x / CELL) as usize];
                        c.count += 1;
                        c.x0 = c.x0.min(x);
                        c.x1 = c.x1.max(x);
                        c.y0 = c.y0.min(y);
                        c.y1 = c.y1.max(y);
                    }
                }
            }
        }
    }
    let mut regions = components(&cells, gw, gh, opts.merge_gap);
    regions.retain(|r| r.changed_pixels >= opts.min_region_pixels.max(1));
    merge_near(&mut regions, opts.merge_gap);
    let changed_pixels = regions.iter().map(|r| r.changed_pixels).sum();
    regions.sort_by_key(|r| std::cmp::Reverse(r.changed_pixels));
    let omitted = regions.len().saturating_sub(MAX_REGIONS);
    regions.truncate(MAX_REGIONS);
    regions.sort_by_key(|r| (r.rect.y, r.rect.x));
    DiffOutcome {
        size: (w, h),
        compared_pixels: compared,
        changed_pixels,
        regions,
        omitted,
    }
}

/// Groups the changed cells whose tight bounds lie within `gap` pixels of each other.
fn components(cells: &[Cell], gw: usize, gh: usize, gap: u32) -> Vec<Region> {
    let live = |i: usize| cells[i].count >= MIN_CELL_PIXELS;
    // Cells further apart than this (in cells) cannot be within `gap` pixels.
    let reach = (gap.div_ceil(CELL) + 1) as isize;
    let mut seen = vec![false; cells.len()];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    for start in 0..cells.len() {
        if seen[start] || !live(start) {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let mut rect = cells[start].rect();
        let mut changed = 0u64;
        while let Some(i) = stack.pop() {
            let c = cells[i].rect();
            rect = rect.union(&c);
            changed += u64::from(cells[i].count);
            let (cx, cy) = ((i % gw) as isize, (i / gw) as isize);
            for ny in (cy - reach).max(0)..=(cy + reach).min(gh as isize - 1) {
                for nx in (cx - reach).max(0)..=(cx + reach).min(gw as isize - 1) {
                    let j = ny as usize * gw + nx as usize;
                    if !seen[j] && live(j) && c.near(&cells[j].rect(), gap) {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        out.push(Region {
            rect,
            changed_pixels: changed,
        });
    }
    out
}

/// Merges regions whose boxes overlap or lie within `gap`, until none do.
fn merge_near(regions: &mut Vec<Region>, gap: u32) {
    let mut merged = true;
    while merged {
        merged = false;
        let mut i = 0;
        while i < regions.len() {
            let mut j = i + 1;
            while j < regions.len() {
                if regions[i].rect.near(&regions[j].rect, gap) {
                    let r = regions.swap_remove(j);
                    regions[i].rect = regions[i].rect.union(&r.rect);
                    regions[i].changed_pixels += r.changed_pixels;
                    merged = true;
                } else {
                    j += 1;
                }
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    const BG: Rgba<u8> = Rgba([250, 250, 250, 255]);

    fn screen() -> RgbaImage {
        // A phone-like screen: status bar, toolbar, some rows of "text".
        let mut img = RgbaImage::from_pixel(1080, 2400, BG);
        fill(
            &mut img,
            PxRect {
                x: 0,
                y: 0,
                w: 1080,
                h: 84,
            },
            Rgba([33, 33, 33, 255]),
        );
        fill(
            &mut img,
            PxRect {
                x: 0,
                y: 84,
                w: 1080,
                h: 168,
            },
            Rgba([0, 92, 230, 255]),
        );
        for row in 0..12 {
            let y = 300 + row * 150;
            fill(
                &mut img,
                PxRect {
                    x: 80,
                    y,
                    w: 600,
                    h: 40,
                },
                Rgba([40, 40, 40, 255]),
            );
        }
        img
    }

    fn fill(img: &mut RgbaImage, r: PxRect, c: Rgba<u8>) {
        for y in r.y..r.bottom() {
            for x in r.x..r.right() {
                img.put_pixel(x, y, c);
            }
        }
    }

    fn near(a: PxRect, b: PxRect, px: u32) -> bool {
        a.x.abs_diff(b.x) <= px
            && a.y.abs_diff(b.y) <= px
            && a.right().abs_diff(b.right()) <= px
            && a.bottom().abs_diff(b.bottom()) <= px
    }

    #[test]
    fn the_same_screen_has_no_regions_and_no_change() {
        let a = screen();
        let d = diff(&a, &a.clone(), &DiffOptions::default());
        assert!(d.regions.is_empty(), "{:?}", d.regions);
        assert_eq!(d.changed_pixels, 0);
        assert_eq!(d.changed_share(), 0.0);
        assert_eq!(d.compared_pixels, 1080 * 2400);
    }

    #[test]
    fn a_dialog_is_one_region_around_it() {
        let a = screen();
        let mut b = a.clone();
        // A dialog: white card with a border, a title and two buttons inside (not cell-aligned).
        let dialog = PxRect {
            x: 61,
            y: 781,
            w: 957,
            h: 837,
        };
        fill(&mut b, dialog, Rgba([255, 255, 255, 255]));
        let border = Rgba([120, 120, 120, 255]);
        let (x, y, w, h) = (dialog.x, dialog.y, dialog.w, dialog.h);
        fill(&mut b, PxRect { x, y, w, h: 3 }, border);
        fill(
            &mut b,
            PxRect {
                x,
                y: y + h - 3,
                w,
                h: 3,
            },
            border,
        );
        fill(&mut b, PxRect { x, y, w: 3, h }, border);
        fill(
            &mut b,
            PxRect {
                x: x + w - 3,
                y,
                w: 3,
                h,
            },
            border,
        );
        fill(
            &mut b,
            PxRect {
                x: 110,
                y: 830,
                w: 500,
                h: 50,
            },
            Rgba([0, 0, 0, 255]),
        );
        fill(
            &mut b,
            PxRect {
                x: 110,
                y: 1400,
                w: 860,
                h: 120,
            },
            Rgba([187, 222, 251, 255]),
        );
        let d = diff(&a, &b, &DiffOptions::default());
        assert_eq!(d.regions.len(), 1, "{:?}", d.regions);
        let r = &d.regions[0];
        // The card is white on an almost white background (below the threshold): the box is
        // found from its border and what it covers.
        assert!(near(r.rect, dialog, 3), "{:?} vs {dialog:?}", r.rect);
        assert!(d.changed_share() > 0.0 && d.changed_share() < 0.35);
        assert!(r.changed_share() > 0.0 && r.changed_share() <= 1.0);
    }

    #[test]
    fn two_far_apart_changes_are_two_regions_in_reading_order() {
        let a = screen();
        let mut b = a.clone();
        fill(
            &mut b,
            PxRect {
                x: 700,
                y: 2000,
                w: 200,
                h: 100,
            },
            Rgba([255, 0, 0, 255]),
        );
        fill(
            &mut b,
            PxRect {
                x: 100,
                y: 400,
                w: 100,
                h: 60,
            },
            Rgba([0, 255, 0, 255]),
        );
        let d = diff(&a, &b, &DiffOptions::default());
        assert_eq!(d.regions.len(), 2, "{:?}", d.regions);
        assert_eq!(
            d.regions[0].rect,
            PxRect {
                x: 100,
                y: 400,
                w: 100,
                h: 60
            }
        );
        assert_eq!(
            d.regions[1].rect,
            PxRect {
                x: 700,
                y: 2000,
                w: 200,
                h: 100
            }
        );
        assert_eq!(d.changed_pixels, 200 * 100 + 100 * 60);
        // Letters a few pixels apart are one word, not one region each.
        let mut c = a.clone();
        for i in 0..5 {
            fill(
                &mut c,
                PxRect {
                    x: 100 + i * 30,
                    y: 2200,
                    w: 22,
                    h: 30,
                },
                Rgba([0, 0, 0, 255]),
            );
        }
        let d = diff(&a, &c, &DiffOptions::default());
        assert_eq!(d.regions.len(), 1, "{:?}", d.regions);
        assert_eq!(
            d.regions[0].rect,
            PxRect {
                x: 100,
                y: 2200,
                w: 142,
                h: 30
            }
        );
    }

    #[test]
    fn noise_below_the_thresholds_is_ignored() {
        let a = screen();
        let mut b = a.clone();
        // Every pixel off by a little (anti-aliasing, JPEG re-encoding)…
        for p in b.pixels_mut() {
            p.0[0] = p.0[0].saturating_add(12);
            p.0[2] = p.0[2].saturating_sub(10);
        }
        // …and a few stray pixels far off, well apart.
        for (x, y) in [(500, 1000), (900, 1800), (20, 2300)] {
            b.put_pixel(x, y, Rgba([0, 255, 0, 255]));
        }
        let d = diff(&a, &b, &DiffOptions::default());
        assert!(d.regions.is_empty(), "{:?}", d.regions);
        assert_eq!(d.changed_share(), 0.0);
        // A stricter threshold sees the shift everywhere.
        let strict = DiffOptions {
            channel_threshold: 8,
            ..DiffOptions::default()
        };
        let d = diff(&a, &b, &strict);
        assert_eq!(d.regions.len(), 1);
        assert!(d.changed_share() > 0.99, "{}", d.changed_share());
    }

    #[test]
    fn masked_areas_are_not_compared() {
        let a = screen();
        let mut b = a.clone();
        // The clock changed in the status bar.
        fill(
            &mut b,
            PxRect {
                x: 42,
                y: 20,
                w: 120,
                h: 44,
            },
            Rgba([255, 255, 255, 255]),
        );
        let bar = PxRect {
            x: 0,
            y: 0,
            w: 1080,
            h: 84,
        };
        let masked = DiffOptions {
            masks: vec![bar],
            ..DiffOptions::default()
        };
        let d = diff(&a, &b, &masked);
        assert!(d.regions.is_empty(), "{:?}", d.regions);
        assert_eq!(d.compared_pixels, 1080 * (2400 - 84));
        // Without the mask it is reported.
        let d = diff(&a, &b, &DiffOptions::default());
        assert_eq!(d.regions.len(), 1);
        assert_eq!(
            d.regions[0].rect,
            PxRect {
                x: 42,
                y: 20,
                w: 120,
                h: 44
            }
        );
        // A mask in the middle of a row keeps both sides compared; one off the image is ignored.
        fill(
            &mut b,
            PxRect {
                x: 500,
                y: 1000,
                w: 200,
                h: 200,
            },
            Rgba([255, 0, 0, 255]),
        );
        let masks = DiffOptions {
            masks: vec![
                bar,
                PxRect {
                    x: 550,
                    y: 900,
                    w: 100,
                    h: 400,
                },
                PxRect {
                    x: 5000,
                    y: 5000,
                    w: 10,
                    h: 10,
                },
            ],
            ..DiffOptions::default()
        };
        let d = diff(&a, &b, &masks);
        assert_eq!(d.regions.len(), 2, "{:?}", d.regions);
        assert_eq!(
            d.regions[0].rect,
            PxRect {
                x: 500,
                y: 1000,
                w: 50,
                h: 200
            }
        );
        assert_eq!(
            d.regions[1].rect,
            PxRect {
                x: 650,
                y: 1000,
                w: 50,
                h: 200
            }
        );
    }

    #[test]
    fn open_spans_subtract_overlapping_masks() {
        let mut out = Vec::new();
        let m = |x, w| PxRect { x, y: 0, w, h: 10 };
        open_spans(5, 100, &[m(10, 20), m(25, 10), m(90, 20)], &mut out);
        assert_eq!(out, vec![(0, 10), (35, 90)]);
        open_spans(50, 100, &[m(10, 20)], &mut out);
        assert_eq!(out, vec![(0, 100)]);
    }

    #[test]
    fn baselines_of_another_size_are_scaled_when_the_shape_agrees() {
        let a = screen();
        let half = imageops::resize(&a, 540, 1200, imageops::FilterType::Triangle);
        let fitted = fit(half, (1080, 2400)).unwrap();
        assert_eq!(fitted.dimensions(), (1080, 2400));
        // Scaling blurs edges (a pixel or two each side; 2.7% of this screen at the default
        // threshold), nothing more: a higher threshold takes most of it away.
        let d = diff(&fitted, &a, &DiffOptions::default());
        assert!(d.changed_share() < 0.05, "{}", d.changed_share());
        let lenient = DiffOptions {
            channel_threshold: 96,
            ..DiffOptions::default()
        };
        let d = diff(&fitted, &a, &lenient);
        assert!(d.changed_share() < 0.01, "{}", d.changed_share());
        let wide = RgbaImage::from_pixel(1200, 1080, BG);
        assert_eq!(
            fit(wide, (1080, 2400)).unwrap_err(),
            DiffError::Shape {
                baseline: (1200, 1080),
                screen: (1080, 2400)
            }
        );
    }

    #[test]
    fn only_pngs_decode() {
        let mut png = Vec::new();
        image::DynamicImage::ImageRgba8(RgbaImage::from_pixel(4, 3, BG))
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        assert_eq!(decode_png(&png).unwrap().dimensions(), (4, 3));
        let not = |b: &[u8]| match decode_png(b) {
            Err(DiffError::NotPng(why)) => why,
            other => panic!("{other:?}"),
        };
        assert!(not(b"hello").contains("signature"));
        assert!(not(&[0xFF, 0xD8, 0xFF, 0xE0]).contains("JPEG"));
        assert!(not(&[]).contains("empty"));
        // A PNG cut short after its header.
        assert!(!not(&png[..40]).is_empty());
    }

    #[test]
    fn many_scattered_changes_are_capped() {
        let a = RgbaImage::from_pixel(1080, 2400, BG);
        let mut b = a.clone();
        for i in 0..20u32 {
            for j in 0..10u32 {
                fill(
                    &mut b,
                    PxRect {
                        x: 20 + j * 100,
                        y: 20 + i * 110,
                        w: 10,
                        h: 10,
                    },
                    Rgba([0, 0, 0, 255]),
                );
            }
        }
        let d = diff(&a, &b, &DiffOptions::default());
        assert_eq!(d.regions.len(), MAX_REGIONS);
        assert_eq!(d.omitted, 200 - MAX_REGIONS);
        assert_eq!(d.changed_pixels, 200 * 100);
    }
}
