//! The visual diff through the real adb and the virtual device: `previous` before and after an
//! action (the keyboard coming up is one region around it), the status bar masked by default,
//! uploaded baselines (scaled, or refused with a clear 4xx before any device command), and
//! `expect` with `kind: screen_matches`.

use crate::common;

use axum::http::StatusCode;
use base64::Engine;
use common::android::*;
use common::*;
use serde_json::{json, Value};

const DIFF: &str = "/api/v1/device/screenshot/diff";
const EXPECT: &str = "/api/v1/device/ui/expect";

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

async fn diff(app: &axum::Router, body: Value) -> (StatusCode, Value) {
    call(app, post(DIFF, body)).await
}

/// The region as (x, y, right, bottom).
fn edges(r: &Value) -> (f64, f64, f64, f64) {
    let f = |k: &str| r[k].as_f64().unwrap();
    (f("x"), f("y"), f("x") + f("width"), f("y") + f("height"))
}

fn close(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64), px: f64) -> bool {
    (a.0 - b.0).abs() <= px
        && (a.1 - b.1).abs() <= px
        && (a.2 - b.2).abs() <= px
        && (a.3 - b.3).abs() <= px
}

/// Taps the username field: the keyboard comes up over the lower 40% of the screen.
async fn open_keyboard(app: &axum::Router) {
    let (_, snap) = call(app, get("/api/v1/device/ui")).await;
    let user = ref_by_id(&snap, "username");
    let (status, tapped) = call(app, post("/api/v1/device/ui/tap", json!({ "ref": user }))).await;
    assert_eq!(status, StatusCode::OK, "{tapped}");
}

/// The keyboard window of the demo: [0,1440][1080,2400].
const KEYBOARD: (f64, f64, f64, f64) = (0.0, 1440.0, 1080.0, 2400.0);

