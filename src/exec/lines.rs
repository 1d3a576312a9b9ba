//! Long-running children read line by line from both pipes (a build: `xcodebuild`,
//! `./gradlew`): the same argv-only [`Command`] in a process tree of its own, stdout and stderr
//! each read by a task that splits them into lines (a line longer than [`MAX_LINE`] comes in
//! pieces) and hands them over a bounded channel, so a child that writes faster than its
//! reader is slowed by the pipe instead of filling memory. A child started
//! [`Command::talking`] is written to a line at a time ([`LineChild::write_line`]: a script
//! worker). Dropping the [`LineChild`] ends the whole tree; a child that finished can leave its
//! daemons running ([`LineChild::finish`]).

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::{Command, ExecError};

/// The longest piece of one line handed over at once.
pub const MAX_LINE: usize = 64 * 1024;

/// Lines in flight between the pipes' readers and the caller.
const IN_FLIGHT: usize = 256;

/// One line (or a piece of a very long one) as the child wrote it, without its newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputLine {
    /// The bytes, as written (not necessarily UTF-8).
    pub bytes: Vec<u8>,
    /// It came from stderr.
    pub stderr: bool,
}

/// A running child whose output is read line by line.
pub struct LineChild {
    argv: String,
    lines: tokio::sync::mpsc::Receiver<OutputLine>,
    readers: Vec<tokio::task::JoinHandle<()>>,
    /// The child's stdin, when it was started [`Command::talking`].
    stdin: Option<tokio::process::ChildStdin>,
    // Field order: the tree is ended before the slot is given back. `None` once let go.
    tree: Option<super::tree::Tree>,
    _slot: tokio::sync::SemaphorePermit<'static>,
}

impl Command {
    /// Starts the command with both pipes read line by line (see [`LineChild`]). The
    /// command's timeout bounds only the wait for a slot; the caller bounds the run.
    pub async fn spawn_lines(&self) -> Result<LineChild, ExecError> {
        let argv = self.display();
        let slot = self.stream_slot(&argv).await?;
        let mut tree = super::tree::Tree::spawn(super::tree::wrap(self.long_lived()))
            .map_err(|e| self.spawn_error(&argv, e))?;
        tracing::debug!(argv = %argv, "line reader started");
        let (tx, lines) = tokio::sync::mpsc::channel(IN_FLIGHT);
        let mut readers = Vec::new();
        if let Some(out) = tree.child().stdout().take() {
            readers.push(tokio::spawn(read_lines(out, false, tx.clone())));
        }
        if let Some(err) = tree.child().stderr().take() {
            readers.push(tokio::spawn(read_lines(err, true, tx)));
        }
        let stdin = tree.child().stdin().take();
        Ok(LineChild {
            argv,
            lines,
            readers,
            stdin,
            tree: Some(tree),
            _slot: slot,
        })
    }
}

/// Hands `pipe`'s lines to `tx` until the pipe closes or the receiver goes away.
async fn read_lines(
    pipe: impl tokio::io::AsyncRead + Unpin,
    stderr: bool,
    tx: tokio::sync::mpsc::Sender<OutputLine>,
) {
    let mut reader = BufReader::new(pipe);
    loop {
        let mut bytes = Vec::new();
        let more = read_until_newline(&mut reader, &mut bytes).await.is_some();
        if (more || !bytes.is_empty()) && tx.send(OutputLine { bytes, stderr }).await.is_err() {
            return;
        }
        if !more {
            return;
        }
    }
}

/// Reads into `line` up to (not including) the next newline, or until it holds
/// [`MAX_LINE`] bytes: `Some` then, `None` when the pipe closed first.
async fn read_until_newline(
    reader: &mut BufReader<impl tokio::io::AsyncRead + Unpin>,
    line: &mut Vec<u8>,
) -> Option<()> {
    loop {
        let buf = match reader.fill_buf().await {
            Ok([]) | Err(_) => return None,
            Ok(buf) => buf,
        };
        let room = MAX_LINE.saturating_sub(line.len());
        match buf.iter().take(room).position(|b| *b == b'\n') {
            Some(at) => {
                line.extend_from_slice(&buf[..at]);
                reader.consume(at + 1);
                return Some(());
            }
            None => {
                let take = buf.len().min(room);
                line.extend_from_slice(&buf[..take]);
                reader.consume(take);
                if line.len() >= MAX_LINE {
                    return Some(());
                }
            }
        }
    }
}

impl LineChild {
    /// The argv, for messages.
    pub fn argv(&self) -> &str {
        &self.argv
    }

    /// The next line from either pipe; `None` once both have closed.
    pub async fn next_line(&mut self) -> Option<OutputLine> {
        self.lines.recv().await
    }

