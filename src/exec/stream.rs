//! Long-lived children whose output is read as it comes (`adb logcat`, `log stream`): the
//! same argv-only [`Command`], in a process tree of its own (`tree`), killed with its tree
//! when the [`StreamChild`] is dropped. Stdout is read by the caller into its own buffer, so
//! the pipe's back-pressure bounds memory; stderr is drained on the side, keeping only its
//! tail (the tool's last words, for errors). At most [`MAX_STREAMS`] run at once, apart from
//! the bound on short commands.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;

use super::{Command, ExecError};

/// Most streaming children at once, across the process.
pub const MAX_STREAMS: usize = 32;
/// Bytes of stderr kept (the end).
const STDERR_TAIL: usize = 8 * 1024;

static STREAMS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(MAX_STREAMS);

/// A running child whose stdout is read as it comes.
pub struct StreamChild {
    argv: String,
    stdout: tokio::process::ChildStdout,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Bumped each time stderr grows (see [`StreamChild::wait_stderr`]).
    stderr_grew: tokio::sync::watch::Receiver<u64>,
    drain: tokio::task::JoinHandle<()>,
    // Field order: the tree is killed before the slot is given back.
    tree: super::tree::Tree,
    _slot: tokio::sync::SemaphorePermit<'static>,
}

/// How a stream ended.
#[derive(Debug, Clone)]
pub struct StreamEnd {
    /// Exit code; `None` when killed by a signal.
    pub code: Option<i32>,
    /// The end of what it wrote to stderr.
    pub stderr: String,
}

impl Command {
    /// Starts the command with its stdout to be read as it comes (see [`StreamChild`]). The
    /// command's timeout bounds only the wait for a slot.
    pub async fn spawn_stream(&self) -> Result<StreamChild, ExecError> {
        let argv = self.display();
        let slot = self.stream_slot(&argv).await?;
        let cmd = self.long_lived();
        let mut tree = super::tree::Tree::spawn(super::tree::wrap(cmd))
            .map_err(|e| self.spawn_error(&argv, e))?;
        tracing::debug!(argv = %argv, "stream started");
        let stdout = tree.child().stdout().take().ok_or_else(|| ExecError::Io {
            argv: argv.clone(),
            source: std::io::Error::other("no stdout pipe"),
        })?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (grew, stderr_grew) = tokio::sync::watch::channel(0u64);
        let drain = match tree.child().stderr().take() {
            Some(mut pipe) => {
                let tail = stderr.clone();
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    while let Ok(n) = pipe.read(&mut buf).await {
                        if n == 0 {
                            break;
                        }
                        let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                        t.extend_from_slice(&buf[..n]);
                        if t.len() > STDERR_TAIL {
                            let cut = t.len() - STDERR_TAIL;
                            t.drain(..cut);
                        }
                        drop(t);
                        grew.send_modify(|n| *n += 1);
                    }
                })
            }
            None => tokio::spawn(async {}),
        };
        Ok(StreamChild {
            argv,
            stdout,
            stderr,
            stderr_grew,
            drain,
            tree,
            _slot: slot,
        })
    }
}

impl Command {
    /// A slot among the [`MAX_STREAMS`], waited for at most the command's timeout.
    pub(super) async fn stream_slot(
        &self,
        argv: &str,
    ) -> Result<tokio::sync::SemaphorePermit<'static>, ExecError> {
        match tokio::time::timeout(self.timeout, STREAMS.acquire()).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => Err(ExecError::Busy {
                argv: argv.to_string(),
                why: format!("{MAX_STREAMS} streams were running"),
            }),
        }
    }

    /// The child of a long-lived command: stdin null (a pipe when [`Command::talking`]),
    /// stdout and stderr piped, in the command's working directory.
    pub(super) fn long_lived(&self) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(&self.program);
        cmd.args(&self.args)
            .envs(self.envs.iter().map(|(k, v)| (k, v)))
            .stdin(match self.talk {
                true => Stdio::piped(),
                false => Stdio::null(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        // SAFETY: between fork and exec only async-signal-safe calls (sigaction through
        // signal(2)) run. A server started in the background has SIGINT ignored, which its
        // children would inherit, and a tool stopped with SIGINT (`recordVideo`) would then
        // never stop: each long-lived child starts with the default disposition.
        #[cfg(unix)]
        unsafe {
            cmd.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGQUIT, libc::SIG_DFL);
                Ok(())
            });
        }
        cmd
    }
}

impl StreamChild {
    /// The argv, for messages.
    pub fn argv(&self) -> &str {
        &self.argv
    }

    /// Reads what stdout has now (waiting for something); 0 when it closed.
    pub async fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stdout.read(buf).await
    }

    /// Waits until what the child wrote to stderr holds `needle` (true), or stderr closed
    /// without it (false). Bound it with a timeout.
    pub async fn wait_stderr(&mut self, needle: &str) -> bool {
        loop {
            if String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(|e| e.into_inner()))
                .contains(needle)
            {
                return true;
            }
            if self.stderr_grew.changed().await.is_err() {
                return false;
            }
        }
    }

    /// Asks the child's tree to stop as Ctrl-C in a terminal does (tools such as
    /// `simctl io recordVideo` finalise their file on it); see `Tree::interrupt`.
    pub fn interrupt(&mut self) {
        self.tree.interrupt();
    }

    /// The child's stdout closed: waits (briefly) for its exit and its last words; a child
    /// that does not exit within `grace` is killed.
    pub async fn finish(mut self, grace: Duration) -> StreamEnd {
        let status = match tokio::time::timeout(grace, self.tree.wait()).await {
            Ok(Ok(s)) => s.code(),
            _ => {
                self.tree.kill();
                None
            }
        };
        let _ = tokio::time::timeout(Duration::from_millis(200), &mut self.drain).await;
        let stderr =
            String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(|e| e.into_inner()))
                .into_owned();
        tracing::debug!(argv = %self.argv, status = ?status, "stream ended");
        StreamEnd {
            code: status,
            stderr,
        }
    }
}

impl Drop for StreamChild {
    fn drop(&mut self) {
        self.drain.abort();
    }
}

// They run `sh`: Unix hosts.
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn output_arrives_as_it_is_written_and_stderr_is_kept() {
        let mut s = Command::new("sh")
            .args(["-c", "echo one; echo oops >&2; sleep 0.2; echo two; exit 3"])
            .spawn_stream()
            .await
            .unwrap();
        let mut buf = [0u8; 64];
        let n = s.read(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"one\n");
        let mut rest = Vec::new();
        loop {
            let n = s.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            rest.extend_from_slice(&buf[..n]);
        }
        assert_eq!(rest, b"two\n");
        let end = s.finish(Duration::from_secs(5)).await;
        assert_eq!(end.code, Some(3));
        assert_eq!(end.stderr, "oops\n");
    }

    #[tokio::test]
    async fn dropping_the_stream_kills_its_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!(
            "sleep 30 & echo $! > {}; echo ready; wait",
            pidfile.display()
        );
        let mut s = Command::new("sh")
            .args(["-c", &script])
            .spawn_stream()
            .await
            .unwrap();
        let mut buf = [0u8; 16];
        assert!(s.read(&mut buf).await.unwrap() > 0);
        drop(s);
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(
            crate::exec::tests::gone(pid).await,
            "the stream's grandchild {pid} survived"
        );
    }

    #[tokio::test]
    async fn a_missing_program_is_not_found() {
        let r = Command::new("/nonexistent/streamer").spawn_stream().await;
        assert!(matches!(r, Err(ExecError::NotFound { .. })));
    }
}
