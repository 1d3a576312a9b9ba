//! Device backends: adb (Android), simctl + AXe or idb (iOS Simulator) and WebDriverAgent +
//! devicectl (physical iPhones), each in its folder, behind the [`DeviceBackend`] trait;
//! [`registry`] lists the built-in ones. Adding a backend is a folder here and one line in
//! [`registry::builtin`].
//!
//! Backends know devices and tools, never HTTP routes. They run every command through
//! [`crate::exec`] (processes, and HTTP for devices reached over the network) and report
//! failures as [`crate::error::Error`] with the tool's own words in `details`. The vocabulary
//! they share with the rest of the product (devices, points, keys, apps) is [`crate::device`].

pub mod android;
pub mod doctor;
pub mod host;
pub mod host_process;
pub mod ios;
pub mod polled;
pub mod registry;
mod run;
mod traits;
pub mod validate;
pub mod wda;

pub use registry::BackendConfig;
pub use traits::{
    concern, lacking, not_running, tap_button, unrecognised, unsupported, unsupported_logs, Acted,
    AfterAction, AfterShutdown, AirplaneMode, Alerts, Apps, Biometrics, Clipboard, Concern,
    Connect, DeviceBackend, DeviceHelper, Erase, Files, Input, InputStep, Intents, Lifecycle,
    Location, Logs, Media, MultiTouchInput, NetworkCapture, NotificationShade, Notifications, Perf,
    Permissions, Recording, Screen, ScreenGeometry, ScreenOrientation, StatusBar, TypeJob,
    TypedWith, UiSource, Web,
};

pub use run::{command_failed, exec_error, http_error, run_tool, tool_command, tool_missing};
