//! Runs one device command in mksh and plumbs it to a stream: host data to stdin, stdout and
//! stderr back, either raw (legacy `shell:`, `exec:`) or framed as shell protocol v2 packets
//! (`[id u8][len u32 le][data]`: 0 stdin, 1 stdout, 2 stderr, 3 exit, 4 close-stdin,
//! 5 window-size). The child runs in its own process group, killed when the host closes the
//! stream or the command outlives the device's command timeout.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::Mutex;

use crate::transport::{StreamReader, StreamWriter};
use crate::Device;

const ID_STDIN: u8 = 0;
const ID_STDOUT: u8 = 1;
const ID_STDERR: u8 = 2;
const ID_EXIT: u8 = 3;
const ID_CLOSE_STDIN: u8 = 4;

fn v2_packet(id: u8, data: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(5 + data.len());
    p.push(id);
    p.extend_from_slice(&(data.len() as u32).to_le_bytes());
    p.extend_from_slice(data);
    p
}

async fn pump<R: AsyncRead + Unpin>(mut src: R, w: Arc<Mutex<StreamWriter>>, v2: Option<u8>) {
    let size = {
        let w = w.lock().await;
        w.max_payload() - if v2.is_some() { 5 } else { 0 }
    };
    let mut buf = vec![0u8; size];
    loop {
        let n = match src.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let data = match v2 {
            Some(id) => v2_packet(id, &buf[..n]),
            None => buf[..n].to_vec(),
        };
        if w.lock().await.write_one(data).await.is_err() {
            break;
        }
    }
}

/// Runs `cmd` (a shell reading stdin when `None`, with prompts when `interactive`) and closes
/// the stream after.
pub async fn run(
    dev: &Device,
    cmd: Option<String>,
    v2: bool,
    interactive: bool,
    w: StreamWriter,
    mut r: StreamReader,
) {
    let w = Arc::new(Mutex::new(w));
    let (mut child, merged) = match dev.sandbox.spawn_shell(cmd.as_deref(), !v2, interactive) {
        Ok(c) => c,
        Err(e) => {
            let msg = format!("mobilectl virtual device: cannot start mksh: {e}\n");
            let w = w.lock().await;
            let data = if v2 {
                v2_packet(ID_STDERR, msg.as_bytes())
            } else {
                msg.into_bytes()
            };
            let _ = w.write_one(data).await;
            if v2 {
                let _ = w.write_one(v2_packet(ID_EXIT, &[127])).await;
            }
            w.close();
            return;
        }
    };
    let pgid = child.id().map(|p| p as i32);
    let (out, err) = match merged {
        Some(both) => (
            tokio::spawn(pump(both, w.clone(), None)),
            tokio::spawn(async {}),
        ),
        None => (
            tokio::spawn(pump(
                child.stdout.take().expect("piped"),
                w.clone(),
                Some(ID_STDOUT),
            )),
            tokio::spawn(pump(
                child.stderr.take().expect("piped"),
                w.clone(),
                Some(ID_STDERR),
            )),
        ),
    };
    let mut stdin = child.stdin.take();
    let (gone_tx, mut gone_rx) = tokio::sync::oneshot::channel::<()>();
    let input = tokio::spawn(async move {
        let mut pending: Vec<u8> = Vec::new();
        while let Some(data) = r.read().await {
            if !v2 {
                if let Some(s) = stdin.as_mut() {
                    if s.write_all(&data).await.is_err() {
                        stdin = None;
                    }
                }
                continue;
            }
            pending.extend_from_slice(&data);
            while pending.len() >= 5 {
                let len =
                    u32::from_le_bytes([pending[1], pending[2], pending[3], pending[4]]) as usize;
                if pending.len() < 5 + len {
                    break;
                }
                let id = pending[0];
                let body: Vec<u8> = pending.drain(..5 + len).skip(5).collect();
                match id {
                    ID_STDIN => {
                        if let Some(s) = stdin.as_mut() {
                            if s.write_all(&body).await.is_err() {
                                stdin = None;
                            }
                        }
                    }
                    ID_CLOSE_STDIN => stdin = None,
                    _ => {}
                }
            }
        }
        let _ = gone_tx.send(());
    });
    let timeout = dev.opts.command_timeout;
    let status = tokio::select! {
        s = tokio::time::timeout(timeout, child.wait()) => s.ok().and_then(|s| s.ok()),
        _ = &mut gone_rx => None,
    };
    if status.is_none() {
        if let Some(pid) = pgid {
            // SAFETY: killpg on the process group this function created; no memory is touched.
            unsafe {
                libc::killpg(pid, libc::SIGKILL);
            }
        }
        let _ = child.wait().await;
    }
    let _ = out.await;
    let _ = err.await;
    input.abort();
    let w = w.lock().await;
    if v2 {
        let code = status.and_then(|s| s.code()).unwrap_or(137);
        let _ = w.write_one(v2_packet(ID_EXIT, &[code as u8])).await;
    }
    w.close();
}
