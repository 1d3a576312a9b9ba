//! `reverse:` — what `adb reverse` asks the device: `reverse:forward:[norebind:]LOCAL;REMOTE`,
//! `reverse:killforward:LOCAL`, `reverse:killforward-all`, `reverse:list-forward`, answered as
//! adbd does (`OKAY`, `FAIL` + length + message, or the length-prefixed listing
//! `host-N LOCAL REMOTE` per line).
//!
//! A forward really tunnels: the device's "local port" P (`tcp:PORT`, or an abstract socket
//! `localabstract:NAME`) is a listener on a free host port
//! (the device has no network of its own; [`Forwards::host_port`] says which), and each
//! connection to it opens a stream from the device to the host named REMOTE — the adb server
//! then connects to that port on the host's loopback and relays, as with a phone. The port is
//! in the device's socket table too ([`crate::sockets`]): `adb forward` reaches it, and no
//! other device process can listen on it meanwhile. Forwards of a connection go when it
//! closes.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::transport::{Opener, StreamReader, StreamWriter};
use crate::Device;

struct Forward {
    remote: String,
    host_port: u16,
    conn: u64,
    accept: tokio::task::JoinHandle<()>,
    /// The device's port, held in the device's socket table while the forward lasts.
    _binding: crate::sockets::Binding,
}

impl Drop for Forward {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// The device's reverse forwards, by local spec (`tcp:9101`).
#[derive(Default)]
pub struct Forwards(Mutex<BTreeMap<String, Forward>>);

impl Forwards {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Forward>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The host port standing for the device's local `spec` (`tcp:9101`), if forwarded.
    pub fn host_port(&self, spec: &str) -> Option<u16> {
        self.lock().get(spec).map(|f| f.host_port)
    }

    /// `{"tcp:9101": {"remote": "tcp:9101", "host_port": 40123}}`
    pub fn json(&self) -> Value {
        Value::Object(
            self.lock()
                .iter()
                .map(|(l, f)| {
                    (
                        l.clone(),
                        json!({ "remote": f.remote, "host_port": f.host_port }),
                    )
                })
                .collect(),
        )
    }

    /// Drops the forwards made over a connection that closed.
    pub fn forget_connection(&self, conn: u64) {
        self.lock().retain(|_, f| f.conn != conn);
    }

    fn listing(&self) -> String {
        self.lock()
            .iter()
            .map(|(l, f)| format!("host-{} {l} {}\n", f.conn, f.remote))
            .collect()
    }
}

async fn okay(w: &StreamWriter) {
    let _ = w.write(b"OKAY").await;
}

async fn fail(w: &StreamWriter, message: &str) {
    let _ = w
        .write(format!("FAIL{:04x}{message}", message.len()).as_bytes())
        .await;
}

pub async fn run(dev: &Arc<Device>, cmd: &str, w: StreamWriter, _r: StreamReader) {
    if cmd == "list-forward" {
        let list = dev.reverse.listing();
        let _ = w
            .write(format!("{:04x}{list}", list.len()).as_bytes())
            .await;
    } else if cmd == "killforward-all" {
        dev.reverse.lock().clear();
        okay(&w).await;
    } else if let Some(local) = cmd.strip_prefix("killforward:") {
        let removed = dev.reverse.lock().remove(local).is_some();
        if removed {
            okay(&w).await;
        } else {
            fail(&w, &format!("listener '{local}' not found")).await;
        }
    } else if let Some(rest) = cmd.strip_prefix("forward:") {
        let (norebind, rest) = match rest.strip_prefix("norebind:") {
            Some(r) => (true, r),
            None => (false, rest),
        };
        match rest.split_once(';') {
            Some((local, remote)) if !local.is_empty() && !remote.is_empty() => {
                match install(dev, local, remote, norebind, w.opener().clone()).await {
                    Ok(()) => okay(&w).await,
                    Err(m) => fail(&w, &m).await,
                }
            }
            _ => fail(&w, &format!("bad forward: {rest}")).await,
        }
    } else {
        fail(&w, &format!("unknown reverse request: {cmd}")).await;
    }
    w.close();
}

async fn install(
    dev: &Arc<Device>,
    local: &str,
    remote: &str,
    norebind: bool,
    opener: Opener,
) -> Result<(), String> {
    if crate::sockets::normalise(local).is_none() {
        return Err(format!(
            "cannot bind listener: the virtual device forwards tcp:PORT and localabstract:NAME only, not {local}"
        ));
    }
    let exists = dev.reverse.lock().contains_key(local);
    if norebind && exists {
        return Err("cannot rebind existing socket".into());
    }
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot bind listener: {e}"))?;
    let host_port = listener
        .local_addr()
        .map_err(|e| format!("cannot bind listener: {e}"))?
        .port();
    let target = remote.to_string();
    let conn = opener.conn;
    // A forward of the same port is replaced below: its name is freed first.
    dev.reverse.lock().remove(local);
    let binding = dev
        .sockets
        .bind(
            local,
            std::net::SocketAddr::from(([127, 0, 0, 1], host_port)),
        )
        .map_err(|_| format!("cannot bind listener: {local}: Address already in use"))?;
    let accept = tokio::spawn(async move {
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            };
            let (opener, target) = (opener.clone(), target.clone());
            tokio::spawn(async move {
                if let Some((w, r)) = opener.open(&target).await {
                    relay(sock, w, r).await;
                }
            });
        }
    });
    // Replaces (and so closes) an existing forward of the same local port.
    dev.reverse.lock().insert(
        local.to_string(),
        Forward {
            remote: remote.to_string(),
            host_port,
            conn,
            accept,
            _binding: binding,
        },
    );
    Ok(())
}

/// Copies bytes between a connection to the device's port and its stream to the host.
pub(super) async fn relay(sock: TcpStream, w: StreamWriter, mut r: StreamReader) {
    let _ = sock.set_nodelay(true);
    let (mut rd, mut wr) = sock.into_split();
    let up = async {
        let mut buf = vec![0u8; w.max_payload().max(1)];
        loop {
            match rd.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if w.write_one(buf[..n].to_vec()).await.is_err() {
                        break;
                    }
                }
            }
        }
        w.close();
    };
    let down = async {
        while let Some(data) = r.read().await {
            if wr.write_all(&data).await.is_err() {
                break;
            }
        }
        let _ = wr.shutdown().await;
    };
    tokio::join!(up, down);
}
