//! What an agent's steps cost, through the real adb and the virtual device (run with `cargo
//! build --release && cargo bench --bench agent_steps`; under `cargo test` it only checks that
//! it builds): for snapshot, tap, tap with observe, type (clear and read-back) and wait, the adb
//! round trips (device services on the journal) and the latency over HTTP, right after another
//! call and after 5 s of idle time. Prints a Markdown table (docs/measurements.md's "Round
//! trips per operation"). A last row, the control, times the bare `adb shell true` the same way,
//! without mobilectl: how much of an idle penalty the machine, the adb server and the device
//! give anything.

#[cfg(unix)]
#[path = "support/vd_server.rs"]
mod vd_server;

// The bench drives the virtual Android device: Linux and macOS only.
#[cfg(unix)]
mod bench {
    use std::time::{Duration, Instant};

    use super::vd_server::{self, median};
    use serde_json::{json, Value};
    use virtual_device::testing::VdHarness;

    const RIGHT_AFTER_RUNS: usize = 20;
    const IDLE_RUNS: usize = 10;
    const IDLE: Duration = Duration::from_secs(5);

    fn services(h: &VdHarness) -> usize {
        h.journal()
            .iter()
            .filter(|e| e.get("service").is_some())
            .count()
    }

    struct Step {
        name: &'static str,
        /// The route; `None`: the control, `adb shell true` run directly.
        path: Option<&'static str>,
        body: Option<Value>,
    }

    pub fn main() {
        let Some(h) = vd_server::device("agent_steps") else {
            return;
        };
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
        let (addr, _) = vd_server::serve(&h).await;
        let client = reqwest::Client::new();
        let base = format!("http://{addr}");
        let send = |step: &Step| {
            let req = step.path.map(|path| match &step.body {
                Some(b) => client.post(format!("{base}{path}")).json(b),
                None => client.get(format!("{base}{path}")),
            });
            let h = &h;
            async move {
                let Some(req) = req else {
                    assert_eq!(h.adb(&["shell", "true"]).code, Some(0));
                    return Value::Null;
                };
                let r = req.send().await.unwrap();
                assert!(r.status().is_success(), "{}", r.status());
                r.json::<Value>().await.unwrap()
            }
        };
        // Warm up: the device listed and followed, a snapshot with its refs.
        let snapshot = Step {
            name: "snapshot",
            path: Some("/api/v1/device/ui"),
            body: None,
        };
        for _ in 0..3 {
            send(&snapshot).await;
        }
        let snap = send(&snapshot).await;
        let ref_of = |id: &str| {
            snap["elements"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["id"].as_str().is_some_and(|i| i.ends_with(id)))
                .unwrap()["ref"]
                .clone()
        };
        let (remember, user) = (ref_of("remember"), ref_of("username"));
        let steps = [
            snapshot,
            Step {
                name: "tap",
                path: Some("/api/v1/device/ui/tap"),
                body: Some(json!({ "ref": remember })),
            },
            Step {
                name: "tap + observe",
                path: Some("/api/v1/device/ui/tap"),
                body: Some(json!({ "ref": remember, "observe": true })),
            },
            Step {
                name: "type (clear, read-back)",
                path: Some("/api/v1/device/ui/type"),
                body: Some(json!({ "ref": user, "text": "alice", "clear": true })),
            },
            Step {
                name: "wait (met at once)",
                path: Some("/api/v1/device/ui/wait"),
                body: Some(json!({ "selector": {"text": "LOG IN"}, "condition": "visible" })),
            },
            Step {
                name: "control: `adb shell true`, no mobilectl",
                path: None,
                body: None,
            },
        ];
        println!("| operation | round trips right after a call | after {} s idle | median ms right after | median ms after idle | ratio |", IDLE.as_secs());
        println!("| --- | --- | --- | --- | --- | --- |");
        for step in &steps {
            let mut rows = Vec::new();
            for (idle, runs) in [(Duration::from_millis(20), RIGHT_AFTER_RUNS), (IDLE, IDLE_RUNS)] {
                let (mut trips, mut ms) = (Vec::new(), Vec::new());
                for _ in 0..runs {
                    // Each measured call follows a snapshot, as an agent's action its read.
                    send(&steps[0]).await;
                    tokio::time::sleep(idle).await;
                    let before = services(&h);
                    let started = Instant::now();
                    send(step).await;
                    ms.push(started.elapsed().as_secs_f64() * 1000.0);
                    trips.push((services(&h) - before) as f64);
                }
                rows.push((median(trips), median(ms)));
            }
            let ((trips, ms), (idle_trips, idle_ms)) = (rows[0], rows[1]);
            println!(
                "| {} | {trips} | {idle_trips} | {ms:.1} | {idle_ms:.1} | {:.2} |",
                step.name,
                idle_ms / ms
            );
        }
    });
    }
}

fn main() {
    #[cfg(unix)]
    bench::main();
    #[cfg(not(unix))]
    eprintln!("this bench drives the virtual Android device, which runs on Linux and macOS only");
}
