//! What GC costs (criterion; `cargo bench --bench runs_gc`) over 1,000 run directories, each
//! with `result.json`, `trace.jsonl`, an index and two artifacts (a tenth without
//! `result.json`, a fifth failed, ages spread over 30 days):
//! - planning alone (`gc --dry-run`: enumerate, read each `result.json`, size each folder,
//!   plan);
//! - the pure planner alone on the same facts;
//! - a trace line appended to a run (what every operation costs besides its work).

use std::path::Path;

use chrono::{Duration, Utc};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use mobilectl::api::wire::runs::{GcPolicy, RunResult};
use mobilectl::runs::{gc, Outcome, RunStore, TraceLine};

fn make_runs(cache: &Path, n: usize) {
    let now = Utc::now();
    for i in 0..n {
        let started = now - Duration::minutes(i as i64 * 43);
        let id = format!("{}-{:06x}", started.format("%Y%m%d-%H%M%S"), i);
        let dir = cache.join("runs").join(&id);
        std::fs::create_dir_all(dir.join("artifacts")).unwrap();
        if i % 10 != 0 {
            let r = RunResult {
                run_id: id.clone(),
                session_id: Some(format!("ses-{i:016x}")),
                session_name: None,
                started_at: started.to_rfc3339(),
                ended_at: Some(started.to_rfc3339()),
                ok: i % 5 != 0,
                operations: 12,
                failures: 1,
                act_failures: u64::from(i % 5 == 0),
                devices: vec!["emulator-5554".into()],
            };
            std::fs::write(dir.join("result.json"), serde_json::to_vec(&r).unwrap()).unwrap();
        }
        std::fs::write(dir.join("trace.jsonl"), "{\"op\":\"tap\"}\n".repeat(12)).unwrap();
        std::fs::write(dir.join("artifacts.json"), "[]").unwrap();
        std::fs::write(dir.join("artifacts/failure-tap.png"), vec![0u8; 2048]).unwrap();
        std::fs::write(dir.join("artifacts/failure-tap.txt"), vec![b'x'; 512]).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    make_runs(dir.path(), 1000);
    let store = RunStore::open(dir.path().to_path_buf(), GcPolicy::default());
    let policy = GcPolicy::default();

    c.bench_function("gc --dry-run over 1,000 run directories", |b| {
        b.iter(|| black_box(store.gc_with(policy, true)))
    });
    let facts = gc::scan(dir.path(), |_| false);
    c.bench_function("gc plan alone (1,000 runs' facts)", |b| {
        b.iter(|| black_box(gc::plan(facts.clone(), &policy, Utc::now())))
    });
    // The same 1,000 deleted down to 20 (each iteration on a fresh copy).
    let mut g = c.benchmark_group("gc deleting");
    g.sample_size(10);
    g.bench_function(
        "1,000 runs down to the newest 20 and recent failures",
        |b| {
            b.iter_batched(
                || {
                    let d = tempfile::tempdir().unwrap();
                    make_runs(d.path(), 1000);
                    d
                },
                |d| {
                    let s = RunStore::open(d.path().to_path_buf(), policy);
                    black_box(s.gc(false));
                    d
                },
                criterion::BatchSize::PerIteration,
            )
        },
    );
    g.finish();

    let line = TraceLine {
        time: "2026-11-25T01:02:03.456Z".into(),
        op: "tap",
        duration_ms: 42,
        session: Some("ses-0123456789abcdef".into()),
        udid: Some("emulator-5554".into()),
        target: Some(serde_json::json!({"ref": "e12"})),
        outcome: Outcome::Ok,
        code: None,
        artifacts: vec![],
        console: vec![],
        act: true,
    };
    let traced = RunStore::open(dir.path().join("trace-bench"), policy);
    c.bench_function("a trace line appended to a session's run", |b| {
        b.iter(|| traced.trace(Some(("ses-0123456789abcdef", None)), black_box(&line)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
