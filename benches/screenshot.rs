//! Screenshot pipeline on a synthetic 1080×2400 phone screen (criterion):
//! decode + scale 0.5 + JPEG q80 (goal ≤ 25 ms median), the same with 40 annotated boxes
//! (goal ≤ 50 ms), and the stages on their own to show where the time goes. The plain JPEG path
//! streams (inflate on one thread, resize + encode on the other), so its floor is
//! `stage/png_rows_only`; the annotated path streams only the resize.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use image::imageops::FilterType;
use mobilectl::image::{annotate, render, Format, GridSpec, RenderOptions};

#[path = "support/synthetic_screen.rs"]
mod synthetic_screen;

fn bench(c: &mut Criterion) {
    let (png, boxes) = synthetic_screen::screen(1080, 2400);
    let boxes = &boxes[..40.min(boxes.len())];
    eprintln!("synthetic PNG: {} bytes, {} boxes", png.len(), boxes.len());
    let half_jpeg = RenderOptions {
        format: Format::Jpeg,
        quality: 80,
        scale: Some(0.5),
        max_size: None,
    };
    let out = render(&png, &half_jpeg).unwrap();
    eprintln!("JPEG q80 at 0.5: {} bytes, {:?}", out.bytes.len(), out.size);

    let mut g = c.benchmark_group("screenshot");
    g.sample_size(30);
    g.bench_function("decode+scale0.5+jpeg80", |b| {
        b.iter(|| render(black_box(&png), &half_jpeg).unwrap())
    });
    g.bench_function("annotate40+scale0.5+jpeg80", |b| {
        b.iter(|| annotate(black_box(&png), boxes, None, &half_jpeg).unwrap())
    });
    let grid = Some(GridSpec::for_size(1080.0, 2400.0));
    g.bench_function("annotate40+grid+scale0.5+jpeg80", |b| {
        b.iter(|| annotate(black_box(&png), boxes, grid, &half_jpeg).unwrap())
    });
    let half_png = RenderOptions {
        format: Format::Png,
        ..half_jpeg
    };
    g.bench_function("decode+scale0.5+png", |b| {
        b.iter(|| render(black_box(&png), &half_png).unwrap())
    });

    // Stages.
    let rgb = image::load_from_memory(&png).unwrap().to_rgb8();
    g.bench_function("stage/decode_png_to_rgb", |b| {
        b.iter(|| image::load_from_memory(black_box(&png)).unwrap().to_rgb8())
    });
    for (name, f) in [
        ("triangle", FilterType::Triangle),
        ("catmullrom", FilterType::CatmullRom),
    ] {
        g.bench_function(format!("stage/resize0.5_{name}"), |b| {
            b.iter(|| image::imageops::resize(black_box(&rgb), 540, 1200, f))
        });
    }
    g.bench_function("stage/resize0.5_thumbnail_area", |b| {
        b.iter(|| image::imageops::thumbnail(black_box(&rgb), 540, 1200))
    });
    // The floor of the streamed pipeline: inflating and unfiltering the rows, nothing else.
    g.bench_function("stage/png_rows_only", |b| {
        b.iter(|| {
            let mut reader = png::Decoder::new(std::io::Cursor::new(black_box(&png[..])))
                .read_info()
                .unwrap();
            let mut bytes = 0;
            while let Some(row) = reader.next_row().unwrap() {
                bytes += row.data().len();
            }
            bytes
        })
    });
    let rgba = image::load_from_memory(&png).unwrap();
    g.bench_function("stage/decode_png_only", |b| {
        b.iter(|| image::load_from_memory(black_box(&png)).unwrap())
    });
    drop(rgba);
    let small = image::imageops::resize(&rgb, 540, 1200, FilterType::Triangle);
    g.bench_function("stage/jpeg80_540x1200", |b| {
        b.iter(|| {
            let mut v = Vec::new();
            let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut v, 80);
            black_box(&small).write_with_encoder(enc).unwrap();
            v
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
