//! What a handler answers, as a type: [`Reply`] ties a handler's return type to the table's
//! [`Output`] (content types and schema), so a binding can be checked against the table's
//! entry; and the responses themselves (`IntoResponse`): JSON or text, images, files, event
//! streams, `ETag`s.

use std::marker::PhantomData;

use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use crate::api::types::WireType;
use crate::api::Output;

/// A handler's success type.
pub trait Reply: IntoResponse + Send + 'static {
    /// The table's output this type answers (content types and schema).
    fn output() -> Output;
}

impl<T: ToSchema + Serialize + Send + 'static> Reply for Json<T> {
    fn output() -> Output {
        Output::Json(WireType::of::<T>())
    }
}

/// JSON of `T`, or the same content as `text/plain` (the caller asked `format=text`).
pub struct JsonOrText<T>(pub Response, PhantomData<T>);

impl<T> JsonOrText<T> {
    /// The response as made, JSON or text, typed as `T`'s.
    pub fn new(r: Response) -> Self {
        JsonOrText(r, PhantomData)
    }
}

impl<T: Send + 'static> IntoResponse for JsonOrText<T> {
    fn into_response(self) -> Response {
        self.0
    }
}

impl<T: ToSchema + Send + 'static> Reply for JsonOrText<T> {
    fn output() -> Output {
        Output::JsonOrText(WireType::of::<T>())
    }
}

/// A reply with an `ETag` (a strong validator of what it shows): a `GET` whose
/// `If-None-Match` names it is answered `304 Not Modified` without a body (see
/// [`super::bind`]).
pub struct Tagged<R>(pub R, pub String);

impl<R: IntoResponse> IntoResponse for Tagged<R> {
    fn into_response(self) -> Response {
        let mut r = self.0.into_response();
        if let Ok(v) = axum::http::HeaderValue::from_str(&format!("\"{}\"", self.1)) {
            r.headers_mut().insert(axum::http::header::ETAG, v);
        }
        r
    }
}

impl<R: Reply> Reply for Tagged<R> {
    fn output() -> Output {
        R::output()
    }
}

/// The tag of a view: what it shows (a fingerprint) plus the parameters that shape it.
pub fn tag(shows: &str, params: &impl std::fmt::Debug) -> String {
    let h = blake3::hash(format!("{params:?}").as_bytes());
    format!("{shows}-{}", &h.to_hex()[..8])
}

/// Whether an `If-None-Match` header value names `etag` (a quoted tag, possibly weak, in a
/// comma-separated list; `*` names any).
pub fn none_match_hits(if_none_match: &str, etag: &str) -> bool {
    if_none_match
        .split(',')
        .map(str::trim)
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == etag)
}

/// An encoded image with its content type and headers.
pub struct Image(pub Response);

impl IntoResponse for Image {
    fn into_response(self) -> Response {
        self.0
    }
}

impl Reply for Image {
    fn output() -> Output {
        Output::Image
    }
}

/// A PEM file (`application/x-pem-file`): a certificate.
pub struct Pem(pub String);

impl IntoResponse for Pem {
    fn into_response(self) -> Response {
        (
            [(axum::http::header::CONTENT_TYPE, Self::CONTENT_TYPES[0])],
            self.0,
        )
            .into_response()
    }
}

impl Pem {
    const CONTENT_TYPES: &'static [&'static str] = &["application/x-pem-file"];
}

impl Reply for Pem {
    fn output() -> Output {
        Output::File(Self::CONTENT_TYPES)
    }
}

/// An MP4 video file (`video/mp4`), streamed from disk.
pub struct Mp4File(pub tokio::fs::File, pub u64);

impl Mp4File {
    /// The content type it is served as.
    pub const CONTENT_TYPES: &'static [&'static str] = &["video/mp4"];
}

impl IntoResponse for Mp4File {
    fn into_response(self) -> Response {
        (
            [
                (
                    axum::http::header::CONTENT_TYPE,
                    Self::CONTENT_TYPES[0].to_string(),
                ),
                (axum::http::header::CONTENT_LENGTH, self.1.to_string()),
            ],
            axum::body::Body::from_stream(tokio_util::io::ReaderStream::new(self.0)),
        )
            .into_response()
    }
}

impl Reply for Mp4File {
    fn output() -> Output {
        Output::File(Self::CONTENT_TYPES)
    }
}

/// A stream of Server-Sent Events whose `data` is JSON of `T` (see [`Output::EventStream`]).
pub struct EventStream<T>(pub Response, PhantomData<T>);

impl<T> EventStream<T> {
    /// The SSE response (`axum::response::Sse`), typed as a stream of `T`.
    pub fn new(r: impl IntoResponse) -> Self {
        EventStream(r.into_response(), PhantomData)
    }
}

impl<T: Send + 'static> IntoResponse for EventStream<T> {
    fn into_response(self) -> Response {
        self.0
    }
}

impl<T: ToSchema + Send + 'static> Reply for EventStream<T> {
    fn output() -> Output {
        Output::EventStream(WireType::of::<T>())
    }
}

/// JSON of `T`, or raw bytes in their own content type (the caller asked `body=…`).
pub struct JsonOrBytes<T>(pub Response, PhantomData<T>);

impl<T> JsonOrBytes<T> {
    /// The response as made, JSON or bytes, typed as `T`'s.
    pub fn new(r: impl IntoResponse) -> Self {
        JsonOrBytes(r.into_response(), PhantomData)
    }
}

impl<T: Send + 'static> IntoResponse for JsonOrBytes<T> {
    fn into_response(self) -> Response {
        self.0
    }
}

impl<T: ToSchema + Send + 'static> Reply for JsonOrBytes<T> {
    fn output() -> Output {
        Output::JsonOrBytes(WireType::of::<T>())
    }
}

/// An artifact of a run, streamed from its file in its own content type (one of
/// [`crate::api::table::ARTIFACT_TYPES`]).
pub struct ArtifactFile(pub Response);

impl IntoResponse for ArtifactFile {
    fn into_response(self) -> Response {
        self.0
    }
}

impl Reply for ArtifactFile {
    fn output() -> Output {
        Output::File(crate::api::table::ARTIFACT_TYPES)
    }
}

/// Aborts a task when the stream that owns it is dropped (its client went away): a streamed
/// run or build stops with its reader.
pub(crate) struct AbortOnDrop(pub(crate) tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
