//! iOS through the platform-free HTTP routes: fake `xcrun` (a recorded simctl listing with a
//! booted simulator), fake `axe`/`idb` replaying recorded real UI dumps; the snapshot is in
//! points and a tap on a ref reaches AXe as that element's centre in points.

use crate::common;

use std::path::PathBuf;

use axum::http::StatusCode;
use common::*;
use mobilectl::exec::Tool;
use serde_json::json;

const UDID: &str = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
const SIMS: &str =
    "ios_simctl/simctl_list_devices_json_xcode15_ios15.5-17.5_with_lastBootedAt.json";
const AXE_TREE: &str = "ios_axe/axe_describe_ui_tuist_app_trimmed_393x852.json";
const IDB_TREE: &str = "ios_idb/idb_describe_all_json_springboard_home_iphone_430x932_ios18.4.json";

fn xcrun(fakes: &FakeTools) -> PathBuf {
    let list = fixture(SIMS);
    let apps = fixture("ios_simctl/simctl_listapps_xcode27_ios27_40apps_with_user_app.txt");
    fakes.add(
        "xcrun",
        &format!(
            r#"case "$1 $2" in
  "simctl list") cat '{}' ;;
  "simctl listapps") cat '{}' ;;
  *) exit 0 ;;
esac"#,
            list.display(),
            apps.display()
        ),
    )
}

/// A fake UI tool: its describe command prints `tree`, anything else exits 0.
fn ui_tool(fakes: &FakeTools, name: &str, tree: &str) -> PathBuf {
    let tree = fixture(tree);
    fakes.add(
        name,
        &format!(
            r#"case "$*" in
  *describe*) cat '{}' ;;
  *) exit 0 ;;
esac"#,
            tree.display()
        ),
    )
}

#[tokio::test]
async fn snapshot_in_points_and_tap_by_ref_through_axe() {
    let fakes = FakeTools::new();
    let (x, a) = (xcrun(&fakes), ui_tool(&fakes, "axe", AXE_TREE));
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &x), (Tool::Axe, &a)]),
        loopback_policy(),
    );
    let (status, snap) = call(&app, get(&format!("/api/v1/device/ui?udid={UDID}"))).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert_eq!(snap["coordinate_space"], "points");
    assert_eq!(snap["source"], "axe");
    assert_eq!(snap["screen"]["w"], 393.0);
    assert!(fakes.calls("axe").contains(&vec![
        "describe-ui".to_string(),
        "--udid".into(),
        UDID.into()
    ]));

    let el = snap["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["ref"].is_string() && e["states"]["clickable"] == true)
        .or_else(|| {
            snap["elements"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["ref"].is_string())
        })
        .expect("an element with a ref")
        .clone();
    let b = &el["bounds"];
    let cx = (b["x"].as_f64().unwrap() + b["w"].as_f64().unwrap() / 2.0).round();
    let cy = (b["y"].as_f64().unwrap() + b["h"].as_f64().unwrap() / 2.0).round();
    let (status, res) = call(
        &app,
        post("/api/v1/device/ui/tap", json!({ "ref": el["ref"] })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{res}");
    let tap = fakes
        .calls("axe")
        .into_iter()
        .find(|c| c[0] == "tap")
        .expect("axe tap");
    let n = |s: &str| s.parse::<f64>().unwrap();
    assert_eq!(tap[1], "-x");
    assert_eq!((n(&tap[2]), n(&tap[4])), (cx, cy), "{tap:?}");
    assert_eq!(tap[5..], ["--udid".to_string(), UDID.into()]);
}

#[tokio::test]
async fn idb_is_the_fallback_and_says_so() {
    let fakes = FakeTools::new();
    let (x, i) = (xcrun(&fakes), ui_tool(&fakes, "idb", IDB_TREE));
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &x), (Tool::Idb, &i)]),
        loopback_policy(),
    );
    let (status, snap) = call(&app, get(&format!("/api/v1/device/ui?udid={UDID}"))).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert_eq!(snap["source"], "idb");
    assert_eq!(snap["screen"]["w"], 430.0);
    assert!(snap["tree_text"].as_str().unwrap().lines().count() > 5);
}

#[tokio::test]
async fn without_a_ui_tool_ui_routes_are_503_and_app_routes_work() {
    let fakes = FakeTools::new();
    let x = xcrun(&fakes);
    let app = app_with(toolbox(&[(Tool::Xcrun, &x)]), loopback_policy());
    let (status, body) = call(&app, get(&format!("/api/v1/device/ui?udid={UDID}"))).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(error_code(&body), "TOOL_MISSING");
    let hint = body["error"]["hint"].as_str().unwrap();
    assert!(hint.contains("AXe") || hint.contains("axe"), "{hint}");
    let (status, apps) = call(&app, get(&format!("/api/v1/device/app/list?udid={UDID}"))).await;
    assert_eq!(status, StatusCode::OK, "{apps}");
    assert_eq!(apps["apps"].as_array().unwrap().len(), 40);
}

#[tokio::test]
async fn screenshot_pixels_map_to_points() {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let fakes = FakeTools::new();
    // A simulator screenshot of a 393x852-point screen at 3x.
    let png = fakes.dir.path().join("shot.png");
    image::RgbImage::from_pixel(1179, 2556, image::Rgb([200, 200, 200]))
        .save(&png)
        .unwrap();
    let xcrun = fake_xcrun_screenshots(&fakes, SIMS, &png);
    let axe = ui_tool(&fakes, "axe", AXE_TREE);
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &xcrun), (Tool::Axe, &axe)]),
        loopback_policy(),
    );
    let res = app
        .clone()
        .oneshot(get(&format!(
            "/api/v1/device/screenshot?udid={UDID}&scale=0.5"
        )))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let h = res.headers().clone();
    assert_eq!(h["x-coordinate-space"], "points");
    assert_eq!(h["x-original-size"], "1179x2556");
    // tap points = image pixel × (1179 / 590) / 3
    let per: f64 = h["x-tap-per-image-pixel"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((per - 1179.0 / 590.0 / 3.0).abs() < 1e-4, "{per}");
    let body = res.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(image::load_from_memory(&body).unwrap().width(), 590);
    let io = fakes
        .calls("xcrun")
        .into_iter()
        .find(|c| c[1] == "io")
        .unwrap();
    assert_eq!(io[..5], ["simctl", "io", UDID, "screenshot", "--type=png"]);
}

#[tokio::test]
async fn a_css_selector_on_a_simulator_is_501_saying_where_web_content_is_read() {
    let fakes = FakeTools::new();
    let (x, a) = (xcrun(&fakes), ui_tool(&fakes, "axe", AXE_TREE));
    let app = app_with(
        toolbox(&[(Tool::Xcrun, &x), (Tool::Axe, &a)]),
        loopback_policy(),
    );
    let (status, body) = call(
        &app,
        post(
            &format!("/api/v1/device/ui/tap?udid={UDID}"),
            json!({ "selector": { "css": "#email" } }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    let hint = body["error"]["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("WKWebView"), "{body}");
    assert!(
        !fakes.calls("axe").iter().any(|c| c[0] == "tap"),
        "nothing was tapped"
    );
}
