use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "mobilectl",
    version,
    about = "Inspect and drive phones over HTTP"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a virtual Android device that the real adb connects to (tests, demos).
    VirtualDevice(mobilectl::virtual_device::VirtualDeviceArgs),
}

fn main() {
    // Inside a virtual device's shell, mobilectl also plays the device's programs (`input`, …).
    if let Some(code) = mobilectl::virtual_device::applet_entry() {
        std::process::exit(code);
    }
    match Cli::parse().command {
        Command::VirtualDevice(args) => {
            std::process::exit(mobilectl::virtual_device::run_cli(args))
        }
    }
}
