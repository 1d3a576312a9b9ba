//! `mobilectl snapshot` flags, and its offline mode: `--from-file PATH` renders a saved UI
//! dump (uiautomator XML, AXe/idb JSON, WDA XML…; the kind is detected from the content)
//! with [`crate::ui::render_dump`], without any server.

use std::path::PathBuf;

use clap::Args;

use crate::client::exit;

/// Flags of `snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// Only the elements an agent can act on.
    #[arg(short, long)]
    pub interactive_only: bool,
    /// Render a saved dump instead of asking the server.
    #[arg(long, value_name = "PATH")]
    pub from_file: Option<PathBuf>,
    /// `text`: the server's own text (its header names the device and the fingerprint; the
    /// default with --from-file); `json` (or `--json`): the whole snapshot. By default the
    /// compact tree under a short header, as an MCP client reads it.
    #[arg(long, value_parser = super::derived::values("snapshot", "format"))]
    pub format: Option<String>,
}

/// Renders `args.from_file`; returns the exit code.
pub fn run(path: &std::path::Path, args: &SnapshotArgs, json_flag: bool) -> i32 {
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("mobilectl: cannot read {}: {e}", path.display());
            return exit::USAGE;
        }
    };
    let format = match (args.format.as_deref(), json_flag) {
        (Some("json"), _) | (None, true) => crate::ui::Format::Json,
        _ => crate::ui::Format::Text,
    };
    match crate::ui::render_dump(&text, format, args.interactive_only) {
        Ok(out) => {
            print!("{out}");
            if !out.ends_with('\n') {
                println!();
            }
            exit::OK
        }
        Err(e) => {
            eprintln!(
                "mobilectl: {}: not a UI dump I can read: {e}",
                path.display()
            );
            exit::FAILED
        }
    }
}
