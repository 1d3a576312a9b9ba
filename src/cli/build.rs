//! `mobilectl app build [PROJECT_DIR]`: builds an app from source on the server's machine,
//! told as it goes (`build_app_stream`: a progress line, each diagnostic, then the verdict),
//! or answered once with `--json` (`build_app`). Each setting left out comes from the
//! session's defaults, so in a session a second `app build` needs no arguments.

use clap::Args;
use serde_json::{json, Value};

use super::plan::Request;

/// Flags of `app build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The project folder, under the server's build root (default: the session's).
    #[arg(value_name = "PROJECT_DIR")]
    project_dir: Option<String>,
    /// Build for this platform when no device says it (android, ios).
    #[arg(long, value_parser = super::derived::enum_of::<crate::device::Platform>())]
    platform: Option<String>,
    /// Install the built app on the device.
    #[arg(long)]
    install: bool,
    /// Install the built app and start it.
    #[arg(long)]
    launch: bool,
    /// Stop the build after this long (ms; default 30 min).
    #[arg(long, value_name = "MS")]
    timeout_ms: Option<u64>,
    /// Android: the app's Gradle module (default `app`).
    #[arg(long)]
    module: Option<String>,
    /// Android: the build variant (default `debug`).
    #[arg(long)]
    variant: Option<String>,
    /// iOS: the `.xcodeproj`, relative to the project folder.
    #[arg(long)]
    project: Option<String>,
    /// iOS: the `.xcworkspace`, relative to the project folder.
    #[arg(long)]
    workspace: Option<String>,
    /// iOS: the scheme (default: the only one).
    #[arg(long)]
    scheme: Option<String>,
    /// iOS: the configuration (default `Debug`).
    #[arg(long)]
    configuration: Option<String>,
    /// iOS: an `xcodebuild -destination` value (default: the device's).
    #[arg(long)]
    destination: Option<String>,
    /// iOS: the derived data folder, relative to the project folder (default: in the run).
    #[arg(long, value_name = "DIR")]
    derived_data: Option<String>,
}

/// The request of `app build`: streamed, or answered once with `--json`.
pub fn plan(a: BuildArgs, json_out: bool) -> Request {
    // Only what was given: the server fills the rest from the session.
    let object = |pairs: Vec<(&str, Option<String>)>| -> Option<Value> {
        let m: serde_json::Map<String, Value> = pairs
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_string(), json!(v))))
            .collect();
        (!m.is_empty()).then_some(Value::Object(m))
    };
    let ios = object(vec![
        ("project", a.project),
        ("workspace", a.workspace),
        ("scheme", a.scheme),
        ("configuration", a.configuration),
        ("destination", a.destination),
        ("derived_data", a.derived_data),
    ]);
    let android = object(vec![("module", a.module), ("variant", a.variant)]);
    let op = if json_out {
        "build_app"
    } else {
        "build_app_stream"
    };
    Request::new(
        op,
        json!({
            "project_dir": a.project_dir, "platform": a.platform,
            "install": a.install.then_some(true), "launch": a.launch.then_some(true),
            "timeout_ms": a.timeout_ms, "ios": ios, "android": android,
        }),
    )
}
