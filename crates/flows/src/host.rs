//! What the runner reaches of the product, and nothing else: [`Host`], which the product
//! implements for one device. Its operations are called by their [`Op`] (the error crate's list
//! of every operation) with JSON arguments, as the CLI and MCP call them by name; the screen is read as [`Screen`]; screenshots, recordings and the
//! run's files are the host's to take and keep.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use mobilectl_error::Op;
use serde_json::Value;

use crate::select::Screen;

/// A step's outcome: its value, or why it failed (the step result's message).
pub type R<T> = Result<T, String>;

/// The product, for a run on one device. Each answer is the value or why it failed, in words
/// a step result shows.
pub trait Host: Send + Sync {
    /// A screen read.
    type Screen: Screen + Send + Sync;

    /// The device's id (the run's result names it).
    fn udid(&self) -> &str;

    /// `android` or `ios` (`${maestro.platform}`, a `when`'s `platform`).
    fn platform(&self) -> &str;

    /// Runs operation `op` (a row of the product's table) on the device with `args` (an
    /// object of its arguments by name, the device left out): its JSON answer when it
    /// succeeded, else why not.
    fn call(&self, op: Op, args: Value) -> impl Future<Output = R<Value>> + Send;

    /// Reads the screen; `after_op`: the last operation read the screen after itself (a scroll
    /// does), so its read may be the answer instead of another dump.
    fn read(&self, after_op: bool) -> impl Future<Output = R<Arc<Self::Screen>>> + Send;

    /// A screenshot, as PNG.
    fn screenshot(&self) -> impl Future<Output = R<Vec<u8>>> + Send;

    /// Starts a screen recording named `name`.
    fn start_recording(&self, name: &str) -> impl Future<Output = R<()>> + Send;

    /// Stops the recording started as `name`, and keeps it with the run's files.
    fn stop_recording(&self, name: &str) -> impl Future<Output = R<()>> + Send;

    /// Keeps the run's file `name` (`failure.png`, `tree.txt`, a `takeScreenshot`'s PNG…).
    fn keep(&self, name: &str, bytes: &[u8]) -> R<()>;

    /// Where the run's files are (the result names it when there are some).
    fn kept_in(&self) -> PathBuf;
}
