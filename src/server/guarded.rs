//! A response body that keeps a value alive for as long as the body lives: a stream slot's
//! permit, a count of a connection's open streams. Hyper drops the body when it has been sent
//! or the client's connection closes, and the value goes with it.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use hyper::body::{Body as HttpBody, Frame, SizeHint};

/// `body`, holding `guard` until it is dropped.
pub fn holding<G: Send + Unpin + 'static>(body: Body, guard: G) -> Body {
    Body::new(Guarded {
        body,
        _guard: guard,
    })
}

struct Guarded<G> {
    body: Body,
    _guard: G,
}

impl<G: Send + Unpin + 'static> HttpBody for Guarded<G> {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
