//! `shell:` — a command (or an interactive shell when empty) run by mksh in the sandbox.
//! Legacy `shell:` is a raw byte stream (stdout and stderr mixed, no exit code); with
//! `shell,v2,…:` stdout, stderr and the exit code travel in v2 packets. No pty is ever
//! allocated: `pty`/`raw` and `TERM=` options are accepted and ignored.

use super::process;
use crate::virtual_device::transport::{StreamReader, StreamWriter};
use crate::virtual_device::Device;

pub async fn run(dev: &Device, cmd: &str, v2: bool, w: StreamWriter, r: StreamReader) {
    let cmd = if cmd.trim().is_empty() {
        None
    } else {
        Some(cmd.to_string())
    };
    process::run(dev, cmd, v2, w, r).await;
}
