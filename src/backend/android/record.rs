//! Screen recording with the device's `screenrecord`, chained past its per-file limit.
//!
//! Each segment is `adb shell screenrecord --verbose [--size] [--bit-rate] --time-limit S
//! /data/local/tmp/mobilectl-rec-TAG-N.mp4`: the device writes a finalised MP4 when the time
//! limit comes or when it is sent SIGINT. A segment that ends at its limit is followed at once
//! by the next (most Android versions stop a file at 180 s); stop sends SIGINT to the running
//! one (`pkill -2 -f TAG`), waits for it, pulls every segment and joins them into one MP4 on
//! the host ([`crate::media::concat`]), then deletes them from the device.
//!
//! Remuxing segments was chosen over streaming raw H.264 through `exec-out` (no container,
//! no timestamps: the host would have to invent them) — each segment is timed by the device.
//! Between two segments the screen is not recorded for as long as starting `screenrecord`
//! takes (tens of milliseconds); the joined file simply continues.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::{oneshot, watch};

use super::shell::quote;
use super::AdbBackend;
use crate::backend::{Files, Recording};
use crate::device::{Device, RecordingOptions, ScreenRecorder};
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::exec::StreamChild;

/// The longest file `screenrecord` writes on most Android versions.
pub const SEGMENT_LIMIT: Duration = Duration::from_secs(180);
/// How long `screenrecord` may take to say it started.
const START_LIMIT: Duration = Duration::from_secs(15);
/// How long a segment may take to finalise after SIGINT.
const FINALISE_LIMIT: Duration = Duration::from_secs(30);
/// Largest segment pulled.
const MAX_SEGMENT_BYTES: u64 = 4 << 30;

/// A running chain of `screenrecord` segments.
pub struct AndroidRecorder {
    stop: watch::Sender<bool>,
    chain: tokio::task::JoinHandle<Result<Vec<Segment>>>,
    backend: AdbBackend,
    device: Device,
    dest: PathBuf,
}

impl AdbBackend {
    /// The screen's size in pixels (`wm size`: the override when there is one).
    async fn screen_size(&self, device: &Device) -> Result<(u32, u32)> {
        let out = self
            .shell(&device.udid, "wm size", super::QUICK_TIMEOUT)
            .await?;
        parse_wm_size(&out.stdout_text()).ok_or_else(|| {
            Error::new(
                ErrorCode::CommandFailed,
                "`wm size` did not give the screen's size",
            )
            .with_next(
                "give {0} instead of {1}",
                [
                    Step::field_of(Op::RecordingStart, "size"),
                    Step::field_of(Op::RecordingStart, "scale"),
                ],
            )
        })
    }
}

/// `Physical size: 1080x2400` (and `Override size: …`, which wins).
pub fn parse_wm_size(text: &str) -> Option<(u32, u32)> {
    let size = |prefix: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(prefix))
            .and_then(|v| crate::device::recording::parse_size(v).ok())
    };
    size("Override size:").or_else(|| size("Physical size:"))
}

/// One file of a recording: its device path and when it started, seconds after the first.
struct Segment {
    path: String,
    start_s: f64,
}

/// Runs segments until stopped; answers the files written, in order.
async fn chain(
    adb: AdbBackend,
    serial: String,
    tag: String,
    command: String,
    mut stopped: watch::Receiver<bool>,
    started: oneshot::Sender<Result<()>>,
) -> Result<Vec<Segment>> {
    let mut started = Some(started);
    let mut written = Vec::new();
    let mut first: Option<std::time::Instant> = None;
    for n in 1.. {
        let path = format!("/data/local/tmp/{tag}-{n}.mp4");
        let script = format!("{command} {}", quote(&path));
        let spawned = match adb.adb_for(&serial) {
            Ok(cmd) => cmd
                .args(["shell", &script])
                .timeout(START_LIMIT)
                .spawn_stream()
                .await
                .map_err(|e| crate::backend::exec_error(crate::exec::Tool::Adb, e)),
            Err(e) => Err(e),
        };
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => return fail(started, written, e),
        };
        // `--verbose` prints the encoder's set-up before the first frame.
        let mut said = Vec::new();
        let begun = tokio::time::timeout(START_LIMIT, read_line(&mut child, &mut said)).await;
        if !matches!(begun, Ok(true)) {
            let end = child.finish(Duration::from_secs(2)).await;
            let e = Error::new(
                ErrorCode::CommandFailed,
                format!(
                    "screenrecord did not start: {}",
                    format!("{}{}", String::from_utf8_lossy(&said), end.stderr).trim()
                ),
            )
            .with_next(
                "check `adb shell screenrecord --help` on the device; {0} must be one its encoder takes",
                [Step::field_of(Op::RecordingStart, "size")],
            );
            return fail(started, written, e);
        }
        let now = std::time::Instant::now();
        let start_s = now.duration_since(*first.get_or_insert(now)).as_secs_f64();
        written.push(Segment { path, start_s });
        if let Some(tx) = started.take() {
            let _ = tx.send(Ok(()));
        }
        // Until the segment ends (its time limit) or a stop is asked for.
        let asked = tokio::select! {
            _ = drain(&mut child) => false,
            _ = stopped.wait_for(|s| *s) => true,
        };
        if asked {
            let script = format!("pkill -2 -f {}", quote(&tag));
            let _ = adb.shell_any(&serial, &script, super::QUICK_TIMEOUT).await;
            let _ = tokio::time::timeout(FINALISE_LIMIT, drain(&mut child)).await;
        }
        let end = child.finish(FINALISE_LIMIT).await;
        if asked || *stopped.borrow() {
            break;
        }
        if end.code != Some(0) {
            tracing::warn!(serial = %serial, code = ?end.code, stderr = %end.stderr.trim(), "screenrecord ended early; the recording stops here");
            break;
        }
    }
    Ok(written)
}

