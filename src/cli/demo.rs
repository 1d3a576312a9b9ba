//! `serve --demo` and `mobilectl virtual-device`: the virtual Android device
//! (`crates/virtual-device`), present when the binary is built with the `demo` feature (the
//! default). Without it, both say how to get it instead of failing obscurely.

use crate::exec::{Tool, Toolbox};

/// The demo device while the server runs.
#[cfg(feature = "demo")]
pub type DemoDevice = virtual_device::RunningDevice;

/// No demo device can exist in a build without the `demo` feature.
#[cfg(not(feature = "demo"))]
pub enum DemoDevice {}

#[cfg(not(feature = "demo"))]
impl DemoDevice {
    pub fn serial(&self) -> String {
        match *self {}
    }
}

#[cfg(not(feature = "demo"))]
const NOT_BUILT: &str =
    "this mobilectl was built without the virtual device (cargo feature `demo`); rebuild with default features";

/// Starts the demo virtual device and connects the adb server to it.
pub async fn start(tools: &Toolbox, adb_server_port: Option<u16>) -> Result<DemoDevice, String> {
    let adb = tools
        .path(Tool::Adb)
        .ok_or_else(|| format!("adb is needed: {}", Tool::Adb.install_hint()))?
        .to_path_buf();
    #[cfg(feature = "demo")]
    {
        let me = std::env::current_exe()
            .map_err(|e| format!("cannot find the mobilectl binary: {e}"))?;
        virtual_device::run_demo_for_serve(me, &adb, adb_server_port)
            .await
            .map_err(|e| e.to_string())
    }
    #[cfg(not(feature = "demo"))]
    {
        let _ = (adb, adb_server_port);
        Err(NOT_BUILT.to_string())
    }
}

/// Arguments of `mobilectl virtual-device`.
#[cfg(feature = "demo")]
pub use virtual_device::VirtualDeviceArgs;

/// Without the virtual device, `mobilectl virtual-device` takes any arguments and refuses.
#[cfg(not(feature = "demo"))]
#[derive(Debug, clap::Args)]
pub struct VirtualDeviceArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

/// Runs `mobilectl virtual-device …`; returns the exit code.
pub fn run_cli(args: VirtualDeviceArgs) -> i32 {
    #[cfg(feature = "demo")]
    {
        virtual_device::run_cli(args)
    }
    #[cfg(not(feature = "demo"))]
    {
        let _ = args;
        eprintln!("mobilectl: {NOT_BUILT}");
        2
    }
}

/// Inside a virtual device's shell, the binary also plays the device's programs (`input`, …):
/// the exit code of that program, or `None` when this process is not one of them.
pub fn applet_entry() -> Option<i32> {
    #[cfg(feature = "demo")]
    {
        virtual_device::applet_entry()
    }
    #[cfg(not(feature = "demo"))]
    {
        None
    }
}
