//! What one client may hold of the server, so that no kind of client can lock the others out:
//! - a request body must keep arriving ([`DeadlineBody`]): a pause longer than
//!   [`BodyLimits::idle`] between two pieces, or a body still unread after [`BodyLimits::total`],
//!   ends it with `408 REQUEST_TIMEOUT`, which frees the connection;
//! - event streams (log and flow followers, MCP's SSE) share a budget of their own
//!   ([`StreamBudget`]), so followers cannot take every connection: one past it is answered
//!   `503 BUSY` at once;
//! - when every connection slot is taken, a newcomer is not left waiting in silence:
//!   [`busy_answer`] tells it `503 BUSY` with `Retry-After`, and `/health` still answers.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderValue, Response};
use axum::response::IntoResponse;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};

use crate::error::{Error, ErrorCode};

/// How long a request body may take to arrive.
#[derive(Debug, Clone, Copy)]
pub struct BodyLimits {
    /// Longest pause between two pieces of a body (and before the first).
    pub idle: Duration,
    /// Longest a whole body may take.
    pub total: Duration,
}

/// The error a body that stopped arriving yields (found again by [`is_body_timeout`]).
#[derive(Debug, thiserror::Error)]
#[error(
    "the request body stopped arriving: nothing for {0:?} (or longer than the whole body may take)"
)]
pub struct BodyTimedOut(Duration);

/// A request body with the deadlines of [`BodyLimits`].
pub struct DeadlineBody<B> {
    inner: B,
    limits: BodyLimits,
    /// When the whole body must be in.
    end: Instant,
    /// Fires at the earlier of the next idle deadline and `end`.
    timer: Pin<Box<Sleep>>,
    done: bool,
}

impl<B> DeadlineBody<B> {
    /// Wraps `inner`; the clocks start now (when the request's head has been read).
    pub fn new(inner: B, limits: BodyLimits) -> Self {
        let now = Instant::now();
        let end = now + limits.total;
        DeadlineBody {
            inner,
            limits,
            end,
            timer: Box::pin(tokio::time::sleep_until((now + limits.idle).min(end))),
            done: false,
        }
    }
}

impl<B> HttpBody for DeadlineBody<B>
where
    B: HttpBody + Unpin,
    B::Error: Into<axum::BoxError>,
{
    type Data = B::Data;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(frame)) => {
                let next = (Instant::now() + this.limits.idle).min(this.end);
                this.timer.as_mut().reset(next);
                Poll::Ready(Some(frame.map_err(Into::into)))
            }
            Poll::Ready(None) => {
                this.done = true;
                Poll::Ready(None)
            }
            Poll::Pending => match this.timer.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    this.done = true;
                    Poll::Ready(Some(Err(Box::new(BodyTimedOut(this.limits.idle)))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Whether an error (a body rejection, with its sources) comes from [`DeadlineBody`].
pub fn is_body_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.is::<BodyTimedOut>() {
            return true;
        }
        cause = c.source();
    }
    false
}

/// The answer to a request whose body stopped arriving.
pub fn body_timeout_error() -> Error {
    Error::new(
        ErrorCode::RequestTimeout,
        "the request body stopped arriving before it was complete",
    )
    .with_hint("send the whole body at once, right after the headers")
}

/// The event streams the server keeps open at once.
#[derive(Debug, Clone)]
pub struct StreamBudget {
    slots: Arc<Semaphore>,
    max: usize,
}

impl StreamBudget {
    /// At most `max` streams at once.
    pub fn new(max: usize) -> Self {
        StreamBudget {
            slots: Arc::new(Semaphore::new(max)),
            max,
        }
    }

    /// `response` as it is when it is no event stream; an event stream holds a slot until its
    /// body ends, and is refused with `503 BUSY` when none is left.
    pub fn admit(&self, response: Response<Body>) -> Response<Body> {
        if !is_event_stream(&response) {
            return response;
        }
        match self.slots.clone().try_acquire_owned() {
            Ok(permit) => response.map(|body| super::guarded::holding(body, permit)),
            Err(_) => Error::new(
                ErrorCode::Busy,
                format!(
                    "{} event streams are open, as many as the server keeps",
                    self.max
                ),
            )
            .with_hint("close a stream you no longer read, or poll the non-streaming route")
            .into_response(),
        }
    }
}

