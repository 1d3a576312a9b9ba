//! Android benches through the real adb and the virtual device (run with `cargo bench --bench
//! android_overhead`; under `cargo test` it only checks that it builds):
//! - 32 concurrent `GET /ui` on one device: how many dumps the device ran, all answered?
//! - server overhead: median over 50 runs of (`GET /ui` over HTTP) − (the same adb command
//!   run alone), measured interleaved.

#[cfg(unix)]
#[path = "support/vd_server.rs"]
mod vd_server;

// The bench drives the virtual Android device: Linux and macOS only.
#[cfg(unix)]
mod bench {
    use std::time::{Duration, Instant};

    use mobilectl::backend::android::screen::dump_script;
    use virtual_device::testing::VdHarness;

    use super::vd_server::{self, median};

    pub fn main() {
        let Some(h) = vd_server::device("android_overhead") else {
            return;
        };
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
        let (addr, _) = vd_server::serve(&h).await;
        let client = reqwest::Client::new();
        let url = format!("http://{addr}/api/v1/device/ui");
        let get = |client: reqwest::Client, url: String| async move {
            let r = client.get(&url).send().await.unwrap();
            assert!(r.status().is_success());
            r.bytes().await.unwrap()
        };
        get(client.clone(), url.clone()).await; // warm up: device cache, adb connection

        // 32 concurrent requests on one device.
        let dumps = |h: &VdHarness| {
            h.journal_argvs()
                .iter()
                .filter(|a| a[0] == "uiautomator")
                .count()
        };
        let before = dumps(&h);
        let started = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..32 {
            set.spawn(get(client.clone(), url.clone()));
        }
        let mut answered = 0;
        while let Some(r) = set.join_next().await {
            r.unwrap();
            answered += 1;
        }
        println!(
            "32 concurrent GET /ui: {answered} answered, {} dump(s) on the device, {:.1} ms",
            dumps(&h) - before,
            started.elapsed().as_secs_f64() * 1000.0
        );

        // Overhead: GET /ui vs the same adb command alone, interleaved.
        let script = dump_script(None);
        let mut api = Vec::new();
        let mut raw = Vec::new();
        for _ in 0..50 {
            let t = Instant::now();
            get(client.clone(), url.clone()).await;
            api.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let out = mobilectl::exec::Command::new(&h.adb)
                .args(["-P", &h.adb_port.to_string(), "-s", &h.serial, "exec-out", &script])
                .timeout(Duration::from_secs(30))
                .run()
                .await
                .unwrap();
            assert!(out.success());
            raw.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let (a, r) = (median(api.clone()), median(raw.clone()));
        let diffs: Vec<f64> = api.iter().zip(&raw).map(|(a, r)| a - r).collect();
        println!(
            "GET /ui median {a:.2} ms; adb command alone median {r:.2} ms; overhead median {:.2} ms (50 runs)",
            median(diffs)
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
