//! The `mobilectl` binary: parses the command line and hands over to [`mobilectl::cli`].

use clap::Parser;

fn main() {
    let cli = mobilectl::cli::Cli::parse();
    std::process::exit(mobilectl::cli::run(cli));
}
