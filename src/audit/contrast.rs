//! Colour contrast from pixels: WCAG relative luminance and contrast ratio, and the separation
//! of a region's pixels into one background and one foreground colour.
//!
//! The separation follows the facts of Google's Accessibility Test Framework (its single
//! foreground method): count the distinct colours of the region; split them at their average
//! luminance (each distinct colour counted once, not weighted by area, so a few anti-aliased
//! shades do not drag the split towards the background); the most frequent colour on each side
//! is that side's colour, and the side whose colour covers more pixels is the background. A
//! region of one colour has no foreground.

/// An sRGB colour, 8 bits a channel.
pub type Rgb = [u8; 3];

/// The colours found in a region and their contrast.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Swatch {
    /// The colour covering most of the region.
    pub background: Rgb,
    /// The most frequent colour on the other side of the average luminance.
    pub foreground: Rgb,
    /// Contrast ratio between the two, from 1 to 21.
    pub ratio: f64,
    /// Pixels of the region (sampled) whose colour is nearer the foreground's luminance.
    pub foreground_pixels: usize,
}

/// WCAG 2 relative luminance of an sRGB colour (0 for black, 1 for white).
pub fn luminance(c: Rgb) -> f64 {
    let lin = linear();
    0.2126 * lin[usize::from(c[0])]
        + 0.7152 * lin[usize::from(c[1])]
        + 0.0722 * lin[usize::from(c[2])]
}

/// sRGB channel values made linear, computed once (the ink scan looks up every sampled pixel).
fn linear() -> &'static [f64; 256] {
    static LUT: std::sync::OnceLock<[f64; 256]> = std::sync::OnceLock::new();
    LUT.get_or_init(|| {
        std::array::from_fn(|v| {
            let s = v as f64 / 255.0;
            if s <= 0.03928 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            }
        })
    })
}

/// WCAG contrast ratio of two luminances: (lighter + 0.05) / (darker + 0.05).
pub fn ratio(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    (hi + 0.05) / (lo + 0.05)
}

/// The ratio rounded to two decimals, as findings report it.
pub fn rounded(r: f64) -> f64 {
    (r * 100.0).round() / 100.0
}

/// `#rrggbb`.
pub fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// Separates a region's pixels (`pixels` yields each sampled pixel once) into background and
/// foreground. `None` when the region is empty or of a single colour.
pub fn separate(pixels: impl Iterator<Item = Rgb>) -> Option<Swatch> {
    let mut packed: Vec<u32> = pixels
        .map(|c| u32::from(c[0]) << 16 | u32::from(c[1]) << 8 | u32::from(c[2]))
        .collect();
    if packed.is_empty() {
        return None;
    }
    packed.sort_unstable();
    // The histogram: distinct colours with their counts, in colour order.
    let mut hist: Vec<(u32, usize)> = Vec::new();
    for &p in &packed {
        match hist.last_mut() {
            Some((c, n)) if *c == p => *n += 1,
            _ => hist.push((p, 1)),
        }
    }
    if hist.len() < 2 {
        return None;
    }
    let unpack = |p: u32| [(p >> 16) as u8, (p >> 8) as u8, p as u8];
    let lums: Vec<f64> = hist.iter().map(|&(c, _)| luminance(unpack(c))).collect();
    let average = lums.iter().sum::<f64>() / lums.len() as f64;
    let mut low: Option<(u32, usize, f64)> = None;
    let mut high: Option<(u32, usize, f64)> = None;
    for (&(c, n), &l) in hist.iter().zip(&lums) {
        let side = if l < average { &mut low } else { &mut high };
        if side.is_none_or(|(_, best, _)| n > best) {
            *side = Some((c, n, l));
        }
    }
    let ((lc, ln, ll), (hc, hn, hl)) = (low?, high?);
    let ((bg, bl), (fg, fl)) = if hn > ln {
        ((hc, hl), (lc, ll))
    } else {
        ((lc, ll), (hc, hl))
    };
    let foreground_pixels = hist
        .iter()
        .zip(&lums)
        .filter(|(_, &l)| (l - fl).abs() < (l - bl).abs())
        .map(|(&(_, n), _)| n)
        .sum();
    Some(Swatch {
        background: unpack(bg),
        foreground: unpack(fg),
        ratio: ratio(bl, fl),
        foreground_pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luminance_and_ratio_match_the_wcag_reference_values() {
        assert_eq!(luminance([0, 0, 0]), 0.0);
        assert!((luminance([255, 255, 255]) - 1.0).abs() < 1e-9);
        assert!((ratio(1.0, 0.0) - 21.0).abs() < 1e-9);
        // #767676 on white is the well-known lightest grey that passes 4.5:1 (4.54).
        let r = ratio(luminance([0x76; 3]), 1.0);
        assert_eq!(rounded(r), 4.54);
        // #777777 just fails it.
        assert!(ratio(luminance([0x77; 3]), 1.0) < 4.5);
        assert_eq!(hex([255, 0, 16]), "#ff0010");
    }

    #[test]
    fn the_background_is_the_side_that_covers_more_pixels() {
        // 80 white pixels, 15 black, 5 anti-aliased greys.
        let px = std::iter::repeat_n([255u8; 3], 80)
            .chain(std::iter::repeat_n([0u8; 3], 15))
            .chain([[64u8; 3], [96; 3], [128; 3], [160; 3], [192; 3]]);
        let s = separate(px).unwrap();
        assert_eq!(s.background, [255; 3]);
        assert_eq!(s.foreground, [0; 3]);
        assert_eq!(rounded(s.ratio), 21.0);
        // By luminance (0.05, 0.12, 0.22, 0.35, 0.53) four of the greys lie nearer black.
        assert_eq!(s.foreground_pixels, 15 + 4);
        // Light text on a dark background: the dark side is the background.
        let px = std::iter::repeat_n([20u8, 20, 60], 70).chain(std::iter::repeat_n([250u8; 3], 30));
        let s = separate(px).unwrap();
        assert_eq!(s.background, [20, 20, 60]);
        assert_eq!(s.foreground, [250; 3]);
    }

    #[test]
    fn one_colour_or_nothing_has_no_foreground() {
        assert_eq!(separate(std::iter::empty()), None);
        assert_eq!(separate(std::iter::repeat_n([9u8, 9, 9], 50)), None);
    }
}
