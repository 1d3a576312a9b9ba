//! Logs through the real adb from the virtual device (run with `cargo build --release &&
//! cargo bench --bench log_ingest`; under `cargo test` it only checks that it builds):
//! - ingest: the device floods N lines at full speed into the `logcat` mobilectl follows;
//!   lines per second until the last one is in the ring;
//! - memory: this process's RSS (server, ring, supervisor) before, with the ring full
//!   (100,000 entries by default), and after as many lines again (bounded: it stays put);
//! - latency: a line written on the device (`adb shell log`) until an SSE client of
//!   `GET /api/v1/logs/stream` receives it (its device time against the arrival time; the
//!   device's clock is this machine's), 50 lines, median and max.

#[cfg(unix)]
#[path = "support/vd_server.rs"]
mod vd_server;

// The bench drives the virtual Android device: Linux and macOS only.
#[cfg(unix)]
mod bench {
    use std::time::{Duration, Instant};

    use super::vd_server::{self, median};

    fn rss_mib() -> f64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0.0);
        kib / 1024.0
    }

    pub fn main() {
        let Some(h) = vd_server::device("log_ingest") else {
            return;
        };
        let flood: u64 = std::env::var("FLOOD_LINES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(400_000);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
        let (addr, state) = vd_server::serve(&h).await;
        let client = reqwest::Client::new();
        let base = format!("http://{addr}/api/v1");
        let r = client.get(format!("{base}/logs")).send().await.unwrap();
        assert!(r.status().is_success());
        let device = state.controller.resolve(None).await.unwrap();
        let logs = state.controller.device_logs(&device).await.unwrap();
        // The follower is on the device before the flood is asked for.
        let followers = || {
            h.journal_argvs()
                .iter()
                .filter(|a| a[0] == "logcat" && !a.iter().any(|x| x == "-d"))
                .count()
        };
        while followers() == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let limits = logs.ring.limits();
        let rss_before = rss_mib();

        for round in 1..=2 {
            let from = logs.stats().newest_seq;
            let started = Instant::now();
            tokio::task::block_in_place(|| h.control(&["flood", &flood.to_string()]).unwrap());
            while logs.stats().newest_seq < from + flood {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            let took = started.elapsed().as_secs_f64();
            let s = logs.stats();
            println!(
                "ingest round {round}: {flood} lines in {took:.2} s = {:.0} lines/s; ring {} entries, {:.1} MiB of text (limits {} entries / {} MiB), {} dropped; RSS {:.1} MiB (before the floods {:.1} MiB)",
                flood as f64 / took,
                s.entries,
                s.bytes as f64 / 1048576.0,
                limits.max_entries,
                limits.max_bytes / 1048576,
                s.dropped,
                rss_mib(),
                rss_before,
            );
        }

        // Latency: device line → SSE client.
        let resp = client
            .get(format!("{base}/logs/stream?tag=Latency"))
            .send()
            .await
            .unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(String, i64, i64)>();
        tokio::spawn(async move {
            let mut resp = resp;
            let mut pending = String::new();
            while let Ok(Some(chunk)) = resp.chunk().await {
                let now = chrono::Utc::now().timestamp_millis();
                pending.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = pending.find("\n\n") {
                    let block: String = pending.drain(..end + 2).collect();
                    let Some(data) = block.lines().find_map(|l| l.strip_prefix("data: ")) else {
                        continue;
                    };
                    let v: serde_json::Value = serde_json::from_str(data).unwrap();
                    let t = chrono::DateTime::parse_from_rfc3339(v["time"].as_str().unwrap())
                        .unwrap()
                        .timestamp_millis();
                    let _ = tx.send((v["message"].as_str().unwrap().to_string(), t, now));
                }
            }
        });
        let mut lat = Vec::new();
        for i in 0..50 {
            let msg = format!("mark {i}");
            tokio::task::block_in_place(|| h.adb(&["shell", "log", "-t", "Latency", &msg]));
            loop {
                let (m, t, got) = tokio::time::timeout(Duration::from_secs(10), rx.recv())
                    .await
                    .expect("the line reached the stream")
                    .unwrap();
                if m == msg {
                    lat.push((got - t) as f64);
                    break;
                }
            }
        }
        println!(
            "latency device line → SSE client, 50 lines: median {:.0} ms, max {:.0} ms",
            median(lat.clone()),
            lat.iter().cloned().fold(0.0, f64::max)
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
