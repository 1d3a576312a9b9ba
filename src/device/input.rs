//! What a caller does to a screen, named the same on every platform: points in the tap
//! coordinates of the device, keys, and how to answer an alert.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A point in the platform's tap coordinates (Android pixels, iOS points).
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
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
    /// Back (Android only).
    Back,
    /// Home: to the launcher or the springboard.
    Home,
    /// Enter / Return: submits a field or breaks a line.
    Enter,
    /// Backspace: deletes the character before the cursor.
    Delete,
    /// Tab: moves focus to the next field.
    Tab,
    /// Escape: cancels or closes what has focus, where the app handles it.
    Escape,
    /// Space: types a space, or activates the focused control.
    Space,
    /// D-pad up (Android); the up arrow on iOS.
    DpadUp,
    /// D-pad down (Android); the down arrow on iOS.
    DpadDown,
    /// D-pad left (Android); the left arrow on iOS.
    DpadLeft,
    /// D-pad right (Android); the right arrow on iOS.
    DpadRight,
    /// D-pad centre, the select button (Android only).
    DpadCenter,
    /// Volume up (not on iOS Simulators).
    VolumeUp,
    /// Volume down (not on iOS Simulators).
    VolumeDown,
    /// Power button: toggles the screen on Android, locks on iOS.
    Power,
    /// Locks the screen without toggling it (Android `KEYCODE_SLEEP`, the iOS lock button).
    Lock,
    /// The app switcher (Android only).
    RecentApps,
    /// Menu (Android only).
    Menu,
    /// Search (Android only).
    Search,
    /// Siri (iOS Simulators only).
    Siri,
    /// The Apple Pay button (iOS Simulators only).
    ApplePay,
}

/// A key press: a named key or a raw platform key code (Android `KEYCODE_*` number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPress {
    /// A key known on every platform.
    Named(Key),
    /// A raw key code, sent as it is: Android `KEYCODE_*` number, iOS USB HID usage (0–255).
    Code(u32),
}

/// How to answer an alert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlertChoice {
    /// The alert's accepting button (Allow, OK…).
    Accept,
    /// The alert's dismissing button (Don't Allow, Cancel…).
    Dismiss,
    /// The button with this label (case-insensitive).
    Button(String),
}
