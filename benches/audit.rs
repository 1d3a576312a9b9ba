//! The accessibility audit (criterion; `cargo bench --bench audit`): every rule, contrast
//! included, on the largest real dump of the fixtures (Avito with the keyboard up, 323 nodes,
//! 1080×1920) over a screenshot drawn from its own tree (each labelled element's box filled and
//! its text written, so the contrast rules measure real glyph pixels), and on the demo's login
//! (the virtual device's dump and screenshot). Decoding the PNG is measured apart: the live
//! operation does it once per audit. Goal: under 20 ms beyond the screen read itself. Also
//! prints the tokens (cl100k) of the text form for the demo's screens.

use ab_glyph::FontRef;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use image::{Rgb, RgbImage};
use mobilectl::audit::{audit, picture, Input};
use mobilectl::ui::{analyze_owned, parse_any, Screen, ViewOptions};

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn screen_of(text: &str) -> Screen {
    analyze_owned(parse_any(text).unwrap(), None, &ViewOptions::default())
}

/// A screenshot of `s` drawn from its tree: boxes of labelled elements in a light grey, their
/// text in a dark one at 60% of the box's height (clipped to it).
fn drawn(s: &Screen) -> RgbImage {
    let font = FontRef::try_from_slice(dejavu::sans::regular()).unwrap();
    let mut img = RgbImage::from_pixel(s.screen.w as u32, s.screen.h as u32, Rgb([255; 3]));
    for (i, e) in s.elements.iter().enumerate() {
        if !s.shown[i] {
            continue;
        }
        let b = e.bounds;
        let r = draw::Rect::new(b.x as i32, b.y as i32, b.w as u32, b.h as u32);
        if e.class.as_deref().is_some_and(|c| c.contains("Image")) {
            draw::fill_rect(&mut img, r, Rgb([180, 180, 200]));
        } else if let Some(t) = e.text.as_deref() {
            draw::fill_rect(&mut img, r, Rgb([245, 245, 245]));
            let px = (b.h as f32 * 0.6).clamp(8.0, 64.0);
            draw::draw_text(
                &mut img,
                Rgb([60, 60, 60]),
                (b.x as i32 + 4, b.y as i32),
                px,
                &font,
                t,
            );
        }
    }
    img
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("audit");
    g.sample_size(30);

    let avito = String::from_utf8(fixture(
        "android_uiautomator/avito_search_keyboard_multiwindow_u2.xml",
    ))
    .unwrap();
    let big = screen_of(&avito);
    let big_img = drawn(&big);
    let big_png = picture::png(&big_img).unwrap();
    let input = Input {
        screen: &big,
        screenshot: Some(&big_img),
        density: Some(420.0),
    };
    let a = audit(&input).unwrap();
    eprintln!(
        "avito: {} elements, {} audited, {} findings ({:?}), skipped {:?}",
        big.elements.len(),
        a.elements,
        a.findings.len(),
        a.counts,
        a.skipped
    );
    g.bench_function("avito_323_nodes/rules_and_contrast", |b| {
        b.iter(|| audit(black_box(&input)).unwrap())
    });
    g.bench_function("avito_323_nodes/rules_only", |b| {
        let tree_only = Input {
            screen: &big,
            screenshot: None,
            density: Some(420.0),
        };
        b.iter(|| audit(black_box(&tree_only)).unwrap())
    });
    g.bench_function("avito_323_nodes/decode_png", |b| {
        b.iter(|| picture::decode(black_box(&big_png)).unwrap())
    });

    let login = screen_of(&String::from_utf8(fixture("virtual_device/demo_login.xml")).unwrap());
    let login_png = fixture("virtual_device/demo_login.png");
    let login_img = picture::decode(&login_png).unwrap();
    let demo = Input {
        screen: &login,
        screenshot: Some(&login_img),
        density: Some(420.0),
    };
    g.bench_function("demo_login/rules_and_contrast", |b| {
        b.iter(|| audit(black_box(&demo)).unwrap())
    });
    g.bench_function("demo_login/decode_png", |b| {
        b.iter(|| picture::decode(black_box(&login_png)).unwrap())
    });
    g.finish();

    // Tokens of the text form (what an MCP client reads) for the demo's screens: the login
    // with its screenshot, the others from their dumps alone (no contrast).
    let bpe = tiktoken_rs::cl100k_base().unwrap();
    let tokens = |a: &mobilectl::audit::Audit| {
        let text = mobilectl::render::audit::audit(&serde_json::to_value(a).unwrap());
        (
            bpe.encode_with_special_tokens(&text).len(),
            text.lines().count(),
        )
    };
    let (t, l) = tokens(&audit(&demo).unwrap());
    eprintln!("tokens demo login (with screenshot): {t} in {l} lines");
    let dir = format!(
        "{}/crates/virtual-device/src/demo",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    names.sort();
    for p in names {
        let s = screen_of(&std::fs::read_to_string(&p).unwrap());
        let a = audit(&Input {
            screen: &s,
            screenshot: None,
            density: Some(420.0),
        })
        .unwrap();
        let (t, l) = tokens(&a);
        eprintln!(
            "tokens demo {} (tree only): {t} in {l} lines",
            p.file_name().unwrap().to_string_lossy()
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
