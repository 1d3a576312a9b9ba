//! The adb device transport over one TCP connection: packet framing (24-byte header, checksum,
//! magic), the CNXN handshake with the device banner, and stream multiplexing (OPEN, OKAY, WRTE,
//! CLSE) with adb's one-outstanding-write flow control.
//!
//! Each accepted connection gets a reader task (packets into a channel), a writer task (packets
//! out of a channel) and a loop that routes packets to streams. A stream opened by the host runs
//! its service (see [`super::services`]) in its own task with a [`StreamWriter`] and a
//! [`StreamReader`]. Every CNXN is answered with an AUTH challenge first, and the device's
//! CNXN follows only once an authorised key signed it ([`crate::auth`]); until then every other
//! packet is ignored. Not implemented: TLS (`STLS`), `delayed_ack` and compression — none of
//! them is advertised.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot, Semaphore};

use super::{auth, Device};

pub const A_SYNC: u32 = 0x434e_5953;
pub const A_CNXN: u32 = 0x4e58_4e43;
pub const A_OPEN: u32 = 0x4e45_504f;
pub const A_OKAY: u32 = 0x5941_4b4f;
pub const A_CLSE: u32 = 0x4553_4c43;
pub const A_WRTE: u32 = 0x4554_5257;
pub const A_AUTH: u32 = 0x4854_5541;

/// Protocol version the device answers with (the "skip checksum" version).
pub const A_VERSION: u32 = 0x0100_0001;
/// Largest payload the device accepts and sends (256 KiB, smaller if the host asks for less).
pub const MAX_PAYLOAD: u32 = 256 * 1024;
/// Upper bound on any payload a host may send, to refuse garbage headers.
const HARD_MAX_PAYLOAD: u32 = 1024 * 1024;

/// One adb packet.
#[derive(Debug, Clone)]
pub struct Packet {
    pub cmd: u32,
    pub arg0: u32,
    pub arg1: u32,
    pub data: Vec<u8>,
}

impl Packet {
    pub fn new(cmd: u32, arg0: u32, arg1: u32, data: Vec<u8>) -> Self {
        Packet {
            cmd,
            arg0,
            arg1,
            data,
        }
    }

    /// The 24-byte header followed by the payload.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + self.data.len());
        for v in [
            self.cmd,
            self.arg0,
            self.arg1,
            self.data.len() as u32,
            checksum(&self.data),
            self.cmd ^ 0xffff_ffff,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.data);
        out
    }
}

/// The legacy data checksum: the sum of the payload bytes.
pub fn checksum(data: &[u8]) -> u32 {
    data.iter().fold(0u32, |acc, &b| acc.wrapping_add(b as u32))
}

/// Reads one packet; checks the magic and, when the host sent a non-zero one, the checksum.
pub async fn read_packet<R: AsyncReadExt + Unpin>(r: &mut R) -> io::Result<Packet> {
    let mut h = [0u8; 24];
    r.read_exact(&mut h).await?;
    let word = |i: usize| u32::from_le_bytes([h[i * 4], h[i * 4 + 1], h[i * 4 + 2], h[i * 4 + 3]]);
    let (cmd, arg0, arg1, len, check, magic) =
        (word(0), word(1), word(2), word(3), word(4), word(5));
    if magic != cmd ^ 0xffff_ffff {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "bad packet magic",
        ));
    }
    if len > HARD_MAX_PAYLOAD {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "payload too large",
        ));
    }
    let mut data = vec![0u8; len as usize];
    r.read_exact(&mut data).await?;
    if check != 0 && check != checksum(&data) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "bad data checksum",
        ));
    }
    Ok(Packet {
        cmd,
        arg0,
        arg1,
        data,
    })
}

/// The device's CNXN banner: `device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…`.
pub(crate) fn banner(dev: &Device) -> Vec<u8> {
    let o = &dev.opts;
    format!(
        "device::ro.product.name={};ro.product.model={};ro.product.device={};features={}",
        o.product,
        o.model,
        o.device,
        features(o.shell_v2).join(",")
    )
    .into_bytes()
}

