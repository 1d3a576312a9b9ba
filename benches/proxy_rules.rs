//! What the proxy's rules cost (run with `cargo bench --bench proxy_rules`; under `cargo test`
//! it only checks that it builds). Everything runs in this process on loopback: a local
//! upstream server, the proxy, and a reqwest client with a kept-alive connection.
//!
//! - latency per request through the proxy with 0, 10, 100 and 1,000 rules that never match
//!   (each request is checked against every rule: the worst case), median and p99 over 1,000
//!   requests, and what the rules add to the median of no rules;
//! - throughput of a 20 MB body through the proxy without rules and with a throttle rule that
//!   never matches (median of 7 downloads each, interleaved).

use std::sync::Arc;
use std::time::{Duration, Instant};

use mobilectl::proxy::rules::spec::RuleSpec;
use mobilectl::proxy::{ProxyOptions, ProxyService};
use test_support::upstream::Upstream;

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn rule(v: serde_json::Value) -> RuleSpec {
    serde_json::from_value(v).unwrap()
}

/// Rules that never match `/hello` nor `/big`, of the kinds a user writes.
fn never_matching(n: usize) -> Vec<RuleSpec> {
    (0..n)
        .map(|i| match i % 4 {
            0 => rule(serde_json::json!({"path": format!("/api/v{i}/login"), "status": 500})),
            1 => rule(serde_json::json!({"host": format!("*.host{i}.example.com"), "body": "x"})),
            2 => rule(
                serde_json::json!({"path_regex": format!("^/items/{i}/[0-9]+$"),
                                         "action": "delay", "delay_ms": 100}),
            ),
            _ => rule(
                serde_json::json!({"method": "GET", "path_glob": format!("/static/{i}/**.png"),
                                         "query": {"v": "1"}, "action": "fail", "fail": "503"}),
            ),
        })
        .collect()
}

async fn once(c: &reqwest::Client, url: &str) -> f64 {
    let t = Instant::now();
    let r = c.get(url).send().await.unwrap();
    assert!(r.status().is_success());
    r.bytes().await.unwrap();
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("proxy_rules: skipped (run with cargo bench)");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let http = Upstream::http().await;
        let mut o = ProxyOptions {
            allow_local: vec![http.addr.port()],
            ..Default::default()
        };
        o.check().unwrap();
        let proxy = Arc::new(ProxyService::new(o));
        proxy.start(Some(0), &[], None).await.unwrap();
        let port = proxy.running().await.unwrap().address.port();
        let client = reqwest::Client::builder()
            .proxy(reqwest::Proxy::all(format!("http://127.0.0.1:{port}")).unwrap())
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        let hello = http.url("/hello");
        for _ in 0..100 {
            once(&client, &hello).await;
        }
        let mut base = 0.0;
        for n in [0usize, 10, 100, 1000] {
            proxy.rules().clear();
            proxy.rules().add(never_matching(n), None).unwrap();
            for _ in 0..50 {
                once(&client, &hello).await;
            }
            let mut t: Vec<f64> = Vec::new();
            for _ in 0..1000 {
                t.push(once(&client, &hello).await);
            }
            let (median, p99) = (percentile(&mut t, 0.5), percentile(&mut t, 0.99));
            if n == 0 {
                base = median;
            }
            println!(
                "{n:>5} rules: median {median:.3} ms, p99 {p99:.3} ms; added to the median of no rules {:+.3} ms",
                median - base
            );
        }

        const SIZE: usize = 20_000_000;
        let big = http.url(&format!("/big?bytes={SIZE}"));
        let throttle = rule(serde_json::json!({"path": "/never", "action": "throttle",
                                               "down_bytes_per_sec": 1000}));
        let (mut free, mut with_rule) = (Vec::new(), Vec::new());
        once(&client, &big).await;
        for _ in 0..7 {
            proxy.rules().clear();
            free.push(SIZE as f64 / once(&client, &big).await / 1000.0);
            proxy.rules().add(vec![throttle.clone()], None).unwrap();
            with_rule.push(SIZE as f64 / once(&client, &big).await / 1000.0);
        }
        let (f, w) = (percentile(&mut free, 0.5), percentile(&mut with_rule, 0.5));
        println!(
            "throughput of {} MB: no rules {f:.1} MB/s, a throttle rule that never matches {w:.1} MB/s ({:+.1} %)",
            SIZE / 1_000_000,
            (w - f) / f * 100.0
        );
        let stats = proxy.store().stats();
        println!(
            "(the proxy recorded {} flows, {} evicted: every request went through it)",
            stats.flows, stats.evicted
        );
        proxy.stop().await;
    });
}