fn fail(
    started: Option<oneshot::Sender<Result<()>>>,
    written: Vec<Segment>,
    e: Error,
) -> Result<Vec<Segment>> {
    match started {
        Some(tx) => {
            let _ = tx.send(Err(e));
            Ok(Vec::new())
        }
        // A later segment failed to start: keep what was recorded.
        None => {
            tracing::warn!(error = %e.message, "a recording segment did not start");
            Ok(written)
        }
    }
}

/// Reads stdout until a whole line arrived; false when it closed first.
async fn read_line(child: &mut StreamChild, said: &mut Vec<u8>) -> bool {
    let mut buf = [0u8; 512];
    loop {
        match child.read(&mut buf).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => {
                said.extend_from_slice(&buf[..n]);
                if said.contains(&b'\n') {
                    return true;
                }
            }
        }
    }
}

/// Reads (and drops) stdout until it closes: the segment ended.
async fn drain(child: &mut StreamChild) {
    let mut buf = [0u8; 4096];
    while matches!(child.read(&mut buf).await, Ok(n) if n > 0) {}
}

#[async_trait]
impl ScreenRecorder for AndroidRecorder {
    async fn finish(self: Box<Self>) -> Result<()> {
        let _ = self.stop.send(true);
        let segments = self
            .chain
            .await
            .map_err(|e| Error::internal(format!("the recording task failed: {e}")))??;
        if segments.is_empty() {
            return Err(Error::new(
                ErrorCode::CommandFailed,
                "the recording wrote nothing",
            ));
        }
        let scratch = tempfile::Builder::new()
            .prefix(".segments-")
            .tempdir_in(self.dest.parent().unwrap_or(Path::new(".")))
            .map_err(|e| Error::internal(format!("a folder for the segments: {e}")))?;
        let mut local = Vec::new();
        let mut pulled = Ok(());
        for (n, segment) in segments.iter().enumerate() {
            let to = scratch.path().join(format!("{n}.mp4"));
            match self
                .backend
                .pull_file(&self.device, &segment.path, None, &to, MAX_SEGMENT_BYTES)
                .await
            {
                Ok(_) => local.push((to, Some(segment.start_s))),
                Err(e) => {
                    pulled = Err(e);
                    break;
                }
            }
        }
        let list = segments
            .iter()
            .map(|s| quote(&s.path))
            .collect::<Vec<_>>()
            .join(" ");
        let _ = self
            .backend
            .shell_any(
                &self.device.udid,
                &format!("rm -f {list}"),
                super::QUICK_TIMEOUT,
            )
            .await;
        pulled?;
        let dest = self.dest.clone();
        tokio::task::spawn_blocking(move || {
            let joined = crate::media::concat(&local, &dest);
            drop(scratch);
            joined
        })
        .await
        .map_err(|e| Error::internal(format!("joining segments: {e}")))??;
        Ok(())
    }
}

#[async_trait]
impl Recording for AdbBackend {
    /// Starts the first segment and answers once the device said it records.
    async fn start_recording(
        &self,
        device: &Device,
        options: &RecordingOptions,
        dest: &Path,
    ) -> Result<Box<dyn ScreenRecorder>> {
        let size = match options.scale {
            Some(_) => options.frame_size(self.screen_size(device).await?),
            None => options.size,
        };
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let tag = format!(
            "mobilectl-rec-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut flags = String::new();
        if let Some((w, h)) = size {
            flags += &format!(" --size {w}x{h}");
        }
        if let Some(b) = options.bit_rate {
            flags += &format!(" --bit-rate {b}");
        }
        let segment = self.record_segment.max(Duration::from_secs(1)).as_secs();
        let (stop, stopped) = watch::channel(false);
        let (started_tx, started_rx) = oneshot::channel();
        let chain = tokio::spawn(chain(
            self.clone(),
            device.udid.clone(),
            tag,
            format!("screenrecord --verbose{flags} --time-limit {segment}"),
            stopped,
            started_tx,
        ));
        match started_rx.await {
            Ok(Ok(())) => Ok(Box::new(AndroidRecorder {
                stop,
                chain,
                backend: self.clone(),
                device: device.clone(),
                dest: dest.to_path_buf(),
            })),
            Ok(Err(e)) => {
                let _ = stop.send(true);
                let _ = chain.await;
                Err(e)
            }
            Err(_) => Err(Error::internal("the recording ended before it started")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wm_size_prefers_the_override() {
        assert_eq!(
            parse_wm_size("Physical size: 1080x2400\n"),
            Some((1080, 2400))
        );
        assert_eq!(
            parse_wm_size("Physical size: 1440x3120\nOverride size: 1080x2340\n"),
            Some((1080, 2340))
        );
        assert_eq!(parse_wm_size("cmd: Can't find service: window\n"), None);
    }
}
