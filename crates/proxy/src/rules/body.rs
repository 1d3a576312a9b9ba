//! Bodies the rules and conditions shape: [`Throttled`] paces bytes to a rate, [`Cut`] lets a
//! number of bytes through then fails (the app's connection is closed mid-body), [`Broken`]
//! fails before its first byte (the connection is closed without an answer).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Bytes, Frame, SizeHint};
use tokio::time::{Instant, Sleep};

/// An error a shaped body ends with.
fn failure(words: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::ConnectionReset, words)
}

/// A body paced to `rate` bytes per second (from its first frame; a burst of 1/50 s).
pub struct Throttled<B> {
    inner: B,
    rate: u64,
    start: Option<Instant>,
    sent: u64,
    pending: Option<Bytes>,
    sleep: Pin<Box<Sleep>>,
}

impl<B> Throttled<B> {
    /// `inner` paced to `rate` bytes per second (at least 1).
    pub fn new(inner: B, rate: u64) -> Self {
        Throttled {
            inner,
            rate: rate.max(1),
            start: None,
            sent: 0,
            pending: None,
            sleep: Box::pin(tokio::time::sleep(Duration::ZERO)),
        }
    }

    fn chunk(&self) -> u64 {
        (self.rate / 50).clamp(1, 64 * 1024)
    }
}

impl<B> Body for Throttled<B>
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
        loop {
            if let Some(mut buf) = this.pending.take() {
                let now = Instant::now();
                let start = *this.start.get_or_insert(now);
                let chunk = this.chunk();
                // What the rate allows by now, with one chunk of burst.
                // In whole nanoseconds, so that at the deadline the next byte is allowed.
                let rate = u128::from(this.rate);
                let elapsed = (now - start).as_nanos();
                let allowed = (rate * elapsed / 1_000_000_000) as u64 + chunk;
                // A whole chunk (or the rest of the frame) at a time, never a trickle.
                let want = chunk.min(buf.len() as u64);
                if allowed < this.sent + want {
                    let need = u128::from(this.sent + want - chunk) * 1_000_000_000;
                    let wait = need.div_ceil(rate);
                    this.sleep
                        .as_mut()
                        .reset(start + Duration::from_nanos(wait as u64));
                    if this.sleep.as_mut().poll(cx).is_pending() {
                        this.pending = Some(buf);
                        return Poll::Pending;
                    }
                    this.pending = Some(buf);
                    continue;
                }
                let n = (allowed - this.sent).min(chunk).min(buf.len() as u64) as usize;
                let out = buf.split_to(n);
                this.sent += n as u64;
                if !buf.is_empty() {
                    this.pending = Some(buf);
                }
                return Poll::Ready(Some(Ok(Frame::data(out))));
            }
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) if data.is_empty() => continue,
                    Ok(data) => this.pending = Some(data),
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                Poll::Ready(Some(Err(e))) => {
                    return Poll::Ready(Some(Err(crate::body::io_error(e))))
                }
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.pending.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A body cut after `limit` bytes with an error naming `why`. The bytes before the cut are
/// given time to leave ([`CUT_GRACE`]) before the connection is closed.
pub struct Cut<B> {
    inner: B,
    left: u64,
    why: String,
    done: bool,
    grace: Option<Pin<Box<Sleep>>>,
}

/// How long the bytes before a cut have to be written out.
pub const CUT_GRACE: Duration = Duration::from_millis(50);

impl<B> Cut<B> {
    /// `inner` cut after `limit` bytes: [`CUT_GRACE`] later the body ends with an error saying
    /// `why`.
    pub fn new(inner: B, limit: u64, why: String) -> Self {
        Cut {
            inner,
            left: limit,
            why,
            done: false,
            grace: None,
        }
    }
}

impl<B> Body for Cut<B>
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
        if this.done {
            return Poll::Ready(None);
        }
        if this.left == 0 {
            let grace = this
                .grace
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(CUT_GRACE)));
            if grace.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            this.done = true;
            return Poll::Ready(Some(Err(failure(this.why.clone()))));
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                Ok(mut data) => {
                    let n = (data.len() as u64).min(this.left) as usize;
                    this.left -= n as u64;
                    Poll::Ready(Some(Ok(Frame::data(data.split_to(n)))))
                }
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(crate::body::io_error(e)))),
            // Shorter than the cut: it ends as it came.
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }

    fn size_hint(&self) -> SizeHint {
        // The length announced is the whole body's: the app sees it end early.
        self.inner.size_hint()
    }
}

/// A body that fails at once: the app's connection closes without an answer.
pub struct Broken(pub Option<String>);

impl Body for Broken {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Poll::Ready(self.get_mut().0.take().map(|w| Err(failure(w))))
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, Full};

    fn full(n: usize) -> impl Body<Data = Bytes, Error = std::io::Error> + Unpin {
        Full::new(Bytes::from(vec![1u8; n])).map_err(|never| -> std::io::Error { match never {} })
    }

    #[tokio::test(start_paused = true)]
    async fn a_throttled_body_keeps_its_rate() {
        let started = Instant::now();
        let out = Throttled::new(full(100_000), 50_000)
            .collect()
            .await
            .unwrap()
            .to_bytes();
        assert_eq!(out.len(), 100_000);
        let took = started.elapsed().as_secs_f64();
        assert!((1.9..2.1).contains(&took), "{took}");
    }

    #[tokio::test]
    async fn a_cut_body_ends_with_an_error_after_its_bytes() {
        let mut b = Cut::new(full(1000), 10, "cut".into());
        let first = b.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(first.len(), 10);
        assert!(b.frame().await.unwrap().is_err());
        let mut b = Broken(Some("gone".into()));
        assert!(b.frame().await.unwrap().is_err());
    }
}
