//! Android's two paths on the virtual device, through the real adb (run with
//! `MOBILECTL_UIA2_APKS=DIR cargo bench --bench android_helper`, DIR holding the two APKs of
//! npm `appium-uiautomator2-server`, which scripts/test.sh fetches into target/uia2/apks;
//! under `cargo test` it only builds):
//! - the one-shot path (`uiautomator dump`, `input`): per read and per tap, the adb round
//!   trips (shell/exec services), the device programs run, and the server's milliseconds;
//! - `helper install`: the APKs' size and the time to install them; the first read after it
//!   (the server's start);
//! - the resident path: the same figures, plus the requests the server answered.
//!
//! The virtual device answers every program at once, so the milliseconds here are the
//! host's and adb's share; what a real phone adds on each path is in docs/measurements.md.

#[cfg(unix)]
#[path = "support/vd_server.rs"]
mod vd_server;

#[cfg(unix)]
mod bench {
    use std::path::PathBuf;
    use std::time::Instant;

    use serde_json::{json, Value};
    use virtual_device::testing::VdHarness;

    use super::vd_server::{self, median};

    const RUNS: usize = 30;

    /// What one call cost: its milliseconds, the adb round trips, the device programs, the
    /// server's requests.
    struct Cost {
        ms: f64,
        round_trips: usize,
        programs: Vec<String>,
        server_requests: usize,
    }

    fn mark(h: &VdHarness) -> u64 {
        h.journal()
            .iter()
            .filter_map(|e| e["seq"].as_u64())
            .max()
            .unwrap_or(0)
    }

    fn since(h: &VdHarness, m: u64) -> Vec<Value> {
        h.journal()
            .into_iter()
            .filter(|e| e["seq"].as_u64().is_some_and(|s| s > m))
            .collect()
    }

    async fn costed(
        h: &VdHarness,
        client: &reqwest::Client,
        url: &str,
        body: Option<&Value>,
    ) -> Cost {
        let m = mark(h);
        let t = Instant::now();
        let r = match body {
            Some(b) => client.post(url).json(b).send().await.unwrap(),
            None => client.get(url).send().await.unwrap(),
        };
        assert!(
            r.status().is_success(),
            "{url}: {}",
            r.text().await.unwrap()
        );
        r.bytes().await.unwrap();
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let entries = since(h, m);
        let round_trips = entries
            .iter()
            .filter_map(|e| e["service"].as_str())
            .filter(|s| s.starts_with("shell") || s.starts_with("exec:"))
            .count();
        let programs = entries
            .iter()
            .filter_map(|e| e["argv"].as_array())
            .filter_map(|a| a.first().and_then(Value::as_str).map(str::to_string))
            .collect();
        let server_requests = entries.iter().filter(|e| e.get("uia2").is_some()).count();
        Cost {
            ms,
            round_trips,
            programs,
            server_requests,
        }
    }

    /// Runs `RUNS` reads and taps (interleaved), prints their medians and the last costs.
    async fn measure(label: &str, h: &VdHarness, client: &reqwest::Client, base: &str) {
        let ui = format!("{base}/api/v1/device/ui");
        let tap = format!("{base}/api/v1/device/ui/tap");
        // A blank spot of the login screen: the tap changes nothing.
        let at = json!({ "x": 540, "y": 2300 });
        let (mut reads, mut taps) = (Vec::new(), Vec::new());
        let (mut last_read, mut last_tap) = (None, None);
        for _ in 0..RUNS {
            let r = costed(h, client, &ui, None).await;
            reads.push(r.ms);
            last_read = Some(r);
            let t = costed(h, client, &tap, Some(&at)).await;
            taps.push(t.ms);
            last_tap = Some(t);
        }
        for (what, ms, c) in [("read", reads, last_read), ("tap", taps, last_tap)] {
            let c = c.unwrap();
            println!(
                "{label}: {what} median {:.2} ms over {RUNS}; {} adb round trip(s), device programs {:?}, {} server request(s)",
                median(ms),
                c.round_trips,
                c.programs,
                c.server_requests
            );
        }
    }

    pub fn main() {
        let Some(h) = vd_server::device("android_helper") else {
            return;
        };
        let apks = PathBuf::from(
            std::env::var("MOBILECTL_UIA2_APKS")
                .expect("MOBILECTL_UIA2_APKS: the folder of the UiAutomator2 server's two APKs"),
        );
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let (addr, _) = vd_server::serve_rooted(&h, Some(apks.clone())).await;
            let base = format!("http://{addr}");
            let client = reqwest::Client::new();
            // Warm: listed, first read (the device's focus known).
            costed(&h, &client, &format!("{base}/api/v1/device/ui"), None).await;
            measure("uiautomator dump + input", &h, &client, &base).await;

            let names = [
                "appium-uiautomator2-server-v10.6.6.apk",
                "appium-uiautomator2-server-debug-androidTest.apk",
            ];
            let bytes: u64 = names
                .iter()
                .map(|n| std::fs::metadata(apks.join(n)).unwrap().len())
                .sum();
            let t = Instant::now();
            let r = client
                .post(format!("{base}/api/v1/device/helper/install"))
                .json(&json!({ "apks": names }))
                .send()
                .await
                .unwrap();
            assert!(r.status().is_success(), "{}", r.text().await.unwrap());
            println!(
                "helper install: {:.1} MB in {:.0} ms",
                bytes as f64 / 1e6,
                t.elapsed().as_secs_f64() * 1000.0
            );
            let first = costed(&h, &client, &format!("{base}/api/v1/device/ui"), None).await;
            println!(
                "first read after install (the server started): {:.0} ms, {} adb round trip(s), {} server request(s)",
                first.ms, first.round_trips, first.server_requests
            );
            measure("UiAutomator2 server", &h, &client, &base).await;
        });
    }
}

fn main() {
    #[cfg(unix)]
    bench::main();
    #[cfg(not(unix))]
    eprintln!("this bench drives the virtual Android device, which runs on Linux and macOS only");
}
