//! Maestro flows: YAML files of UI steps that mobilectl checks without a device and runs
//! natively against its own operations. [`yaml`] reads text into nodes with lines, [`parse`]
//! turns them into a [`model::Flow`] or refusals with file and line, [`load`] reads files and
//! sub-flows and checks variables, [`vars`] fills `${NAME}` in, [`select`] matches Maestro's
//! selectors on a screen read, [`check`] reports a file or folder without running it,
//! [`run`] runs a flow on a device through the product's operations, [`report`] writes JUnit.
//! [`budget`] bounds what one flow, with all its sub-flows and repeats, comes to. [`record`]
//! turns a caller's operations back into commands.
//!
//! The crate names nothing of the product but its list of operations (the error crate's `Op`):
//! the runner reaches it only through [`host::Host`] (run an operation with JSON arguments, read
//! the screen, take a screenshot, record, keep a file), and selectors read a screen through
//! [`select::Screen`], which the product's screen read implements. [`wire`] and [`launch`] are
//! the types the product's API re-exports.

// The crate's code never unwraps (tests may: clippy.toml).
#![warn(clippy::unwrap_used)]
// Every public item says what it is (rustdoc).
#![warn(missing_docs)]

pub mod budget;
pub mod check;
pub mod commands;
#[cfg(test)]
mod fake;
pub mod host;
pub mod launch;
pub mod load;
pub mod model;
pub mod parse;
pub mod random;
pub mod record;
pub mod report;
pub mod run;
#[cfg(test)]
mod script_tests;
pub mod select;
pub mod suite;
pub mod travel;
pub mod vars;
pub mod wire;
pub mod yaml;
