//! Reading app builds: what `xcodebuild` (iOS, macOS) and `./gradlew` (Android) print, merged
//! stdout and stderr, line by line. [`clean`] takes off what transports add (colours, `\r`, a
//! BOM, GitHub Actions' timestamps) and caps a line; [`diag`] knows the shapes of diagnostic
//! lines; [`xcode`] and [`gradle`] know each tool's build steps and read the products (the
//! built `.app` from `xcodebuild -showBuildSettings -json`, the schemes from `-list -json`, the
//! APK from the Android Gradle Plugin's `output-metadata.json`); [`failure`] tells the failure
//! a line shows and the hint that goes with it; [`reader`] puts them together into events,
//! counts and the build's failure. [`wire`] holds the types the product's API answers with.
//!
//! No I/O, no processes: the server runs the build and feeds the lines.

// The crate's code never unwraps (tests may: clippy.toml).
#![warn(clippy::unwrap_used)]
// Every public item says what it is (rustdoc).
#![warn(missing_docs)]

pub mod clean;
pub mod diag;
pub mod failure;
#[cfg(test)]
mod fixtures;
pub mod gradle;
pub mod reader;
pub mod wire;
pub mod xcode;

pub use reader::{Event, Reader, MAX_DIAGNOSTICS};
pub use wire::{
    ApkProduct, AppProduct, Diagnostic, DiagnosticTool, Failure, FailureKind, Phase, PhaseName,
    Severity, Toolchain,
};
