//! The vision-fallback grid: lettered columns (A..Z), numbered rows (1..), cell names like "C5".
//!
//! Geometry is resolution-free: a [`GridSpec`] only says how many columns and rows divide the
//! screen, so the same spec names the same cells on the screenshot (pixels) and in tap space
//! (Android pixels, iOS points). [`GridSpec::for_size`] derives the default from the aspect
//! ratio only, so it gives the same grid in either space.

use ::image::{Rgb, RgbImage};

use super::font::{self, Ink};
use super::ImageError;

/// Most columns (one letter each).
pub const MAX_COLS: u32 = 26;
/// Most rows.
pub const MAX_ROWS: u32 = 99;
/// Cells across the short edge in the default grid (seed 003: 10 columns A-J on a portrait
/// phone, rows to keep cells square).
pub const DEFAULT_SHORT_EDGE_CELLS: u32 = 10;

/// How many columns and rows divide the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridSpec {
    /// Columns, lettered A.. from the left (1..=26).
    pub cols: u32,
    /// Rows, numbered 1.. from the top (1..=99).
    pub rows: u32,
}

/// A bad grid spec, cell name or screen size (the server answers 400 VALIDATION_FAILED).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GridError {
    /// Columns or rows outside 1..=26 / 1..=99.
    #[error("grid must have 1..={MAX_COLS} columns and 1..={MAX_ROWS} rows, got {cols}x{rows}")]
    BadSpec {
        /// The columns asked for.
        cols: u32,
        /// The rows asked for.
        rows: u32,
    },
    /// Not a column letter followed by a row number.
    #[error("grid cell {0:?} is not a column letter followed by a row number, like \"C5\"")]
    BadCell(String),
    /// A well-formed cell outside the grid.
    #[error("grid cell {cell:?} is outside the grid (columns A..{last_col}, rows 1..{rows})")]
    OutOfRange {
        /// The cell as given.
        cell: String,
        /// The grid's last column letter.
        last_col: char,
        /// The grid's number of rows.
        rows: u32,
    },
    /// Screen width/height not positive and finite.
    #[error("screen size must be positive, got {0}x{1}")]
    BadSize(f64, f64),
}

impl GridSpec {
    /// The default grid for a screen of this shape: [`DEFAULT_SHORT_EDGE_CELLS`] cells across
    /// the short edge and as many (near-square) cells as fit along the long one.
    /// 1080×2400 → 10×22; 2400×1080 → 22×10.
    pub fn for_size(width: f64, height: f64) -> GridSpec {
        let (w, h) = (width.max(1.0), height.max(1.0));
        let cell = w.min(h) / f64::from(DEFAULT_SHORT_EDGE_CELLS);
        let n = |edge: f64, max: u32| ((edge / cell).round() as u32).clamp(1, max);
        GridSpec {
            cols: n(w, MAX_COLS),
            rows: n(h, MAX_ROWS),
        }
    }

    /// Checks the column and row counts.
    pub fn validate(&self) -> Result<(), GridError> {
        if (1..=MAX_COLS).contains(&self.cols) && (1..=MAX_ROWS).contains(&self.rows) {
            Ok(())
        } else {
            Err(GridError::BadSpec {
                cols: self.cols,
                rows: self.rows,
            })
        }
    }

    /// The letter of column `i` (0-based).
    pub fn col_name(i: u32) -> char {
        char::from(b'A' + (i % 26) as u8)
    }

    /// Parses a cell name ("c5", " C5 ") into 0-based (column, row) within this grid.
    pub fn parse_cell(&self, cell: &str) -> Result<(u32, u32), GridError> {
        self.validate()?;
        let bad = || GridError::BadCell(cell.to_string());
        let t = cell.trim();
        let mut chars = t.chars();
        let letter = chars
            .next()
            .filter(char::is_ascii_alphabetic)
            .ok_or_else(bad)?;
        let digits = chars.as_str();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let col = u32::from(letter.to_ascii_uppercase() as u8 - b'A');
        let row: u32 = digits.parse().unwrap_or(u32::MAX);
        if col >= self.cols || row == 0 || row > self.rows {
            return Err(GridError::OutOfRange {
                cell: cell.to_string(),
                last_col: Self::col_name(self.cols - 1),
                rows: self.rows,
            });
        }
        Ok((col, row - 1))
    }
}

