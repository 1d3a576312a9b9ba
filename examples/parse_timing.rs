//! Rough timing of the UI pipeline stages on one dump (for tuning): `cargo run --release --example parse_timing -- PATH`.

use mobilectl::ui::{analyze, analyze_owned, parse_any, ViewOptions};
use quick_xml::events::Event;
use quick_xml::Reader;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("PATH");
    let text = std::fs::read_to_string(path).unwrap();
    let n = 200;
    if std::env::var("ONLY_PIPELINE").is_ok() {
        for _ in 0..1000 {
            let t = parse_any(&text).unwrap();
            std::hint::black_box(analyze_owned(t, None, &ViewOptions::default()).tree_text);
        }
        return;
    }
    let t0 = Instant::now();
    for _ in 0..n {
        let mut r = Reader::from_str(&text);
        r.config_mut().trim_text(true);
        let mut k = 0usize;
        loop {
            match r.read_event().unwrap() {
                Event::Eof => break,
                Event::Start(e) | Event::Empty(e) => {
                    for a in e.attributes().with_checks(false).flatten() {
                        k += a.value.len();
                    }
                }
                _ => {}
            }
        }
        std::hint::black_box(k);
    }
    println!("quick-xml events+attrs: {:?}", t0.elapsed() / n);
    let t0 = Instant::now();
    for _ in 0..n {
        std::hint::black_box(parse_any(&text).unwrap());
    }
    println!("parse_any: {:?}", t0.elapsed() / n);
    let tree = parse_any(&text).unwrap();
    let t0 = Instant::now();
    for _ in 0..n {
        std::hint::black_box(analyze(&tree, None, &ViewOptions::default()));
    }
    println!("analyze: {:?}", t0.elapsed() / n);
    let t0 = Instant::now();
    for _ in 0..n {
        let t = parse_any(&text).unwrap();
        std::hint::black_box(analyze_owned(t, None, &ViewOptions::default()).tree_text);
    }
    println!("pipeline: {:?}", t0.elapsed() / n);
}
