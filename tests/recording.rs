//! Screen recordings through the real adb and the virtual device (whose `screenrecord`
//! encodes what it shows with Debian's ffmpeg), read back with Debian's `ffprobe`/`ffmpeg`;
//! an iOS Simulator through a fake `xcrun` that behaves as `simctl io recordVideo` does; and
//! the bad inputs, each refused before any device command.

use std::path::Path;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{json, Value};

use crate::common::android::{app_for, argvs_with, log_in, start_device};
use crate::common::demo_server::DemoServer;
use crate::common::{
    app_with_config, call, error_code, fake_xcrun_with, get, get_raw, loopback_policy, post,
    send_json, toolbox, FakeTools,
};
use mobilectl::backend::BackendConfig;
use mobilectl::exec::{Tool, Toolbox};
use test_support::media::{decodes_cleanly, ffprobe_duration};

/// One frame of the video as an image: the first, or the last.
fn frame(path: &Path, last: bool) -> image::RgbaImage {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("f.png");
    // The last: every frame written over the same file, the last one stays.
    let pick: &[&str] = if last {
        &["-update", "1"]
    } else {
        &["-frames:v", "1"]
    };
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(path)
        .args(pick)
        .arg("-y")
        .arg(&png)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    image::open(&png).unwrap().to_rgba8()
}

/// Mean absolute difference per channel (0–255) of two images, both brought to 108x240.
fn difference(a: &image::RgbaImage, b: &image::RgbaImage) -> f64 {
    let small = |i: &image::RgbaImage| {
        image::imageops::resize(i, 108, 240, image::imageops::FilterType::Triangle)
    };
    let (a, b) = (small(a), small(b));
    let total: u64 = a
        .pixels()
        .zip(b.pixels())
        .map(|(p, q)| (0..3).map(|c| p[c].abs_diff(q[c]) as u64).sum::<u64>())
        .sum();
    total as f64 / (108.0 * 240.0 * 3.0)
}

async fn start(app: &axum::Router, body: Value) -> Value {
    let (status, v) = call(app, post("/api/v1/device/recording/start", body)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["state"], "recording", "{v}");
    v
}

