//! App performance benches through the real adb and the virtual device (run with `cargo bench
//! --bench perf`; under `cargo test` it only checks that it builds):
//! - the cost of one sample (one adb round trip running the whole sample script) alone, and
//!   of one reading (`GET /device/perf`: two samples around a 100 ms CPU window);
//! - what a window sampling every 500 ms adds to a tap's latency: taps timed in blocks with
//!   and without a window running, interleaved.

#[cfg(unix)]
#[path = "support/vd_server.rs"]
mod vd_server;

// The bench drives the virtual Android device: Linux and macOS only.
#[cfg(unix)]
mod bench {
    use std::time::{Duration, Instant};

    use mobilectl::backend::android::perf::sample::sample_script;
    use mobilectl::perf::SampleAsk;
    use serde_json::{json, Value};

    use super::vd_server::{self, median};

    const DEMO: &str = "com.mobilectl.demo";

    pub fn main() {
        let Some(h) = vd_server::device("perf") else {
            return;
        };
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let (addr, _) = vd_server::serve(&h).await;
            let client = reqwest::Client::new();
            let url = |p: &str| format!("http://{addr}/api/v1{p}");

            // One sample, alone.
            let script = sample_script(DEMO, SampleAsk::FULL).unwrap();
            let mut sample = Vec::new();
            for _ in 0..30 {
                let t = Instant::now();
                let out = mobilectl::exec::Command::new(&h.adb)
                    .args(["-P", &h.adb_port.to_string(), "-s", &h.serial, "shell", &script])
                    .timeout(Duration::from_secs(30))
                    .run()
                    .await
                    .unwrap();
                assert!(out.success());
                sample.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            println!(
                "one sample (1 adb round trip: pid, uptime, stat, tasks, meminfo, gfxinfo): median {:.2} ms (30 runs)",
                median(sample)
            );

            // One reading over HTTP: two samples around a 100 ms window.
            let mut reading = Vec::new();
            let mut took = Vec::new();
            for _ in 0..30 {
                let t = Instant::now();
                let v: Value = client
                    .get(url(&format!("/device/perf?app={DEMO}&window_ms=100")))
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                reading.push(t.elapsed().as_secs_f64() * 1000.0 - 100.0);
                took.push(v["cost"]["took_ms"].as_f64().unwrap() - 100.0);
                assert_eq!(v["cost"]["samples"], 2, "{v}");
            }
            println!(
                "one reading (GET /device/perf, 2 samples = 2 adb round trips): median {:.2} ms beyond its 100 ms window over HTTP, {:.2} ms as it reports (30 runs)",
                median(reading),
                median(took)
            );

            // A tap's latency with and without a window sampling every 500 ms.
            let tap = || async {
                let t = Instant::now();
                let r = client
                    .post(url("/device/ui/tap"))
                    .json(&json!({"x": 540, "y": 120}))
                    .send()
                    .await
                    .unwrap();
                assert!(r.status().is_success(), "{}", r.text().await.unwrap());
                t.elapsed().as_secs_f64() * 1000.0
            };
            tap().await; // warm up: the screen's size is read once
            let (mut alone, mut sampled) = (Vec::new(), Vec::new());
            for _ in 0..4 {
                for _ in 0..25 {
                    alone.push(tap().await);
                }
                let r = client
                    .post(url("/device/perf/start"))
                    .json(&json!({"app": DEMO, "interval_ms": 500}))
                    .send()
                    .await
                    .unwrap();
                assert!(r.status().is_success(), "{}", r.text().await.unwrap());
                for _ in 0..25 {
                    sampled.push(tap().await);
                }
                let stopped: Value = client
                    .post(url("/device/perf/stop"))
                    .json(&json!({}))
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                assert_eq!(stopped["state"], "finished", "{stopped}");
            }
            let (a, s) = (median(alone), median(sampled));
            println!(
                "tap latency: median {a:.2} ms alone, {s:.2} ms while a window samples every 500 ms: {:+.1} % (100 taps each, in interleaved blocks)",
                (s - a) / a * 100.0
            );
        });
    }
}

fn main() {
    #[cfg(unix)]
    bench::main();
    #[cfg(not(unix))]
    eprintln!("this bench drives the virtual Android device, which runs on Linux and macOS only");
}