#[tokio::test]
async fn previous_is_the_screen_before_the_last_action() {
    let h = start_device();
    let app = app_for(&h);

    // Nothing kept yet: a clear 404 with what to do.
    let (status, body) = diff(&app, json!({ "baseline": { "previous": true } })).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(error_code(&body), "NOT_FOUND");
    assert!(
        body["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("take a screenshot before acting"),
        "{body}"
    );

    // A screenshot, then the diff against it: nothing changed.
    let (status, _, _) = get_raw(&app, "/api/v1/device/screenshot").await;
    assert_eq!(status, StatusCode::OK);
    let (status, same) = diff(&app, json!({ "baseline": { "previous": true } })).await;
    assert_eq!(status, StatusCode::OK, "{same}");
    assert_eq!(same["changed_share"], 0.0, "{same}");
    assert_eq!(same["regions"], json!([]));
    assert_eq!(same["coordinate_space"], "pixels");
    assert_eq!(same["screen"]["w"], 1080.0);
    assert_eq!(same["screen"]["h"], 2400.0);
    assert_eq!(same["baseline"]["source"], "previous");
    // Nothing acted since that screenshot: it is the latest, and the answer says so.
    assert_eq!(same["baseline"]["before_last_action"], false);
    // No snapshot kept yet: the status bar is 3.5% of the height (84 of 2400 px).
    assert_eq!(
        same["status_bar"],
        json!({ "x": 0, "y": 0, "width": 1080, "height": 84, "source": "fallback" })
    );
    assert!(same.get("image").is_none(), "no image unless asked: {same}");

    // The keyboard comes up: one region, around it.
    open_keyboard(&app).await;
    let (status, mut typed) = diff(
        &app,
        json!({ "baseline": { "previous": true }, "save": true }),
    )
    .await;
    // The image aside, so that a failure prints the rest.
    let image = typed["image"].take();
    assert_eq!(status, StatusCode::OK, "{typed}");
    let regions = typed["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 1, "{typed}");
    assert!(
        close(edges(&regions[0]), KEYBOARD, 24.0),
        "{:?} is not the keyboard {KEYBOARD:?}",
        edges(&regions[0])
    );
    // The keyboard's grey is all new: about its 1078x960 px of the 1080x2316 compared.
    let share = typed["changed_share"].as_f64().unwrap();
    assert!(share > 0.35 && share < 0.45, "{share}");
    assert_eq!(typed["baseline"]["before_last_action"], true);
    // The tap read the screen: its status bar now comes from the tree.
    assert_eq!(typed["status_bar"]["source"], "ui_tree");
    assert_eq!(typed["status_bar"]["height"], 84);
    // The outlined screen, as a PNG of the screen's size.
    let png = base64::engine::general_purpose::STANDARD
        .decode(image["base64"].as_str().unwrap())
        .unwrap();
    let img = image::load_from_memory(&png).unwrap();
    assert_eq!((img.width(), img.height()), (1080, 2400));
    assert_eq!(image["content_type"], "image/png");

    // The diff's own screenshot does not move `previous`: still the screen before the tap.
    let (_, again) = diff(&app, json!({ "baseline": { "previous": true } })).await;
    assert_eq!(again["regions"], typed["regions"], "{again}");
    assert_eq!(again["baseline"]["taken_at"], typed["baseline"]["taken_at"]);

    // After the next action, `previous` is the latest screenshot before it (the keyboard up).
    let (status, pressed) = call(
        &app,
        post("/api/v1/device/ui/press", json!({ "key": "back" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{pressed}");
    let (_, closed) = diff(&app, json!({ "baseline": { "previous": true } })).await;
    assert_ne!(
        closed["baseline"]["taken_at"],
        typed["baseline"]["taken_at"]
    );
    let regions = closed["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 1, "{closed}");
    assert!(close(edges(&regions[0]), KEYBOARD, 24.0), "{closed}");
}

/// The PNG of the screen now, with the status bar band painted over.
fn with_status_bar_changed(png: &[u8]) -> Vec<u8> {
    let mut img = image::load_from_memory(png).unwrap().into_rgba8();
    for y in 10..70 {
        for x in 40..400 {
            img.put_pixel(x, y, image::Rgba([255, 255, 255, 255]));
        }
    }
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

#[tokio::test]
async fn uploaded_baselines_and_the_status_bar() {
    let h = start_device();
    let app = app_for(&h);
    let (_, _, png) = get_raw(&app, "/api/v1/device/screenshot").await;

    // The same screen uploaded: nothing changed.
    let (status, same) = diff(&app, json!({ "baseline": { "png": b64(&png) } })).await;
    assert_eq!(status, StatusCode::OK, "{same}");
    assert_eq!(same["changed_share"], 0.0);
    assert_eq!(same["baseline"], json!({ "source": "png" }));

    // Only the status bar differs: ignored by default, one region when it is compared.
    let clock = b64(&with_status_bar_changed(&png));
    let (_, masked) = diff(&app, json!({ "baseline": { "png": clock } })).await;
    assert_eq!(masked["regions"], json!([]), "{masked}");
    assert_eq!(masked["changed_share"], 0.0);
    let (_, seen) = diff(
        &app,
        json!({ "baseline": { "png": clock }, "mask_status_bar": false }),
    )
    .await;
    let regions = seen["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 1, "{seen}");
    let (x, y, right, bottom) = edges(&regions[0]);
    assert!(
        y < 84.0 && bottom <= 84.0 && x >= 0.0 && right <= 1080.0,
        "{seen}"
    );
    assert!(seen.get("status_bar").is_none());
    // A mask of the caller's hides it too.
    let (_, hidden) = diff(
        &app,
        json!({ "baseline": { "png": clock }, "mask_status_bar": false,
                "mask": [{ "x": 0, "y": 0, "width": 1080, "height": 90 }] }),
    )
    .await;
    assert_eq!(hidden["regions"], json!([]), "{hidden}");

    // A baseline of half the size is scaled; one of another shape is refused with both sizes.
    let (status, scaled) = diff(
        &app,
        json!({ "baseline": { "png": b64(&blank_png(540, 1200)) } }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{scaled}");
    assert_eq!(scaled["baseline"]["scaled_from"], "540x1200");
    assert!(scaled["changed_share"].as_f64().unwrap() > 0.5, "{scaled}");
    let (status, wide) = diff(
        &app,
        json!({ "baseline": { "png": b64(&blank_png(200, 100)) } }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{wide}");
    assert_eq!(error_code(&wide), "BASELINE_UNUSABLE");
    assert_eq!(
        wide["error"]["details"],
        json!({ "baseline": "200x100", "screen": "1080x2400" })
    );
}

#[tokio::test]
async fn bad_baselines_are_clear_errors_before_any_device_command() {
    let h = start_device();
    let app = app_for(&h);
    let cases = [
        (
            json!({ "png": b64(b"hello, not an image") }),
            422,
            "BASELINE_UNUSABLE",
            "not a PNG",
        ),
        (
            json!({ "png": b64(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16]) }),
            422,
            "BASELINE_UNUSABLE",
            "JPEG",
        ),
        (
            json!({ "png": "%%% not base64" }),
            422,
            "BASELINE_UNUSABLE",
            "base64",
        ),
        (json!({}), 400, "VALIDATION_FAILED", "exactly one"),
        (
            json!({ "previous": true, "png": "AA==" }),
            400,
            "VALIDATION_FAILED",
            "exactly one",
        ),
        (
            json!({ "previus": true }),
            400,
            "VALIDATION_FAILED",
            "previus",
        ),
        (
            json!({ "artifact": { "run": "r1", "name": "home.png" } }),
            400,
            "VALIDATION_FAILED",
            "not a run id",
        ),
        (
            json!({ "artifact": { "run": "20260101-120000-ab12cd", "name": "home.png" } }),
            404,
            "RUN_NOT_FOUND",
            "no run",
        ),
    ];
    for (baseline, status, code, says) in cases {
        let (got, body) = diff(&app, json!({ "baseline": baseline })).await;
        assert_eq!(got.as_u16(), status, "{baseline}: {body}");
        assert_eq!(error_code(&body), code, "{baseline}: {body}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(says),
            "{baseline}: {body}"
        );
    }
    for bad in [
        json!({ "baseline": { "previous": true }, "mask": [{ "x": -1, "y": 0, "width": 5, "height": 5 }] }),
        json!({ "baseline": { "previous": true }, "channel_threshold": 256 }),
    ] {
        let (got, body) = diff(&app, bad.clone()).await;
        assert_eq!(got, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
    assert!(
        argvs_with(&h, "screencap").is_empty(),
        "a refused request reached the device"
    );
    // A body over the route's limit is 413 (the uploads' limit is 20 MiB of PNG, not 1 MiB).
    let big = "A".repeat(1 << 21);
    let (got, body) = diff(&app, json!({ "baseline": { "png": big } })).await;
    assert_eq!(
        got,
        StatusCode::UNPROCESSABLE_ENTITY,
        "2 MiB of base64 is read: {body}"
    );
}

#[tokio::test]
async fn expect_screen_matches_passes_and_fails() {
    let h = start_device();
    let app = app_for(&h);
    let (_, _, png) = get_raw(&app, "/api/v1/device/screenshot").await;
    let login = json!({ "png": b64(&png) });

    let (status, ok) = call(
        &app,
        post(
            EXPECT,
            json!({ "kind": "screen_matches", "baseline": login }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{ok}");
    assert_eq!(ok["success"], true, "{ok}");
    assert_eq!(ok["observed"]["changed_share"], 0.0);
    assert_eq!(ok["observed"]["tolerance"], 0.001);

    open_keyboard(&app).await;
    let (_, failed) = call(
        &app,
        post(
            EXPECT,
            json!({ "kind": "screen_matches", "baseline": login }),
        ),
    )
    .await;
    assert_eq!(failed["success"], false, "{failed}");
    assert_eq!(failed["failure_code"], "SCREEN_MISMATCH");
    assert_eq!(failed["retryable"], true);
    let regions = failed["observed"]["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 1, "{failed}");
    assert!(close(edges(&regions[0]), KEYBOARD, 24.0), "{failed}");
    assert!(failed["observed"]["changed_share"].as_f64().unwrap() > 0.001);

    // Against the screen before the tap, with room for the keyboard, or with it masked: holds.
    for body in [
        json!({ "kind": "screen_matches", "baseline": { "previous": true }, "tolerance": 0.5 }),
        json!({ "kind": "screen_matches", "baseline": login,
                "mask": [{ "x": 0, "y": 1400, "width": 1080, "height": 1000 }] }),
    ] {
        let (_, r) = call(&app, post(EXPECT, body.clone())).await;
        assert_eq!(r["success"], true, "{body}: {r}");
    }

    // Waiting for a screen that does not come: compared again until the timeout (2 s: one
    // screenshot of the test device took longer than 700 ms on a loaded 2-core machine).
    let started = std::time::Instant::now();
    let (_, waited) = call(
        &app,
        post(
            EXPECT,
            json!({ "kind": "screen_matches", "baseline": login, "timeout_ms": 2000 }),
        ),
    )
    .await;
    assert_eq!(waited["success"], false);
    assert!(
        waited["observed"]["polls"].as_u64().unwrap() >= 2,
        "{waited}"
    );
    assert!(started.elapsed() >= std::time::Duration::from_millis(2000));

    // Fields are checked against the kind.
    for (body, says) in [
        (
            json!({ "kind": "screen_matches", "baseline": login, "tolerance": 2 }),
            "tolerance",
        ),
        (json!({ "kind": "screen_matches" }), "needs `baseline`"),
        (
            json!({ "kind": "foreground_app", "app": "x", "tolerance": 0.1 }),
            "does not take `tolerance`",
        ),
    ] {
        let (status, r) = call(&app, post(EXPECT, body.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {r}");
        assert!(
            r["error"]["message"].as_str().unwrap().contains(says),
            "{body}: {r}"
        );
    }
}

/// An iOS Simulator (fake `xcrun` whose screenshot is a fixed 1179x2556 PNG, fake AXe with a
/// 393x852-point tree): regions are in points, like its taps; the status bar falls back to
/// 6.5% of the height when the tree has no status bar.
#[tokio::test]
async fn on_ios_regions_are_in_points() {
    use mobilectl::exec::Tool;
    const UDID: &str = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
    let fakes = FakeTools::new();
    let png = fakes.dir.path().join("shot.png");
    let screen = image::RgbImage::from_pixel(1179, 2556, image::Rgb([240, 240, 240]));
    screen.save(&png).unwrap();
    let xcrun = fake_xcrun_screenshots(
        &fakes,
        "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json",
        &png,
    );
    let tree = fixture("ios_axe/axe_describe_ui_tuist_app_trimmed_393x852.json");
    let axe = fakes.add(
        "axe",
        &format!(
            "case \"$*\" in *describe*) cat '{}' ;; *) exit 0 ;; esac",
            tree.display()
        ),
    );
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &xcrun), (Tool::Axe, &axe)]),
        loopback_policy(),
    );
    // The baseline: the same screen without a 300x300 px card at (300, 900) px, and with a
    // changed clock in the status bar band.
    let mut base = screen.clone();
    for y in 900..1200 {
        for x in 300..600 {
            base.put_pixel(x, y, image::Rgb([20, 20, 20]));
        }
    }
    for y in 40..120 {
        for x in 60..200 {
            base.put_pixel(x, y, image::Rgb([0, 0, 0]));
        }
    }
    let mut bytes = Vec::new();
    base.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )
    .unwrap();
    let (status, d) = diff(
        &app,
        json!({ "udid": UDID, "baseline": { "png": b64(&bytes) } }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{d}");
    assert_eq!(d["coordinate_space"], "points");
    assert_eq!(d["screen"]["w"], 393.0);
    assert_eq!(
        d["regions"],
        json!([{ "x": 100, "y": 300, "width": 100, "height": 100, "changed_share": 1.0 }])
    );
    assert_eq!(
        d["status_bar"],
        json!({ "x": 0, "y": 0, "width": 393, "height": 55, "source": "fallback" })
    );
    // Masks are in points too: the card's 100x100 pt hides it.
    let (_, masked) = diff(
        &app,
        json!({ "udid": UDID, "baseline": { "png": b64(&bytes) },
                "mask": [{ "x": 100, "y": 300, "width": 100, "height": 100 }] }),
    )
    .await;
    assert_eq!(masked["regions"], json!([]), "{masked}");
}
