//! An open-file storm against the real server process (issue: 256 concurrent screenshots with
//! `nofile` 1024 used to leave the demo device unreachable for good): every answer is a
//! success or a retryable `503 BUSY`, never `NO_DEVICE` or a 500, and afterwards every route
//! works without a restart.

use crate::common;

use std::time::Duration;

use common::demo_server::DemoServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_screenshot_storm_under_1024_open_files_leaves_the_server_working() {
    let server = DemoServer::start(Some(1024));
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..256 {
        let http = http.clone();
        let url = format!("{}/api/v1/device/screenshot", server.url);
        set.spawn(async move {
            match http.get(&url).send().await {
                Ok(r) => {
                    let status = r.status().as_u16();
                    let body = r.bytes().await.unwrap_or_default();
                    (status, body)
                }
                Err(e) => (0, e.to_string().into_bytes().into()),
            }
        });
    }
    let mut ok = 0;
    while let Some(done) = set.join_next().await {
        let (status, body) = done.unwrap();
        match status {
            200 => ok += 1,
            503 => {
                let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
                assert_eq!(v["error"]["code"], "BUSY", "{v}");
                assert_eq!(v["error"]["retryable"], true);
            }
            other => panic!("{other}: {}", String::from_utf8_lossy(&body)),
        }
    }
    assert!(ok > 0, "no screenshot succeeded");
    // After the storm, the device and the server answer as before.
    let ui = http
        .get(format!("{}/api/v1/device/ui?format=text", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(ui.status(), 200);
    assert!(ui.text().await.unwrap().contains("LOG IN"));
}
