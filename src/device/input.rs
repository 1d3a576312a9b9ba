//! What a caller does to a screen, named the same on every platform: points in the tap
//! coordinates of the device, keys, and how to answer an alert.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A point in the platform's tap coordinates (Android pixels, iOS points).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// Hardware and navigation keys, named the same on every platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Key {
    Back,
    Home,
    Enter,
    Delete,
    Tab,
    Escape,
    Space,
    DpadUp,
    DpadDown,
    DpadLeft,
    DpadRight,
    DpadCenter,
    VolumeUp,
    VolumeDown,
    Power,
    Lock,
    RecentApps,
    Menu,
    Search,
    Siri,
    ApplePay,
}

/// A key press: a named key or a raw platform key code (Android `KEYCODE_*` number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPress {
    Named(Key),
    Code(u32),
}

/// How to answer an alert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlertChoice {
    Accept,
    Dismiss,
    /// The button with this label (case-insensitive).
    Button(String),
}
