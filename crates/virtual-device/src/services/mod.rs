//! Services a host can open on the device: `shell:` (legacy and v2), `exec:`, `sync:`,
//! `reverse:` (what `adb reverse` asks) and `tcp:PORT` / `localabstract:NAME` (what `adb
//! forward` opens: a connection to a socket listening on the device, see [`connect`]).
//! Every request is journaled (`{"service": …}`) and delayed by the latency fault knob.

mod connect;
mod process;
pub mod reverse;
mod shell;
mod sync;

use std::sync::Arc;

use super::transport::{StreamReader, StreamWriter};
use super::Device;

/// Whether the device serves this service name (unknown ones are refused with CLSE, as are
/// connections to device sockets nothing listens on).
pub fn is_known(dev: &Device, service: &str) -> bool {
    if service.starts_with("tcp:") || service.starts_with("localabstract:") {
        return connect::listening(dev, service);
    }
    service.starts_with("shell:")
        || service.starts_with("shell,")
        || service.starts_with("exec:")
        || service == "sync:"
        || service.starts_with("reverse:")
}

/// Runs one service on an opened stream, then closes the stream.
pub async fn run(dev: Arc<Device>, service: String, w: StreamWriter, r: StreamReader) {
    dev.journal.service(&service);
    let latency = dev.faults.latency();
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    if let Some(cmd) = service.strip_prefix("exec:") {
        process::run(&dev, Some(cmd.to_string()), false, false, w, r).await;
    } else if service == "sync:" {
        sync::run(&dev, w, r).await;
    } else if service.starts_with("tcp:") || service.starts_with("localabstract:") {
        connect::run(&dev, &service, w, r).await;
    } else if let Some(cmd) = service.strip_prefix("reverse:") {
        reverse::run(&dev, cmd, w, r).await;
    } else {
        let (opts, cmd) = service.split_once(':').unwrap_or((&service, ""));
        let v2 = dev.opts.shell_v2 && opts.split(',').any(|o| o == "v2");
        let pty = opts.split(',').any(|o| o == "pty");
        shell::run(&dev, cmd, v2, pty, w, r).await;
    }
}