    /// Writes `line` and a newline to the child's stdin (started [`Command::talking`]).
    pub async fn write_line(&mut self, line: &[u8]) -> std::io::Result<()> {
        let stdin = self.stdin.as_mut().ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the child was not started with a stdin to write to",
            )
        })?;
        stdin.write_all(line).await?;
        stdin.write_all(b"\n").await?;
        stdin.flush().await
    }

    /// Ends the whole tree now.
    pub fn kill(&mut self) {
        if let Some(t) = &mut self.tree {
            t.kill();
        }
    }

    /// Both pipes closed: waits (at most `grace`) for the child's exit code, killing the tree
    /// when it does not exit in time (`None` then, as for a child ended by a signal). A child
    /// that exited leaves what it started on purpose running (a build tool's daemon).
    pub async fn finish(mut self, grace: Duration) -> Option<i32> {
        let mut tree = self.tree.take()?;
        let code = match tokio::time::timeout(grace, tree.wait()).await {
            Ok(Ok(status)) => status.code(),
            _ => {
                tree.kill();
                return None;
            }
        };
        tracing::debug!(argv = %self.argv, status = ?code, "line reader ended");
        tree.leave_running();
        code
    }
}

impl Drop for LineChild {
    fn drop(&mut self) {
        for r in &self.readers {
            r.abort();
        }
    }
}

// They run `sh`: Unix hosts.
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    async fn all_lines(c: &mut LineChild) -> Vec<(bool, String)> {
        let mut out = Vec::new();
        while let Some(l) = c.next_line().await {
            out.push((l.stderr, String::from_utf8_lossy(&l.bytes).into_owned()));
        }
        out
    }

    #[tokio::test]
    async fn both_pipes_arrive_as_lines_and_the_exit_code_after() {
        let mut c = Command::new("sh")
            .args(["-c", "echo one; echo oops >&2; printf 'no newline'; exit 3"])
            .spawn_lines()
            .await
            .unwrap();
        let lines = all_lines(&mut c).await;
        assert!(lines.contains(&(false, "one".into())), "{lines:?}");
        assert!(lines.contains(&(true, "oops".into())), "{lines:?}");
        assert!(lines.contains(&(false, "no newline".into())), "{lines:?}");
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(c.finish(Duration::from_secs(5)).await, Some(3));
    }

    #[tokio::test]
    async fn a_talking_child_reads_the_lines_written_to_it() {
        let mut c = Command::new("sh")
            .args(["-c", "read a; echo \"got $a\"; read b; echo \"got $b\""])
            .talking()
            .spawn_lines()
            .await
            .unwrap();
        c.write_line(b"one").await.unwrap();
        let first = c.next_line().await.unwrap();
        assert_eq!(first.bytes, b"got one");
        c.write_line(b"two").await.unwrap();
        let second = c.next_line().await.unwrap();
        assert_eq!(second.bytes, b"got two");
        assert_eq!(c.finish(Duration::from_secs(5)).await, Some(0));
        let mut silent = Command::new("true").spawn_lines().await.unwrap();
        assert!(silent.write_line(b"x").await.is_err());
    }

    #[tokio::test]
    async fn a_long_line_comes_in_pieces_of_the_limit() {
        let n = MAX_LINE * 2 + 10;
        let script = format!("head -c {n} /dev/zero | tr '\\0' x; echo; echo after");
        let mut c = Command::new("sh")
            .args(["-c", &script])
            .spawn_lines()
            .await
            .unwrap();
        let lines = all_lines(&mut c).await;
        let sizes: Vec<usize> = lines.iter().map(|(_, l)| l.len()).collect();
        assert!(sizes.iter().all(|s| *s <= MAX_LINE), "{sizes:?}");
        assert_eq!(sizes.iter().take(sizes.len() - 1).sum::<usize>(), n);
        assert_eq!(lines.last().unwrap().1, "after");
    }

    #[tokio::test]
    async fn the_working_directory_is_the_commands() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Command::new("sh")
            .args(["-c", "pwd -P"])
            .current_dir(dir.path())
            .spawn_lines()
            .await
            .unwrap();
        let lines = all_lines(&mut c).await;
        let want = dir.path().canonicalize().unwrap();
        assert_eq!(lines, vec![(false, want.display().to_string())]);
    }

    #[tokio::test]
    async fn dropping_the_child_ends_its_whole_tree() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let script = format!(
            "sleep 60 & echo $! > {}; echo started; wait",
            pid_file.display()
        );
        let mut c = Command::new("sh")
            .args(["-c", &script])
            .spawn_lines()
            .await
            .unwrap();
        assert_eq!(c.next_line().await.unwrap().bytes, b"started");
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        drop(c);
        // The grandchild is gone once the group's SIGKILL lands: polled, not slept for.
        let gone = (0..200).any(|_| {
            // SAFETY: kill with signal 0 only checks that the process exists.
            let exists = unsafe { libc::kill(pid, 0) } == 0;
            // A killed orphan stays a zombie until whoever adopted it reaps it.
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            });
            let alive = exists && !zombie;
            if alive {
                std::thread::sleep(Duration::from_millis(10));
            }
            !alive
        });
        assert!(gone, "the grandchild {pid} outlived its tree");
    }
}
