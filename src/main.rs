//! The `mobilectl` binary: parses the command line and hands over to [`mobilectl::cli`].

fn main() {
    // Started again by the server to evaluate a flow's scripts, in a process of their own.
    if let Some(code) = mobilectl::script::worker_entry() {
        std::process::exit(code);
    }
    // Inside a virtual device's shell, mobilectl also plays the device's programs (`input`, …).
    if let Some(code) = mobilectl::cli::demo::applet_entry() {
        std::process::exit(code);
    }
    let parsed = mobilectl::cli::parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit());
    std::process::exit(mobilectl::cli::run_parsed(parsed));
}
