//! Device backends: adb (Android), simctl + AXe or idb (iOS Simulator).
