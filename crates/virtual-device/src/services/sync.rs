//! `sync:` — the file-transfer sub-protocol (SYNC.TXT): requests are `[id 4][len u32 le]` then
//! `len` bytes of path. Implemented: STAT, LIST (DENT…DONE), RECV (DATA…DONE | FAIL),
//! SEND (`path,mode` then DATA…DONE mtime; answered OKAY | FAIL) and QUIT. Not implemented:
//! the v2 variants (STA2/LST2/LIS2, SND2/RCV2 with compression) — never advertised.
//! Device paths are mapped into the sandbox root (see [`crate::sandbox`]); one that would lead
//! out of it is answered as a missing file is: STAT all zeros, LIST empty, RECV and SEND `FAIL`
//! with "No such file or directory".

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use tokio::io::AsyncWriteExt;

use crate::transport::{StreamReader, StreamWriter};
use crate::Device;

const SYNC_DATA_MAX: usize = 64 * 1024;

fn word(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn msg(id: &[u8; 4], vals: &[u32]) -> Vec<u8> {
    let mut v = id.to_vec();
    for x in vals {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v
}

fn fail(text: &str) -> Vec<u8> {
    let mut v = msg(b"FAIL", &[text.len() as u32]);
    v.extend_from_slice(text.as_bytes());
    v
}

/// Mode, size and mtime of `path`; all zeros for a missing file (or none: outside the root).
fn stat_of(path: Option<&Path>) -> (u32, u32, u32) {
    match path.map(std::fs::metadata) {
        Some(Ok(m)) => (m.mode(), m.size() as u32, m.mtime() as u32),
        _ => (0, 0, 0),
    }
}

fn lstat_of(path: &Path) -> (u32, u32, u32) {
    match std::fs::symlink_metadata(path) {
        Ok(m) => (m.mode(), m.size() as u32, m.mtime() as u32),
        Err(_) => (0, 0, 0),
    }
}

/// What the device says of a path that leads out of its `/`: it has no such file.
fn no_such_file() -> std::io::Error {
    std::io::Error::from_raw_os_error(libc::ENOENT)
}

pub async fn run(dev: &Device, w: StreamWriter, mut r: StreamReader) {
    let _ = serve(dev, &w, &mut r).await;
    w.close();
}

async fn serve(dev: &Device, w: &StreamWriter, r: &mut StreamReader) -> Option<()> {
    loop {
        let head = r.read_exact(8).await?;
        let id: [u8; 4] = [head[0], head[1], head[2], head[3]];
        let len = word(&head[4..]) as usize;
        if len > 4096 {
            w.write(&fail("path too long")).await.ok()?;
            return None;
        }
        let arg = String::from_utf8_lossy(&r.read_exact(len).await?).into_owned();
        match &id {
            b"STAT" => {
                dev.journal.argv(&["sync", "STAT", &arg]);
                let (mode, size, mtime) = stat_of(dev.sandbox.host_path(&arg).as_deref());
                w.write(&msg(b"STAT", &[mode, size, mtime])).await.ok()?;
            }
            b"LIST" => {
                dev.journal.argv(&["sync", "LIST", &arg]);
                let mut out = Vec::new();
                let listing = dev
                    .sandbox
                    .host_path(&arg)
                    .and_then(|dir| Some((std::fs::read_dir(&dir).ok()?, dir)));
                if let Some((entries, dir)) = listing {
                    let mut names: Vec<String> = entries
                        .flatten()
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect();
                    names.sort();
                    for name in [".".to_string(), "..".to_string()].into_iter().chain(names) {
                        // adbd lists with lstat: a symlink is listed as one, not followed.
                        let (mode, size, mtime) = lstat_of(&dir.join(&name));
                        out.extend(msg(b"DENT", &[mode, size, mtime, name.len() as u32]));
                        out.extend_from_slice(name.as_bytes());
                    }
                }
                out.extend(msg(b"DONE", &[0, 0, 0, 0]));
                w.write(&out).await.ok()?;
            }
            b"RECV" => {
                dev.journal.argv(&["sync", "RECV", &arg]);
                let data = match dev.sandbox.host_path(&arg) {
                    Some(host) => tokio::fs::read(host).await,
                    None => Err(no_such_file()),
                };
                match data {
                    Ok(data) => {
                        for chunk in data.chunks(SYNC_DATA_MAX) {
                            let mut m = msg(b"DATA", &[chunk.len() as u32]);
                            m.extend_from_slice(chunk);
                            w.write(&m).await.ok()?;
                        }
                        w.write(&msg(b"DONE", &[0])).await.ok()?;
                    }
                    Err(e) => w
                        .write(&fail(&format!("remote object '{arg}' does not exist: {e}")))
                        .await
                        .ok()?,
                }
            }
            b"SEND" => {
                let (path, mode) = match arg.rsplit_once(',') {
                    Some((p, m)) => (p.to_string(), m.parse::<u32>().unwrap_or(0o644)),
                    None => (arg.clone(), 0o644),
                };
                dev.journal.argv(&["sync", "SEND", &path]);
                let result = receive_file(dev, r, &path, mode).await?;
                let reply = match result {
                    Ok(()) => msg(b"OKAY", &[0]),
                    Err(e) => fail(&e),
                };
                w.write(&reply).await.ok()?;
            }
            b"QUIT" => return Some(()),
            _ => {
                w.write(&fail("unknown sync request")).await.ok()?;
                return None;
            }
        }
    }
}

/// Reads DATA chunks until DONE into the mapped path. The outer `None` means the stream ended.
async fn receive_file(
    dev: &Device,
    r: &mut StreamReader,
    path: &str,
    mode: u32,
) -> Option<Result<(), String>> {
    let host = dev.sandbox.host_path(path);
    let mut file = None;
    let mut error = None;
    if let Some(parent) = host.as_deref().and_then(Path::parent) {
        let _ = tokio::fs::create_dir_all(parent).await;
    }
    let created = match &host {
        Some(host) => tokio::fs::File::create(host).await,
        None => Err(no_such_file()),
    };
    match created {
        Ok(f) => file = Some(f),
        Err(e) => error = Some(format!("couldn't create file: {e}")),
    }
    loop {
        let head = r.read_exact(8).await?;
        let n = word(&head[4..]) as usize;
        match &head[..4] {
            b"DATA" => {
                let data = r.read_exact(n).await?;
                if let Some(f) = file.as_mut() {
                    if let Err(e) = f.write_all(&data).await {
                        error = Some(format!("write failed: {e}"));
                        file = None;
                    }
                }
            }
            b"DONE" => break,
            _ => return Some(Err("bad SEND chunk".into())),
        }
    }
    if let (Some(mut f), Some(host)) = (file, host) {
        let _ = f.flush().await;
        let _ = std::fs::set_permissions(host, std::fs::Permissions::from_mode(mode & 0o7777));
    }
    Some(match error {
        Some(e) => Err(e),
        None => Ok(()),
    })
}
