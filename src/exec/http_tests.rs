//! The HTTP runner against servers started in the test: an axum app (answers, error statuses,
//! a slow answer), a raw TCP listener that drops connections, and a port nobody listens on.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

/// An axum app on a free loopback port.
async fn serve(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

fn app() -> Router {
    Router::new()
        .route(
            "/status",
            get(|| async { Json(json!({"value": {"ready": true}})) }),
        )
        .route("/echo", post(|Json(v): Json<Value>| async move { Json(v) }))
        .route(
            "/missing",
            get(|| async {
                (
                    StatusCode::NOT_FOUND,
                    r#"{"value": {"error": "no such alert", "message": "none"}}"#,
                )
            }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                "late"
            }),
        )
}

/// A port that refuses connections: bound, then closed.
fn closed_port() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

/// A server that drops the first `drops` connections after reading the request, then answers
/// `200 ok`; counts the connections it accepted.
async fn flaky(drops: usize) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let count = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut conn, _)) = listener.accept().await else {
                return;
            };
            let n = count.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf).await;
            if n >= drops {
                let _ = conn
                    .write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
                    )
                    .await;
            }
            // Dropping the connection closes it (without an answer for the first ones).
        }
    });
    (addr, seen)
}

#[tokio::test]
async fn a_2xx_answer_is_returned_with_its_body() {
    let addr = serve(app()).await;
    let client = HttpClient::new();
    let r = client
        .send(&HttpRequest::get(format!("http://{addr}/status")))
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    let v: Value = r.json().unwrap();
    assert_eq!(v["value"]["ready"], true);
    let sent = json!({"actions": [{"type": "pointer", "id": "finger1"}], "text": "ünïcode"});
    let r = client
        .send(&HttpRequest::post(format!("http://{addr}/echo")).json(&sent))
        .await
        .unwrap();
    assert_eq!(r.json::<Value>().unwrap(), sent);
}

#[tokio::test]
async fn a_non_2xx_answer_carries_its_status_and_body() {
    let addr = serve(app()).await;
    let err = HttpClient::new()
        .send(&HttpRequest::get(format!("http://{addr}/missing")))
        .await
        .unwrap_err();
    match err {
        HttpError::Status { status, body, .. } => {
            assert_eq!(status, 404);
            let v: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["value"]["error"], "no such alert");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_slow_answer_is_cut_by_the_timeout() {
    let addr = serve(app()).await;
    let started = Instant::now();
    let err = HttpClient::new()
        .send(&HttpRequest::get(format!("http://{addr}/slow")).timeout(Duration::from_millis(300)))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::Timeout { .. }), "{err:?}");
    // The server would answer after 30 s: the request was given up, not waited out.
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(err.to_string().contains("GET http://"), "{err}");
}

#[tokio::test]
async fn a_refused_connection_is_unreachable_and_nothing_was_sent() {
    let addr = closed_port();
    for req in [
        HttpRequest::get(format!("http://{addr}/status")),
        HttpRequest::post(format!("http://{addr}/session")).json(&json!({})),
    ] {
        let err = HttpClient::new().send(&req).await.unwrap_err();
        match err {
            HttpError::Unreachable { connected, why, .. } => {
                assert!(!connected);
                assert!(why.contains("cannot connect"), "{why}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn an_idempotent_request_is_repeated_after_a_dropped_connection() {
    let (addr, seen) = flaky(1).await;
    let r = HttpClient::new()
        .send(&HttpRequest::get(format!("http://{addr}/source")))
        .await
        .unwrap();
    assert_eq!(r.text(), "ok");
    assert_eq!(seen.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_post_is_not_repeated_once_it_may_have_reached_the_server() {
    let (addr, seen) = flaky(1).await;
    let err = HttpClient::new()
        .send(&HttpRequest::post(format!("http://{addr}/actions")).json(&json!({"tap": 1})))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            HttpError::Unreachable {
                connected: true,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    // Marked safe, the same request is repeated.
    let (addr, seen) = flaky(1).await;
    let r = HttpClient::new()
        .send(
            &HttpRequest::post(format!("http://{addr}/source"))
                .json(&json!({}))
                .retry_safe(),
        )
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(seen.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn repeats_give_up_after_the_retries() {
    let (addr, seen) = flaky(usize::MAX).await;
    let err = HttpClient::new()
        .send(&HttpRequest::get(format!("http://{addr}/source")))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::Unreachable { .. }), "{err:?}");
    assert_eq!(seen.load(Ordering::SeqCst), 1 + RETRIES as usize);
}

#[tokio::test]
async fn a_malformed_url_is_invalid_and_not_sent() {
    let err = HttpClient::new()
        .send(&HttpRequest::get("not a url"))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::Invalid { .. }), "{err:?}");
}

/// Records the fields of `http` spans.
#[derive(Clone, Default)]
struct SpanFields(Arc<Mutex<Vec<(String, String)>>>);

impl tracing::field::Visit for SpanFields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if let Ok(mut f) = self.0.lock() {
            f.push((field.name().to_string(), format!("{value:?}")));
        }
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for SpanFields {
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        _: &tracing::span::Id,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        if attrs.metadata().name() == "http" {
            attrs.record(&mut self.clone());
        }
    }

    fn on_record(
        &self,
        _: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        values.record(&mut self.clone());
    }
}

#[tokio::test]
async fn each_request_is_a_span_with_method_url_status_and_duration() {
    use tracing_subscriber::layer::SubscriberExt;
    let fields = SpanFields::default();
    let _default =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(fields.clone()));
    let addr = serve(app()).await;
    let _ = HttpClient::new()
        .send(&HttpRequest::get(format!("http://{addr}/missing")))
        .await;
    let seen = fields.0.lock().unwrap().clone();
    let value = |name: &str| {
        seen.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no `{name}` in {seen:?}"))
    };
    assert_eq!(value("method"), "GET");
    assert_eq!(value("url"), format!("http://{addr}/missing"));
    assert_eq!(value("status"), "404");
    assert_eq!(value("attempts"), "1");
    assert!(value("duration_ms").parse::<u64>().is_ok());
}