fn is_event_stream(response: &Response<Body>) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The answer when every connection slot is taken: `503 BUSY`, `Retry-After`, and the
/// connection closed after it.
pub fn busy_answer(max_connections: usize) -> Response<Body> {
    let mut r = Error::new(
        ErrorCode::Busy,
        format!("the server is serving {max_connections} connections, as many as it takes"),
    )
    .with_hint("retry shortly; long-lived streams and stalled uploads hold connections")
    .into_response();
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::channel::mpsc;
    use futures::SinkExt;
    use http_body_util::{BodyExt, StreamBody};

    type Piece = Result<Frame<axum::body::Bytes>, std::convert::Infallible>;

    /// A body whose pieces the test sends when it likes.
    fn channel() -> (Sender, StreamBody<mpsc::Receiver<Piece>>) {
        let (tx, rx) = mpsc::channel(8);
        (Sender(tx), StreamBody::new(rx))
    }

    struct Sender(mpsc::Sender<Piece>);

    impl Sender {
        async fn send(&mut self, bytes: &'static [u8]) {
            let frame = Frame::data(axum::body::Bytes::from_static(bytes));
            self.0.send(Ok(frame)).await.unwrap();
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_pauses_too_long_times_out_and_says_so() {
        let (mut tx, body) = channel();
        let limits = BodyLimits {
            idle: Duration::from_secs(2),
            total: Duration::from_secs(60),
        };
        let reading = tokio::spawn(DeadlineBody::new(body, limits).collect());
        tx.send(b"{\"a\":".as_slice()).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        tx.send(b" 1".as_slice()).await;
        // 1 s then 1.5 s: each pause under the limit.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(!reading.is_finished());
        tokio::time::sleep(Duration::from_secs(1)).await;
        let err = reading.await.unwrap().unwrap_err();
        assert!(is_body_timeout(err.as_ref()), "{err}");
        drop(tx);
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_trickles_is_cut_at_the_total() {
        let (mut tx, body) = channel();
        let limits = BodyLimits {
            idle: Duration::from_secs(2),
            total: Duration::from_secs(5),
        };
        let reading = tokio::spawn(DeadlineBody::new(body, limits).collect());
        for _ in 0..4 {
            tx.send(b"x".as_slice()).await;
            tokio::time::sleep(Duration::from_millis(1500)).await;
        }
        let err = reading.await.unwrap().unwrap_err();
        assert!(is_body_timeout(err.as_ref()));
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_sent_in_time_is_read_whole() {
        let (mut tx, body) = channel();
        let limits = BodyLimits {
            idle: Duration::from_secs(2),
            total: Duration::from_secs(5),
        };
        let reading = tokio::spawn(DeadlineBody::new(body, limits).collect());
        tx.send(b"hello ".as_slice()).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        tx.send(b"world".as_slice()).await;
        drop(tx);
        let bytes = reading.await.unwrap().unwrap().to_bytes();
        assert_eq!(&bytes[..], b"hello world");
    }

    #[test]
    fn only_event_streams_take_a_slot_and_one_past_the_budget_is_busy() {
        let budget = StreamBudget::new(1);
        let sse = || {
            Response::builder()
                .header(header::CONTENT_TYPE, "text/event-stream")
                .body(Body::empty())
                .unwrap()
        };
        let plain = || Response::new(Body::from("{}"));
        let first = budget.admit(sse());
        assert_eq!(first.status(), 200);
        assert_eq!(
            budget.admit(plain()).status(),
            200,
            "plain answers take none"
        );
        let refused = budget.admit(sse());
        assert_eq!(refused.status(), 503);
        assert_eq!(refused.headers()[header::RETRY_AFTER], "1");
        drop(first);
        assert_eq!(budget.admit(sse()).status(), 200, "the slot came back");
    }
}
