//! Points versus pixels on iOS. Taps and the UI tree use points; screenshots are in pixels,
//! `scale` times larger (1, 2 or 3). Mixing them up makes taps land 3× too far, so the scale
//! is derived from the two widths and conversions go through these functions only.

use crate::device::Point;

/// The screen's integer scale factor from a screenshot's pixel width and the screen width in
/// points (the UI tree root frame's width): `1179 px / 393 pt = 3`. `None` when the ratio is
/// not (close to) 1, 2 or 3 — e.g. the two were taken in different orientations.
pub fn screen_scale(pixel_width: u32, point_width: f64) -> Option<u32> {
    if !point_width.is_finite() || point_width <= 0.0 || pixel_width == 0 {
        return None;
    }
    let ratio = f64::from(pixel_width) / point_width;
    let scale = ratio.round();
    ((1.0..=3.0).contains(&scale) && (ratio - scale).abs() < 0.02).then_some(scale as u32)
}

/// A point in points → the same spot in screenshot pixels.
pub fn points_to_pixels(p: Point, scale: u32) -> Point {
    let s = f64::from(scale.max(1));
    Point {
        x: p.x * s,
        y: p.y * s,
    }
}

/// A spot in screenshot pixels → points, for tapping.
pub fn pixels_to_points(p: Point, scale: u32) -> Point {
    let s = f64::from(scale.max(1));
    Point {
        x: p.x / s,
        y: p.y / s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_of_real_screen_sizes() {
        // iPhone 15/16 Pro (the 393x852 fixtures), 16 Pro Max (430x932), 17 (402x874),
        // iPhone 8 (375x667, the WDA SpringBoard fixture), and a 1x iPad mini 1.
        assert_eq!(screen_scale(1179, 393.0), Some(3));
        assert_eq!(screen_scale(1290, 430.0), Some(3));
        assert_eq!(screen_scale(1206, 402.0), Some(3));
        assert_eq!(screen_scale(750, 375.0), Some(2));
        assert_eq!(screen_scale(768, 768.0), Some(1));
        // Landscape screenshot against a portrait tree: not a scale.
        assert_eq!(screen_scale(2556, 393.0), None);
        assert_eq!(screen_scale(1179, 0.0), None);
    }

    #[test]
    fn conversions_round_trip() {
        let p = Point { x: 120.0, y: 540.5 };
        let px = points_to_pixels(p, 3);
        assert_eq!(
            px,
            Point {
                x: 360.0,
                y: 1621.5
            }
        );
        assert_eq!(pixels_to_points(px, 3), p);
        assert_eq!(points_to_pixels(p, 0), p);
    }
}