/// Features advertised to the host: only what the services implement (`cmd` makes `adb install`
/// stream through `exec:cmd package install -S`; without `shell_v2` adb falls back to the legacy
/// `shell:` service, which has no exit status).
pub fn features(shell_v2: bool) -> Vec<&'static str> {
    if shell_v2 {
        vec!["shell_v2", "cmd"]
    } else {
        vec!["cmd"]
    }
}

/// A stream the device asks the host to open, answered once the host said OKAY (or `None`
/// when it refused with CLSE or the connection ended).
struct OpenRequest {
    service: String,
    reply: oneshot::Sender<(StreamWriter, StreamReader)>,
}

/// Opens streams from the device to the host on one connection.
#[derive(Clone)]
pub struct Opener {
    tx: mpsc::UnboundedSender<OpenRequest>,
    /// Which connection (the device names its host `host-N`).
    pub conn: u64,
}

impl Opener {
    /// Asks the host to open `service` (for a reverse forward: its remote, `tcp:PORT`).
    pub async fn open(&self, service: &str) -> Option<(StreamWriter, StreamReader)> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(OpenRequest {
                service: service.to_string(),
                reply,
            })
            .ok()?;
        answer.await.ok()
    }
}

/// The sending half of a stream: WRTE packets, each waiting for the host's OKAY.
pub struct StreamWriter {
    local: u32,
    remote: u32,
    out: mpsc::UnboundedSender<Packet>,
    okay: Arc<Semaphore>,
    max: usize,
    opener: Opener,
}

impl StreamWriter {
    /// Sends `data` in chunks of at most the negotiated payload size.
    pub async fn write(&self, data: &[u8]) -> io::Result<()> {
        for chunk in data.chunks(self.max.max(1)) {
            self.write_one(chunk.to_vec()).await?;
        }
        Ok(())
    }

    /// Sends one WRTE (the caller keeps `data` within [`Self::max_payload`]).
    pub async fn write_one(&self, data: Vec<u8>) -> io::Result<()> {
        let permit = self.okay.acquire().await.map_err(|_| closed())?;
        permit.forget();
        self.out
            .send(Packet::new(A_WRTE, self.local, self.remote, data))
            .map_err(|_| closed())
    }

    pub fn max_payload(&self) -> usize {
        self.max
    }

    /// Opens streams to the host on this stream's connection.
    pub fn opener(&self) -> &Opener {
        &self.opener
    }

    /// Closes the stream from the device side.
    pub fn close(&self) {
        self.okay.close();
        let _ = self
            .out
            .send(Packet::new(A_CLSE, self.local, self.remote, Vec::new()));
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "stream closed by host")
}

/// The receiving half of a stream: payloads of the host's WRTE packets, `None` after CLSE.
pub struct StreamReader {
    rx: mpsc::UnboundedReceiver<Vec<u8>>,
    buf: Vec<u8>,
}

impl StreamReader {
    /// The next payload, or `None` once the host closed the stream.
    pub async fn read(&mut self) -> Option<Vec<u8>> {
        if !self.buf.is_empty() {
            return Some(std::mem::take(&mut self.buf));
        }
        self.rx.recv().await
    }

    /// Exactly `n` bytes, or `None` if the stream ends first.
    pub async fn read_exact(&mut self, n: usize) -> Option<Vec<u8>> {
        while self.buf.len() < n {
            let more = self.rx.recv().await?;
            self.buf.extend_from_slice(&more);
        }
        let rest = self.buf.split_off(n);
        Some(std::mem::replace(&mut self.buf, rest))
    }
}

struct StreamEntry {
    /// 0 until the host accepted a stream the device opened.
    remote: u32,
    data: mpsc::UnboundedSender<Vec<u8>>,
    okay: Arc<Semaphore>,
    /// A stream the device opened, waiting for the host's OKAY.
    pending: Option<(oneshot::Sender<(StreamWriter, StreamReader)>, StreamReader)>,
}

