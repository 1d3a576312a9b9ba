//! The operation table as a contract: every operation is routed at its method and path, every
//! body refuses unknown fields by name, and the OpenAPI document made from the table is
//! self-consistent (every `$ref` resolves, ids are unique, content types are the ones sent).

use crate::common;

use axum::http::StatusCode;
use common::*;
use http_body_util::BodyExt;
use mobilectl::api::{self, HttpMethod, Input};
use serde_json::{json, Value};
use tower::ServiceExt;

fn method(m: HttpMethod) -> &'static str {
    m.as_str()
}

#[tokio::test]
async fn every_operation_is_routed_at_its_method_and_path() {
    let app = bare_app();
    for op in api::operations() {
        let path = op.path.replace("{id}", "x");
        let req = match op.input {
            Input::Body(_) => send_json(method(op.method), &path, "{}"),
            _ => axum::http::Request::builder()
                .method(method(op.method))
                .uri(&path)
                .header("host", "127.0.0.1:9100")
                .body(axum::body::Body::empty())
                .unwrap(),
        };
        let res = app.clone().oneshot(req).await.unwrap();
        let ctype = res.headers().get("content-type").cloned();
        if res.status().is_success() && ctype.is_some_and(|c| c != "application/json") {
            // Routed, and answering its own content (a file, an event stream that would
            // never end): not read further.
            continue;
        }
        let status = res.status();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let code = body["error"]["code"].as_str().unwrap_or_default();
        assert!(
            code != "ROUTE_NOT_FOUND" && code != "METHOD_NOT_ALLOWED",
            "{} {} → {status} {body}",
            op.method.as_str(),
            op.path
        );
        assert_ne!(
            status,
            StatusCode::INTERNAL_SERVER_ERROR,
            "{}: {body}",
            op.name
        );
    }
}

#[tokio::test]
async fn every_body_refuses_an_unknown_field_by_name() {
    let app = bare_app();
    let mut bodies = 0;
    for op in api::operations() {
        if !matches!(op.input, Input::Body(_)) {
            continue;
        }
        bodies += 1;
        let (status, body) = call(
            &app,
            send_json(method(op.method), op.path, r#"{"zz_unknown": 1}"#),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{}: {body}", op.name);
        assert_eq!(error_code(&body), "VALIDATION_FAILED", "{}", op.name);
        assert_eq!(
            body["error"]["details"]["field"], "zz_unknown",
            "{}",
            op.name
        );
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`zz_unknown`"),
            "{}: {body}",
            op.name
        );
    }
    assert!(bodies >= 25, "only {bodies} operations take a body");
}

#[tokio::test]
async fn misspelt_fields_of_flattened_targets_are_named_with_a_guess() {
    let app = bare_app();
    for (path, body, message) in [
        (
            "/api/v1/device/ui/tap",
            json!({"x": 1, "y": 1, "obsrve": true}),
            "unknown field `obsrve`; did you mean `observe`?",
        ),
        (
            "/api/v1/device/ui/tap-element",
            json!({"label": "OK", "obsrve": true}),
            "unknown field `obsrve`; did you mean `observe`?",
        ),
        (
            "/api/v1/device/ui/type",
            json!({"text": "a", "clr": true}),
            "unknown field `clr`; did you mean `clear`?",
        ),
        (
            "/api/v1/device/ui/tap",
            json!({"selector": {"txt": "Sign in"}}),
            "unknown field `selector.txt`; did you mean `text`?",
        ),
        (
            "/api/v1/device/ui/expect",
            json!({"kind": "element_visible", "selectr": {"text": "a"}}),
            "unknown field `selectr`; did you mean `selector`?",
        ),
        (
            "/api/v1/device/ui/swipe",
            json!({"from": {"x": 1, "y": 2, "z": 3}, "to": {"x": 1, "y": 1}}),
            "unknown field `from.z`",
        ),
    ] {
        let (status, answer) = call(&app, post(path, body.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(answer["error"]["message"], message, "{body}");
    }
}

fn spec() -> Value {
    serde_json::from_str(&api::openapi_json()).unwrap()
}

fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r.clone());
            }
            m.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

#[test]
fn every_ref_of_the_document_resolves() {
    let doc = spec();
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(!all.is_empty());
    for r in all {
        let name = r.strip_prefix("#/components/schemas/").expect(&r);
        assert!(
            doc["components"]["schemas"].get(name).is_some(),
            "dangling $ref {r}"
        );
    }
}

#[test]
fn operation_ids_are_unique_and_every_operation_names_its_errors() {
    let doc = spec();
    let mut ids = std::collections::HashSet::new();
    let mut count = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (m, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().expect("operationId");
            assert!(ids.insert(id.to_string()), "duplicate operationId {id}");
            count += 1;
            if path == "/health" {
                continue;
            }
            let codes = op["x-error-codes"].as_array().expect("x-error-codes");
            for code in codes {
                let code = code.as_str().unwrap();
                let status = mobilectl::error::ErrorCode::ALL
                    .iter()
                    .find(|c| c.as_str() == code)
                    .expect(code)
                    .status();
                let resp = &op["responses"][status.to_string()];
                assert!(
                    resp["description"].as_str().unwrap().contains(code),
                    "{m} {path}: {code} not under {status}"
                );
            }
        }
    }
    assert_eq!(count, api::operations().len());
}

#[test]
fn responses_declare_the_content_types_really_sent() {
    let doc = spec();
    let types = |path: &str| -> Vec<String> {
        doc["paths"][path]["get"]["responses"]["200"]["content"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(
        types("/api/v1/device/ui"),
        ["application/json", "text/plain"]
    );
    assert_eq!(
        types("/api/v1/device/screenshot"),
        ["image/jpeg", "image/png"]
    );
    assert_eq!(types("/api/v1/device/list"), ["application/json"]);
}

/// Every operation has an HTTP test: some test under `tests/` (other than this file's generic
/// routing check) sends a request to its path. Adding an operation without one fails here.
#[test]
fn every_operation_has_an_http_test() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests");
    let mut sources = String::new();
    for sub in ["", "common"] {
        for entry in std::fs::read_dir(format!("{dir}/{sub}")).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if path.extension().is_some_and(|e| e == "rs") && name != "operations.rs" {
                sources += &std::fs::read_to_string(&path).unwrap();
            }
        }
    }
    let missing: Vec<String> = api::operations()
        .iter()
        .filter(|op| {
            let quoted = format!("\"{}", op.path);
            !sources
                .match_indices(&quoted)
                .any(|(i, m)| matches!(sources[i + m.len()..].chars().next(), Some('"' | '?')))
        })
        .map(|op| format!("{} {}", op.method.as_str(), op.path))
        .collect();
    assert!(
        missing.is_empty(),
        "operations without an HTTP test: {missing:?}"
    );
}
