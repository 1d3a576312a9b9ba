//! `mobilectl virtual-device` and the applets a virtual device's shell runs: the virtual
//! Android device (`crates/virtual-device`), present when the binary is built with the `demo`
//! feature (the default). Without it, the command says how to get it instead of failing
//! obscurely. `serve --demo` starts its devices through `crate::server::demo`.

#[cfg(not(all(feature = "demo", unix)))]
use crate::server::demo::NOT_BUILT;

/// Arguments of `mobilectl virtual-device`.
#[cfg(all(feature = "demo", unix))]
pub use virtual_device::VirtualDeviceArgs;

/// Without the virtual device, `mobilectl virtual-device` takes any arguments and refuses.
#[cfg(not(all(feature = "demo", unix)))]
#[derive(Debug, clap::Args)]
pub struct VirtualDeviceArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

/// Runs `mobilectl virtual-device …`; returns the exit code.
pub fn run_cli(args: VirtualDeviceArgs) -> i32 {
    #[cfg(all(feature = "demo", unix))]
    {
        virtual_device::run_cli(args)
    }
    #[cfg(not(all(feature = "demo", unix)))]
    {
        let _ = args;
        eprintln!("mobilectl: {NOT_BUILT}");
        2
    }
}

/// Inside a virtual device's shell, the binary also plays the device's programs (`input`, …):
/// the exit code of that program, or `None` when this process is not one of them.
pub fn applet_entry() -> Option<i32> {
    #[cfg(all(feature = "demo", unix))]
    {
        virtual_device::applet_entry()
    }
    #[cfg(not(all(feature = "demo", unix)))]
    {
        None
    }
}