static NEXT_LOCAL_ID: AtomicU32 = AtomicU32::new(1);
static NEXT_CONN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The host opens a stream to a service (`shell:…`, `sync:`…): refused (CLSE) when the device
/// has no such service, else answered OKAY and served by its own task.
fn open_service(
    dev: &Arc<Device>,
    p: &Packet,
    streams: &mut HashMap<u32, StreamEntry>,
    out_tx: &mpsc::UnboundedSender<Packet>,
    max: usize,
    opener: &Opener,
) {
    let remote = p.arg0;
    let local = NEXT_LOCAL_ID.fetch_add(1, Ordering::Relaxed);
    let end = p.data.iter().position(|&b| b == 0).unwrap_or(p.data.len());
    let service = String::from_utf8_lossy(&p.data[..end]).into_owned();
    if !super::services::is_known(dev, &service) {
        let _ = out_tx.send(Packet::new(A_CLSE, 0, remote, Vec::new()));
        return;
    }
    let (data_tx, data_rx) = mpsc::unbounded_channel();
    let okay = Arc::new(Semaphore::new(1));
    streams.insert(
        local,
        StreamEntry {
            remote,
            data: data_tx,
            okay: okay.clone(),
            pending: None,
        },
    );
    let _ = out_tx.send(Packet::new(A_OKAY, local, remote, Vec::new()));
    let w = StreamWriter {
        local,
        remote,
        out: out_tx.clone(),
        okay,
        max,
        opener: opener.clone(),
    };
    let r = StreamReader {
        rx: data_rx,
        buf: Vec::new(),
    };
    let dev = dev.clone();
    tokio::spawn(async move {
        super::services::run(dev, service, w, r).await;
    });
}

