//! Android end to end: the HTTP API → controller → adb backend → the real `adb` client and
//! server → the virtual device. Assertions read the device's journal (the argv it ran after
//! its shell parsed the command) and its state.

use crate::common;

use axum::http::StatusCode;
use common::android::*;
use common::*;
use serde_json::json;
use virtual_device::testing::VdHarness;

#[tokio::test]
async fn login_flow_through_real_adb() {
    let h = start_device();
    let app = app_for(&h);

    let (status, list) = call(&app, get("/api/v1/device/list?platform=android")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let me = list["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["udid"] == h.serial.as_str())
        .expect("the virtual device is listed");
    assert_eq!(me["state"], "online");

    let (status, snap) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert_eq!(snap["coordinate_space"], "pixels");
    assert_eq!(snap["screen"]["w"], 1080.0);
    assert!(snap["tree_text"].as_str().unwrap().contains("LOG IN"));
    assert_eq!(snap["app"], "com.mobilectl.demo");
    let dumps = argvs_with(&h, "uiautomator");
    assert_eq!(dumps.len(), 1, "one dump per snapshot: {dumps:?}");

    let user = ref_by_id(&snap, "username");
    let (status, typed) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/type",
            &json!({ "ref": user, "text": "alice smith", "snapshot_id": snap["snapshot_id"] })
                .to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{typed}");
    assert_eq!(typed["details"]["typed_with"], "input_text");
    assert_eq!(typed["details"]["matched"], true, "{typed}");
    assert_eq!(typed["details"]["readback"], "alice smith");
    // The read-back is a read after the action: its fingerprint, and no "before" to repeat.
    assert!(typed["fingerprint_after"].is_string(), "{typed}");
    assert!(typed.get("fingerprint_before").is_none(), "{typed}");
    let inputs = argvs_with(&h, "input");
    assert!(
        inputs.contains(&vec!["input".into(), "text".into(), "alice".into()]),
        "{inputs:?}"
    );
    assert!(inputs.contains(&vec!["input".into(), "keyevent".into(), "62".into()]));

    let mark = journal_mark(&h);
    let (status, tapped) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/tap",
            r#"{"selector": {"text": "LOG IN"}, "observe": true}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{tapped}");
    assert_ne!(tapped["fingerprint_before"], tapped["fingerprint_after"]);
    let target = &tapped["target"];
    assert_eq!((&target["x"], &target["y"]), (&json!(540), &json!(1290)));
    assert_eq!(target["name"], "LOG IN", "named: the target was a selector");
    // The tap and the read after it were one adb round trip.
    let services = services_since(&h, mark);
    assert_eq!(services.len(), 1, "{services:?}");
    // The receipt says what the tap did: a new screen with the permission dialog.
    let changes = &tapped["changes"];
    assert_eq!(changes["replaced"], true, "{changes}");
    let appeared: Vec<&str> = changes["appeared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    // The dialog is all the screen lists, so its button lines say which its buttons are.
    assert!(appeared.contains(&"! alert"), "{changes}");
    assert!(appeared.contains(&"button \"Allow\" [e1]"), "{changes}");
    assert_eq!(tapped["udid"], h.serial.as_str());
    assert!(tapped.get("device").is_none() && tapped.get("action_id").is_none());
    assert!(argvs_with(&h, "input").contains(&vec![
        "input".into(),
        "tap".into(),
        "540".into(),
        "1290".into()
    ]));

    let (_, after) = call(&app, get("/api/v1/device/ui")).await;
    assert!(
        after["alert"].is_object(),
        "the permission dialog is up: {}",
        after["tree_text"]
    );
}

/// A deterministic generator of hostile texts (no external crate needed for a fixed seed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() as usize) % items.len()]
    }
}

fn hostile_texts(n: usize) -> Vec<String> {
    let pool: Vec<&str> = vec![
        ";", "|", "&", "$", "(", ")", "`", "'", "\"", "\\", "<", ">", "*", "?", "~", "#", "!", "{",
        "}", "[", "]", "%", "%s", "\n", "\t", " ", "a", "b", "Z", "0", "9", "$(id)", "`id`", "&&",
        "||", "é", "ß", "中", "😀", "-", "--", "=", "^", "/", ",", ".",
    ];
    let mut rng = Lcg(0x5eed);
    (0..n)
        .map(|_| {
            let len = 1 + (rng.next() % 8) as usize;
            (0..len).map(|_| *rng.pick(&pool)).collect::<String>()
        })
        .collect()
}

/// Installs the ADB Keyboard IME on the virtual device (its installer reads the package name
/// from a `package=` marker in the file).
fn install_adb_keyboard(h: &VdHarness) {
    let apk = h.root.join("sdcard/adbkeyboard.apk");
    std::fs::write(&apk, b"package=com.android.adbkeyboard\n").unwrap();
    let out = h.adb(&["install", "-r", apk.to_str().unwrap()]);
    assert!(
        out.stdout_text().contains("Success"),
        "{}",
        out.stderr_text()
    );
}

#[tokio::test]
async fn typed_text_arrives_literally_and_nothing_runs() {
    let h = start_device();
    install_adb_keyboard(&h);
    let setup = h.journal_argvs().len();
    let app = app_for(&h);
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    let user = ref_by_id(&snap, "username");
    let (status, _) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/tap",
            &json!({ "ref": user }).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let texts = hostile_texts(200);
    let mut methods = std::collections::BTreeMap::new();
    for text in &texts {
        let (status, res) = call(
            &app,
            send_json(
                "POST",
                "/api/v1/device/ui/type",
                &json!({ "text": text, "clear": true }).to_string(),
            ),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{text:?}: {res}");
        assert_eq!(res["details"]["readback"], text.as_str(), "{text:?}: {res}");
        assert_eq!(res["details"]["matched"], true);
        *methods
            .entry(res["details"]["typed_with"].as_str().unwrap().to_string())
            .or_insert(0) += 1;
    }
    assert!(
        methods["input_text"] > 20 && methods["adb_keyboard"] > 20,
        "{methods:?}"
    );
    // Only the programs mobilectl sends ever ran: no `id`, nothing from the typed texts.
    let allowed = [
        "input",
        "am",
        "ime",
        "pm",
        "uiautomator",
        "cat",
        "rm",
        "echo",
        "dumpsys",
        "grep",
        "getprop",
        // The listing's check for the UiAutomator2 server (`cmd package list instrumentation`),
        // the dump's structure sum.
        "cmd",
        "cksum",
        // The log supervisor the first action started (crash detection).
        "date",
        "ps",
        "logcat",
    ];
    for argv in h.journal_argvs().into_iter().skip(setup) {
        assert!(
            allowed.contains(&argv[0].as_str()),
            "unexpected program ran: {argv:?}"
        );
    }
}

#[tokio::test]
async fn non_ascii_without_an_ime_is_422_with_the_hint() {
    let h = start_device();
    let app = app_for(&h);
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    let user = ref_by_id(&snap, "username");
    let (status, res) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/type",
            &json!({ "ref": user, "text": "héllo" }).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{res}");
    assert_eq!(error_code(&res), "UNSUPPORTED_TEXT");
    assert!(res["error"]["hint"]
        .as_str()
        .unwrap()
        .contains("ADB Keyboard"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_snapshots_share_one_dump() {
    // A slow phone: each device command takes 400 ms, so the 32 requests overlap the dump.
    let h = start_device_with(&["--latency-ms", "400"]);
    let app = app_for(&h);
    let (status, _) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK);
    let before = argvs_with(&h, "uiautomator").len();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..32 {
        let app = app.clone();
        set.spawn(async move { call(&app, get("/api/v1/device/ui")).await });
    }
    let mut ids = std::collections::BTreeSet::new();
    while let Some(r) = set.join_next().await {
        let (status, snap) = r.unwrap();
        assert_eq!(status, StatusCode::OK, "{snap}");
        ids.insert(snap["snapshot_id"].as_str().unwrap().to_string());
    }
    assert_eq!(
        argvs_with(&h, "uiautomator").len() - before,
        1,
        "exactly one dump"
    );
    assert_eq!(ids.len(), 1, "all 32 answered from one snapshot: {ids:?}");
}

#[tokio::test]
async fn stale_refs_are_refused_after_the_screen_changed() {
    let h = start_device();
    let app = app_for(&h);
    let (_, login) = call(&app, get("/api/v1/device/ui")).await;
    let login_button = ref_by_id(&login, "login");
    let remember = ref_by_id(&login, "remember");
    let (status, _) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/tap",
            &json!({ "ref": login_button }).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // The ref is from the login screen; the screen is now the permission dialog.
    let (status, body) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/tap",
            &json!({ "ref": remember }).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "STALE_REFERENCE");
    // With an old snapshot id the answer is stale too, without touching the device.
    let (_, now) = call(&app, get("/api/v1/device/ui")).await;
    assert_ne!(now["snapshot_id"], login["snapshot_id"]);
    let taps = argvs_with(&h, "input").len();
    let (status, body) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/tap",
            &json!({ "ref": "e1", "snapshot_id": login["snapshot_id"] }).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "STALE_REFERENCE");
    assert_eq!(argvs_with(&h, "input").len(), taps, "nothing was tapped");
}

#[tokio::test]
async fn a_field_keeps_its_ref_after_typing_into_it() {
    let h = start_device();
    let app = app_for(&h);
    let (_, before) = call(&app, get("/api/v1/device/ui")).await;
    let user = ref_by_id(&before, "username");
    let (status, _) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/type",
            &json!({ "ref": user, "text": "bob" }).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, after) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(
        ref_by_id(&after, "username"),
        user,
        "{}",
        after["tree_text"]
    );
    // The old ref still acts on the same field.
    let (status, body) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/type",
            &json!({ "ref": user, "text": "!" , "snapshot_id": after["snapshot_id"] }).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["details"]["readback"], "bob!");
}

