//! The body every request and response of the proxy carries: any body boxed behind one type,
//! its errors as [`std::io::Error`] (the words a failed stream leaves in a flow are made from
//! them by [`crate::upstream::classify`] and [`crate::tee`]).

use std::error::Error as StdError;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::{Bytes, Frame, Incoming, SizeHint};

/// A boxed body of bytes whose errors are I/O errors.
pub struct Body(BoxBody<Bytes, io::Error>);

/// What a body's error becomes: an I/O error as it is, anything else wrapped in one.
pub fn io_error(e: impl Into<Box<dyn StdError + Send + Sync>>) -> io::Error {
    match e.into().downcast::<io::Error>() {
        Ok(io) => *io,
        Err(other) => io::Error::other(other),
    }
}

impl Body {
    /// A body without bytes.
    pub fn empty() -> Body {
        Body::new(Empty::new())
    }

    /// `body` boxed, its errors made I/O errors.
    pub fn new<B>(body: B) -> Body
    where
        B: hyper::body::Body<Data = Bytes> + Send + Sync + 'static,
        B::Error: Into<Box<dyn StdError + Send + Sync>>,
    {
        Body(body.map_err(io_error).boxed())
    }
}

impl From<Incoming> for Body {
    fn from(body: Incoming) -> Body {
        Body::new(body)
    }
}

impl From<Bytes> for Body {
    fn from(bytes: Bytes) -> Body {
        Body::new(Full::new(bytes))
    }
}

impl From<String> for Body {
    fn from(text: String) -> Body {
        Body::from(Bytes::from(text))
    }
}

impl From<Vec<u8>> for Body {
    fn from(bytes: Vec<u8>) -> Body {
        Body::from(Bytes::from(bytes))
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        Pin::new(&mut self.0).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.0.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::body::Body as _;

    #[tokio::test]
    async fn bodies_keep_their_bytes_and_io_errors_their_kind() {
        let b = Body::from("hello".to_string());
        assert_eq!(b.size_hint().exact(), Some(5));
        assert_eq!(b.collect().await.unwrap().to_bytes(), "hello");
        assert!(Body::empty().is_end_stream());

        let timed_out = io::Error::new(io::ErrorKind::TimedOut, "slow");
        assert_eq!(io_error(timed_out).kind(), io::ErrorKind::TimedOut);
        let other = io_error("not an I/O error");
        assert_eq!(
            (other.kind(), other.to_string()),
            (io::ErrorKind::Other, "not an I/O error".to_string())
        );
    }
}
