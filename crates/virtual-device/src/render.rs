//! `screencap`: draws the current hierarchy — white background, every node's box, its text
//! (or content-desc) in DejaVu Sans — as RGBA, encoded as PNG or Android's raw format
//! (`u32 width, height, format=1 (RGBA_8888), colorspace=1 (sRGB)` little-endian, then pixels).
//!
//! Colours are fixed so tests can probe pixels: clickable nodes are filled [`BUTTON_FILL`],
//! text fields [`FIELD_FILL`], the keyboard window [`KEYBOARD_FILL`], the status bar
//! [`STATUS_FILL`]; outlines are grey, text is black (hints grey) unless a node gives its own
//! `text-color`.

use ab_glyph::FontRef;
use draw::screen::{Shape, Text};
use draw::Rect;
use image::{Rgba, RgbaImage};

use super::state::IME_PKG;
use super::uixml::Hierarchy;

pub const BACKGROUND: Rgba<u8> = Rgba([255, 255, 255, 255]);
pub const BUTTON_FILL: Rgba<u8> = Rgba([187, 222, 251, 255]);
pub const FIELD_FILL: Rgba<u8> = Rgba([245, 245, 245, 255]);
pub const KEYBOARD_FILL: Rgba<u8> = Rgba([224, 224, 224, 255]);
pub const STATUS_FILL: Rgba<u8> = Rgba([33, 33, 33, 255]);
const OUTLINE: Rgba<u8> = Rgba([158, 158, 158, 255]);
const TEXT: Rgba<u8> = Rgba([0, 0, 0, 255]);
const HINT: Rgba<u8> = Rgba([117, 117, 117, 255]);
const STATUS_TEXT: Rgba<u8> = Rgba([255, 255, 255, 255]);

/// A node's own text colour (`text-color="#rrggbb"`, the demo's accessibility screen's way to
/// draw faint text), when it has one.
fn hex(v: &str) -> Option<Rgba<u8>> {
    let h = v.strip_prefix('#').filter(|h| h.len() == 6)?;
    let c = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).ok();
    Some(Rgba([c(0)?, c(2)?, c(4)?, 255]))
}

/// The screen of `h`: what each node shows (see the module's doc), painted by
/// `draw::screen`, where the pixel loops are compiled optimised.
pub fn draw(h: &Hierarchy, width: u32, height: u32) -> RgbaImage {
    let font = FontRef::try_from_slice(dejavu::sans::regular()).expect("embedded DejaVu Sans");
    let mut shapes = Vec::new();
    for (_, n) in h.walk() {
        let b = n.bounds();
        if b.is_empty() {
            continue;
        }
        let rect = Rect::new(b.x1, b.y1, (b.x2 - b.x1) as u32, (b.y2 - b.y1) as u32);
        let class = n.get("class");
        let status = n.get("resource-id").ends_with(":id/status_bar");
        let keyboard = n.get("package") == IME_PKG;
        let fill = if status {
            Some(STATUS_FILL)
        } else if keyboard && n.get("resource-id").ends_with(":id/keyboard_holder") {
            Some(KEYBOARD_FILL)
        } else if class.contains("EditText") {
            Some(FIELD_FILL)
        } else if n.flag("clickable") && !keyboard {
            Some(BUTTON_FILL)
        } else {
            None
        };
        let label = match (n.get("text"), n.get("content-desc"), n.get("hint")) {
            (t, _, _) if !t.is_empty() => Some((t, TEXT)),
            (_, _, hint) if class.contains("EditText") && !hint.is_empty() => Some((hint, HINT)),
            (_, d, _) if !d.is_empty() => Some((d, TEXT)),
            _ => None,
        };
        let text = label.map(|(label, colour)| {
            let colour = if n.get("package") == "com.android.systemui" {
                STATUS_TEXT
            } else {
                hex(n.get("text-color")).unwrap_or(colour)
            };
            let size = (((b.y2 - b.y1) as f32) * 0.5).clamp(12.0, 48.0);
            Text {
                label: label.to_string(),
                colour,
                origin: (b.x1 + 12, b.y1 + ((b.y2 - b.y1) as f32 - size) as i32 / 2),
                size,
            }
        });
        shapes.push(Shape {
            rect,
            fill,
            outline: Some(OUTLINE),
            text,
        });
    }
    draw::screen::paint(width, height, BACKGROUND, &shapes, &font)
}

pub fn png(img: &RgbaImage) -> Vec<u8> {
    draw::screen::png(img)
}

pub fn raw(img: &RgbaImage) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + img.as_raw().len());
    for v in [img.width(), img.height(), 1, 1] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(img.as_raw());
    out
}
