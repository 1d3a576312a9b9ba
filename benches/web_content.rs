//! What a WebView's page costs a snapshot, on the virtual device through the real adb with a
//! real headless Chromium behind its WebView (run with `cargo bench --profile dev --bench
//! web_content`; under `cargo test` it only builds):
//! - a read of the native login screen (the baseline), of the web screen whose WebView cannot
//!   be debugged (the socket list and a note), of the web screen's page attached (the first
//!   read: socket list, forward, page list, WebSocket; then cached reads: no device round
//!   trip, three DevTools calls), and of a page of 20,000 elements (read near its viewport);
//! - tokens (cl100k) of the web login screen's compact text as mobilectl reads it, against the
//!   same page read natively by uiautomator (the device's WebView exposing the page to
//!   accessibility, `web a11y on`, rendered by the same compact text).
//!
//! The virtual device answers every program at once: the milliseconds are the host's, adb's,
//! and Chromium's share; what a phone adds is in docs/measurements.md.

#[cfg(unix)]
#[path = "support/vd_server.rs"]
mod vd_server;

#[cfg(unix)]
mod bench {
    use std::time::Instant;

    use serde_json::Value;
    use virtual_device::testing::VdHarness;

    use super::vd_server::{self, median};

    const RUNS: usize = 30;
    const FIRST_RUNS: usize = 8;

    async fn read(client: &reqwest::Client, base: &str, format: &str) -> (f64, String) {
        let t = Instant::now();
        let r = client
            .get(format!("{base}/api/v1/device/ui?format={format}"))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
        let body = r.text().await.unwrap();
        (t.elapsed().as_secs_f64() * 1000.0, body)
    }

    async fn reads(label: &str, client: &reqwest::Client, base: &str) -> Vec<f64> {
        let mut ms = Vec::new();
        for _ in 0..RUNS {
            ms.push(read(client, base, "json").await.0);
        }
        println!(
            "{label}: median {:.1} ms over {RUNS} reads",
            median(ms.clone())
        );
        ms
    }

    fn tokens(text: &str) -> usize {
        tiktoken_rs::cl100k_base_singleton()
            .encode_with_special_tokens(text)
            .len()
    }

    /// The device's own `uiautomator dump` of its screen, read through adb.
    fn native_dump(h: &VdHarness) -> String {
        let out = h.adb(&["exec-out", "uiautomator", "dump", "/dev/tty"]);
        let text = out.stdout_text();
        let end = text.rfind("</hierarchy>").expect("a dump") + "</hierarchy>".len();
        text[text.find("<?xml").unwrap_or(0)..end].to_string()
    }

    pub fn main() {
        let Some(h) = vd_server::device("web_content") else {
            return;
        };
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let client = reqwest::Client::new();
            let (addr, _) = vd_server::serve(&h).await;
            let base = format!("http://{addr}");
            read(&client, &base, "json").await;
            reads("native login screen", &client, &base).await;

            h.control(&["web", "debug", "off"]).unwrap();
            h.control(&["screen", "web"]).unwrap();
            reads(
                "web screen, WebView not debuggable (socket list + note)",
                &client,
                &base,
            )
            .await;

            h.control(&["web", "debug", "on"]).unwrap();
            h.control(&["screen", "web"]).unwrap();
            // The first read of the page: a new server each time (nothing attached yet).
            let mut first = Vec::new();
            for _ in 0..FIRST_RUNS {
                let (addr, _) = vd_server::serve(&h).await;
                let fresh = format!("http://{addr}");
                first.push(read(&client, &fresh, "json").await.0);
            }
            println!(
                "web screen, first read (attach): median {:.1} ms over {FIRST_RUNS} servers",
                median(first)
            );
            read(&client, &base, "json").await;
            reads("web screen, page attached (cached)", &client, &base).await;

            let (_, text) = read(&client, &base, "text").await;
            // The lines without the snapshot's header (the offline rendering below has none).
            let body: String = text
                .lines()
                .filter(|l| !l.starts_with("# "))
                .map(|l| format!("{l}\n"))
                .collect();
            println!(
                "tokens, web login as mobilectl reads it: {} with the header, {} without ({} lines)\n{text}",
                tokens(&text),
                tokens(&body),
                body.lines().count()
            );
            if h.control(&["web", "a11y", "on"]).is_ok() {
                let xml = native_dump(&h);
                let native = mobilectl::ui::render_dump(&xml, mobilectl::ui::Format::Text, false)
                    .expect("the native dump parses");
                println!(
                    "tokens, the same page read natively by uiautomator: compact text {} ({} lines), raw XML {}\n{native}",
                    tokens(&native),
                    native.lines().count(),
                    tokens(&xml)
                );
                h.control(&["web", "a11y", "off"]).unwrap();
            } else {
                println!("(this device cannot expose the page to uiautomator: no native figure)");
            }

            h.control(&["web", "big", "20000"]).unwrap();
            let mut big = Vec::new();
            let mut last = Value::Null;
            for _ in 0..5 {
                let (ms, body) = read(&client, &base, "json").await;
                big.push(ms);
                last = serde_json::from_str(&body).unwrap();
            }
            println!(
                "page of 20,000 elements: median {:.0} ms over 5 reads; {} elements listed; note: {}",
                median(big),
                last["elements"].as_array().map_or(0, Vec::len),
                last["notes"][0]
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
