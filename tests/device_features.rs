//! Device features — clipboard, orientation, Android intents, airplane mode — through the real adb and the
//! virtual device (its journal holds the argv its shell parsed, so quoting is checked where it
//! matters), through a fake `xcrun` for the Simulator (argv only: no recorded pbpaste output
//! exists), and the 501 answers of platforms that lack a feature.

use crate::common;

use axum::http::StatusCode;
use common::android::*;
use common::*;
use mobilectl::exec::Tool;
use serde_json::{json, Value};

fn put(path: &str, body: Value) -> axum::http::Request<axum::body::Body> {
    send_json("PUT", path, &body.to_string())
}

/// The journal's argvs of `am` after `mark` (its sequence number).
fn am_since(h: &virtual_device::testing::VdHarness, mark: u64) -> Vec<Vec<String>> {
    h.journal()
        .into_iter()
        .filter(|e| e["seq"].as_u64().is_some_and(|s| s > mark))
        .filter_map(|e| {
            e["argv"].as_array().map(|a| {
                a.iter()
                    .map(|s| s.as_str().unwrap_or_default().to_string())
                    .collect::<Vec<_>>()
            })
        })
        .filter(|a| a.first().map(String::as_str) == Some("am"))
        .collect()
}

const HOSTILE: &str = "it's $(touch /sdcard/pwned); `id` && echo \"x\" | cat > /sdcard/y; *";

