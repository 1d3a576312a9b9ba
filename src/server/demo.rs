//! The demo devices of `serve --demo`: virtual Android devices (`crates/virtual-device`) that
//! adb is connected to, present when the binary is built with the `demo` feature (the
//! default) on Linux and macOS. Without it, or on Windows, starting one says why instead of
//! failing obscurely.

use crate::exec::{Tool, Toolbox};

/// A demo device while the server runs.
#[cfg(all(feature = "demo", unix))]
pub type DemoDevice = virtual_device::RunningDevice;

/// No demo device can exist in a build without the `demo` feature.
#[cfg(not(all(feature = "demo", unix)))]
pub enum DemoDevice {}

#[cfg(not(all(feature = "demo", unix)))]
impl DemoDevice {
    /// The device's adb serial (never called: there is no such device).
    pub fn serial(&self) -> String {
        match *self {}
    }
}

/// What a build without the virtual device says when asked for one.
#[cfg(all(not(feature = "demo"), unix))]
pub const NOT_BUILT: &str =
    "this mobilectl was built without the virtual device (cargo feature `demo`); rebuild with default features";

/// What a host that cannot run the virtual device says when asked for one.
#[cfg(not(unix))]
pub const NOT_BUILT: &str =
    "the virtual Android device runs only on Linux and macOS (it runs Android's shell, mksh, and \
     Unix utilities); on this host, serve real devices and emulators through adb";

/// Starts a demo virtual device and connects the adb server to it.
pub async fn start(tools: &Toolbox, adb_server_port: Option<u16>) -> Result<DemoDevice, String> {
    let adb = tools
        .path(Tool::Adb)
        .ok_or_else(|| format!("adb is needed: {}", Tool::Adb.install_hint()))?
        .to_path_buf();
    #[cfg(all(feature = "demo", unix))]
    {
        let me = std::env::current_exe()
            .map_err(|e| format!("cannot find the mobilectl binary: {e}"))?;
        virtual_device::run_demo_for_serve(me, &adb, adb_server_port)
            .await
            .map_err(|e| e.to_string())
    }
    #[cfg(not(all(feature = "demo", unix)))]
    {
        let _ = (adb, adb_server_port);
        Err(NOT_BUILT.to_string())
    }
}

/// Disconnects adb from a demo device that is going away, so the adb server keeps no
/// dangling offline entry.
pub async fn disconnect(device: &DemoDevice, tools: &Toolbox, adb_server_port: Option<u16>) {
    if let Some(adb) = tools.path(Tool::Adb) {
        let mut cmd = crate::exec::Command::new(adb);
        if let Some(port) = adb_server_port {
            cmd = cmd.args(["-P".to_string(), port.to_string()]);
        }
        let _ = cmd.args(["disconnect", &device.serial()]).run().await;
    }
}
