//! The JSON error envelope (docs/DESIGN.md "Errors"), as it travels: what every failed request
//! answers. Defined beside the error type (`crates/error`), which turns an error into it.

pub use crate::error::{ErrorBody, ErrorEnvelope};