#[tokio::test]
async fn clipboard_round_trip_through_adb() {
    let h = start_device();
    let app = app_for(&h);
    let (status, body) = call(
        &app,
        put("/api/v1/device/clipboard", json!({"text": HOSTILE})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(h.state()["clipboard"], HOSTILE, "typed literally");
    let (status, body) = call(&app, get("/api/v1/device/clipboard")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["text"], HOSTILE);
    assert!(
        !h.journal_argvs()
            .iter()
            .any(|a| a[0] == "touch" || a[0] == "id"),
        "nothing in the text ran"
    );

    // Too long, or with a NUL: refused before the device is asked.
    let mark = journal_mark(&h);
    for text in ["x".repeat(64 * 1024 + 1), "a\u{0}b".to_string()] {
        let (status, body) = call(
            &app,
            put("/api/v1/device/clipboard", json!({ "text": text })),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(error_code(&body), "VALIDATION_FAILED");
    }
    assert!(services_since(&h, mark).is_empty());
    assert_eq!(h.state()["clipboard"], HOSTILE, "unchanged");
}

#[tokio::test]
async fn rotation_turns_the_snapshot_and_a_tap_by_ref_lands() {
    let h = start_device();
    let app = app_for(&h);
    let (status, body) = call(&app, get("/api/v1/device/orientation")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["orientation"], "portrait");
    assert_eq!(body["auto_rotate"], true);
    let (_, before) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(
        before["screen"],
        json!({"w": 1080.0, "h": 2400.0}),
        "{}",
        before["screen"]
    );

    let (status, body) = call(
        &app,
        put(
            "/api/v1/device/orientation",
            json!({"orientation": "landscape"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(ran_settings(&h, "accelerometer_rotation", "0"));
    assert!(ran_settings(&h, "user_rotation", "1"));
    let (_, body) = call(&app, get("/api/v1/device/orientation")).await;
    assert_eq!(body["orientation"], "landscape", "{body}");
    assert_eq!(body["auto_rotate"], false);

    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(snap["screen"], json!({"w": 2400.0, "h": 1080.0}));
    let user = ref_by_id(&snap, "id/username");
    let (status, body) = call(&app, post("/api/v1/device/ui/tap", json!({"ref": user}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        h.state()["focused"].is_array(),
        "the tap focused the field: {}",
        h.state()
    );

    for (o, r) in [("landscape_reverse", 3), ("portrait_reverse", 2)] {
        let (status, _) = call(
            &app,
            put("/api/v1/device/orientation", json!({"orientation": o})),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(h.state()["rotation"], r);
    }

    // Bad input changes nothing.
    let mark = journal_mark(&h);
    for bad in [
        json!({"orientation": "diagonal"}),
        json!({}),
        json!({"orientation": "portrait", "restore": true}),
    ] {
        let (status, body) = call(&app, put("/api/v1/device/orientation", bad.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
        assert!(body["error"]["hint"].is_string() || body["error"]["message"].is_string());
    }
    assert!(services_since(&h, mark).is_empty());
    assert_eq!(h.state()["rotation"], 2);

    // Restoring gives the rotation back to the sensor (upright).
    let (status, body) = call(
        &app,
        put("/api/v1/device/orientation", json!({"restore": true})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(h.state()["rotation"], 0);
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(snap["screen"], json!({"w": 1080.0, "h": 2400.0}));
}

fn ran_settings(h: &virtual_device::testing::VdHarness, key: &str, value: &str) -> bool {
    h.journal_argvs().iter().any(|a| {
        a.iter()
            .map(String::as_str)
            .eq(["settings", "put", "system", key, value])
    })
}

#[tokio::test]
async fn intents_carry_typed_extras_quoted() {
    let h = start_device();
    let app = app_for(&h);
    let mark = journal_mark(&h);
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/intent",
            json!({
                "action": "android.intent.action.MAIN",
                "component": "com.mobilectl.demo/.InboxActivity",
                "category": ["android.intent.category.DEFAULT"],
                "flags": 0x1000_0000u32,
                "extras": [
                    {"key": "s", "type": "string", "value": HOSTILE},
                    {"key": "n", "type": "int", "value": -3},
                    {"key": "l", "type": "long", "value": 1_099_511_627_776u64},
                    {"key": "f", "type": "float", "value": 1.5},
                    {"key": "b", "type": "bool", "value": true},
                    {"key": "u", "type": "uri", "value": "https://example.com/a?b=c&d"},
                    {"key": "a", "type": "string_array", "value": ["x y", "z"]}
                ]
            }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["activity"], "com.mobilectl.demo/.InboxActivity",
        "{body}"
    );
    assert!(
        body["output"].as_str().unwrap().contains("(has extras)"),
        "{body}"
    );
    assert_eq!(h.state()["activity"], "com.mobilectl.demo/.InboxActivity");
    let am = am_since(&h, mark);
    let want: Vec<String> = [
        "am",
        "start",
        "-W",
        "-a",
        "android.intent.action.MAIN",
        "-n",
        "com.mobilectl.demo/.InboxActivity",
        "-c",
        "android.intent.category.DEFAULT",
        "-f",
        "0x10000000",
        "--es",
        "s",
        HOSTILE,
        "--ei",
        "n",
        "-3",
        "--el",
        "l",
        "1099511627776",
        "--ef",
        "f",
        "1.5",
        "--ez",
        "b",
        "true",
        "--eu",
        "u",
        "https://example.com/a?b=c&d",
        "--esa",
        "a",
        "x y,z",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(am, [want], "one am, every value one literal argument");
    assert!(!h
        .journal_argvs()
        .iter()
        .any(|a| a[0] == "touch" || a[0] == "id"));

    // A broadcast answers what am said.
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/intent",
            json!({"mode": "broadcast", "action": "com.example.PING", "package": "com.mobilectl.demo",
                   "extras": [{"key": "k", "type": "string", "value": "v"}]}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        body["output"]
            .as_str()
            .unwrap()
            .contains("Broadcast completed"),
        "{body}"
    );
    assert!(body.get("activity").is_none());

    // An activity that does not exist: NOT_FOUND with am's words.
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/intent",
            json!({"component": "com.mobilectl.demo/.Nope"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(body["error"]["details"]["output"]
        .as_str()
        .unwrap()
        .contains("does not exist"));

    // Extras whose values do not match their types, and intents without an address, are
    // refused before the device is asked.
    let mark = journal_mark(&h);
    for bad in [
        json!({"action": "A", "extras": [{"key": "n", "type": "int", "value": "3"}]}),
        json!({"action": "A", "extras": [{"key": "n", "type": "int", "value": 4_000_000_000u64}]}),
        json!({"action": "A", "extras": [{"key": "b", "type": "bool", "value": "yes"}]}),
        json!({"action": "A", "extras": [{"key": "a", "type": "string_array", "value": ["a,b"]}]}),
        json!({"action": "A", "extras": [{"key": "s", "type": "string", "value": "two\nlines"}]}),
        json!({"action": "A", "extras": [{"key": "s", "type": "text", "value": "x"}]}),
        json!({"extras": []}),
        json!({"action": "has space"}),
        json!({"component": "no-slash"}),
    ] {
        let (status, body) = call(&app, post("/api/v1/device/intent", bad.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
    assert!(services_since(&h, mark).is_empty());
}

#[tokio::test]
async fn simulator_clipboard_is_simctl_and_the_rest_is_501() {
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun_with(
        &fakes,
        "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json",
        "  \"simctl pbcopy \"*|\"simctl pbpaste \"*) exit 0 ;;",
    );
    let app = app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), loopback_policy());
    let udid = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
    let (status, body) = call(
        &app,
        put("/api/v1/device/clipboard", json!({"text": "hello"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = call(&app, get("/api/v1/device/clipboard")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let sim = |args: &[&str]| -> Vec<String> {
        std::iter::once("simctl")
            .chain(args.iter().copied())
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [sim(&["pbcopy", udid]), sim(&["pbpaste", udid])]
    );

    for (req, what) in [
        (get("/api/v1/device/orientation"), "orientation"),
        (
            put(
                "/api/v1/device/orientation",
                json!({"orientation": "landscape"}),
            ),
            "rotat",
        ),
        (
            post(
                "/api/v1/device/intent",
                json!({"action": "android.intent.action.VIEW"}),
            ),
            "intents",
        ),
    ] {
        let (status, body) = call(&app, req).await;
        assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
        assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(what),
            "{body}"
        );
        assert!(body["error"]["hint"].is_string(), "{body}");
    }
    assert_eq!(
        calls_except_list(&fakes, "xcrun").len(),
        2,
        "nothing more ran"
    );
}

#[tokio::test]
async fn iphone_clipboard_and_orientation_are_wda_requests() {
    use common::wda::*;
    use mobilectl::backend::wda::{EndpointSpec, WdaConfig};
    use mobilectl::backend::BackendConfig;
    use mobilectl::exec::Toolbox;

    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let app = app_with_config(
        BackendConfig {
            tools: Toolbox::with([]),
            wda: WdaConfig {
                endpoints: vec![EndpointSpec::parse(&format!(
                    "00008101-001D24E93C08001E={}",
                    fake.url()
                ))
                .unwrap()],
                ..Default::default()
            },
            ..Default::default()
        },
        loopback_policy(),
    );
    let n = fake.log().len();
    let (status, body) = call(
        &app,
        put("/api/v1/device/clipboard", json!({"text": "hé $(x)"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = call(
        &app,
        put(
            "/api/v1/device/orientation",
            json!({"orientation": "landscape_reverse"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // No auto-rotate switch on an iPhone: 501 before any request.
    let (status, body) = call(
        &app,
        put("/api/v1/device/orientation", json!({"restore": true})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    let (status, body) = call(&app, post("/api/v1/device/intent", json!({"action": "A"}))).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    // No recorded answer of the reads exists: the fake answers them empty and upright.
    let (status, body) = call(&app, get("/api/v1/device/clipboard")).await;
    assert_eq!(
        (status, &body["text"]),
        (StatusCode::OK, &json!("")),
        "{body}"
    );
    let (status, body) = call(&app, get("/api/v1/device/orientation")).await;
    assert_eq!(
        (status, &body["orientation"]),
        (StatusCode::OK, &json!("portrait")),
        "{body}"
    );
    let log = fake.log();
    let sent: Vec<(String, Value)> = log[n..]
        .iter()
        .filter(|s| {
            s.route().starts_with("POST /session/:id") || s.route().starts_with("GET /session/:id")
        })
        .map(|s| (s.route(), s.body.clone()))
        .collect();
    assert_eq!(
        sent,
        [
            (
                "POST /session/:id/wda/setPasteboard".to_string(),
                json!({"content": "aMOpICQoeCk=", "contentType": "plaintext"})
            ),
            (
                "POST /session/:id/orientation".to_string(),
                json!({"orientation": "UIA_DEVICE_ORIENTATION_LANDSCAPERIGHT"})
            ),
            (
                "POST /session/:id/wda/getPasteboard".to_string(),
                json!({"contentType": "plaintext"})
            ),
            ("GET /session/:id/orientation".to_string(), Value::Null),
        ]
    );
}

/// An app on the virtual device whose files root is `root`.
fn app_with_root(h: &virtual_device::testing::VdHarness, root: &std::path::Path) -> axum::Router {
    use mobilectl::backend::BackendConfig;
    use mobilectl::controller::DeviceController;
    use mobilectl::exec::Toolbox;
    use mobilectl::server::{self, AppState, ServerOptions};
    mobilectl::server::check_declared_errors(true);
    let controller = DeviceController::new(BackendConfig {
        tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
        adb_server_port: Some(h.adb_port),
        ..Default::default()
    });
    let options = ServerOptions {
        files_root: Some(root.to_path_buf()),
        ..Default::default()
    };
    server::app(AppState::new(controller, options), loopback_policy())
}

#[tokio::test]
async fn files_round_trip_byte_for_byte_and_stay_under_the_root() {
    let h = start_device();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let app = app_with_root(&h, &root);
    let bytes: Vec<u8> = (0..70_000u32).map(|i| (i * 7 % 256) as u8).collect();
    std::fs::write(root.join("data.bin"), &bytes).unwrap();

    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/files/push",
            json!({"local_path": "data.bin", "device_path": "/sdcard/Download/it's data.bin"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["bytes"], 70_000);
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/files/pull",
            json!({"device_path": "/sdcard/Download/it's data.bin", "local_path": "back.bin"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        std::fs::read(root.join("back.bin")).unwrap(),
        bytes,
        "byte for byte"
    );
    // The target exists now: kept unless asked.
    let again = json!({"device_path": "/sdcard/Download/it's data.bin", "local_path": "back.bin"});
    let (status, _) = call(&app, post("/api/v1/device/files/pull", again)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/files/pull",
            json!({"device_path": "/sdcard/Download/it's data.bin", "local_path": "back.bin", "overwrite": true}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/files/pull",
            json!({"device_path": "/sdcard/nothing-here", "local_path": "none.bin"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(!root.join("none.bin").exists());
    // A directory is not pulled.
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/files/pull",
            json!({"device_path": "/sdcard/Download", "local_path": "dir.bin"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(!root.join("dir.bin").exists());

    // Outside the root: `../`, absolute, a symlink out; a 2 GB file; each refused with the
    // device untouched.
    std::fs::write(dir.path().join("secret"), b"s").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret"), root.join("out")).unwrap();
    std::fs::File::create(root.join("big"))
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let mark = journal_mark(&h);
    let secret = dir.path().join("secret");
    for (local, code) in [
        ("../secret", "FORBIDDEN"),
        (secret.to_str().unwrap(), "FORBIDDEN"),
        ("out", "FORBIDDEN"),
        ("big", "VALIDATION_FAILED"),
        ("missing", "NOT_FOUND"),
    ] {
        let (status, body) = call(
            &app,
            post(
                "/api/v1/device/files/push",
                json!({"local_path": local, "device_path": "/sdcard/x"}),
            ),
        )
        .await;
        assert_eq!(error_code(&body), code, "{local}: {status} {body}");
        assert!(body["error"]["message"].is_string());
    }
    for local in ["../stolen", "out", secret.to_str().unwrap()] {
        let (status, body) = call(
            &app,
            post(
                "/api/v1/device/files/pull",
                json!({"device_path": "/sdcard/Download/it's data.bin", "local_path": local, "overwrite": true}),
            ),
        )
        .await;
        assert!(status.is_client_error(), "{local}: {body}");
    }
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/files/push",
            json!({"local_path": "data.bin", "device_path": "relative/x"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        services_since(&h, mark).is_empty(),
        "nothing reached the device"
    );
    assert_eq!(std::fs::read(&secret).unwrap(), b"s");
    assert!(!dir.path().join("stolen").exists());
}

/// Issue #39 (item 4): the requests of the report — a pull of `/data/../../../../etc/passwd`
/// into the files root, a push to `/../../../../tmp/NAME` — are refused with 400 and a hint
/// before the device is asked: nothing of the host's lands in the files root, nothing is
/// written on the host (or on the device).
#[tokio::test]
async fn device_paths_that_climb_are_refused_before_the_device() {
    let h = start_device();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("data.bin"), b"pushed").unwrap();
    let app = app_with_root(&h, &root);
    let name = format!(
        "mobilectl-climb-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let mark = journal_mark(&h);
    let requests = [
        (
            "/api/v1/device/files/pull",
            json!({"device_path": "/data/../../../../etc/passwd", "local_path": "passwd"}),
        ),
        (
            "/api/v1/device/files/push",
            json!({"local_path": "data.bin", "device_path": format!("/../../../../tmp/{name}")}),
        ),
    ];
    for (path, body) in requests {
        let (status, answer) = call(&app, post(path, body.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(error_code(&answer), "VALIDATION_FAILED", "{answer}");
        assert!(
            answer["error"]["hint"]
                .as_str()
                .is_some_and(|h| h.contains("without `..`")),
            "{answer}"
        );
    }
    assert!(!root.join("passwd").exists(), "nothing of the host's read");
    assert!(
        !std::path::Path::new("/tmp").join(&name).exists(),
        "nothing written on the host"
    );
    assert!(!h.root.join("tmp").join(&name).exists());
    assert!(
        services_since(&h, mark).is_empty(),
        "nothing reached the device"
    );
}

#[tokio::test]
async fn a_local_path_too_long_for_the_file_system_is_refused_before_the_device() {
    let h = start_device();
    let dir = tempfile::tempdir().unwrap();
    let app = app_with_root(&h, dir.path());
    std::fs::write(dir.path().join("data.bin"), b"d").unwrap();
    let (status, v) = call(
        &app,
        post(
            "/api/v1/device/files/push",
            json!({"local_path": "data.bin", "device_path": "/sdcard/Download/x"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let mark = journal_mark(&h);
    // One 5,000-character name, and 5,000 characters of short names.
    for local in ["a".repeat(5000), "a/".repeat(2499) + "a"] {
        for (path, body) in [
            (
                "/api/v1/device/files/pull",
                json!({"device_path": "/sdcard/Download/x", "local_path": local}),
            ),
            (
                "/api/v1/device/files/push",
                json!({"local_path": local, "device_path": "/sdcard/Download/x"}),
            ),
        ] {
            let (status, v) = call(&app, post(path, body)).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {v}");
            assert_eq!(error_code(&v), "VALIDATION_FAILED", "{path}: {v}");
            assert!(
                v["error"]["message"].as_str().unwrap().contains("too long"),
                "{v}"
            );
            assert!(v["error"]["hint"].is_string(), "{v}");
        }
    }
    assert!(
        services_since(&h, mark).is_empty(),
        "nothing reached the device"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "nothing was written: {left:?}");
}

#[tokio::test]
async fn notifications_post_and_read_from_the_shade() {
    let h = start_device();
    let app = app_for(&h);
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/notification",
            json!({"title": "Order shipped", "body": "It's on its way; $(id) `x`"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let posted = &h.state()["notifications"][0];
    assert_eq!(posted["title"], "Order shipped");
    assert_eq!(
        posted["text"], "It's on its way; $(id) `x`",
        "typed literally"
    );

    let (status, body) = call(&app, get("/api/v1/device/notifications")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["notifications"],
        json!([{"app": "Shell", "title": "Order shipped", "text": "It's on its way; $(id) `x`"}])
    );
    assert_eq!(h.state()["shade_open"], false, "closed again");
    assert!(ran_cmd(&h, &["cmd", "statusbar", "expand-notifications"]));
    assert!(ran_cmd(&h, &["cmd", "statusbar", "collapse"]));

    // Bad input: nothing posted.
    let mark = journal_mark(&h);
    let big = "x".repeat(5000);
    for bad in [
        json!({}),
        json!({"payload": {"aps": {"alert": big}}}),
        json!({"payload": {"alert": "no aps"}}),
        json!({"title": "t", "body": "b", "payload": {"aps": {}}}),
        json!({"body": "two\nlines"}),
        json!({"payload": {"aps": {}}}),
    ] {
        let (status, body) = call(&app, post("/api/v1/device/notification", bad.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
    let (status, body) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/notification",
            r#"{"payload": {"aps": "#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "invalid JSON: {body}");
    assert!(services_since(&h, mark).is_empty());
    assert_eq!(h.state()["notifications"].as_array().unwrap().len(), 1);
}

fn ran_cmd(h: &virtual_device::testing::VdHarness, argv: &[&str]) -> bool {
    h.journal_argvs()
        .iter()
        .any(|a| a.iter().map(String::as_str).eq(argv.iter().copied()))
}

#[tokio::test]
async fn simulator_push_is_simctl_push_of_the_checked_payload() {
    let fakes = FakeTools::new();
    let seen = fakes.dir.path().join("pushed.json");
    let xcrun = fake_xcrun_with(
        &fakes,
        "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json",
        &format!("  \"simctl push \"*) cat \"$5\" >> '{}' ;;", seen.display()),
    );
    let app = app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), loopback_policy());
    let udid = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
    let payload =
        json!({"aps": {"alert": {"title": "Hi", "body": "there"}, "badge": 3}, "extra": "x"});
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/notification",
            json!({"bundle_id": "com.example.app", "payload": payload}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let calls = calls_except_list(&fakes, "xcrun");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0][..4], ["simctl", "push", udid, "com.example.app"]);
    let sent: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(sent, payload);
    assert!(
        !std::path::Path::new(&calls[0][4]).exists(),
        "the temporary file is gone"
    );

    // No bundle id, or a payload over 4 KB: nothing runs.
    let big = json!({"aps": {"alert": "x".repeat(4100)}});
    for bad in [
        json!({"title": "t", "body": "b"}),
        json!({"bundle_id": "com.example.app", "payload": big}),
    ] {
        let (status, body) = call(&app, post("/api/v1/device/notification", bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    }
    let (status, body) = call(&app, get("/api/v1/device/notifications")).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert_eq!(calls_except_list(&fakes, "xcrun").len(), 1);
}

#[tokio::test]
async fn biometrics_are_notifyutil_on_a_simulator_and_501_on_a_phone() {
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun_with(
        &fakes,
        "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json",
        "  \"simctl spawn \"*) exit 0 ;;",
    );
    let app = app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), loopback_policy());
    let udid = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
    for body in [
        json!({"action": "enroll"}),
        json!({"action": "match"}),
        json!({"action": "nonmatch", "kind": "finger"}),
        json!({"action": "unenroll"}),
    ] {
        let (status, answer) = call(&app, post("/api/v1/device/biometric", body)).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
    }
    let spawn = |w: &[&str]| -> Vec<String> {
        ["simctl", "spawn", udid]
            .iter()
            .chain(w.iter())
            .map(|s| s.to_string())
            .collect()
    };
    const ENROLLED: &str = "com.apple.BiometricKit.enrollmentChanged";
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [
            spawn(&["notifyutil", "-s", ENROLLED, "1"]),
            spawn(&["notifyutil", "-p", ENROLLED]),
            spawn(&["notifyutil", "-p", "com.apple.BiometricKit_Sim.pearl.match"]),
            spawn(&[
                "notifyutil",
                "-p",
                "com.apple.BiometricKit_Sim.fingerTouch.nomatch"
            ]),
            spawn(&["notifyutil", "-s", ENROLLED, "0"]),
            spawn(&["notifyutil", "-p", ENROLLED]),
        ]
    );
    let (status, _) = call(
        &app,
        post("/api/v1/device/biometric", json!({"action": "scan"})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // The virtual Android device is a physical phone to mobilectl: no simulated sensor.
    let h = start_device();
    let app = app_for(&h);
    call(&app, get("/api/v1/device/list")).await;
    let mark = journal_mark(&h);
    let (status, body) = call(
        &app,
        post("/api/v1/device/biometric", json!({"action": "match"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert!(body["error"]["hint"].as_str().unwrap().contains("emulator"));
    assert!(services_since(&h, mark).is_empty());
}

/// Airplane mode through the connectivity service's shell command: set on, read back (the
/// answer, the device's setting), toggled off; bad bodies refused before the device is asked;
/// a Simulator has none (501 naming the capability).
#[tokio::test]
async fn airplane_mode_is_cmd_connectivity_on_android_and_501_on_a_simulator() {
    const PATH: &str = "/api/v1/device/airplane-mode";
    let h = start_device();
    let app = app_for(&h);
    call(&app, get("/api/v1/device/list")).await;
    assert_eq!(h.state()["airplane_mode"], false);

    let mark = journal_mark(&h);
    let (status, body) = call(&app, post(PATH, json!({"enabled": true}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], true);
    assert_eq!(body["enabled"], true, "{body}");
    assert!(body.get("note").is_none(), "{body}");
    assert_eq!(body["device"]["udid"], h.serial.as_str());
    assert_eq!(h.state()["airplane_mode"], true);
    // Set, then read back: two round trips, the service's own words.
    let services = services_since(&h, mark);
    assert_eq!(services.len(), 2, "{services:?}");
    assert!(services[0].ends_with("cmd connectivity airplane-mode enable 2>&1"));
    assert!(services[1].ends_with("cmd connectivity airplane-mode 2>&1"));
    let setting = h.adb(&["shell", "settings", "get", "global", "airplane_mode_on"]);
    assert_eq!(setting.stdout_text(), "1\n");

    // Asked again: it stays on. Then a toggle turns it off (read, set, read back).
    let (status, body) = call(&app, post(PATH, json!({"enabled": true}))).await;
    assert_eq!((status, &body["enabled"]), (StatusCode::OK, &json!(true)));
    let mark = journal_mark(&h);
    let (status, body) = call(&app, post(PATH, json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["enabled"], false, "{body}");
    assert_eq!(h.state()["airplane_mode"], false);
    let services = services_since(&h, mark);
    assert_eq!(services.len(), 3, "{services:?}");
    assert!(services[1].ends_with("cmd connectivity airplane-mode disable 2>&1"));

    // Bad bodies, refused before anything reaches the device: a value of the wrong type does
    // not fit the schema (400 BAD_REQUEST, as on every route); an unknown field is named, with
    // the fields allowed (400 VALIDATION_FAILED).
    let mark = journal_mark(&h);
    for (bad, code) in [
        (json!({"enabled": "yes"}), "BAD_REQUEST"),
        (json!({"enabled": 1}), "BAD_REQUEST"),
        (json!({"enabled": true, "mode": "on"}), "VALIDATION_FAILED"),
    ] {
        let (status, body) = call(&app, post(PATH, bad.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
        assert_eq!(error_code(&body), code, "{bad}: {body}");
    }
    assert!(services_since(&h, mark).is_empty());

    // An iOS Simulator has no airplane mode: 501 naming the capability, nothing run.
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun(
        &fakes,
        "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json",
    );
    let app = app_with(toolbox(&[(Tool::Xcrun, &xcrun)]), loopback_policy());
    let (status, body) = call(&app, post(PATH, json!({"enabled": true}))).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM");
    assert_eq!(body["error"]["details"]["capability"], "airplane_mode");
    let hint = body["error"]["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("iOS Simulator has none"), "{body}");
    assert!(calls_except_list(&fakes, "xcrun").is_empty());
}

#[tokio::test]
async fn pinch_and_rotate_are_two_simultaneous_fingers_on_wda_and_501_on_android() {
    use common::wda::*;
    use mobilectl::backend::wda::{EndpointSpec, WdaConfig};
    use mobilectl::backend::BackendConfig;
    use mobilectl::exec::Toolbox;

    let fake = FakeWda::start(SETTINGS, STATUS_IOS14).await;
    let app = app_with_config(
        BackendConfig {
            tools: Toolbox::with([]),
            wda: WdaConfig {
                endpoints: vec![EndpointSpec::parse(&format!(
                    "00008101-001D24E93C08001E={}",
                    fake.url()
                ))
                .unwrap()],
                ..Default::default()
            },
            ..Default::default()
        },
        loopback_policy(),
    );
    // Bad numbers: refused before anything is sent.
    let n = fake.log().len();
    for bad in [
        json!({"gesture": "pinch", "scale": 0, "x": 100, "y": 300}),
        json!({"gesture": "pinch", "scale": 1, "x": 100, "y": 300}),
        json!({"gesture": "rotate", "degrees": 0, "x": 100, "y": 300}),
        json!({"gesture": "pinch", "scale": 2, "degrees": 30, "x": 100, "y": 300}),
        json!({"gesture": "twist", "x": 100, "y": 300}),
    ] {
        let (status, body) = call(&app, post("/api/v1/device/ui/multi-touch", bad.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
    assert_eq!(fake.log().len(), n, "nothing sent");

    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/multi-touch",
            json!({"gesture": "pinch", "scale": 2, "x": 180, "y": 400}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["action_type"], "pinch");
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/multi-touch",
            json!({"gesture": "rotate", "degrees": 90, "x": 180, "y": 400}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let sent: Vec<Value> = fake
        .log()
        .into_iter()
        .filter(|s| s.route() == "POST /session/:id/actions")
        .map(|s| s.body)
        .collect();
    assert_eq!(sent.len(), 2);
    let pinch = &sent[0]["actions"];
    assert_eq!(pinch.as_array().unwrap().len(), 2, "two pointers at once");
    let xs = |p: &Value| -> Vec<f64> {
        p["actions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["type"] == "pointerMove")
            .map(|a| a["x"].as_f64().unwrap())
            .collect()
    };
    assert_eq!(pinch[0]["parameters"]["pointerType"], "touch");
    assert_eq!(xs(&pinch[0]), [80.0, -20.0], "finger 1 moves left");
    assert_eq!(xs(&pinch[1]), [280.0, 380.0], "finger 2 moves right");
    let rotate = &sent[1]["actions"];
    assert_eq!(xs(&rotate[0]).len(), 7, "90° as six arcs of 15°");

    // Android: no simultaneous touches through adb: 501, nothing typed or tapped.
    let h = start_device();
    let app = app_for(&h);
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/multi-touch",
            json!({"gesture": "pinch", "scale": 0.5, "x": 500, "y": 900}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert!(body["error"]["hint"]
        .as_str()
        .unwrap()
        .contains("one touch at a time"));
    assert!(argvs_with(&h, "input").is_empty());
}

#[tokio::test]
async fn media_is_pushed_and_scanned_on_android_and_addmedia_on_a_simulator() {
    let h = start_device();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let app = app_with_root(&h, &root);
    let jpeg = b"\xff\xd8\xff\xe0 not really a jpeg \xff\xd9";
    std::fs::write(root.join("beach day.jpg"), jpeg).unwrap();
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/media",
            json!({"local_path": "beach day.jpg"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["location"], "/sdcard/Pictures/beach day.jpg");
    assert_eq!(
        h.state()["media"],
        json!(["file:///sdcard/Pictures/beach day.jpg"])
    );
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/files/pull",
            json!({"device_path": "/sdcard/Pictures/beach day.jpg", "local_path": "copy.jpg"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(std::fs::read(root.join("copy.jpg")).unwrap(), jpeg);

    // Not a photo or video, a name the device would not take, outside the root: refused.
    std::fs::write(root.join("notes.txt"), b"x").unwrap();
    std::fs::write(root.join("a;b.jpg"), b"x").unwrap();
    let mark = journal_mark(&h);
    for (local, code) in [
        ("notes.txt", "VALIDATION_FAILED"),
        ("a;b.jpg", "VALIDATION_FAILED"),
        ("../x.jpg", "NOT_FOUND"),
    ] {
        let (_, body) = call(
            &app,
            post("/api/v1/device/media", json!({ "local_path": local })),
        )
        .await;
        assert_eq!(error_code(&body), code, "{local}: {body}");
    }
    assert!(services_since(&h, mark).is_empty());

    // A Simulator: simctl addmedia with the resolved path.
    let fakes = FakeTools::new();
    let xcrun = fake_xcrun_with(
        &fakes,
        "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json",
        "  \"simctl addmedia \"*) exit 0 ;;",
    );
    let config = mobilectl::backend::BackendConfig {
        tools: mobilectl::exec::Toolbox::with([(Tool::Xcrun, xcrun.clone())]),
        ..Default::default()
    };
    let state = mobilectl::server::AppState::new(
        mobilectl::controller::DeviceController::new(config),
        mobilectl::server::ServerOptions {
            files_root: Some(root.clone()),
            ..Default::default()
        },
    );
    let sim = mobilectl::server::app(state, loopback_policy());
    let (status, body) = call(
        &sim,
        post(
            "/api/v1/device/media",
            json!({"local_path": "beach day.jpg"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let real = root.canonicalize().unwrap().join("beach day.jpg");
    assert_eq!(
        calls_except_list(&fakes, "xcrun"),
        [vec![
            "simctl".to_string(),
            "addmedia".into(),
            "D2E4C979-FFEA-4236-9F57-64C3209975A0".into(),
            real.display().to_string()
        ]]
    );
}

#[tokio::test]
async fn simulator_files_go_to_the_app_container_and_stay_inside_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let container = dir.path().join("Containers/Data/Application/DEEC28D4");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&container).unwrap();
    std::fs::write(dir.path().join("outside"), b"o").unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside"), container.join("link")).unwrap();
    let fakes = FakeTools::new();
    // simctl prints the container's path and a newline (as recorded in
    // fixtures/ios_simctl/simctl_get_app_container_data_path.txt); here, a scratch folder.
    let xcrun = fake_xcrun_with(
        &fakes,
        "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json",
        &format!(
            "  \"simctl get_app_container \"*) echo '{}' ;;",
            container.display()
        ),
    );
    let state = mobilectl::server::AppState::new(
        mobilectl::controller::DeviceController::new(mobilectl::backend::BackendConfig {
            tools: mobilectl::exec::Toolbox::with([(Tool::Xcrun, xcrun.clone())]),
            ..Default::default()
        }),
        mobilectl::server::ServerOptions {
            files_root: Some(root.clone()),
            ..Default::default()
        },
    );
    let app = mobilectl::server::app(state, loopback_policy());
    let bytes: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(root.join("a.bin"), &bytes).unwrap();
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/files/push",
            json!({"local_path": "a.bin", "device_path": "/Documents/in/a.bin", "bundle_id": "com.example.app"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        std::fs::read(container.join("Documents/in/a.bin")).unwrap(),
        bytes
    );
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/files/pull",
            json!({"device_path": "/Documents/in/a.bin", "bundle_id": "com.example.app", "local_path": "b.bin"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        std::fs::read(root.join("b.bin")).unwrap(),
        bytes,
        "byte for byte"
    );
    let udid = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
    assert_eq!(
        calls_except_list(&fakes, "xcrun")[0],
        [
            "simctl",
            "get_app_container",
            udid,
            "com.example.app",
            "data"
        ]
    );

    for (req, code) in [
        (
            json!({"device_path": "/Documents/a.bin", "local_path": "c.bin"}),
            "VALIDATION_FAILED",
        ),
        (
            json!({"device_path": "/Documents/../../x", "bundle_id": "com.example.app", "local_path": "c.bin"}),
            "VALIDATION_FAILED",
        ),
        (
            json!({"device_path": "/link", "bundle_id": "com.example.app", "local_path": "c.bin"}),
            "FORBIDDEN",
        ),
    ] {
        let (_, body) = call(&app, post("/api/v1/device/files/pull", req.clone())).await;
        assert_eq!(error_code(&body), code, "{req}: {body}");
    }
    assert!(!root.join("c.bin").exists());
}

#[tokio::test]
async fn the_servers_state_directory_is_never_pushed_even_under_the_files_root() {
    use mobilectl::backend::BackendConfig;
    use mobilectl::controller::DeviceController;
    use mobilectl::exec::Toolbox;
    use mobilectl::server::{self, AppState, ServerOptions};
    let h = start_device();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    // The proxy's state directory (where its CA key is kept) lies inside the files root, as
    // when a server runs from the home folder.
    let state = root.join("state");
    std::fs::create_dir(&state).unwrap();
    std::fs::write(state.join("proxy-ca-key.pem"), b"PRIVATE KEY").unwrap();
    server::check_declared_errors(true);
    let controller = DeviceController::new(BackendConfig {
        tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
        adb_server_port: Some(h.adb_port),
        ..Default::default()
    });
    let mut options = ServerOptions {
        files_root: Some(root.clone()),
        ..Default::default()
    };
    options.proxy.state_dir = Some(state.clone());
    let app = server::app(AppState::new(controller, options), loopback_policy());
    let mark = journal_mark(&h);
    for (route, body) in [
        (
            "/api/v1/device/files/push",
            json!({"local_path": "state/proxy-ca-key.pem", "device_path": "/sdcard/Download/k.pem"}),
        ),
        (
            "/api/v1/device/media",
            json!({"local_path": "state/proxy-ca-key.pem"}),
        ),
    ] {
        let (status, v) = call(&app, post(route, body)).await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (StatusCode::FORBIDDEN, Some("FORBIDDEN")),
            "{route}: {v}"
        );
    }
    assert!(
        services_since(&h, mark).is_empty(),
        "nothing reached the device"
    );
}