/// The rectangle `(x, y, w, h)` of `cell` on a screen of `width`×`height` (any unit).
pub fn grid_cell_rect(
    cell: &str,
    width: f64,
    height: f64,
    spec: GridSpec,
) -> Result<(f64, f64, f64, f64), GridError> {
    let ok = |v: f64| v.is_finite() && v > 0.0;
    if !ok(width) || !ok(height) {
        return Err(GridError::BadSize(width, height));
    }
    let (c, r) = spec.parse_cell(cell)?;
    let cw = width / f64::from(spec.cols);
    let ch = height / f64::from(spec.rows);
    Ok((f64::from(c) * cw, f64::from(r) * ch, cw, ch))
}

/// The centre of `cell` ("C5": column C, row 5; case-insensitive) on a screen of
/// `width`×`height` in tap coordinates: the point to tap for that cell.
pub fn grid_cell_center(
    cell: &str,
    width: f64,
    height: f64,
    spec: GridSpec,
) -> Result<(f64, f64), GridError> {
    let (x, y, w, h) = grid_cell_rect(cell, width, height, spec)?;
    Ok((x + w / 2.0, y + h / 2.0))
}

/// Pixel position of grid line `i` of `n` along an edge of `len` pixels.
fn line_at(i: u32, n: u32, len: u32) -> u32 {
    ((u64::from(i) * u64::from(len) + u64::from(n) / 2) / u64::from(n)) as u32
}

/// Blends `c` into pixel (x, y) at `alpha` (0..=255).
fn blend(img: &mut RgbImage, x: u32, y: u32, c: Rgb<u8>, alpha: u16) {
    let p = img.get_pixel_mut(x, y);
    for (v, c) in p.0.iter_mut().zip(c.0) {
        *v = ((u32::from(*v) * u32::from(255 - alpha) + u32::from(c) * u32::from(alpha)) / 255)
            as u8;
    }
}

/// Draws the cell boundaries: a dark line with a light line beside it, both half transparent,
/// so the grid shows on light and dark screens without hiding them.
pub(super) fn draw_lines(img: &mut RgbImage, spec: GridSpec) {
    let (w, h) = img.dimensions();
    let (dark, light) = (Rgb([0, 0, 0]), Rgb([255, 255, 255]));
    for i in 1..spec.cols {
        let x = line_at(i, spec.cols, w);
        for y in 0..h {
            blend(img, x.min(w - 1), y, dark, 140);
            blend(img, (x + 1).min(w - 1), y, light, 110);
        }
    }
    for j in 1..spec.rows {
        let y = line_at(j, spec.rows, h);
        for x in 0..w {
            blend(img, x, y.min(h - 1), dark, 140);
            blend(img, x, (y + 1).min(h - 1), light, 110);
        }
    }
}

/// One grid label: its text and the tag rectangle `(x, y, w, h)` it occupies, in pixels.
pub(super) struct GridLabel {
    pub text: String,
    pub rect: (i32, i32, i32, i32),
    ink: Ink,
    px: f32,
    pad: i32,
}

/// Lays out each column letter at the top of its column and each row number at the left of its
/// row, for an image of `w`×`h` pixels (so ref tags can avoid them).
pub(super) fn label_layout(w: u32, h: u32, spec: GridSpec) -> Result<Vec<GridLabel>, ImageError> {
    let f = font::font()?;
    let cell = (w / spec.cols).min(h / spec.rows) as f32;
    let px = (cell * 0.32).clamp(10.0, 28.0);
    let pad = (px / 5.0).round().max(2.0) as i32;
    let label = |text: String, cx: Option<u32>, cy: Option<u32>| {
        let ink: Ink = font::measure(f, px, &text);
        let (tw, th) = (ink.width + 2 * pad, ink.height() + 2 * pad);
        let x = cx
            .map_or(0, |c| c as i32 - tw / 2)
            .clamp(0, (w as i32 - tw).max(0));
        let y = cy
            .map_or(0, |c| c as i32 - th / 2)
            .clamp(0, (h as i32 - th).max(0));
        GridLabel {
            text,
            rect: (x, y, tw, th),
            ink,
            px,
            pad,
        }
    };
    let mut out = Vec::with_capacity((spec.cols + spec.rows) as usize);
    for i in 0..spec.cols {
        let cx = (line_at(i, spec.cols, w) + line_at(i + 1, spec.cols, w)) / 2;
        out.push(label(GridSpec::col_name(i).to_string(), Some(cx), None));
    }
    for j in 0..spec.rows {
        let cy = (line_at(j, spec.rows, h) + line_at(j + 1, spec.rows, h)) / 2;
        out.push(label((j + 1).to_string(), None, Some(cy)));
    }
    Ok(out)
}

