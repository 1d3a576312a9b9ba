//! A body passed through untouched while its first bytes are kept: every frame goes on as it
//! came, the first `cap` bytes are copied aside and all bytes are counted, so a body larger
//! than the cap reaches the app whole while only the cap is stored. It can also cut a body
//! that stops moving (no frame within a time limit), and it says how the body ended — to its
//! end, failed, or dropped by the app — exactly once.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Bytes, Frame, SizeHint};

use super::flow::Captured;

/// How a body ended.
#[derive(Debug)]
pub enum End {
    Complete,
    /// The stream failed (the error's words are classified by the caller).
    Failed(std::io::Error),
    /// No frame within the idle limit.
    Stalled(Duration),
    /// Dropped before its end (the app went away).
    Dropped,
}

type OnEnd = Box<dyn FnOnce(End) + Send + Sync>;

/// See the module documentation.
pub struct Tee<B: Body> {
    inner: B,
    kept: Arc<Mutex<Captured>>,
    cap: usize,
    idle: Option<(Duration, Pin<Box<tokio::time::Sleep>>)>,
    on_end: Option<OnEnd>,
}

impl<B: Body> Tee<B> {
    /// Tees `inner` into `kept` (up to `cap` bytes).
    pub fn new(inner: B, kept: Arc<Mutex<Captured>>, cap: usize) -> Self {
        Tee {
            inner,
            kept,
            cap,
            idle: None,
            on_end: None,
        }
    }

    /// Fails the body when no frame comes for `limit`.
    pub fn idle_limit(mut self, limit: Duration) -> Self {
        self.idle = Some((limit, Box::pin(tokio::time::sleep(limit))));
        self
    }

    /// Called once, when the body ends one way or another.
    pub fn on_end(mut self, f: impl FnOnce(End) + Send + Sync + 'static) -> Self {
        self.on_end = Some(Box::new(f));
        self
    }

    fn end(&mut self, how: End) {
        if let Some(f) = self.on_end.take() {
            f(how);
        }
    }

    fn keep(&self, data: &[u8]) {
        let mut k = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        k.size += data.len() as u64;
        let room = self.cap.saturating_sub(k.bytes.len());
        if room > 0 {
            let take = room.min(data.len());
            k.bytes.extend_from_slice(&data[..take]);
        }
    }
}

impl<B> Body for Tee<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.keep(data);
                }
                if let Some((limit, sleep)) = &mut this.idle {
                    sleep.as_mut().reset(tokio::time::Instant::now() + *limit);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                let e = crate::body::io_error(e);
                // The error goes on to hyper; the record gets its words.
                let words = std::io::Error::other(describe(&e));
                this.end(End::Failed(words));
                Poll::Ready(Some(Err(e)))
            }
            Poll::Ready(None) => {
                this.end(End::Complete);
                Poll::Ready(None)
            }
            Poll::Pending => {
                let Some((limit, sleep)) = &mut this.idle else {
                    return Poll::Pending;
                };
                let limit = *limit;
                if sleep.as_mut().poll(cx).is_ready() {
                    this.end(End::Stalled(limit));
                    return Poll::Ready(Some(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!("no data for {limit:?}"),
                    ))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl<B: Body> Drop for Tee<B> {
    fn drop(&mut self) {
        // A body with nothing (more) to send may be dropped unread: it is complete. Anything
        // else dropped early was not read to its end.
        let how = if self.inner.is_end_stream() {
            End::Complete
        } else {
            End::Dropped
        };
        self.end(how);
    }
}

/// An error and its sources in one line.
pub fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut words = vec![e.to_string()];
    let mut next = e.source();
    while let Some(s) = next {
        let t = s.to_string();
        if !words.iter().any(|w| w.contains(&t)) {
            words.push(t);
        }
        next = s.source();
    }
    words.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, Full, StreamBody};

    fn kept() -> Arc<Mutex<Captured>> {
        Arc::new(Mutex::new(Captured::default()))
    }

    #[tokio::test]
    async fn everything_passes_and_only_the_cap_is_kept() {
        let data = vec![7u8; 10_000];
        let k = kept();
        let (tx, rx) = std::sync::mpsc::channel();
        let full = Full::new(Bytes::from(data.clone()))
            .map_err(|never| -> std::io::Error { match never {} });
        let body =
            Tee::new(full, k.clone(), 100).on_end(move |e| tx.send(format!("{e:?}")).unwrap());
        let out = body.collect().await.unwrap().to_bytes();
        assert_eq!(out.len(), 10_000);
        let k = k.lock().unwrap();
        assert_eq!((k.bytes.len(), k.size), (100, 10_000));
        assert!(k.truncated());
        assert_eq!(rx.recv().unwrap(), "Complete");
        assert!(rx.try_recv().is_err(), "ended twice");
    }

    #[tokio::test]
    async fn a_stalled_body_is_cut_and_a_dropped_one_said_so() {
        let (tx_frames, rx_frames) =
            tokio::sync::mpsc::channel::<Result<Frame<Bytes>, std::io::Error>>(1);
        let stream = tokio_stream_from(rx_frames);
        let (tx, rx) = std::sync::mpsc::channel();
        let mut body = Tee::new(StreamBody::new(stream), kept(), 10)
            .idle_limit(Duration::from_millis(50))
            .on_end(move |e| tx.send(format!("{e:?}")).unwrap());
        tx_frames
            .send(Ok(Frame::data(Bytes::from_static(b"abc"))))
            .await
            .unwrap();
        assert!(body.frame().await.unwrap().is_ok());
        let e = body.frame().await.unwrap().unwrap_err();
        assert!(describe(&e).contains("no data"), "{e}");
        assert!(rx.recv().unwrap().starts_with("Stalled"));
        drop(body);
        assert!(rx.try_recv().is_err());

        let (tx, rx) = std::sync::mpsc::channel();
        let (_keep_open, frames) =
            tokio::sync::mpsc::channel::<Result<Frame<Bytes>, std::io::Error>>(1);
        let body = Tee::new(StreamBody::new(tokio_stream_from(frames)), kept(), 10)
            .on_end(move |e| tx.send(format!("{e:?}")).unwrap());
        drop(body);
        assert_eq!(rx.recv().unwrap(), "Dropped");
    }

    fn tokio_stream_from<T: Send + 'static>(
        rx: tokio::sync::mpsc::Receiver<T>,
    ) -> impl futures::Stream<Item = T> + Unpin + Send {
        Box::pin(futures::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|x| (x, rx))
        }))
    }
}
