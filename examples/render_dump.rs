//! Prints `ui::render_dump` of a saved dump: `cargo run --release --example render_dump -- PATH [--json] [--interactive-only]`.

use mobilectl::ui::{render_dump, Format};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: render_dump PATH [--json] [--interactive-only]");
        std::process::exit(2);
    };
    let format = if args.iter().any(|a| a == "--json") {
        Format::Json
    } else {
        Format::Text
    };
    let interactive = args.iter().any(|a| a == "--interactive-only");
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    match render_dump(&text, format, interactive) {
        Ok(out) => print!("{out}"),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
