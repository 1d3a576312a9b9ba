//! What flows cost (issue #42), as users run them: `mobilectl serve --demo --demo-devices 2`
//! (two virtual Android devices behind the real adb) driven over HTTP and through the CLI.
//! Run with `cargo build --release && cargo bench --bench flows` (`MOBILECTL_BIN` names another
//! build: `MOBILECTL_BIN=target/debug/mobilectl cargo bench --profile dev --bench flows`); under
//! `cargo test` it only checks that it builds. Prints:
//! - the runner's own overhead: 30 taps as one flow (`tapOn: {point}`) against the same 30
//!   taps posted one by one to `POST /api/v1/device/ui/tap`, median of 5;
//! - a script step: the first `evalScript` of a run (the worker process started, the engine
//!   made) and the ones after it (`${1 + 1}`), median of 5 runs;
//! - a suite of 100 flows (a tap and an `assertVisible`, each a screen read) with `flow test`
//!   on one device, and with `--shards 2` on both.

#[cfg(unix)]
mod bench {
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    use serde_json::{json, Value};

    const TAPS: usize = 30;
    const REPS: usize = 5;
    const SUITE: usize = 100;

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    }

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    struct Server(Child);

    impl Drop for Server {
        fn drop(&mut self) {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
            let _ = self.0.wait();
        }
    }

    pub fn main() {
        if !std::env::args().any(|a| a == "--bench") {
            println!("flows: skipped (run with cargo bench)");
            return;
        }
        let bin = std::env::var("MOBILECTL_BIN").unwrap_or_else(|_| {
            concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/mobilectl").into()
        });
        let cache = tempfile::tempdir().unwrap();
        let (port, adb_port) = (free_port(), free_port());
        let url = format!("http://127.0.0.1:{port}");
        let server = Server(
            Command::new(&bin)
                .args(["serve", "--demo", "--demo-devices", "2"])
                .args(["--addr", &format!("127.0.0.1:{port}")])
                .args(["--adb-server-port", &adb_port.to_string()])
                .env("MOBILECTL_CACHE_DIR", cache.path())
                .env_remove("MOBILECTL_TOKEN")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("the server starts"),
        );
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let http = reqwest::Client::builder()
                .timeout(Duration::from_secs(600))
                .build()
                .unwrap();
            let udids = devices(&http, &url).await;
            let u0 = udids[0].clone();
            let post =
                |path: &str, body: Value| http.post(format!("{url}{path}")).json(&body).send();
            // Runs a flow on `udid`: its answer, which must be a success.
            let run = |udid: &str, yaml: &str| {
                let req = post("/api/v1/flows/run", json!({"udid": udid, "yaml": yaml}));
                async move {
                    let r: Value = req.await.unwrap().json().await.unwrap();
                    assert_eq!(r["success"], true, "{r}");
                    r
                }
            };
            // Warm up: the app started, the device read.
            let start =
                "appId: com.mobilectl.demo\n---\n- launchApp\n- assertVisible: \"LOG IN\"\n";
            for u in &udids {
                run(u, start).await;
            }

            // 1. The runner's overhead.
            let flow = "- tapOn: {point: \"10, 10\"}\n".repeat(TAPS);
            let (mut direct, mut flowed) = (vec![], vec![]);
            for _ in 0..REPS {
                let t = Instant::now();
                for _ in 0..TAPS {
                    let r = post(
                        "/api/v1/device/ui/tap",
                        json!({"udid": u0, "x": 10, "y": 10}),
                    )
                    .await
                    .unwrap();
                    assert!(r.status().is_success(), "{}", r.status());
                }
                direct.push(t.elapsed().as_secs_f64() * 1000.0);
                let t = Instant::now();
                run(&u0, &flow).await;
                flowed.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            let (d, f) = (median(direct), median(flowed));
            println!(
                "runner overhead: {TAPS} taps posted one by one {d:.1} ms, as one flow {f:.1} ms: \
                 {:+.1} % ({:.2} vs {:.2} ms a step)",
                (f - d) / d * 100.0,
                d / TAPS as f64,
                f / TAPS as f64
            );

            // 2. A script step.
            let scripts = "- evalScript: ${1 + 1}\n".repeat(21);
            let (mut first, mut warm) = (vec![], vec![]);
            for _ in 0..REPS {
                let r = run(&u0, &scripts).await;
                let ms: Vec<f64> = r["steps"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s["duration_ms"].as_f64().unwrap())
                    .collect();
                first.push(ms[0]);
                warm.push(ms[1..].iter().sum::<f64>() / (ms.len() - 1) as f64);
            }
            println!(
                "script step: the run's first {:.0} ms (worker started, engine made), each after \
                 it {:.1} ms (median of {REPS} runs)",
                median(first),
                median(warm)
            );
        });

        // 3. A suite of 100 flows, on one device and on two.
        let dir = tempfile::tempdir().unwrap();
        for i in 0..SUITE {
            std::fs::write(
                dir.path().join(format!("flow_{i:03}.yaml")),
                "appId: com.mobilectl.demo\n---\n- tapOn: {point: \"10, 10\"}\n- assertVisible: \"LOG IN\"\n",
            )
            .unwrap();
        }
        let udids = rt.block_on(devices(&reqwest::Client::new(), &url));
        let suite = |args: &[&str]| {
            let t = Instant::now();
            let out = Command::new(&bin)
                .args(["--url", &url, "--no-autostart"])
                .args(args)
                .env("MOBILECTL_CACHE_DIR", cache.path())
                .output()
                .expect("the CLI runs");
            assert!(
                out.status.success(),
                "{args:?}: {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            t.elapsed().as_secs_f64()
        };
        let d = dir.path().to_str().unwrap();
        let one = suite(&["-d", &udids[0], "flow", "test", d]);
        let two = suite(&["flow", "test", d, "--shards", "2"]);
        println!(
            "suite of {SUITE} flows (2 steps each): one device {one:.1} s ({:.0} ms a flow), two \
             devices with --shards 2 {two:.1} s ({:.2}x)",
            one * 1000.0 / SUITE as f64,
            one / two
        );
        drop(server);
    }

    /// The udids of the server's devices, once it answers and lists two.
    async fn devices(http: &reqwest::Client, url: &str) -> Vec<String> {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(r) = http.get(format!("{url}/api/v1/device/list")).send().await {
                if let Ok(v) = r.json::<Value>().await {
                    let udids: Vec<String> = v["devices"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|d| d["platform"] == "android")
                        .filter_map(|d| d["udid"].as_str().map(str::to_string))
                        .collect();
                    if udids.len() >= 2 {
                        return udids;
                    }
                }
            }
            assert!(
                Instant::now() < until,
                "the server did not list two devices"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn main() {
    #[cfg(unix)]
    bench::main();
}
