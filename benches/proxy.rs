//! The recording proxy's costs (run with `cargo bench --bench proxy`; under `cargo test` it only
//! checks that it builds). Everything runs in this process on loopback: a local upstream
//! server (`test_support::upstream`), the proxy, and reqwest clients with kept-alive
//! connections.
//!
//! - added latency: median (and p90) over 400 requests of (through the proxy) − (direct),
//!   interleaved, for plain HTTP and for HTTPS with a warm certificate cache;
//! - load: 500 requests/s for 10 s from 32 concurrent clients (open loop: each client sends on
//!   its own schedule), through the proxy, HTTP then HTTPS; errors and latency percentiles;
//! - memory: the process's resident memory before and after filling the flow store to its
//!   limits (2000 flows, 64 MiB) with 48 KiB responses.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mobilectl::proxy::{ProxyOptions, ProxyService};
use test_support::upstream::{TestCa, Upstream};

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn client(
    proxy: Option<u16>,
    root: &rustls::pki_types::CertificateDer<'static>,
) -> reqwest::Client {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(root.clone()).unwrap();
    let tls = rustls::ClientConfig::builder_with_provider(mobilectl::proxy::ca::provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut b = reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .pool_max_idle_per_host(64)
        .timeout(Duration::from_secs(30));
    b = match proxy {
        Some(p) => b.proxy(reqwest::Proxy::all(format!("http://127.0.0.1:{p}")).unwrap()),
        None => b.no_proxy(),
    };
    b.build().unwrap()
}

async fn once(c: &reqwest::Client, url: &str) -> Result<f64, String> {
    let t = Instant::now();
    let r = c.get(url).send().await.map_err(|e| e.to_string())?;
    if !r.status().is_success() {
        return Err(format!("status {}", r.status()));
    }
    r.bytes().await.map_err(|e| e.to_string())?;
    Ok(t.elapsed().as_secs_f64() * 1000.0)
}

async fn added_latency(name: &str, direct: &reqwest::Client, proxied: &reqwest::Client, url: &str) {
    // Warm: connections open, the proxy's certificate for the host issued and cached.
    for _ in 0..50 {
        once(direct, url).await.unwrap();
        once(proxied, url).await.unwrap();
    }
    let (mut d, mut p) = (Vec::new(), Vec::new());
    for _ in 0..400 {
        d.push(once(direct, url).await.unwrap());
        p.push(once(proxied, url).await.unwrap());
    }
    let (dm, pm) = (percentile(&mut d, 0.5), percentile(&mut p, 0.5));
    let (d9, p9) = (percentile(&mut d, 0.9), percentile(&mut p, 0.9));
    println!(
        "{name}: direct median {dm:.3} ms (p90 {d9:.3}), proxied median {pm:.3} ms (p90 {p9:.3}); \
         added median {:.3} ms (goal <= 2 ms)",
        pm - dm
    );
}

async fn load(name: &str, c: &reqwest::Client, url: &str, rate: f64, clients: usize, secs: u64) {
    let per_client = Duration::from_secs_f64(clients as f64 / rate);
    let started = Instant::now();
    let end = started + Duration::from_secs(secs);
    let mut tasks = Vec::new();
    for i in 0..clients {
        let (c, url) = (c.clone(), url.to_string());
        tasks.push(tokio::spawn(async move {
            // Spread the clients over one period.
            let mut next = tokio::time::Instant::from_std(started)
                + per_client.mul_f64(i as f64 / clients as f64);
            let (mut times, mut errors) = (Vec::new(), Vec::new());
            while next.into_std() < end {
                tokio::time::sleep_until(next).await;
                match once(&c, &url).await {
                    Ok(ms) => times.push(ms),
                    Err(e) => errors.push(e),
                }
                next += per_client;
            }
            (times, errors)
        }));
    }
    let (mut times, mut errors) = (Vec::new(), Vec::new());
    for t in tasks {
        let (a, b) = t.await.unwrap();
        times.extend(a);
        errors.extend(b);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let n = times.len();
    println!(
        "{name}: {clients} clients, {n} ok, {} errors in {elapsed:.1} s = {:.0} requests/s; \
         latency median {:.2} ms, p99 {:.2} ms, max {:.2} ms{}",
        errors.len(),
        n as f64 / elapsed,
        percentile(&mut times, 0.5),
        percentile(&mut times, 0.99),
        percentile(&mut times, 1.0),
        errors
            .first()
            .map(|e| format!(" (first error: {e})"))
            .unwrap_or_default()
    );
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("proxy: skipped (run with cargo bench)");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let upstream_ca = TestCa::new();
        let http = Upstream::http().await;
        let https = Upstream::https(&upstream_ca).await;
        let state = tempfile::tempdir().unwrap();
        let mut o = ProxyOptions {
            state_dir: Some(state.path().to_path_buf()),
            upstream_roots: vec![upstream_ca.der.clone()],
            allow_local: vec![http.addr.port(), https.addr.port()],
            ..Default::default()
        };
        o.check().unwrap();
        let limits = o.limits;
        let proxy = Arc::new(ProxyService::new(o));
        proxy.start(Some(0), &[], None).await.unwrap();
        let port = proxy.running().await.unwrap().address.port();
        let proxy_ca = proxy.ca().unwrap().cert_der().clone();
        println!(
            "upstream http {} https {}; proxy 127.0.0.1:{port}",
            http.addr, https.addr
        );

        let direct_http = client(None, &upstream_ca.der);
        let proxied_http = client(Some(port), &proxy_ca);
        added_latency(
            "HTTP  /hello",
            &direct_http,
            &proxied_http,
            &http.url("/hello"),
        )
        .await;
        let direct_https = client(None, &upstream_ca.der);
        let proxied_https = client(Some(port), &proxy_ca);
        added_latency(
            "HTTPS /hello",
            &direct_https,
            &proxied_https,
            &https.url("/hello"),
        )
        .await;

        load(
            "load HTTP ",
            &proxied_http,
            &http.url("/hello"),
            500.0,
            32,
            10,
        )
        .await;
        load(
            "load HTTPS",
            &proxied_https,
            &https.url("/hello"),
            500.0,
            32,
            10,
        )
        .await;

        // Memory at a full store.
        proxy.store().clear();
        let before = rss_mib();
        let url = https.url("/big?bytes=49152");
        let mut filled = 0;
        let evicted_before = proxy.store().stats().evicted;
        while proxy.store().stats().evicted < evicted_before + 200 {
            let batch: Vec<_> = (0..32)
                .map(|_| {
                    let (c, url) = (proxied_https.clone(), url.clone());
                    tokio::spawn(async move { once(&c, &url).await })
                })
                .collect();
            for b in batch {
                b.await.unwrap().unwrap();
                filled += 1;
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let st = proxy.store().stats();
        let after = rss_mib();
        println!(
            "memory: store full after {filled} requests: {} flows, {:.1} MiB of bodies and \
             headers counted (limits {} flows, {} MiB), {} evicted; resident memory {before:.1} \
             MiB before, {after:.1} MiB after (+{:.1} MiB)",
            st.flows,
            st.bytes as f64 / (1024.0 * 1024.0),
            limits.max_flows,
            limits.max_bytes / (1024 * 1024),
            st.evicted - evicted_before,
            after - before
        );
        proxy.stop().await;
    });
}