/// Serves one TCP connection from an adb server until it closes, the device drops its
/// connections, or the device shuts down.
pub(crate) async fn serve_connection(dev: Arc<Device>, sock: TcpStream) {
    let _ = sock.set_nodelay(true);
    let (mut rd, mut wr) = sock.into_split();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Packet>();
    let (in_tx, mut in_rx) = mpsc::unbounded_channel::<Packet>();
    let writer = tokio::spawn(async move {
        while let Some(p) = out_rx.recv().await {
            if wr.write_all(&p.encode()).await.is_err() {
                break;
            }
        }
        let _ = wr.shutdown().await;
    });
    let reader = tokio::spawn(async move {
        while let Ok(p) = read_packet(&mut rd).await {
            if in_tx.send(p).is_err() {
                break;
            }
        }
    });
    let (open_tx, mut open_rx) = mpsc::unbounded_channel::<OpenRequest>();
    let opener = Opener {
        tx: open_tx,
        conn: NEXT_CONN.fetch_add(1, Ordering::Relaxed),
    };
    let mut kill = dev.conn_gen.subscribe();
    let mut offline = dev.offline.subscribe();
    let mut streams: HashMap<u32, StreamEntry> = HashMap::new();
    let mut max = MAX_PAYLOAD as usize;
    let mut connected = false;
    // A CNXN that came while the device was offline, answered when it is back (an offline
    // device does not answer at all, so adb lists it `offline`, not `unauthorized`).
    let mut pending_cnxn = false;
    // The challenge outstanding (none before a CNXN and once a key signed it).
    let mut token: Option<[u8; auth::TOKEN_SIZE]> = None;
    let mut failed_signatures = 0;
    let challenge = |token: &mut Option<[u8; auth::TOKEN_SIZE]>| {
        let fresh = auth::new_token();
        *token = Some(fresh);
        let _ = out_tx.send(Packet::new(A_AUTH, auth::AUTH_TOKEN, 0, fresh.to_vec()));
    };
    loop {
        tokio::select! {
            _ = kill.changed() => break,
            changed = offline.changed() => {
                if changed.is_err() { break; }
                if !*offline.borrow_and_update() && pending_cnxn {
                    pending_cnxn = false;
                    challenge(&mut token);
                }
            }
            p = in_rx.recv() => {
                let Some(p) = p else { break };
                match p.cmd {
                    A_CNXN => {
                        max = p.arg1.clamp(4096, MAX_PAYLOAD) as usize;
                        // A (re)connection: nothing is served before a key signs a challenge.
                        connected = false;
                        token = None;
                        if *offline.borrow() {
                            pending_cnxn = true;
                        } else {
                            challenge(&mut token);
                        }
                    }
                    A_AUTH if p.arg0 == auth::AUTH_SIGNATURE && token.is_some() => {
                        let keys = dev.opts.authorized_keys.load();
                        if token.is_some_and(|t| auth::verify(&keys, &t, &p.data)) {
                            token = None;
                            connected = true;
                            let _ = out_tx.send(Packet::new(A_CNXN, A_VERSION, max as u32, banner(&dev)));
                        } else {
                            failed_signatures += 1;
                            if failed_signatures > auth::MAX_FAILED_SIGNATURES {
                                break;
                            }
                            // As adbd: a fresh challenge, for the host's next key.
                            challenge(&mut token);
                        }
                    }
                    A_AUTH if p.arg0 == auth::AUTH_RSAPUBLICKEY && token.is_some() => {
                        // A real device would ask its user to allow this key; this one refuses
                        // and never answers CNXN (adb lists it as `unauthorized`).
                        dev.journal.auth_refused(&auth::key_comment(&p.data));
                    }
                    A_OPEN if connected => open_service(&dev, &p, &mut streams, &out_tx, max, &opener),
                    A_OKAY if connected => {
                        if let Some(s) = streams.get_mut(&p.arg1) {
                            if let Some((reply, reader)) = s.pending.take() {
                                // The host accepted a stream the device opened.
                                s.remote = p.arg0;
                                let w = StreamWriter { local: p.arg1, remote: p.arg0, out: out_tx.clone(), okay: s.okay.clone(), max, opener: opener.clone() };
                                let _ = reply.send((w, reader));
                            }
                            s.okay.add_permits(1);
                        }
                    }
                    A_WRTE if connected => {
                        if let Some(s) = streams.get(&p.arg1) {
                            let _ = s.data.send(p.data);
                            let _ = out_tx.send(Packet::new(A_OKAY, p.arg1, s.remote, Vec::new()));
                        }
                    }
                    A_CLSE if connected => {
                        if let Some(s) = streams.remove(&p.arg1) {
                            s.okay.close();
                        }
                    }
                    _ => {}
                }
                // Forget streams whose service has finished (their semaphore is closed).
                streams.retain(|_, s| !s.okay.is_closed());
            }
            Some(req) = open_rx.recv(), if connected => {
                let local = NEXT_LOCAL_ID.fetch_add(1, Ordering::Relaxed);
                let (data_tx, data_rx) = mpsc::unbounded_channel();
                let reader = StreamReader { rx: data_rx, buf: Vec::new() };
                // No write before the host's OKAY.
                let okay = Arc::new(Semaphore::new(0));
                streams.insert(local, StreamEntry { remote: 0, data: data_tx, okay, pending: Some((req.reply, reader)) });
                let mut name = req.service.into_bytes();
                name.push(0);
                let _ = out_tx.send(Packet::new(A_OPEN, local, 0, name));
            }
        }
    }
    dev.reverse.forget_connection(opener.conn);
    for (_, s) in streams.drain() {
        s.okay.close();
    }
    reader.abort();
    drop(out_tx);
    writer.abort();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn packet_round_trip_with_checksum() {
        let p = Packet::new(A_WRTE, 7, 9, b"hello".to_vec());
        let bytes = p.encode();
        assert_eq!(bytes.len(), 29);
        assert_eq!(&bytes[16..20], &checksum(b"hello").to_le_bytes());
        let back = read_packet(&mut &bytes[..]).await.unwrap();
        assert_eq!(
            (back.cmd, back.arg0, back.arg1, back.data),
            (A_WRTE, 7, 9, b"hello".to_vec())
        );
    }

    #[tokio::test]
    async fn bad_magic_and_checksum_are_refused() {
        let mut bytes = Packet::new(A_OKAY, 1, 2, vec![]).encode();
        bytes[20] ^= 1;
        assert!(read_packet(&mut &bytes[..]).await.is_err());
        let mut bytes = Packet::new(A_WRTE, 1, 2, b"x".to_vec()).encode();
        bytes[16] = 0x55;
        assert!(read_packet(&mut &bytes[..]).await.is_err());
    }
}
