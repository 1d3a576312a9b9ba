//! DeviceController: target-device resolution, per-device state, serialised commands.
