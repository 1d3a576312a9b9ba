//! Visual diff on synthetic phone screens (criterion; `cargo bench --bench screen_diff`):
//! the pure diff of two decoded full-HD frames (1080×1920 and 1080×2400) when nothing changed
//! (the `memcmp` floor), when a dialog appeared (one region), and when every pixel changed (the
//! worst case: one comparison per pixel and every cell live); then the whole of a request's
//! image work, decoding both PNGs first. Goal: a few ms for the pure diff of a full-HD pair.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use draw::{fill_rect, outline_rect, Rect};
use image::{Rgba, RgbaImage};
use mobilectl::image::diff::{decode_png, diff, DiffOptions, PxRect};

#[path = "support/synthetic_screen.rs"]
mod synthetic_screen;

/// A dialog: a white card with a grey outline (as its elevation shadow would draw) over the
/// middle third, a dark title bar inside. (A borderless card of the background's own colour
/// would be seen only where it covers something: one region per covered block.)
fn with_dialog(img: &RgbaImage) -> RgbaImage {
    let (w, h) = img.dimensions();
    let mut out = img.clone();
    let (x, y) = (w as i32 / 18, h as i32 / 3);
    let rect = Rect::new(x, y, w - 2 * x as u32, h / 3);
    fill_rect(&mut out, rect, Rgba([255, 255, 255, 255]));
    outline_rect(&mut out, rect, Rgba([150, 150, 150, 255]));
    let inner = Rect::new(x + 40, y + 40, w / 2, 60);
    fill_rect(&mut out, inner, Rgba([20, 20, 20, 255]));
    out
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("screen_diff");
    g.sample_size(30);
    for (w, h) in [(1080, 1920), (1080, 2400)] {
        let (png, _) = synthetic_screen::screen(w, h);
        let base = decode_png(&png).unwrap();
        let dialog = with_dialog(&base);
        let mut inverted = base.clone();
        for p in inverted.pixels_mut() {
            p.0 = [255 - p.0[0], 255 - p.0[1], 255 - p.0[2], 255];
        }
        let opts = DiffOptions {
            masks: vec![PxRect {
                x: 0,
                y: 0,
                w,
                h: h * 35 / 1000,
            }],
            ..DiffOptions::default()
        };
        let d = diff(&base, &dialog, &opts);
        eprintln!(
            "{w}x{h} dialog: {} region(s), share {:.4}",
            d.regions.len(),
            d.changed_share()
        );
        g.bench_function(format!("{w}x{h}/unchanged"), |b| {
            b.iter(|| diff(black_box(&base), black_box(&base), &opts))
        });
        g.bench_function(format!("{w}x{h}/dialog"), |b| {
            b.iter(|| diff(black_box(&base), black_box(&dialog), &opts))
        });
        g.bench_function(format!("{w}x{h}/every_pixel_changed"), |b| {
            b.iter(|| diff(black_box(&base), black_box(&inverted), &opts))
        });
        let mut dialog_png = Vec::new();
        image::DynamicImage::ImageRgba8(dialog.clone())
            .write_to(
                &mut std::io::Cursor::new(&mut dialog_png),
                image::ImageFormat::Png,
            )
            .unwrap();
        g.bench_function(format!("{w}x{h}/decode_both_pngs+diff"), |b| {
            b.iter(|| {
                let a = decode_png(black_box(&png)).unwrap();
                let b2 = decode_png(black_box(&dialog_png)).unwrap();
                diff(&a, &b2, &opts)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
