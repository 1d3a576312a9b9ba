//! The HTTP surface of the server built with `app(state)` and driven with `oneshot`: the error
//! envelope on every path, security defaults, health and docs.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::*;
use mobilectl::server::SecurityPolicy;

#[tokio::test]
async fn health_answers_versions() {
    let (status, body) = call(&bare_app(), get("/health")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        body["api_protocol_version"],
        mobilectl::API_PROTOCOL_VERSION
    );
}

#[tokio::test]
async fn foreign_host_is_403_json() {
    for host in ["evil.example", "evil.example:9100", "127.0.0.1.nip.io:9100"] {
        let req = Request::get("/health")
            .header("host", host)
            .body(Body::empty())
            .unwrap();
        let (status, body) = call(&bare_app(), req).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{host}");
        assert_eq!(error_code(&body), "FORBIDDEN_HOST");
        assert!(body["error"]["hint"].is_string());
    }
}

#[tokio::test]
async fn foreign_origin_is_403_json() {
    let req = Request::post("/api/v1/device/active")
        .header("host", "127.0.0.1:9100")
        .header("origin", "https://evil.example")
        .header("content-type", "application/json")
        .body(Body::from("{}"))
        .unwrap();
    let (status, body) = call(&bare_app(), req).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(error_code(&body), "FORBIDDEN_HOST");
}

#[tokio::test]
async fn malformed_json_is_400_envelope() {
    let (status, body) = call(
        &bare_app(),
        send_json("PUT", "/api/v1/device/active", "{\"udid\": "),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&body), "BAD_REQUEST");
}

