//! What a session costs a request (criterion; `cargo bench --bench sessions`):
//! - the lookup alone: entering one of 1,000 live sessions by id and by name, and leaving it
//!   (the renewal), as the HTTP binding does for every request that names a session;
//! - the same request through the whole router, without and with `Mobilectl-Session`: the
//!   difference is the session's overhead per request end to end (issue 25's goal: < 0.1 ms).

use axum::body::Body;
use axum::http::Request;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use mobilectl::api::wire::sessions::CreateSession;
use mobilectl::controller::DeviceController;
use mobilectl::exec::Toolbox;
use mobilectl::server::security::SecurityPolicy;
use mobilectl::server::{app, AppState, ServerOptions};
use tower::ServiceExt;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _guard = rt.enter();
    let state = AppState::new(
        DeviceController::with_backends(Toolbox::default(), Vec::new()),
        ServerOptions::default(),
    );
    let sessions = state.controller.sessions();
    let mut last = None;
    for i in 0..1000 {
        let s = sessions
            .create(&CreateSession {
                name: Some(format!("agent-{i}")),
                ..Default::default()
            })
            .unwrap();
        last = Some(s.id.clone());
    }
    let id = last.unwrap();

    c.bench_function("session lookup: enter and leave by id (1,000 live)", |b| {
        b.iter(|| drop(black_box(sessions.enter(black_box(&id)).unwrap())))
    });
    c.bench_function(
        "session lookup: enter and leave by name (1,000 live)",
        |b| b.iter(|| drop(black_box(sessions.enter(black_box("agent-999")).unwrap()))),
    );

    let router = app(
        state.clone(),
        SecurityPolicy {
            bound: Some("127.0.0.1:9100".parse().unwrap()),
            ..Default::default()
        },
    );
    let request = |session: Option<&str>| {
        let mut r = Request::get("/api/v1/device/active").header("host", "127.0.0.1:9100");
        if let Some(s) = session {
            r = r.header("mobilectl-session", s);
        }
        r.body(Body::empty()).unwrap()
    };
    let mut g = c.benchmark_group("GET /api/v1/device/active through the router");
    g.bench_function("no session", |b| {
        b.iter(|| rt.block_on(router.clone().oneshot(request(None))).unwrap())
    });
    g.bench_function("in a session (Mobilectl-Session: id)", |b| {
        b.iter(|| {
            rt.block_on(router.clone().oneshot(request(Some(&id))))
                .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
