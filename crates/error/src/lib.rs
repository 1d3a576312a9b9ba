//! The product's one error type: a typed [`ErrorCode`] plus a message, a hint for the caller
//! and optional structured details. Every layer below the server returns [`Error`]; the server
//! turns it into the JSON envelope (docs/DESIGN.md "Errors", [`ErrorEnvelope`]), with the HTTP
//! status taken from the single exhaustive table in [`ErrorCode::status`] (the `axum` feature:
//! `IntoResponse for Error`). A crate of its own so that the product's other crates (the
//! recording proxy) answer in the same codes without seeing the product; the product names it
//! `mobilectl::error`.

// The product's code never unwraps (tests may: clippy.toml).
#![warn(clippy::unwrap_used)]
// Every public item says what it is (rustdoc).
#![warn(missing_docs)]

mod advice;
#[cfg(feature = "axum")]
mod http;
pub mod next;
mod op;
mod wire;

#[cfg(feature = "axum")]
pub use http::RETRY_AFTER_S;
pub use next::{Next, Step};
pub use op::Op;
pub use wire::{ErrorBody, ErrorEnvelope};

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])* $variant:ident = ($name:literal, $status:literal, $retryable:literal), )*) => {
        /// Machine-readable error codes. The string form is the API contract.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ToSchema)]
        #[schema(rename_all = "SCREAMING_SNAKE_CASE")]
        pub enum ErrorCode {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl ErrorCode {
            /// Every code, in table order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The wire name, e.g. `"ELEMENT_NOT_FOUND"`.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $name,)* }
            }

            /// The HTTP status of this code.
            pub fn status(self) -> u16 {
                match self { $(ErrorCode::$variant => $status,)* }
            }

            /// What the code means: its line in the table below, as documented there.
            pub fn meaning(self) -> &'static str {
                match self { $(ErrorCode::$variant => concat!($($doc),*).trim(),)* }
            }

            /// Whether the same request may succeed if simply tried again.
            pub fn retryable(self) -> bool {
                match self { $(ErrorCode::$variant => $retryable,)* }
            }
        }
    };
}

