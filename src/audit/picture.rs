//! `audit --annotate`: each finding's box and rule id drawn on the screenshot (red for errors,
//! orange for warnings, blue for information), with the project's drawing crate.

use ab_glyph::FontRef;
use image::{Rgb, RgbImage};

use super::{Audit, AuditError, Severity};

fn colour(s: Severity) -> Rgb<u8> {
    match s {
        Severity::Error => Rgb([220, 20, 60]),
        Severity::Warning => Rgb([255, 140, 0]),
        Severity::Info => Rgb([30, 110, 230]),
    }
}

/// Decodes a screenshot (PNG or JPEG) into pixels.
pub fn decode(bytes: &[u8]) -> Result<RgbImage, AuditError> {
    image::load_from_memory(bytes)
        .map(|i| i.to_rgb8())
        .map_err(|e| AuditError::Screenshot(e.to_string()))
}

/// Encodes pixels as PNG.
pub fn png(img: &RgbImage) -> Result<Vec<u8>, AuditError> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| AuditError::Screenshot(e.to_string()))?;
    Ok(out.into_inner())
}

/// The screenshot with a 3-pixel outline and a tag `rule-id` for each finding; bounds are
/// scaled from the tree's units to the picture's pixels.
pub fn annotate(audit: &Audit, img: &RgbImage) -> Result<RgbImage, AuditError> {
    let font = FontRef::try_from_slice(dejavu::sans::bold())
        .map_err(|e| AuditError::Screenshot(e.to_string()))?;
    let mut out = img.clone();
    let sx = f64::from(img.width()) / audit.screen.w;
    let sy = f64::from(img.height()) / audit.screen.h;
    let px = (f64::from(img.width()) / 40.0).clamp(12.0, 40.0) as f32;
    // Least severe first, so errors are drawn on top.
    let mut order: Vec<&super::Finding> = audit.findings.iter().collect();
    order.sort_by_key(|f| f.severity);
    for f in order {
        let b = f.bounds;
        if !b.is_valid() {
            continue;
        }
        let c = colour(f.severity);
        let (x, y) = ((b.x * sx).round() as i32, (b.y * sy).round() as i32);
        let (w, h) = ((b.w * sx).round() as u32, (b.h * sy).round() as u32);
        for k in 0..3u32 {
            if w > 2 * k && h > 2 * k {
                draw::outline_rect(
                    &mut out,
                    draw::Rect::new(x + k as i32, y + k as i32, w - 2 * k, h - 2 * k),
                    c,
                );
            }
        }
        let tag = f.rule.id();
        let tw = (tag.chars().count() as f32 * px * 0.62) as u32 + 6;
        let th = (px * 1.25) as u32;
        let ty = if y >= th as i32 { y - th as i32 } else { y };
        draw::fill_rect(&mut out, draw::Rect::new(x, ty, tw, th), c);
        draw::draw_text(&mut out, Rgb([255, 255, 255]), (x + 3, ty), px, &font, tag);
    }
    Ok(out)
}