/// Draws the labels of [`label_layout`]: yellow on a dark, slightly transparent tag.
pub(super) fn draw_labels(img: &mut RgbImage, labels: &[GridLabel]) -> Result<(), ImageError> {
    let f = font::font()?;
    let (w, h) = (img.width() as i32, img.height() as i32);
    for l in labels {
        let (x, y, tw, th) = l.rect;
        for yy in y.max(0)..(y + th).min(h) {
            for xx in x.max(0)..(x + tw).min(w) {
                blend(img, xx as u32, yy as u32, Rgb([0, 0, 0]), 200);
            }
        }
        let origin = (x + l.pad, y + l.pad);
        font::draw(img, f, l.px, origin, l.ink, Rgb([255, 230, 0]), &l.text);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: GridSpec = GridSpec { cols: 10, rows: 20 };

    #[test]
    fn default_spec_follows_the_aspect() {
        assert_eq!(
            GridSpec::for_size(1080.0, 2400.0),
            GridSpec { cols: 10, rows: 22 }
        );
        assert_eq!(
            GridSpec::for_size(2400.0, 1080.0),
            GridSpec { cols: 22, rows: 10 }
        );
        // iOS: points and pixels give the same grid.
        assert_eq!(
            GridSpec::for_size(393.0, 852.0),
            GridSpec::for_size(1179.0, 2556.0)
        );
        assert_eq!(GridSpec::for_size(100.0, 100_000.0).rows, MAX_ROWS);
    }

    #[test]
    fn a1_is_the_centre_of_the_first_cell() {
        let (x, y) = grid_cell_center("A1", 1000.0, 2000.0, G).unwrap();
        assert_eq!((x, y), (50.0, 50.0));
        assert_eq!(grid_cell_center("a1", 1000.0, 2000.0, G).unwrap(), (x, y));
    }

    #[test]
    fn c5_and_last_cell() {
        assert_eq!(
            grid_cell_center("C5", 1000.0, 2000.0, G).unwrap(),
            (250.0, 450.0)
        );
        assert_eq!(
            grid_cell_center("J20", 1000.0, 2000.0, G).unwrap(),
            (950.0, 1950.0)
        );
        // iOS points with the default grid of a 393x852 screen.
        let spec = GridSpec::for_size(393.0, 852.0);
        let (x, y) = grid_cell_center("e10", 393.0, 852.0, spec).unwrap();
        assert!((x - 4.5 * 39.3).abs() < 1e-9, "{x}");
        assert!((y - 9.5 * 852.0 / f64::from(spec.rows)).abs() < 1e-9, "{y}");
    }

    #[test]
    fn bad_cells_are_errors() {
        let e = |c: &str| grid_cell_center(c, 1000.0, 2000.0, G).unwrap_err();
        assert!(matches!(e("Z99"), GridError::OutOfRange { .. }));
        assert!(matches!(e("K1"), GridError::OutOfRange { .. }));
        assert!(matches!(e("A21"), GridError::OutOfRange { .. }));
        assert!(matches!(e("A0"), GridError::OutOfRange { .. }));
        assert!(matches!(e("A99999999999"), GridError::OutOfRange { .. }));
        for bad in ["", " ", "5C", "C", "CC5", "C-5", "C5x", "É5", "C 5"] {
            assert_eq!(e(bad), GridError::BadCell(bad.to_string()), "{bad:?}");
        }
        assert!(matches!(
            grid_cell_center("A1", 0.0, 10.0, G),
            Err(GridError::BadSize(..))
        ));
        assert!(matches!(
            grid_cell_center("A1", 10.0, 10.0, GridSpec { cols: 27, rows: 5 }),
            Err(GridError::BadSpec { .. })
        ));
        assert!(e("Z99").to_string().contains("A..J"));
    }

    #[test]
    fn lines_fall_on_cell_boundaries() {
        let mut img = RgbImage::from_pixel(100, 200, Rgb([128, 128, 128]));
        draw_lines(&mut img, G);
        assert!(img.get_pixel(10, 5)[0] < 100, "dark line at x=10");
        assert!(img.get_pixel(11, 5)[0] > 150, "light line beside it");
        assert_eq!(*img.get_pixel(5, 5), Rgb([128, 128, 128]));
        assert!(img.get_pixel(5, 10)[0] < 100, "dark line at y=10");
    }
}