// The one table of the product: code, wire name, HTTP status, retryable.
error_codes! {
    /// The request was malformed (bad JSON, wrong types, invalid values).
    BadRequest = ("BAD_REQUEST", 400, false),
    /// The request is well-formed but names an unknown field or a value that cannot be acted on.
    ValidationFailed = ("VALIDATION_FAILED", 400, false),
    /// No route matches the path.
    RouteNotFound = ("ROUTE_NOT_FOUND", 404, false),
    /// The route exists but not for this HTTP method.
    MethodNotAllowed = ("METHOD_NOT_ALLOWED", 405, false),
    /// The body is not `application/json`.
    UnsupportedMediaType = ("UNSUPPORTED_MEDIA_TYPE", 415, false),
    /// The body exceeds the size limit.
    PayloadTooLarge = ("PAYLOAD_TOO_LARGE", 413, false),
    /// The request's URI (path and query) is longer than the server reads.
    UriTooLong = ("URI_TOO_LONG", 414, false),
    /// The request's headers are larger than the server reads.
    HeadersTooLarge = ("HEADERS_TOO_LARGE", 431, false),
    /// The request's body stopped arriving before it was complete.
    RequestTimeout = ("REQUEST_TIMEOUT", 408, true),
    /// A bearer token is required and missing or wrong.
    Unauthorized = ("UNAUTHORIZED", 401, false),
    /// The `Host` header is not a loopback name, the bound address or an allowed host.
    ForbiddenHost = ("FORBIDDEN_HOST", 403, false),
    /// No device matches (or none is connected).
    NoDevice = ("NO_DEVICE", 404, false),
    /// Several devices could be meant; the caller must choose one.
    AmbiguousDevice = ("AMBIGUOUS_DEVICE", 409, false),
    /// The device exists but is offline, unauthorized or gone mid-request.
    DeviceOffline = ("DEVICE_OFFLINE", 409, true),
    /// A required external tool is not installed.
    ToolMissing = ("TOOL_MISSING", 503, false),
    /// The operation does not exist on this platform or device kind.
    UnsupportedOnPlatform = ("UNSUPPORTED_ON_PLATFORM", 501, false),
    /// No element matches the target.
    ElementNotFound = ("ELEMENT_NOT_FOUND", 404, true),
    /// Several elements match the selector.
    AmbiguousTarget = ("AMBIGUOUS_TARGET", 409, false),
    /// The ref or snapshot id belongs to an older snapshot.
    StaleReference = ("STALE_REFERENCE", 409, true),
    /// The element exists but cannot be acted on (disabled, not editable…).
    ElementNotInteractable = ("ELEMENT_NOT_INTERACTABLE", 422, false),
    /// The element is covered (for example by the on-screen keyboard).
    ElementObscured = ("ELEMENT_OBSCURED", 409, true),
    /// A system alert blocks the screen.
    AlertBlocking = ("ALERT_BLOCKING", 409, true),
    /// No alert is on screen to answer.
    NoAlert = ("NO_ALERT", 404, true),
    /// (An outcome) The element is on screen although it was expected not to be.
    ElementVisible = ("ELEMENT_VISIBLE", 409, true),
    /// (An outcome) The element shows another text than the one expected.
    TextMismatch = ("TEXT_MISMATCH", 409, true),
    /// (An outcome) No text field has the focus, so typed text goes nowhere.
    NoFocusedField = ("NO_FOCUSED_FIELD", 409, false),
    /// (An outcome) The target is not a text field.
    ElementNotEditable = ("ELEMENT_NOT_EDITABLE", 422, false),
    /// (An outcome) The target app crashed during the action or its observe window.
    AppCrashed = ("APP_CRASHED", 409, false),
    /// (An outcome) The target app stopped responding (ANR) during the action or its window.
    AppNotResponding = ("APP_NOT_RESPONDING", 409, true),
    /// An action was expected to change the screen and did not.
    NavigationNoChange = ("NAVIGATION_NO_CHANGE", 409, true),
    /// (An outcome) The screen differs from the baseline by more than the tolerance.
    ScreenMismatch = ("SCREEN_MISMATCH", 409, true),
    /// (An outcome) The screen has accessibility findings at or above the severity asked
    /// (against a saved audit: new ones).
    AccessibilityFindings = ("ACCESSIBILITY_FINDINGS", 409, false),
    /// A visual diff's baseline cannot be compared: not a PNG, too large, or of another shape
    /// than the screen.
    BaselineUnusable = ("BASELINE_UNUSABLE", 422, false),
    /// The text cannot be typed by any available method.
    UnsupportedText = ("UNSUPPORTED_TEXT", 422, false),
    /// The app, file or other named resource does not exist.
    NotFound = ("NOT_FOUND", 404, false),
    /// An external command or the device took too long.
    Timeout = ("TIMEOUT", 504, true),
    /// An external command failed; details carry its stderr.
    CommandFailed = ("COMMAND_FAILED", 502, true),
    /// The server runs as many external commands as it allows; retry shortly.
    Busy = ("BUSY", 503, true),
    /// A device reached over the network (its WebDriverAgent server) could not be connected
    /// to, or the connection broke before it answered.
    DeviceUnreachable = ("DEVICE_UNREACHABLE", 503, true),
    /// The port asked for is taken by another program.
    PortInUse = ("PORT_IN_USE", 409, false),
    /// The server's setup does not allow this request (e.g. revealing secrets off loopback).
    Forbidden = ("FORBIDDEN", 403, false),
    /// The request names a session (`Mobilectl-Session`, or `session` in query or body) that
    /// does not exist or was ended.
    SessionNotFound = ("SESSION_NOT_FOUND", 404, false),
    /// The request names a session that expired (idle longer than its TTL); its lease is gone.
    SessionExpired = ("SESSION_EXPIRED", 410, false),
    /// The request names a live session by its id or name, or tries to end or change
    /// another caller's session: only the secret its creation answered acts in a session.
    SessionForbidden = ("SESSION_FORBIDDEN", 403, false),
    /// Another session holds the device's lease: only reads are open to others.
    DeviceLeased = ("DEVICE_LEASED", 409, true),
    /// No device that the session asks for is free (each candidate is leased).
    NoFreeDevice = ("NO_FREE_DEVICE", 409, true),
    /// A request in a session names another device than the one the session holds.
    SessionDeviceMismatch = ("SESSION_DEVICE_MISMATCH", 409, false),
    /// A live session already has this name.
    SessionNameTaken = ("SESSION_NAME_TAKEN", 409, false),
    /// The device is already being recorded (one recording per device at a time).
    RecordingActive = ("RECORDING_ACTIVE", 409, false),
    /// No recording of the device runs (stop without a start).
    NotRecording = ("NOT_RECORDING", 409, false),
    /// The app on the device is already being sampled into a window (one per device).
    PerfWindowActive = ("PERF_WINDOW_ACTIVE", 409, false),
    /// No performance window runs on the device (stop without a start).
    NoPerfWindow = ("NO_PERF_WINDOW", 409, false),
    /// The run named does not exist (never did, or garbage collection deleted it).
    RunNotFound = ("RUN_NOT_FOUND", 404, false),
    /// The run has no artifact of that name.
    ArtifactNotFound = ("ARTIFACT_NOT_FOUND", 404, false),
    /// The run is live (a live session's, the server's, or held by a recording) and cannot be
    /// deleted.
    RunLive = ("RUN_LIVE", 409, false),
    /// A failure that fits no other code.
    Unknown = ("UNKNOWN", 500, false),
    /// Something failed inside mobilectl; details are logged, never returned.
    Internal = ("INTERNAL", 500, false),
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        ErrorCode::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error code `{name}`")))
    }
}

