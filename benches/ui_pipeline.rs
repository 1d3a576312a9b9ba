//! parse → prune → refs → text on the largest UI fixture (criterion).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use mobilectl::ui::{analyze, analyze_owned, parse_any, ViewOptions};
use std::path::PathBuf;

fn largest_fixture() -> (PathBuf, String) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut best: Option<(u64, PathBuf)> = None;
    for dir in [
        "android_uiautomator",
        "android_appium_source",
        "ios_axe",
        "ios_idb",
        "ios_wda_source",
    ] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let len = std::fs::metadata(&p).unwrap().len();
            if best.as_ref().is_none_or(|(l, _)| len > *l) {
                best = Some((len, p));
            }
        }
    }
    let p = best.unwrap().1;
    let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
    (p, text)
}

fn bench(c: &mut Criterion) {
    let (path, text) = largest_fixture();
    eprintln!("fixture: {} ({} bytes)", path.display(), text.len());
    let tree = parse_any(&text).unwrap();
    let first = analyze(&tree, None, &ViewOptions::default());
    eprintln!(
        "nodes: {}, refs: {}, text: {} bytes",
        tree.nodes.len(),
        first.refs.len(),
        first.tree_text.len()
    );
    c.bench_function("parse", |b| b.iter(|| parse_any(black_box(&text)).unwrap()));
    c.bench_function("analyze (prune, refs, text, fingerprint, detect)", |b| {
        b.iter(|| analyze(black_box(&tree), Some(&first.refs), &ViewOptions::default()))
    });
    c.bench_function("pipeline parse->prune->refs->text", |b| {
        b.iter(|| {
            let t = parse_any(black_box(&text)).unwrap();
            analyze_owned(t, Some(&first.refs), &ViewOptions::default()).tree_text
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
