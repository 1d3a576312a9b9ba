//! `shell:` — a command (or an interactive shell when empty) run by mksh in the sandbox.
//! Legacy `shell:` is a raw byte stream (stdout and stderr mixed, no exit code); with
//! `shell,v2,…:` stdout, stderr and the exit code travel in v2 packets. No pty is ever
//! allocated: `TERM=` is ignored, and an interactive session that asked for a `pty` gets an
//! interactive mksh (`-i`, prompts on stderr) over plain pipes.

use super::process;
use crate::transport::{StreamReader, StreamWriter};
use crate::Device;

pub async fn run(dev: &Device, cmd: &str, v2: bool, pty: bool, w: StreamWriter, r: StreamReader) {
    let cmd = if cmd.trim().is_empty() {
        None
    } else {
        Some(cmd.to_string())
    };
    let interactive = cmd.is_none() && pty;
    process::run(dev, cmd, v2, interactive, w, r).await;
}
