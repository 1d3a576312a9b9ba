//! Screenshots through the real adb and the virtual device: scaling, JPEG, geometry headers,
//! annotation boxes on the elements' bounds, and grid-cell taps.

use crate::common;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use common::android::*;
use common::*;
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

async fn fetch(app: &axum::Router, path: &str) -> (StatusCode, HeaderMap, Bytes) {
    let res = app.clone().oneshot(get(path)).await.unwrap();
    let (status, headers) = (res.status(), res.headers().clone());
    (
        status,
        headers,
        res.into_body().collect().await.unwrap().to_bytes(),
    )
}

fn header<'a>(h: &'a HeaderMap, k: &str) -> &'a str {
    h.get(k).map(|v| v.to_str().unwrap()).unwrap_or("")
}

#[tokio::test]
async fn scaled_png_and_jpeg_with_geometry_headers() {
    let h = start_device();
    let app = app_for(&h);
    let (status, headers, body) = fetch(&app, "/api/v1/device/screenshot?scale=0.5").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, "content-type"), "image/png");
    let img = image::load_from_memory(&body).unwrap();
    assert_eq!((img.width(), img.height()), (540, 1200));
    assert_eq!(header(&headers, "x-original-size"), "1080x2400");
    assert_eq!(header(&headers, "x-image-size"), "540x1200");
    assert_eq!(header(&headers, "x-coordinate-space"), "pixels");
    assert_eq!(header(&headers, "x-tap-per-image-pixel"), "2.000000");

    let (status, headers, body) =
        fetch(&app, "/api/v1/device/screenshot?format=jpeg&quality=70").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, "content-type"), "image/jpeg");
    assert_eq!(&body[..3], &[0xFF, 0xD8, 0xFF]);

    let (_, headers, _) = fetch(&app, "/api/v1/device/screenshot?max_size=800").await;
    assert_eq!(header(&headers, "x-image-size"), "360x800");

    for bad in ["scale=2", "scale=0.01", "quality=0", "format=gif"] {
        let (status, body) = call(&app, get(&format!("/api/v1/device/screenshot?{bad}"))).await;
        assert!(status == StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
}

#[tokio::test]
async fn annotated_boxes_sit_on_the_elements_bounds() {
    let h = start_device();
    let app = app_for(&h);
    let (_, _, plain) = fetch(&app, "/api/v1/device/screenshot").await;
    let (status, headers, annotated) = fetch(&app, "/api/v1/device/screenshot/annotated").await;
    assert_eq!(status, StatusCode::OK);
    let snapshot_id = header(&headers, "x-snapshot-id").to_string();
    assert!(snapshot_id.starts_with('s'));
    // The refs drawn are the device's latest: acting on one with that snapshot id works.
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    let login = snap["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "LOG IN")
        .unwrap()
        .clone();
    let b = &login["bounds"];
    let (x, y, w, hh) = (
        b["x"].as_f64().unwrap() as u32,
        b["y"].as_f64().unwrap() as u32,
        b["w"].as_f64().unwrap() as u32,
        b["h"].as_f64().unwrap() as u32,
    );
    let plain = image::load_from_memory(&plain).unwrap().to_rgb8();
    let annotated = image::load_from_memory(&annotated).unwrap().to_rgb8();
    assert_eq!(plain.dimensions(), annotated.dimensions());
    let mid = y + hh / 2;
    // The outline is drawn on the right and bottom edges of the bounds…
    assert_ne!(
        plain.get_pixel(x + w - 1, mid),
        annotated.get_pixel(x + w - 1, mid)
    );
    assert_ne!(
        plain.get_pixel(x + w / 2, y + hh - 1),
        annotated.get_pixel(x + w / 2, y + hh - 1)
    );
    // …and nothing just outside them, nor in the middle of the element.
    assert_eq!(
        plain.get_pixel(x + w + 4, mid),
        annotated.get_pixel(x + w + 4, mid)
    );
    assert_eq!(
        plain.get_pixel(x + w / 2, y + hh + 4),
        annotated.get_pixel(x + w / 2, y + hh + 4)
    );
    assert_eq!(
        plain.get_pixel(x + w / 2, mid),
        annotated.get_pixel(x + w / 2, mid)
    );

    let (status, headers, body) = fetch(
        &app,
        "/api/v1/device/screenshot/annotated?grid=true&interactive_only=true&scale=0.5&format=jpeg",
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, "content-type"), "image/jpeg");
    assert_eq!(&body[..3], &[0xFF, 0xD8, 0xFF]);
}

#[tokio::test]
async fn a_grid_cell_taps_its_centre() {
    let h = start_device();
    let app = app_for(&h);
    // The demo screen is 1080x2400: the default grid is 10 columns by 22 rows.
    let (status, body) = call(
        &app,
        send_json(
            "POST",
            "/api/v1/device/ui/tap",
            &json!({ "grid": "C5" }).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (cw, ch) = (1080.0 / 10.0, 2400.0 / 22.0);
    let (ex, ey) = (
        (2.0 * cw + cw / 2.0_f64).round(),
        (4.0 * ch + ch / 2.0_f64).round(),
    );
    assert_eq!(body["target"]["x"].as_f64(), Some(ex));
    assert_eq!(body["target"]["y"].as_f64(), Some(ey));
    let tap = vec![
        "input".to_string(),
        "tap".into(),
        format!("{ex}"),
        format!("{ey}"),
    ];
    assert!(argvs_with(&h, "input").contains(&tap), "{tap:?}");
    let (status, _) = call(
        &app,
        send_json("POST", "/api/v1/device/ui/tap", r#"{"grid": "Z99"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}
