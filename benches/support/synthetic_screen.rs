//! A synthetic but realistic phone screenshot (status bar, app bar, a photo, list rows with real
//! text, bottom navigation) and the element boxes an accessibility tree would give for it.
//! Shared by `benches/screenshot.rs` and `examples/annotate_png.rs`.

use std::io::Cursor;

use ab_glyph::FontRef;
use draw::{draw_text, fill_rect, Rect};
use image::{ImageFormat, Rgba, RgbaImage};
use mobilectl::image::RefBox;

/// Returns the PNG bytes (RGBA, like `screencap -p`) and one box per tappable element.
pub fn screen(w: u32, h: u32) -> (Vec<u8>, Vec<RefBox>) {
    let font = FontRef::try_from_slice(dejavu::sans::regular()).expect("embedded font");
    let u = w as f32 / 1080.0; // layout unit: 1 at 1080 px wide
    let px = |v: f32| (v * u).round() as i32;
    let mut img = RgbaImage::from_pixel(w, h, Rgba([250, 250, 250, 255]));
    let mut boxes = Vec::new();
    let mut add = |x: i32, y: i32, bw: i32, bh: i32| {
        let label = format!("e{}", boxes.len() + 1);
        boxes.push(RefBox {
            label,
            x: x as f64,
            y: y as f64,
            w: bw as f64,
            h: bh as f64,
        });
    };
    let rect = |img: &mut RgbaImage, x: i32, y: i32, rw: i32, rh: i32, c: [u8; 3]| {
        let r = Rect::new(x, y, rw.max(1) as u32, rh.max(1) as u32);
        fill_rect(img, r, Rgba([c[0], c[1], c[2], 255]));
    };
    let text = |img: &mut RgbaImage, x: i32, y: i32, size: f32, c: [u8; 3], s: &str| {
        draw_text(
            img,
            Rgba([c[0], c[1], c[2], 255]),
            (x, y),
            size * u,
            &font,
            s,
        );
    };

    // Status bar and app bar.
    rect(&mut img, 0, 0, w as i32, px(80.0), [20, 60, 160]);
    text(&mut img, px(40.0), px(18.0), 40.0, [255, 255, 255], "12:34");
    text(
        &mut img,
        px(850.0),
        px(18.0),
        36.0,
        [255, 255, 255],
        "5G 87%",
    );
    rect(&mut img, 0, px(80.0), w as i32, px(170.0), [33, 100, 243]);
    text(
        &mut img,
        px(150.0),
        px(125.0),
        60.0,
        [255, 255, 255],
        "Nearby caches",
    );
    rect(
        &mut img,
        px(40.0),
        px(120.0),
        px(70.0),
        px(70.0),
        [255, 255, 255],
    );
    add(px(30.0), px(110.0), px(90.0), px(90.0));
    rect(
        &mut img,
        px(960.0),
        px(120.0),
        px(70.0),
        px(70.0),
        [255, 255, 255],
    );
    add(px(950.0), px(110.0), px(90.0), px(90.0));

    // Search field.
    rect(
        &mut img,
        px(40.0),
        px(280.0),
        px(1000.0),
        px(110.0),
        [235, 235, 240],
    );
    text(
        &mut img,
        px(80.0),
        px(310.0),
        44.0,
        [120, 120, 120],
        "Search caches, places, codes",
    );
    add(px(40.0), px(280.0), px(1000.0), px(110.0));

    // A "photo": smooth gradient plus noise (photos are what PNG compresses worst).
    let (py0, py1) = (px(420.0), px(820.0));
    let mut seed: u32 = 0x1234_5678;
    for y in py0.max(0) as u32..(py1 as u32).min(h) {
        for x in 0..w {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let n = (seed >> 27) as u8; // 0..31
            let r = (x * 255 / w) as u8 / 2 + 60 + n;
            let g = ((y - py0 as u32) * 255 / (py1 - py0) as u32) as u8 / 2 + 80 + n;
            img.put_pixel(x, y, Rgba([r, g, 120u8.wrapping_add(n), 255]));
        }
    }
    add(0, py0, w as i32, py1 - py0);

    // List rows: avatar, title, subtitle, a button on the right, divider.
    let names = [
        "Old Mill Trail",
        "Lighthouse #3",
        "Cafe Riverside",
        "GCAZ2TD Mystery",
        "Bridge Cache",
        "Forest Loop",
        "Harbour View",
        "Station Road",
        "North Tower",
        "Quarry Steps",
        "Market Square",
        "Hidden Garden",
    ];
    let row_h = px(118.0);
    for (i, name) in names.iter().enumerate() {
        let y = px(840.0) + i as i32 * row_h;
        if y + row_h > px(2230.0) {
            break;
        }
        let hue = [[230, 80, 60], [60, 160, 90], [70, 110, 220], [220, 160, 40]][i % 4];
        filled_circle(
            &mut img,
            (px(90.0), y + row_h / 2),
            px(40.0),
            Rgba([hue[0], hue[1], hue[2], 255]),
        );
        text(&mut img, px(160.0), y + px(18.0), 42.0, [20, 20, 20], name);
        let sub = format!(
            "{}.{} km · difficulty {} · found {} times",
            i + 1,
            (i * 7) % 10,
            1 + i % 5,
            3 * i + 2
        );
        text(
            &mut img,
            px(160.0),
            y + px(68.0),
            32.0,
            [110, 110, 110],
            &sub,
        );
        rect(
            &mut img,
            px(880.0),
            y + px(30.0),
            px(160.0),
            px(60.0),
            [33, 100, 243],
        );
        text(
            &mut img,
            px(905.0),
            y + px(40.0),
            34.0,
            [255, 255, 255],
            "Open",
        );
        rect(
            &mut img,
            px(160.0),
            y + row_h - 2,
            w as i32 - px(160.0),
            2,
            [225, 225, 225],
        );
        add(0, y, px(860.0), row_h);
        add(px(880.0), y + px(30.0), px(160.0), px(60.0));
        add(px(50.0), y + row_h / 2 - px(40.0), px(80.0), px(80.0));
    }

    // Bottom navigation.
    let nav_y = h as i32 - px(170.0);
    rect(&mut img, 0, nav_y, w as i32, px(170.0), [245, 245, 248]);
    for (i, label) in ["Map", "List", "Saved", "Profile"].iter().enumerate() {
        let x = i as i32 * px(270.0);
        rect(
            &mut img,
            x + px(105.0),
            nav_y + px(25.0),
            px(60.0),
            px(60.0),
            [90, 90, 100],
        );
        text(
            &mut img,
            x + px(95.0),
            nav_y + px(100.0),
            34.0,
            [60, 60, 70],
            label,
        );
        add(x, nav_y, px(270.0), px(170.0));
    }

    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png)
        .expect("encode synthetic PNG");
    (out.into_inner(), boxes)
}

/// Paints the pixels whose centres lie within `radius` of `centre` (the list rows' avatars).
fn filled_circle(img: &mut RgbaImage, (cx, cy): (i32, i32), radius: i32, colour: Rgba<u8>) {
    for dy in -radius..=radius {
        let half = (((radius * radius - dy * dy) as f64).sqrt()) as i32;
        fill_rect(
            img,
            Rect::new(cx - half, cy + dy, (2 * half + 1) as u32, 1),
            colour,
        );
    }
}
