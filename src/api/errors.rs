//! The error codes operations declare, in groups that compose: every operation can answer
//! [`ALWAYS`]; one that reaches a device adds [`DEVICE`]; one that aims at an element adds
//! [`TARGET`]. The OpenAPI document lists each operation's codes under their HTTP status.

use crate::error::ErrorCode::{self, *};

/// What any request can be answered with (malformed input, the security checks, a body that
/// stopped arriving, a server with every connection taken, a session that is gone, a bug).
pub const ALWAYS: &[ErrorCode] = &[
    BadRequest,
    ValidationFailed,
    Unauthorized,
    ForbiddenHost,
    UnsupportedMediaType,
    PayloadTooLarge,
    UriTooLong,
    HeadersTooLarge,
    RequestTimeout,
    Busy,
    Internal,
    SessionNotFound,
    SessionExpired,
    SessionForbidden,
];

/// Reaching a device: resolving it (a lease another session holds, a session's other device),
/// its tools, its commands.
pub const DEVICE: &[ErrorCode] = &[
    NoDevice,
    AmbiguousDevice,
    DeviceOffline,
    ToolMissing,
    UnsupportedOnPlatform,
    Timeout,
    CommandFailed,
    Busy,
    DeviceUnreachable,
    DeviceLeased,
    SessionDeviceMismatch,
];

/// Aiming at an element of the screen (ref, point, selector or grid cell).
pub const TARGET: &[ErrorCode] = &[
    ElementNotFound,
    AmbiguousTarget,
    StaleReference,
    AlertBlocking,
    ElementObscured,
    ElementNotInteractable,
];

/// Naming something that may not exist: an app, a file, an AVD.
pub const NAMED: &[ErrorCode] = &[NotFound];
