//! Every Android route through the real adb and the virtual device, with assertions on the
//! exact commands the device received (its journal: argv after its shell parsed them).

use crate::common;

use axum::http::StatusCode;
use common::android::*;
use common::*;
use serde_json::{json, Value};

fn ran(h: &virtual_device::testing::VdHarness, argv: &[&str]) -> bool {
    h.journal_argvs()
        .iter()
        .any(|a| a.iter().map(String::as_str).eq(argv.iter().copied()))
}

#[tokio::test]
async fn app_routes() {
    let h = start_device();
    let app = app_for(&h);

    // install: a file that exists with the .apk extension
    let dir = tempfile::tempdir().unwrap();
    let apk = dir.path().join("notes.apk");
    // (An APK is a zip archive; the virtual device reads the package marker after the header.)
    std::fs::write(&apk, b"PK\x03\x04 package=com.example.notes\n").unwrap();
    let (status, body) = call(
        &app,
        post("/api/v1/device/app/install", json!({ "path": apk })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = call(&app, get("/api/v1/device/app/list")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let ids: Vec<&str> = body["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["bundle_id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"com.example.notes"), "{ids:?}");
    assert!(ran(&h, &["pm", "list", "packages", "-3"]));

    // A text file named .apk, and a link to one, are refused before anything runs.
    let text = dir.path().join("readme.apk");
    std::fs::write(&text, b"package=com.example.fake\n").unwrap();
    let link = dir.path().join("link.apk");
    std::os::unix::fs::symlink(&apk, &link).unwrap();
    for (path, words) in [(&text, "not an APK"), (&link, "symbolic link")] {
        let (status, body) = call(
            &app,
            post("/api/v1/device/app/install", json!({ "path": path })),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(words),
            "{body}"
        );
    }

    // .aab, a missing path and a non-apk are refused before anything runs
    let aab = dir.path().join("app.aab");
    std::fs::write(&aab, b"x").unwrap();
    let (status, body) = call(
        &app,
        post("/api/v1/device/app/install", json!({ "path": aab })),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["error"]["hint"]
        .as_str()
        .unwrap()
        .contains("bundletool"));
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/app/install",
            json!({ "path": "/nope/x.apk" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // launch resolves the launcher activity on the device and reports the launch time
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            json!({ "bundle_id": "com.mobilectl.demo" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["activity"], "com.mobilectl.demo/.LoginActivity");
    // The start as Android measured it: the demo app runs from the device's start, so Android
    // brings it back, a hot start with its own times.
    assert_eq!(body["startup"]["launch_state"], "HOT", "{body}");
    assert_eq!(body["launch_time_ms"], 48);
    assert_eq!(body["startup"]["total_time_ms"], 48);
    assert_eq!(body["startup"]["wait_time_ms"], 53);
    assert_eq!(body["startup"]["complete"], true);
    // Relaunched: stopped first, so a cold start.
    let (_, relaunched) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            json!({ "bundle_id": "com.mobilectl.demo", "relaunch": true }),
        ),
    )
    .await;
    assert_eq!(
        relaunched["startup"]["launch_state"], "COLD",
        "{relaunched}"
    );
    assert_eq!(relaunched["launch_time_ms"], 312);
    assert_eq!(relaunched["startup"]["wait_time_ms"], 318);
    // Repeated: every start's time and their median, as Android measured them.
    let (status, repeated) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            json!({ "bundle_id": "com.mobilectl.demo", "relaunch": true, "repeat": 3 }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{repeated}");
    assert_eq!(
        repeated["starts"]["times_ms"],
        json!([312, 312, 312]),
        "{repeated}"
    );
    assert_eq!(repeated["starts"]["median_ms"], 312);
    assert_eq!(repeated["starts"]["measured_by"], "platform");
    let (_, hot) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            json!({ "bundle_id": "com.mobilectl.demo", "repeat": 2 }),
        ),
    )
    .await;
    assert_eq!(hot["starts"]["times_ms"], json!([48, 48]), "{hot}");
    for bad in [0, 21] {
        let (status, err) = call(
            &app,
            post(
                "/api/v1/device/app/launch",
                json!({ "bundle_id": "com.mobilectl.demo", "repeat": bad }),
            ),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
        assert!(
            err["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`repeat` is 1 to 20"),
            "{err}"
        );
    }
    assert!(ran(
        &h,
        &[
            "cmd",
            "package",
            "resolve-activity",
            "--brief",
            "-c",
            "android.intent.category.LAUNCHER",
            "com.mobilectl.demo"
        ]
    ));
    assert!(ran(
        &h,
        &[
            "am",
            "start",
            "-W",
            "-n",
            "com.mobilectl.demo/.LoginActivity"
        ]
    ));
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            json!({ "bundle_id": "com.example.absent" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");

    // terminate, reset
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/app/terminate",
            json!({ "bundle_id": "com.mobilectl.demo" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(ran(&h, &["am", "force-stop", "com.mobilectl.demo"]));
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/app/reset",
            json!({ "bundle_id": "com.mobilectl.demo" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(ran(&h, &["pm", "clear", "com.mobilectl.demo"]));

    // identifiers are validated before they reach the device
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/app/terminate",
            json!({ "bundle_id": "com.x;reboot" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(!h.journal_argvs().iter().any(|a| a[0] == "reboot"));

    // open-url: the URL arrives as one argument; dangerous schemes are refused
    let url = "https://example.com/a?b=1&c=$(id)";
    let (status, body) = call(&app, post("/api/v1/device/open-url", json!({ "url": url }))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(ran(
        &h,
        &["am", "start", "-a", "android.intent.action.VIEW", "-d", url]
    ));
    for bad in [
        "javascript:alert(1)",
        "file:///sdcard/x",
        "content://contacts/people",
    ] {
        let (status, body) =
            call(&app, post("/api/v1/device/open-url", json!({ "url": bad }))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }

    // permission grant / revoke
    let (status, _) = call(&app, post("/api/v1/device/permission", json!({
        "bundle_id": "com.mobilectl.demo", "permission": "android.permission.POST_NOTIFICATIONS", "action": "grant" }))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(ran(
        &h,
        &[
            "pm",
            "grant",
            "com.mobilectl.demo",
            "android.permission.POST_NOTIFICATIONS"
        ]
    ));
    let (status, _) = call(&app, post("/api/v1/device/permission", json!({
        "bundle_id": "com.mobilectl.demo", "permission": "android.permission.CAMERA", "action": "revoke" }))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(ran(
        &h,
        &[
            "pm",
            "revoke",
            "com.mobilectl.demo",
            "android.permission.CAMERA"
        ]
    ));

    // reset on a device without `pm clear-permission-flags` (older Androids, the virtual
    // device): the revoke stands and the answer says what was not done.
    let (status, body) = call(&app, post("/api/v1/device/permission", json!({
        "bundle_id": "com.mobilectl.demo", "permission": "android.permission.CAMERA", "action": "reset" }))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], true);
    assert!(
        body["note"]
            .as_str()
            .unwrap()
            .contains("clear-permission-flags"),
        "{body}"
    );

    // location: the virtual device is not an emulator
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/location",
            json!({ "latitude": 48.85, "longitude": 2.29 }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM");
}

#[tokio::test]
async fn screenshot_is_the_devices_png() {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let h = start_device();
    let app = app_for(&h);
    let res = app.oneshot(get("/api/v1/device/screenshot")).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "image/png");
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    let img = image::load_from_memory(&bytes).unwrap();
    assert_eq!((img.width(), img.height()), (1080, 2400));
    assert!(ran(&h, &["screencap", "-p"]));
}

async fn snapshot(app: &axum::Router) -> Value {
    let (status, snap) = call(app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    snap
}

/// Logs in through the demo app's login and permission screens to its list screen.
async fn to_list(app: &axum::Router) -> Value {
    call(
        app,
        post(
            "/api/v1/device/ui/tap",
            json!({ "selector": { "text": "LOG IN" } }),
        ),
    )
    .await;
    call(app, post("/api/v1/device/alert/accept", json!({}))).await;
    let (_, snap) = call(app, get("/api/v1/device/ui")).await;
    snap
}

#[tokio::test]
async fn inspect_routes() {
    let h = start_device();
    let app = app_for(&h);
    let res = {
        use tower::ServiceExt;
        app.clone()
            .oneshot(get("/api/v1/device/ui?format=text"))
            .await
            .unwrap()
    };
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let text = {
        use http_body_util::BodyExt;
        String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
    };
    assert!(text.starts_with("# s1 "), "{text}");
    assert!(text.contains("\"LOG IN\" [e"), "{text}");

    let (_, only) = call(&app, get("/api/v1/device/ui?interactive_only=true")).await;
    let full = snapshot(&app).await;
    assert!(only["tree_text"].as_str().unwrap().len() < full["tree_text"].as_str().unwrap().len());
    assert!(!only["tree_text"].as_str().unwrap().contains("Welcome back"));

    let (status, summary) = call(&app, get("/api/v1/device/screen-summary")).await;
    assert_eq!(status, StatusCode::OK, "{summary}");
    assert_eq!(summary["keyboard_visible"], false);
    assert!(summary["interactive_elements"].as_array().unwrap().len() >= 4);

    let (status, found) = call(&app, get("/api/v1/device/ui/find?query=log%20in")).await;
    assert_eq!(status, StatusCode::OK, "{found}");
    assert_eq!(found["matches"][0]["name"], "LOG IN");
    let (status, _) = call(&app, get("/api/v1/device/ui/find?query=")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn act_routes() {
    let h = start_device();
    let app = app_for(&h);
    let list = to_list(&app).await;
    assert!(
        list["tree_text"].as_str().unwrap().contains("Order #1001"),
        "{}",
        list["tree_text"]
    );

    // A scroll says whether the content moved: at the top of the list, scrolling up does not;
    // the answer's snapshot and changes come only with `observe`.
    let (status, top) = call(
        &app,
        post("/api/v1/device/ui/scroll", json!({ "direction": "up" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{top}");
    assert_eq!(top["details"]["moved"], false, "{top}");
    assert!(
        top.get("changes").is_none() && top.get("snapshot_id").is_none(),
        "{top}"
    );
    let said = mobilectl::render::renderer("scroll").unwrap()(&top);
    assert!(said.contains("nothing moved"), "{said}");
    let (status, down) = call(
        &app,
        post(
            "/api/v1/device/ui/scroll",
            json!({ "direction": "down", "observe": true }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{down}");
    println!("scroll down on the list: {down}");
    assert!(down["details"]["moved"].is_boolean(), "{down}");
    assert!(down["snapshot_id"].is_string(), "{down}");
    // Back where the list began, for what follows.
    call(
        &app,
        post("/api/v1/device/ui/scroll", json!({ "direction": "up" })),
    )
    .await;

    // tap-element with several matches is ambiguous, with candidates
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/tap-element",
            json!({ "identifier": "item" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "AMBIGUOUS_TARGET");
    let candidates = body["error"]["details"]["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 5);
    // Each row goes by the text its line in the tree prints, not by nothing.
    assert_eq!(candidates[0]["name"], "Order #1001 · Shipped · 2 items");
    let (status, found) = call(&app, get("/api/v1/device/ui/find?query=Order%201003")).await;
    assert_eq!(status, StatusCode::OK, "{found}");
    assert_eq!(
        found["matches"][0]["name"],
        "Order #1003 · Delivered · 5 items"
    );
    assert_eq!(found["found"], true, "{found}");
    // No such order: the answer says so, whatever look-alikes it lists.
    let (status, none) = call(&app, get("/api/v1/device/ui/find?query=1007")).await;
    assert_eq!(status, StatusCode::OK, "{none}");
    assert_eq!(none["found"], false, "{none}");
    let looks = none["matches"].as_array().unwrap();
    assert!(looks.iter().all(|m| m["kind"] == "fuzzy"), "{none}");
    let said = mobilectl::render::renderer("find").unwrap()(&none);
    assert!(
        looks.is_empty() && said == "no match" || said.starts_with("no match; look-alikes:\n"),
        "{said}"
    );
    let (status, summary) = call(&app, get("/api/v1/device/screen-summary")).await;
    assert_eq!(status, StatusCode::OK, "{summary}");
    let names: Vec<&str> = summary["interactive_elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert!(names.contains(&"Order #1004 · Cancelled"), "{names:?}");
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/tap-element",
            json!({ "label": "Order #1002", "contains": true }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let detail = snapshot(&app).await;
    let text = detail["tree_text"].as_str().unwrap();
    // The tap landed on the second row: its order opened, not another.
    assert!(
        text.contains("SEND") && text.contains("\"Order #1002\""),
        "{text}"
    );
    assert!(!text.contains("Order #1001"), "{text}");

    // press back returns to the list
    let (status, _) = call(
        &app,
        post("/api/v1/device/ui/press", json!({ "key": "back" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(ran(&h, &["input", "keyevent", "4"]));
    let (status, _) = call(
        &app,
        post("/api/v1/device/ui/press", json!({ "keycode": 24 })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(ran(&h, &["input", "keyevent", "24"]));
    let (status, _) = call(
        &app,
        post("/api/v1/device/ui/press", json!({ "key": "siri" })),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED);

    // long press is a zero-distance swipe
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/long-press",
            json!({ "x": 540, "y": 400, "duration_ms": 800 }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(ran(
        &h,
        &["input", "swipe", "540", "400", "540", "400", "800"]
    ));
    call(
        &app,
        post("/api/v1/device/ui/press", json!({ "key": "back" })),
    )
    .await;

    // swipe between points; scroll inside the default container
    let (status, _) = call(&app, post("/api/v1/device/ui/swipe", json!({ "from": {"x": 540, "y": 1800}, "to": {"x": 540, "y": 600}, "duration_ms": 250 }))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(ran(
        &h,
        &["input", "swipe", "540", "1800", "540", "600", "250"]
    ));
    let (status, body) = call(
        &app,
        post("/api/v1/device/ui/scroll", json!({ "direction": "down" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (from, to) = (&body["details"]["from"], &body["details"]["to"]);
    assert!(
        from["y"].as_f64().unwrap() > to["y"].as_f64().unwrap(),
        "{body}"
    );
    // Aimed at a point near the bottom edge (of a 1080x2400 screen), the finger stays on it.
    for (route, direction) in [("scroll", "down"), ("swipe", "up")] {
        let (status, body) = call(
            &app,
            post(
                &format!("/api/v1/device/ui/{route}"),
                json!({ "x": 540, "y": 2390, "direction": direction }),
            ),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        for end in ["from", "to"] {
            let y = body["details"][end]["y"].as_f64().unwrap();
            assert!((0.0..2400.0).contains(&y), "{route}: {body}");
        }
    }

    // a target needs exactly one form
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({ "ref": "e1", "x": 1, "y": 2 }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({ "selector": { "text": "No such thing" } }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(error_code(&body), "ELEMENT_NOT_FOUND");
}

#[tokio::test]
async fn scroll_to_reports_the_scrolls_and_the_end() {
    let h = start_device();
    let app = app_for(&h);
    to_list(&app).await;
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/scroll-to",
            json!({ "selector": { "text": "Order #1003" } }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["details"]["scrolls"], 0);
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/scroll-to",
            json!({ "selector": { "text": "Order #9999" }, "max_scrolls": 3 }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let scrolls = body["error"]["details"]["scrolls"].as_u64().unwrap();
    assert!((1..=3).contains(&scrolls), "{body}");
}

#[tokio::test]
async fn hide_keyboard_only_when_it_is_up() {
    let h = start_device();
    let app = app_for(&h);
    let (status, body) = call(&app, post("/api/v1/device/ui/hide-keyboard", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["details"]["keyboard_was_visible"], false);
    let backs = |h: &virtual_device::testing::VdHarness| {
        h.journal_argvs()
            .iter()
            .filter(|a| a.join(" ") == "input keyevent 4")
            .count()
    };
    assert_eq!(backs(&h), 0);
    call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({ "selector": { "id": "username" } }),
        ),
    )
    .await;
    let snap = snapshot(&app).await;
    assert_eq!(snap["keyboard_visible"], true, "{}", snap["tree_text"]);
    let (_, body) = call(&app, post("/api/v1/device/ui/hide-keyboard", json!({}))).await;
    assert_eq!(body["details"]["keyboard_was_visible"], true);
    assert_eq!(backs(&h), 1);
    assert_eq!(snapshot(&app).await["keyboard_visible"], false);
}

#[tokio::test]
async fn points_off_the_screen_are_refused_before_any_input() {
    let h = start_device();
    let app = app_for(&h);
    // The virtual device's screen is 1080×2400; nothing has been read yet, so the first
    // refusal reads it.
    let off = [
        ("/api/v1/device/ui/tap", json!({"x": 1e308, "y": 1e308})),
        ("/api/v1/device/ui/tap", json!({"x": 5000, "y": 99999})),
        ("/api/v1/device/ui/tap", json!({"x": 1080, "y": 10})),
        (
            "/api/v1/device/ui/long-press",
            json!({"x": 10, "y": 2400, "duration_ms": 200}),
        ),
        (
            "/api/v1/device/ui/swipe",
            json!({"from": {"x": 540, "y": 1800}, "to": {"x": 540, "y": 1e308}}),
        ),
        (
            "/api/v1/device/ui/swipe",
            json!({"from": {"x": -1, "y": 1800}, "to": {"x": 540, "y": 600}}),
        ),
        (
            "/api/v1/device/ui/swipe",
            json!({"x": 9999, "y": 100, "direction": "down"}),
        ),
        (
            "/api/v1/device/ui/scroll",
            json!({"x": 540, "y": 50000, "direction": "down"}),
        ),
    ];
    for (path, body) in &off {
        let (status, answer) = call(&app, post(path, body.clone())).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{path} {body}: {answer}"
        );
        assert_eq!(error_code(&answer), "ELEMENT_NOT_INTERACTABLE", "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("1080×2400"), "{message}");
        assert_eq!(answer["error"]["details"]["screen"]["w"], 1080.0);
        assert!(answer["error"]["hint"].is_string());
    }
    // Negative points are refused as bad input (400).
    let (status, answer) = call(
        &app,
        post("/api/v1/device/ui/tap", json!({"x": -5, "y": 10})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert!(
        argvs_with(&h, "input").is_empty(),
        "an input command ran: {:?}",
        argvs_with(&h, "input")
    );
    // A point on the screen still taps.
    let (status, answer) = call(
        &app,
        post("/api/v1/device/ui/tap", json!({"x": 1079, "y": 2399})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(argvs_with(&h, "input").len(), 1);
}

/// One device by udid or name: the listing's entry, with what its backend can do; a name no
/// device has is a 404 naming the devices there are.
#[tokio::test]
async fn one_device_by_udid_or_name_with_its_capabilities() {
    let h = start_device();
    let app = app_for(&h);
    let (status, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let listed = &list["devices"][0];
    let udid = listed["udid"].as_str().unwrap();
    let (status, one) = call(&app, get(&format!("/api/v1/devices/{udid}"))).await;
    assert_eq!(status, StatusCode::OK, "{one}");
    assert_eq!(&one, listed);
    let caps: Vec<&str> = one["capabilities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    for must in ["apps", "screen", "input", "logs"] {
        assert!(caps.contains(&must), "{caps:?}");
    }
    let said = mobilectl::render::renderer("get_device").unwrap()(&one);
    assert!(said.starts_with(udid), "{said}");
    assert!(
        said.contains("\ncan: ") && said.contains("screen"),
        "{said}"
    );
    let name = listed["name"].as_str().unwrap();
    let (status, by_name) = call(&app, get(&format!("/api/v1/devices/{name}"))).await;
    assert_eq!(status, StatusCode::OK, "{by_name}");
    assert_eq!(by_name["udid"], udid);
    let (status, none) = call(&app, get("/api/v1/devices/no-such-phone")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{none}");
    assert_eq!(error_code(&none), "NO_DEVICE");
}
