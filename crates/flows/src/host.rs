//! What the runner reaches of the product, and nothing else: [`Host`], which the product
//! implements for one device. Its operations are called by their [`Op`] (the error crate's list
//! of every operation) with JSON arguments, as the CLI and MCP call them by name; the screen is read as [`Screen`]; screenshots, recordings and the
//! run's files are the host's to take and keep, and JavaScript is the host's to evaluate
//! ([`Host::script`]: the engine lives in the product, not in this crate).

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

    /// Adds the photo or video `name` (its extension tells its kind) with these bytes to the
    /// device's gallery.
    fn add_media(&self, name: &str, bytes: &[u8]) -> impl Future<Output = R<()>> + Send;

    /// Evaluates JavaScript (a `runScript` file, an `evalScript`, a `${…}`) in the run's
    /// engine, whose `output` object lives as long as the run: its value and console lines,
    /// or why it failed (it threw, went over its time or memory, or asked for a host the run
    /// does not allow).
    fn script(&self, script: Script) -> impl Future<Output = R<ScriptDone>> + Send;
}

/// JavaScript for the host to evaluate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The code.
    pub code: String,
    /// What messages call it: its file, or the `${…}` as written.
    pub name: String,
    /// The variables it sees as globals, in scope order (later ones win).
    pub env: Vec<(String, String)>,
    /// `maestro.copiedText`: what `copyTextFrom` kept last.
    pub copied_text: Option<String>,
    /// When the run's time is up: the evaluation ends by then at the latest.
    pub until: std::time::Instant,
}

/// What evaluating a [`Script`] gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptDone {
    /// Its value, as JavaScript's `String(value)` writes it.
    pub value: String,
    /// What it wrote with `console.log`, a line each.
    pub console: Vec<String>,
}