/// A saved dump rendered offline (`snapshot --from-file --json`) has the same elements, in the
/// same JSON shape, as `GET /api/v1/device/ui` on the screen it was saved from.
#[tokio::test]
async fn offline_json_has_the_live_shape() {
    let h = start_device();
    let app = app_for(&h);
    let (status, live) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK, "{live}");
    let dump = h
        .adb(&["exec-out", "uiautomator", "dump", "/dev/tty"])
        .stdout_text();
    let xml = &dump[dump.find("<?xml").expect("a dump")..dump.rfind('>').unwrap() + 1];
    let offline: serde_json::Value = serde_json::from_str(
        &mobilectl::ui::render_dump(xml, mobilectl::ui::Format::Json, false).unwrap(),
    )
    .unwrap();
    assert_eq!(offline["elements"], live["elements"]);
    assert_eq!(offline["tree_text"], live["tree_text"]);
    for key in offline.as_object().unwrap().keys() {
        assert!(live.get(key).is_some(), "`{key}` is not a field of GET /ui");
    }
}

/// HTTP freshness: an unchanged screen answers `304 Not Modified` to the ETag of the last
/// read (the refs of that read stay good), a changed one answers 200 with a new tag.
#[tokio::test]
async fn unchanged_screens_answer_304() {
    use tower::ServiceExt;
    let h = start_device();
    let app = app_for(&h);
    let send = |uri: &str, etag: Option<&str>| {
        let mut req = get(uri);
        if let Some(t) = etag {
            req.headers_mut()
                .insert("if-none-match", t.parse().unwrap());
        }
        app.clone().oneshot(req)
    };
    for uri in [
        "/api/v1/device/ui",
        "/api/v1/device/ui?format=text",
        "/api/v1/device/screen-summary",
        "/api/v1/device/screenshot?format=jpeg&scale=0.5",
    ] {
        let first = send(uri, None).await.unwrap();
        assert_eq!(first.status(), StatusCode::OK, "{uri}");
        // Where the time went: the device, parsing the dump or encoding the image, the total.
        let timing = first.headers()["server-timing"]
            .to_str()
            .unwrap()
            .to_string();
        let stage = if uri.contains("screenshot") {
            "encode;dur="
        } else {
            "parse;dur="
        };
        for part in ["device;dur=", stage, "total;dur="] {
            assert!(timing.contains(part), "{uri}: {timing}");
        }
        let etag = first.headers()["etag"].to_str().unwrap().to_string();
        let again = send(uri, Some(&etag)).await.unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{uri}");
        assert_eq!(again.headers()["etag"], etag.as_str());
        let other = send(uri, Some("\"something-else\"")).await.unwrap();
        assert_eq!(other.status(), StatusCode::OK, "{uri}");
    }
    // The refs of the read the client kept after a 304 are still good.
    let (_, first) = call(&app, get("/api/v1/device/ui")).await;
    let (_, _second) = call(&app, get("/api/v1/device/ui")).await;
    let user = ref_by_id(&first, "username");
    let (status, typed) = call(
        &app,
        post(
            "/api/v1/device/ui/type",
            json!({ "ref": user, "text": "bob", "snapshot_id": first["snapshot_id"] }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{typed}");
    // A changed screen is a 200 with another tag.
    let before = send("/api/v1/device/ui", None).await.unwrap();
    let etag = before.headers()["etag"].to_str().unwrap().to_string();
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({ "selector": { "text": "LOG IN" } }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let after = send("/api/v1/device/ui", Some(&etag)).await.unwrap();
    assert_eq!(after.status(), StatusCode::OK);
    assert_ne!(after.headers()["etag"], etag.as_str());
}