/// An error on its way to the caller.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct Error {
    /// What kind of failure, from the one table of codes.
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
    /// What to do next, in words (for HTTP callers when [`Error::next`] says it).
    pub hint: Option<String>,
    /// What to do next as a value, when it names operations ([`Error::with_next`]).
    pub next: Option<Box<Next>>,
    /// Structured context (candidates, observed state, a tool's stderr…).
    pub details: Option<Value>,
}

/// Result alias used across the product.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with a code and a message, without hint or details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            hint: None,
            next: None,
            details: None,
        }
    }

    /// The same error, saying what to do next in plain words (replacing any earlier advice).
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self.next = None;
        self
    }

    /// The same error, saying what to do next with steps that name operations: in `say`,
    /// `{0}`, `{1}`… stand for `steps`, worded by each front end (the HTTP hint names routes).
    /// Without steps, `say` is a plain hint.
    pub fn with_next(
        mut self,
        say: impl Into<String>,
        steps: impl IntoIterator<Item = Step>,
    ) -> Self {
        let next = Next {
            say: say.into(),
            steps: steps.into_iter().collect(),
        };
        if next.steps.is_empty() {
            return self.with_hint(next.say);
        }
        self.hint = Some(next.http());
        self.next = Some(Box::new(next));
        self
    }

    /// The same error, with structured context.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// `400 BAD_REQUEST`: the request was malformed.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::BadRequest, message)
    }

    /// `400 VALIDATION_FAILED`: well-formed, but a value cannot be acted on.
    pub fn validation(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::ValidationFailed, message)
    }

    /// Something broke inside mobilectl. The message is logged by the server and replaced by a
    /// generic one on the wire.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Internal, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_unique_and_serialize_as_such() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "duplicate {}", code.as_str());
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                Value::String(code.as_str().into())
            );
            let back: ErrorCode =
                serde_json::from_value(Value::String(code.as_str().into())).unwrap();
            assert_eq!(back, *code);
        }
        let e = serde_json::from_value::<ErrorCode>(Value::String("NO_SUCH".into())).unwrap_err();
        assert!(
            e.to_string().contains("unknown error code `NO_SUCH`"),
            "{e}"
        );
    }

    #[test]
    fn only_internal_failures_are_500() {
        for code in ErrorCode::ALL {
            let internal = matches!(code, ErrorCode::Internal | ErrorCode::Unknown);
            assert_eq!(code.status() == 500, internal, "{code:?}");
        }
    }

    #[test]
    fn the_last_advice_wins_and_the_envelope_carries_next() {
        let stepped = Error::validation("x").with_next("see {0}", [Step::Schema]);
        assert_eq!(
            stepped.hint.as_deref(),
            Some("see GET /openapi.json or /docs")
        );
        let body = ErrorBody::from(stepped.clone());
        assert_eq!(body.next.as_ref(), stepped.next.as_deref());
        let v = serde_json::to_value(&body).unwrap();
        assert_eq!(v["next"]["steps"][0]["kind"], "schema");
        // Plain words after it replace it; no steps is plain words.
        let plain = stepped.with_hint("do this");
        assert_eq!((plain.hint.as_deref(), plain.next), (Some("do this"), None));
        let none = Error::validation("x").with_next("just words", []);
        assert_eq!(
            (none.hint.as_deref(), none.next.is_none()),
            (Some("just words"), true)
        );
        assert!(serde_json::to_value(ErrorBody::from(none))
            .unwrap()
            .get("next")
            .is_none());
    }
}