#[tokio::test]
async fn wrong_types_and_unknown_fields_are_400_envelope() {
    for body in ["{\"udid\": 42}", "[]"] {
        let (status, json) =
            call(&bare_app(), send_json("PUT", "/api/v1/device/active", body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(error_code(&json), "BAD_REQUEST");
    }
    let (status, json) = call(
        &bare_app(),
        send_json("PUT", "/api/v1/device/active", "{\"udidd\": \"x\"}"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&json), "VALIDATION_FAILED");
    assert_eq!(
        json["error"]["message"],
        "unknown field `udidd`; did you mean `udid`?"
    );
}

#[tokio::test]
async fn bad_query_is_400_envelope() {
    let (status, body) = call(&bare_app(), get("/api/v1/device/list?platform=windows")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&body), "BAD_REQUEST");
}

#[tokio::test]
async fn non_json_body_is_415() {
    let req = Request::post("/api/v1/device/boot")
        .header("host", "localhost:9100")
        .header("content-type", "text/plain")
        .body(Body::from("avd=x"))
        .unwrap();
    let (status, body) = call(&bare_app(), req).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(error_code(&body), "UNSUPPORTED_MEDIA_TYPE");
}

#[tokio::test]
async fn oversized_body_is_413() {
    let big = format!("{{\"udid\": \"{}\"}}", "x".repeat(2 * 1024 * 1024));
    let (status, body) = call(&bare_app(), send_json("PUT", "/api/v1/device/active", &big)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(error_code(&body), "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn unknown_route_is_404_json() {
    let (status, body) = call(&bare_app(), get("/api/v1/nothing-here")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(error_code(&body), "ROUTE_NOT_FOUND");
}

#[tokio::test]
async fn wrong_method_is_405_json() {
    let (status, body) = call(
        &bare_app(),
        send_json("DELETE", "/api/v1/device/list", "{}"),
    )
    .await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(error_code(&body), "METHOD_NOT_ALLOWED");
}

fn token_app() -> axum::Router {
    app_with(
        mobilectl::exec::Toolbox::with([]),
        SecurityPolicy {
            token: Some("t0ken".into()),
            ..loopback_policy()
        },
    )
}

#[tokio::test]
async fn missing_or_wrong_token_is_401() {
    let (status, body) = call(&token_app(), get("/api/v1/doctor")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&body), "UNAUTHORIZED");

    let req = Request::get("/api/v1/doctor")
        .header("host", "127.0.0.1:9100")
        .header("authorization", "Bearer wrong")
        .body(Body::empty())
        .unwrap();
    let (status, _) = call(&token_app(), req).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn right_token_passes_and_health_needs_none() {
    let req = Request::get("/api/v1/doctor")
        .header("host", "127.0.0.1:9100")
        .header("authorization", "Bearer t0ken")
        .body(Body::empty())
        .unwrap();
    let (status, _) = call(&token_app(), req).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = call(&token_app(), get("/health")).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn no_cors_headers_by_default() {
    use tower::ServiceExt;
    let req = Request::get("/health")
        .header("host", "127.0.0.1:9100")
        .header("origin", "http://127.0.0.1:9100")
        .body(Body::empty())
        .unwrap();
    let res = bare_app().oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn allowed_origin_gets_cors() {
    use tower::ServiceExt;
    let app = app_with(
        mobilectl::exec::Toolbox::with([]),
        SecurityPolicy {
            allow_origins: vec!["https://agent.example".into()],
            ..loopback_policy()
        },
    );
    let req = Request::get("/health")
        .header("host", "127.0.0.1:9100")
        .header("origin", "https://agent.example")
        .body(Body::empty())
        .unwrap();
    let res = app.oneshot(req).await.unwrap();
    assert_eq!(
        res.headers().get("access-control-allow-origin").unwrap(),
        "https://agent.example"
    );
}

#[tokio::test]
async fn docs_and_spec_are_served() {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let (status, spec) = call(&bare_app(), get("/openapi.json")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(spec["openapi"], "3.1.0");
    for path in [
        "/health",
        "/api/v1/doctor",
        "/api/v1/device/list",
        "/api/v1/device/active",
        "/api/v1/device/boot",
        "/api/v1/device/shutdown",
    ] {
        assert!(
            spec["paths"][path].is_object(),
            "{path} missing from the spec"
        );
    }
    let res = bare_app().oneshot(get("/docs/")).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let html = res.into_body().collect().await.unwrap().to_bytes();
    assert!(String::from_utf8_lossy(&html).contains("swagger"));
}

#[tokio::test]
async fn doctor_without_tools_is_blocked_with_remediations() {
    let (status, body) = call(&bare_app(), get("/api/v1/doctor")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["overall"], "blocked");
    // One readiness per registered backend, by its id, beside `overall`.
    assert_eq!(body["android"], "blocked");
    assert_eq!(body["ios"], "blocked");
    for t in body["tools"].as_array().unwrap() {
        assert_eq!(t["found"], false);
        assert!(t["remediation"].as_str().unwrap().len() > 10);
    }
}

/// Sends a request and returns status, headers and the JSON body.
async fn call_with_headers(
    app: &axum::Router,
    req: Request<Body>,
) -> (StatusCode, axum::http::HeaderMap, serde_json::Value) {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let resp = app.clone().oneshot(req).await.unwrap();
    let (parts, body) = resp.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&bytes)));
    (parts.status, parts.headers, json)
}

#[tokio::test]
async fn a_401_says_how_to_authenticate() {
    let (status, headers, _) = call_with_headers(&token_app(), get("/api/v1/doctor")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(headers["www-authenticate"]
        .to_str()
        .unwrap()
        .starts_with("Bearer"));
}

#[tokio::test]
async fn host_port_duplicate_hosts_and_origin_ports_are_checked() {
    let req = |host: &str| {
        Request::get("/api/v1/doctor")
            .header("host", host)
            .body(Body::empty())
            .unwrap()
    };
    for host in ["127.0.0.1:9999", "localhost", "localhost:80"] {
        let (status, body) = call(&bare_app(), req(host)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{host}: {body}");
    }
    let dup = Request::get("/api/v1/doctor")
        .header("host", "127.0.0.1:9100")
        .header("host", "evil.example")
        .body(Body::empty())
        .unwrap();
    let (status, body) = call(&bare_app(), dup).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let other_port = Request::get("/api/v1/doctor")
        .header("host", "127.0.0.1:9100")
        .header("origin", "http://127.0.0.1:3000")
        .body(Body::empty())
        .unwrap();
    let (status, _) = call(&bare_app(), other_port).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn errors_from_every_layer_are_the_envelope() {
    // A wrong method on a known path is 405, even without a JSON content type.
    let put = Request::put("/api/v1/doctor")
        .header("host", "127.0.0.1:9100")
        .body(Body::empty())
        .unwrap();
    let (status, body) = call(&bare_app(), put).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{body}");
    assert_eq!(error_code(&body), "METHOD_NOT_ALLOWED");
    // Swagger UI's own 404.
    let (status, body) = call(&bare_app(), get("/docs/nope.js")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(error_code(&body), "ROUTE_NOT_FOUND");
    // Oversized URI and headers.
    let long = format!("/api/v1/device/ui/find?query={}", "a".repeat(20_000));
    let (status, body) = call(&bare_app(), get(&long)).await;
    assert_eq!(status, StatusCode::URI_TOO_LONG);
    assert_eq!(error_code(&body), "URI_TOO_LONG");
    let mut big = get("/api/v1/doctor");
    for i in 0..40 {
        big.headers_mut().insert(
            axum::http::HeaderName::from_bytes(format!("x-filler-{i}").as_bytes()).unwrap(),
            "v".repeat(2000).parse().unwrap(),
        );
    }
    let (status, body) = call(&bare_app(), big).await;
    assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    assert_eq!(error_code(&body), "HEADERS_TOO_LARGE");
    // Out-of-range numbers in a query are 400 like other invalid values.
    for q in ["quality=500", "quality=101"] {
        let (status, body) =
            call(&bare_app(), get(&format!("/api/v1/device/screenshot?{q}"))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{q}: {body}");
    }
}

#[tokio::test]
async fn two_origins_or_an_origin_or_host_that_is_not_text_are_refused() {
    // The first is allowed (the server's own), the second is not: both are looked at.
    let two = Request::post("/api/v1/device/active")
        .header("host", "127.0.0.1:9100")
        .header("origin", "http://127.0.0.1:9100")
        .header("origin", "https://evil.example")
        .header("content-type", "application/json")
        .body(Body::from("{}"))
        .unwrap();
    let (status, body) = call(&bare_app(), two).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(error_code(&body), "BAD_REQUEST");
    assert!(body["error"]["hint"].is_string(), "{body}");
    // Bytes that are not text cannot be compared with an allowed origin: refused.
    let binary = Request::post("/api/v1/device/active")
        .header("host", "127.0.0.1:9100")
        .header(
            "origin",
            axum::http::HeaderValue::from_bytes(b"https://evil.example\xff").unwrap(),
        )
        .header("content-type", "application/json")
        .body(Body::from("{}"))
        .unwrap();
    let (status, body) = call(&bare_app(), binary).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(error_code(&body), "FORBIDDEN_HOST");
    // Nor is a Host that is not text read from the URI's authority instead.
    let binary_host = Request::get("http://127.0.0.1:9100/api/v1/device/active")
        .header(
            "host",
            axum::http::HeaderValue::from_bytes(b"evil.example\xff").unwrap(),
        )
        .body(Body::empty())
        .unwrap();
    let (status, body) = call(&bare_app(), binary_host).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(error_code(&body), "FORBIDDEN_HOST");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not text"),
        "{body}"
    );
}
