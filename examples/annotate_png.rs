//! Draws ref boxes and the tap grid on a screenshot so a person can look at the result:
//! `cargo run --release --example annotate_png -- INPUT.png OUTPUT.png [SCALE] [--no-grid]`.
//! INPUT `demo` uses a synthetic 1080×2400 phone screen with its 40 element boxes; a real PNG
//! gets a few boxes spread over the screen.

use mobilectl::image::{annotate, GridSpec, RefBox, RenderOptions};

#[path = "../benches/support/synthetic_screen.rs"]
mod synthetic_screen;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pos: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    if pos.len() < 2 {
        eprintln!("usage: annotate_png INPUT.png|demo OUTPUT.png [SCALE] [--no-grid]");
        std::process::exit(2);
    }
    let (png, boxes) = if pos[0] == "demo" {
        let (png, mut boxes) = synthetic_screen::screen(1080, 2400);
        boxes.truncate(40);
        (png, boxes)
    } else {
        let png = std::fs::read(pos[0]).unwrap_or_else(|e| {
            eprintln!("{}: {e}", pos[0]);
            std::process::exit(1)
        });
        let (w, h) = image::load_from_memory(&png)
            .map(|i| (i.width() as f64, i.height() as f64))
            .unwrap_or((1080.0, 2400.0));
        let boxes = (0..6)
            .map(|i| RefBox {
                label: format!("e{}", i + 1),
                x: w * (0.05 + 0.45 * f64::from(i % 2)),
                y: h * (0.1 + 0.25 * f64::from(i / 2)),
                w: w * 0.4,
                h: h * 0.08,
            })
            .collect();
        (png, boxes)
    };
    let scale = pos.get(2).and_then(|s| s.parse().ok());
    let opts = RenderOptions {
        scale,
        ..Default::default()
    };
    let grid = if args.iter().any(|a| a == "--no-grid") {
        None
    } else {
        let (w, h) = image::load_from_memory(&png)
            .map(|i| (f64::from(i.width()), f64::from(i.height())))
            .unwrap_or((1080.0, 2400.0));
        Some(GridSpec::for_size(w, h))
    };
    match annotate(&png, &boxes, grid, &opts) {
        Ok(r) => {
            std::fs::write(pos[1], &r.bytes).expect("write output");
            eprintln!(
                "{} boxes, original {:?}, output {:?} at scale {}",
                boxes.len(),
                r.original,
                r.size,
                r.scale
            );
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
