//! The programs mobilectl drives devices with, by name: which they are, how each is overridden
//! and what to do when one is missing. Where they are found is `crate::exec::tools`.

use serde::Serialize;
use utoipa::ToSchema;

/// The external programs mobilectl drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tool {
    /// Android Debug Bridge, for every Android device and emulator.
    Adb,
    /// The Android SDK emulator, to boot AVDs.
    Emulator,
    /// Xcode's `xcrun`, for `simctl` (iOS Simulators).
    Xcrun,
    /// AXe, the preferred driver of iOS Simulator input and UI dumps.
    Axe,
    /// Meta's idb, the fallback to AXe.
    Idb,
    /// Xcode's `xcodebuild`, to build iOS apps from source.
    Xcodebuild,
}

impl Tool {
    /// Every tool, in the order the doctor checks them.
    pub const ALL: [Tool; 6] = [
        Tool::Adb,
        Tool::Emulator,
        Tool::Xcrun,
        Tool::Axe,
        Tool::Idb,
        Tool::Xcodebuild,
    ];

    /// The program's name, as looked up on `PATH` (`adb`, `xcrun`…).
    pub fn name(self) -> &'static str {
        match self {
            Tool::Adb => "adb",
            Tool::Emulator => "emulator",
            Tool::Xcrun => "xcrun",
            Tool::Axe => "axe",
            Tool::Idb => "idb",
            Tool::Xcodebuild => "xcodebuild",
        }
    }

    /// The environment variable that overrides the tool's location.
    pub fn env_override(self) -> &'static str {
        match self {
            Tool::Adb => "MOBILECTL_ADB",
            Tool::Emulator => "MOBILECTL_EMULATOR",
            Tool::Xcrun => "MOBILECTL_XCRUN",
            Tool::Axe => "MOBILECTL_AXE",
            Tool::Idb => "MOBILECTL_IDB",
            Tool::Xcodebuild => "MOBILECTL_XCODEBUILD",
        }
    }

    /// What to do when the tool is missing.
    pub fn install_hint(self) -> &'static str {
        match self {
            Tool::Adb => "install Android platform-tools (Debian/Ubuntu: `apt-get install adb`; macOS: `brew install --cask android-platform-tools`; Windows: `winget install Google.PlatformTools`) or set MOBILECTL_ADB to the adb binary",
            Tool::Emulator => "install the Android SDK emulator package (`sdkmanager emulator`) and set ANDROID_HOME, or set MOBILECTL_EMULATOR",
            Tool::Xcrun => "iOS Simulators need macOS with Xcode: install Xcode and run `xcode-select --install`, or set MOBILECTL_XCRUN",
            Tool::Axe => "install AXe (`brew install cameroncooke/axe/axe`) or set MOBILECTL_AXE; idb is the fallback",
            Tool::Idb => "install idb (`brew install facebook/fb/idb-companion && pip install fb-idb`) or set MOBILECTL_IDB; AXe is preferred",
            Tool::Xcodebuild => "building iOS apps needs macOS with Xcode: install Xcode and select it (`sudo xcode-select -s /Applications/Xcode.app`), or set MOBILECTL_XCODEBUILD",
        }
    }
}
