//! `tcp:PORT` and `localabstract:NAME` — what `adb forward` opens on the device for each
//! connection to its host port: a connection to whatever listens on that name inside the
//! device ([`crate::sockets`]), with bytes relayed both ways until either side closes. When
//! nothing listens the stream is refused (closed at once), as adbd closes it when its
//! `connect` fails.

use tokio::net::TcpStream;

use crate::transport::{StreamReader, StreamWriter};
use crate::Device;

/// Whether `service` names a device socket something listens on now.
pub fn listening(dev: &Device, service: &str) -> bool {
    dev.sockets.lookup(service).is_some()
}

pub async fn run(dev: &Device, service: &str, w: StreamWriter, r: StreamReader) {
    let Some(addr) = dev.sockets.lookup(service) else {
        w.close();
        return;
    };
    match TcpStream::connect(addr).await {
        Ok(sock) => super::reverse::relay(sock, w, r).await,
        Err(_) => w.close(),
    }
}