async fn stop(app: &axum::Router) -> Value {
    let (status, v) = call(app, post("/api/v1/device/recording/stop", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_of_the_login_plays_for_as_long_as_it_ran_and_ends_on_the_last_screen() {
    let h = start_device();
    let app = app_for(&h);
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    assert!(snap["tree_text"].as_str().unwrap().contains("LOG IN"));

    let asked = Instant::now();
    let started = start(&app, json!({})).await;
    let began = Instant::now();
    log_in(&app).await;
    let (status, _, shot) = get_raw(&app, "/api/v1/device/screenshot").await;
    assert_eq!(status, StatusCode::OK);
    let last_screen = image::load_from_memory(&shot).unwrap().to_rgba8();
    let wall = began.elapsed().as_secs_f64();
    let stopped = stop(&app).await;
    let wall_max = asked.elapsed().as_secs_f64();

    assert_eq!(stopped["id"], started["id"]);
    assert_eq!(stopped["state"], "finished", "{stopped}");
    assert_eq!(stopped["stopped_by"], "request");
    assert_eq!(
        (stopped["width"].as_u64(), stopped["height"].as_u64()),
        (Some(1080), Some(2400))
    );
    let path = Path::new(stopped["path"].as_str().unwrap());
    assert_eq!(
        std::fs::metadata(path).unwrap().len(),
        stopped["bytes"].as_u64().unwrap()
    );
    let duration = ffprobe_duration(path);
    // A video lasts a whole number of frames, so it may run into the frame in which the stop
    // came (0.40 s of 10 fps for a stop answered at 0.39 s).
    let one_frame = 1.0 / f64::from(virtual_device::SCREENRECORD_FPS);
    assert!(
        (duration - wall).abs() <= 0.1 * wall || (wall..=wall_max + one_frame).contains(&duration),
        "the video lasts {duration:.2} s; it recorded for {wall:.2}–{wall_max:.2} s"
    );
    assert!(
        (stopped["duration_s"].as_f64().unwrap() - duration).abs() < 0.2,
        "{stopped}"
    );
    decodes_cleanly(path);

    // At the end: the screen after the login, as the screenshot taken then shows it; the
    // first frame is the login screen, far from it.
    let end = difference(&frame(path, true), &last_screen);
    let first = difference(&frame(path, false), &last_screen);
    assert!(
        end < 6.0,
        "the last frame differs from the screenshot by {end:.1}"
    );
    assert!(
        first > end + 3.0,
        "first frame {first:.1} vs last {end:.1}: the login is not in the video"
    );

    // Listed, served as video/mp4, deleted.
    let (_, list) = call(&app, get("/api/v1/recordings")).await;
    assert_eq!(list["recordings"][0]["id"], stopped["id"], "{list}");
    let id = stopped["id"].as_str().unwrap();
    // Made outside any session, it is not a session's: a session neither lists, reads nor
    // deletes it, and it is still there after.
    let (status, other) = call(&app, post("/api/v1/sessions", json!({"lazy": true}))).await;
    assert_eq!(status, StatusCode::OK, "{other}");
    let in_other = |mut req: axum::http::Request<axum::body::Body>| {
        let secret = other["secret"].as_str().unwrap();
        req.headers_mut()
            .insert("mobilectl-session", secret.parse().unwrap());
        req
    };
    let (_, theirs) = call(&app, in_other(get("/api/v1/recordings"))).await;
    assert_eq!(theirs["recordings"], json!([]), "{theirs}");
    for req in [
        get(&format!("/api/v1/recordings/{id}")),
        send_json("DELETE", &format!("/api/v1/recordings/{id}"), ""),
    ] {
        let (status, v) = call(&app, in_other(req)).await;
        assert_eq!(
            (status, error_code(&v).as_str()),
            (StatusCode::NOT_FOUND, "NOT_FOUND"),
            "{v}"
        );
    }
    assert!(path.exists());
    let (status, headers, bytes) = get_raw(&app, &format!("/api/v1/recordings/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "video/mp4");
    assert_eq!(bytes, std::fs::read(path).unwrap());
    let (status, v) = call(
        &app,
        send_json("DELETE", &format!("/api/v1/recordings/{id}"), ""),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert!(!path.exists());
    let (status, v) = call(&app, get(&format!("/api/v1/recordings/{id}"))).await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::NOT_FOUND, "NOT_FOUND")
    );
    // The device keeps no segment behind.
    assert!(std::fs::read_dir(h.root.join("data/local/tmp"))
        .unwrap()
        .all(|e| {
            !e.unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("mobilectl-rec-")
        }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_longer_than_the_devices_limit_comes_back_as_one_file() {
    let h = start_device();
    // This device stops a file at 2 s, as most stop one at 180 s; the server chains files.
    h.control(&["screenrecord-limit", "2"]).unwrap();
    let app = app_with_config(
        BackendConfig {
            tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
            adb_server_port: Some(h.adb_port),
            android_record_segment: Some(Duration::from_secs(2)),
            ..Default::default()
        },
        loopback_policy(),
    );
    let started = start(&app, json!({"max_s": 5, "scale": 0.5})).await;
    // It stops by itself at max_s: look at the list until it says so.
    let id = started["id"].as_str().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut ended = false;
    while !ended && Instant::now() < deadline {
        let (_, list) = call(&app, get("/api/v1/recordings")).await;
        ended = list["recordings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == id && r["state"] != "recording");
        if !ended {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    assert!(ended, "the recording did not stop at max_s");
    let stopped = stop(&app).await;
    assert_eq!(stopped["id"], started["id"]);
    assert_eq!(stopped["stopped_by"], "max_s", "{stopped}");
    assert_eq!(
        (stopped["width"].as_u64(), stopped["height"].as_u64()),
        (Some(540), Some(1200))
    );
    // The next stop has nothing to answer.
    let (status, v) = call(&app, post("/api/v1/device/recording/stop", json!({}))).await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::CONFLICT, "NOT_RECORDING")
    );

    let segments = argvs_with(&h, "screenrecord");
    // More than one file: the device's limit was passed (how many depends on how long the
    // device takes to start and finalise each one; the joined duration below is what counts).
    assert!(segments.len() >= 2, "5 s in files of 2 s: {segments:?}");
    assert!(segments
        .iter()
        .all(|a| a.contains(&"--time-limit".to_string()) && a.contains(&"540x1200".to_string())));
    let path = Path::new(stopped["path"].as_str().unwrap());
    let duration = ffprobe_duration(path);
    assert!(
        (4.5..=5.5).contains(&duration),
        "one file of {duration:.2} s"
    );
    decodes_cleanly(path);
}

#[test]
fn a_server_shut_down_while_recording_leaves_a_playable_file() {
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().to_str().unwrap().to_string();
    let mut server = DemoServer::start_with_env(None, 1, &[("MOBILECTL_CACHE_DIR", &cache_dir)]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let started: Value = runtime.block_on(async {
        let client = reqwest::Client::new();
        let started: Value = client
            .post(format!("{}/api/v1/device/recording/start", server.url))
            .json(&json!({}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        // Some screen time, then the server is told to stop.
        let tapped = client
            .post(format!("{}/api/v1/device/ui/tap", server.url))
            .json(&json!({"selector": {"text": "LOG IN"}}))
            .send()
            .await
            .unwrap();
        assert!(tapped.status().is_success());
        started
    });
    assert_eq!(started["state"], "recording", "{started}");
    let status = server.shut_down().expect("the server exits");
    assert!(status.success(), "{status:?}");
    let path = Path::new(started["path"].as_str().unwrap());
    let duration = ffprobe_duration(path);
    assert!(duration > 0.0);
    decodes_cleanly(path);
}

#[tokio::test]
async fn bad_recording_requests_are_refused_before_any_device_command() {
    let h = start_device();
    let app = app_for(&h);
    for (body, says) in [
        (json!({"max_s": 0}), "max_s"),
        (json!({"max_s": 5000}), "max_s"),
        (json!({"size": "12"}), "WIDTHxHEIGHT"),
        (json!({"size": "541x1200"}), "even"),
        (json!({"scale": 3}), "scale"),
        (json!({"bit_rate": 1}), "bit_rate"),
        (json!({"size": "540x1200", "scale": 0.5}), "not both"),
    ] {
        let (status, v) = call(&app, post("/api/v1/device/recording/start", body.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {v}");
        assert!(
            v["error"]["message"].as_str().unwrap().contains(says),
            "{body}: {v}"
        );
    }
    let (status, v) = call(&app, post("/api/v1/device/recording/stop", json!({}))).await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::CONFLICT, "NOT_RECORDING")
    );
    assert!(argvs_with(&h, "screenrecord").is_empty());

    start(&app, json!({})).await;
    let (status, v) = call(&app, post("/api/v1/device/recording/start", json!({}))).await;
    assert_eq!(
        (status, error_code(&v).as_str()),
        (StatusCode::CONFLICT, "RECORDING_ACTIVE"),
        "{v}"
    );
    let (_, list) = call(&app, get("/api/v1/recordings")).await;
    let running = list["recordings"][0]["id"].as_str().unwrap().to_string();
    for req in [
        get(&format!("/api/v1/recordings/{running}")),
        send_json("DELETE", &format!("/api/v1/recordings/{running}"), ""),
    ] {
        let (status, v) = call(&app, req).await;
        assert_eq!(
            (status, error_code(&v).as_str()),
            (StatusCode::CONFLICT, "RECORDING_ACTIVE"),
            "{v}"
        );
    }
    for id in ["..%2F..%2Fetc%2Fpasswd", "nope"] {
        let (status, v) = call(&app, get(&format!("/api/v1/recordings/{id}"))).await;
        assert_eq!(
            (status, error_code(&v).as_str()),
            (StatusCode::NOT_FOUND, "NOT_FOUND"),
            "{v}"
        );
    }
    assert_eq!(argvs_with(&h, "screenrecord").len(), 1);
    stop(&app).await;
}

/// The recorded listing the iOS tests use, and its booted Simulator.
const SIMS: &str =
    "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json";
const UDID: &str = "D2E4C979-FFEA-4236-9F57-64C3209975A0";

/// `simctl io UDID recordVideo --codec h264 --force PATH` as it behaves: the words of
/// tests/fixtures/simctl_record_video.txt on stderr once recording, frames until SIGINT, then
/// the finalised file (made here with ffmpeg for as long as it ran) and exit 0.
fn fake_record_video(tools: &FakeTools) -> std::path::PathBuf {
    let said = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/simctl_record_video.txt"
    ))
    .unwrap();
    let started = said.lines().next().unwrap();
    fake_xcrun_with(
        tools,
        SIMS,
        &format!(
            r#"  "simctl io {UDID} recordVideo --codec h264 --force "*)
    out="$8"; t0=$(date +%s%N); pause=""
    finish() {{
      [ -n "$pause" ] && kill "$pause" 2>/dev/null
      ms=$(( ($(date +%s%N) - t0) / 1000000 )); [ "$ms" -lt 100 ] && ms=100
      ffmpeg -v error -f lavfi -i "testsrc=size=390x844:rate=30" -t "${{ms}}ms" -c:v libx264 -pix_fmt yuv420p -y "$out" || exit 1
      exit 0
    }}
    trap finish INT
    echo "{started}" >&2
    # Recording until SIGINT: `wait` returns at once when the trapped signal comes.
    while :; do sleep 1 >/dev/null 2>&1 </dev/null & pause=$!; wait "$pause"; done ;;"#
        ),
    )
}

#[tokio::test]
async fn an_ios_simulator_records_with_simctl_until_sigint() {
    let tools = FakeTools::new();
    let xcrun = fake_record_video(&tools);
    let app = crate::common::app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), loopback_policy());
    // Android's options are refused before simctl runs.
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/recording/start",
            json!({"udid": UDID, "scale": 0.5}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    assert!(crate::common::calls_except_list(&tools, "xcrun").is_empty());

    let asked = Instant::now();
    let started = start(&app, json!({"udid": UDID})).await;
    let (status, stopped) = call(
        &app,
        post("/api/v1/device/recording/stop", json!({"udid": UDID})),
    )
    .await;
    let wall = asked.elapsed().as_secs_f64();
    assert_eq!(status, StatusCode::OK, "{stopped}");
    assert_eq!(stopped["id"], started["id"]);
    assert_eq!(stopped["state"], "finished");
    assert_eq!(
        (stopped["width"].as_u64(), stopped["height"].as_u64()),
        (Some(390), Some(844))
    );
    let path = Path::new(stopped["path"].as_str().unwrap());
    let duration = ffprobe_duration(path);
    assert!(
        duration > 0.0 && duration <= wall.max(0.1) + 0.1,
        "{duration} s in {wall} s"
    );
    decodes_cleanly(path);
    let calls = crate::common::calls_except_list(&tools, "xcrun");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(
        calls[0][..7],
        [
            "simctl",
            "io",
            UDID,
            "recordVideo",
            "--codec",
            "h264",
            "--force"
        ]
    );
}
