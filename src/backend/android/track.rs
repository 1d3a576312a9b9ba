//! Following the adb server's device list as it changes, so that the controller knows when its
//! last listing is still good and a request after any idle time needs no `adb devices` and no
//! `getprop` round trip: a client of the adb server's own `host:track-devices` service on its
//! TCP port (what `adb track-devices` prints), which pushes the whole list (`serial\tstate`
//! lines) whenever a device comes, goes or changes state. Listings themselves still ask the
//! server (`adb devices -l`): a tracker that has not yet noticed its server died must not
//! answer for it.
//!
//! The protocol (adb's `SERVICES.TXT` and `OVERVIEW.TXT`): the client sends the service name
//! prefixed with its length as four hex digits; the server answers `OKAY` (or `FAIL` and a
//! length-prefixed message), then on this service a length-prefixed list per change, the
//! first at once. The tracker keeps the latest list and a generation number that changes with
//! it; when the connection ends (the adb server stopped) it says so, and the backend lists
//! with `adb devices` again, which restarts the server, and then tracks anew.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::devices::{parse_devices_l, ListedDevice};

/// How long connecting and the server's first answer may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(2);

/// Longest device list read (thousands of devices fit).
const MAX_LIST: usize = 1 << 20;

/// What the tracker knows now.
#[derive(Debug, Default)]
struct Known {
    /// The connection is up and its first list arrived.
    live: bool,
    devices: Vec<ListedDevice>,
    /// Changes with every list that differs from the one before.
    generation: u64,
    /// A connection is being made or is up.
    running: bool,
}

/// The adb server's device list, followed live. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct DeviceTracker {
    known: Arc<Mutex<Known>>,
}

impl DeviceTracker {
    /// The devices and the list's generation, when the tracker is live.
    #[cfg(test)]
    fn current(&self) -> Option<(Vec<ListedDevice>, u64)> {
        let k = self.known.lock().ok()?;
        k.live.then(|| (k.devices.clone(), k.generation))
    }

    /// The list's generation, when the tracker is live.
    pub fn generation(&self) -> Option<u64> {
        let k = self.known.lock().ok()?;
        k.live.then_some(k.generation)
    }

    /// Starts following the adb server on `port` (loopback) unless already doing so. Returns
    /// at once; the tracker becomes live when the first list arrives.
    pub fn start(&self, port: u16) {
        {
            let Ok(mut k) = self.known.lock() else {
                return;
            };
            if k.running {
                return;
            }
            k.running = true;
        }
        let known = self.known.clone();
        tokio::spawn(async move {
            if let Err(e) = follow(port, &known).await {
                tracing::debug!(port, error = %e, "adb device tracking ended");
            }
            if let Ok(mut k) = known.lock() {
                k.live = false;
                k.running = false;
            }
        });
    }
}

/// Reads lists until the connection ends.
async fn follow(port: u16, known: &Mutex<Known>) -> std::io::Result<()> {
    let connect = TcpStream::connect(("127.0.0.1", port));
    let mut stream = tokio::time::timeout(HANDSHAKE_TIMEOUT, connect).await??;
    stream.write_all(&request("host:track-devices")).await?;
    let mut status = [0u8; 4];
    tokio::time::timeout(HANDSHAKE_TIMEOUT, stream.read_exact(&mut status)).await??;
    if &status != b"OKAY" {
        let why = read_message(&mut stream).await.unwrap_or_default();
        return Err(std::io::Error::other(format!(
            "adb refused tracking: {why}"
        )));
    }
    loop {
        let list = read_message(&mut stream).await?;
        let devices = parse_devices_l(&list);
        let Ok(mut k) = known.lock() else {
            return Ok(());
        };
        if !k.live || k.devices != devices {
            k.generation += 1;
        }
        k.devices = devices;
        k.live = true;
    }
}

/// A request to the adb server: the service's length as four hex digits, then the service.
pub fn request(service: &str) -> Vec<u8> {
    format!("{:04x}{service}", service.len()).into_bytes()
}

/// One length-prefixed message (four hex digits, then that many bytes).
async fn read_message(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len).await?;
    let len = std::str::from_utf8(&len)
        .ok()
        .and_then(|s| usize::from_str_radix(s, 16).ok())
        .filter(|n| *n <= MAX_LIST)
        .ok_or_else(|| std::io::Error::other("bad length from the adb server"))?;
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).await?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DeviceState;
    use tokio::net::TcpListener;

    #[test]
    fn requests_are_length_prefixed_in_hex() {
        assert_eq!(request("host:track-devices"), b"0012host:track-devices");
    }

    /// A stand-in adb server speaking the tracking protocol: a list at once, then `later`.
    async fn server(lists: Vec<&'static str>) -> (u16, tokio::sync::oneshot::Sender<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut req = [0u8; 22];
            s.read_exact(&mut req).await.unwrap();
            assert_eq!(&req, b"0012host:track-devices");
            s.write_all(b"OKAY").await.unwrap();
            for l in lists {
                s.write_all(format!("{:04x}{l}", l.len()).as_bytes())
                    .await
                    .unwrap();
            }
            let _ = stopped.await;
        });
        (port, stop)
    }

    async fn until(t: &DeviceTracker, f: impl Fn(&DeviceTracker) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !f(t) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "tracker never got there"
            );
            tokio::task::yield_now().await;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn lists_are_followed_and_the_end_is_noticed() {
        let (port, stop) = server(vec![
            "emulator-5554\tdevice\n",
            "emulator-5554\tdevice\n127.0.0.1:5555\toffline\n",
        ])
        .await;
        let t = DeviceTracker::default();
        assert_eq!(t.generation(), None);
        t.start(port);
        until(&t, |t| t.current().is_some_and(|(d, _)| d.len() == 2)).await;
        let (devices, generation) = t.current().unwrap();
        assert_eq!(devices[1].serial, "127.0.0.1:5555");
        assert_eq!(devices[1].state, DeviceState::Offline);
        assert!(generation >= 2, "{generation}");
        // The server goes away: the tracker is no longer live.
        drop(stop);
        until(&t, |t| t.generation().is_none()).await;
    }

    #[tokio::test]
    async fn a_refusal_or_no_server_leaves_it_not_live() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let t = DeviceTracker::default();
        t.start(port);
        until(&t, |t| !t.known.lock().unwrap().running).await;
        assert_eq!(t.current().map(|(d, _)| d.len()), None);
    }
}
