//! Parsing `adb logcat -v threadtime` (criterion): the recorded captures of `fixtures/` read
//! as the live stream reads them (lines cut, parsed, continuation lines joined), with and
//! without crash detection. Throughput in lines per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use mobilectl::logs::android::crash::Detector;
use mobilectl::logs::{DeviceClock, Ingest, LogFormat};
use std::path::PathBuf;

const CAPTURES: &[&str] = &[
    "android_logs/android_logcat_threadtime_anr_in_samsung_utf8bom.txt",
    "android_misc/logcat_threadtime_fatal_exception_android15.txt",
    "android_misc/logcat_threadtime_mediatek_android.txt",
];

fn bench(c: &mut Criterion) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut text = Vec::new();
    for rel in CAPTURES {
        text.extend(std::fs::read(root.join(rel)).unwrap());
        if !text.ends_with(b"\n") {
            text.push(b'\n');
        }
    }
    let lines = text.iter().filter(|b| **b == b'\n').count() as u64;
    eprintln!("{lines} lines, {} bytes", text.len());
    let clock = DeviceClock::utc(1_798_675_200_000);
    let mut g = c.benchmark_group("threadtime");
    g.throughput(Throughput::Elements(lines));
    g.bench_function("parse", |b| {
        b.iter(|| {
            let mut ingest = Ingest::new(LogFormat::AndroidLogcat, clock);
            // In reads of 64 KiB, as the stream is read.
            let mut n = 0;
            for chunk in black_box(&text).chunks(64 * 1024) {
                n += ingest.feed(chunk).len();
            }
            n + ingest.finish().len()
        })
    });
    g.bench_function("parse + crash detection", |b| {
        b.iter(|| {
            let mut ingest = Ingest::new(LogFormat::AndroidLogcat, clock);
            let mut detector = Detector::default();
            let mut crashes = Vec::new();
            for chunk in black_box(&text).chunks(64 * 1024) {
                for e in ingest.feed(chunk) {
                    detector.push(&e, &mut crashes);
                }
            }
            detector.flush(&mut crashes);
            crashes.len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
