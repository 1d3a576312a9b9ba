//! The `mobilectl` binary: parses the command line and hands over to [`mobilectl::cli`].

use clap::Parser;

fn main() {
    // Inside a virtual device's shell, mobilectl also plays the device's programs (`input`, …).
    if let Some(code) = mobilectl::cli::demo::applet_entry() {
        std::process::exit(code);
    }
    let cli = mobilectl::cli::Cli::parse();
    std::process::exit(mobilectl::cli::run(cli));
}
