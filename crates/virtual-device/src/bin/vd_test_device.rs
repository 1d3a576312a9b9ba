//! The crate's own device binary, for its integration tests (feature `testing`): what
//! `mobilectl` does for the virtual device and nothing else — `vd-test-device virtual-device
//! [OPTIONS] [control …]`, and the applet client when invoked through a sandbox symlink.

#[cfg(unix)]
#[derive(clap::Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[cfg(unix)]
#[derive(clap::Subcommand)]
enum Command {
    /// Run (or control) a virtual Android device.
    VirtualDevice(virtual_device::VirtualDeviceArgs),
}

#[cfg(unix)]
fn main() {
    use clap::Parser;
    if let Some(code) = virtual_device::applet_entry() {
        std::process::exit(code);
    }
    let Command::VirtualDevice(args) = Cli::parse().command;
    std::process::exit(virtual_device::run_cli(args));
}

#[cfg(not(unix))]
fn main() {}
