//! The runners through which every external command and every request to a device goes.
//!
//! A [`Command`] is an argument vector — never a host shell — with a timeout. The child runs in
//! a process tree of its own (a process group on Unix, a job object on Windows: `tree`); on
//! timeout, and when the future running it is dropped (a client hung up), the whole tree is
//! killed. Stdout and stderr are drained concurrently so a chatty child never blocks on a full
//! pipe. Each run is a tracing span with the argv, duration and exit status. Requests to
//! devices reached over HTTP go through the runner beside it ([`http`]), under the same bound
//! on outside work in flight. Children read as they run (log streams) are [`StreamChild`]ren,
//! see `stream`.

pub mod http;
mod lines;
mod stream;
pub mod timing;
mod tools;
mod tree;

pub use crate::device::Tool;
pub use http::{HttpClient, HttpError, HttpRequest, HttpResponse};
pub use lines::{LineChild, OutputLine, MAX_LINE};
pub use stream::{StreamChild, StreamEnd, MAX_STREAMS};
pub use tools::{ToolInfo, Toolbox};

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tracing::Instrument;

/// Default time limit of an external command.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Most external commands and device requests running at once, across the whole process.
/// More wait for a slot (within their own time limit), so a request storm cannot exhaust file
/// descriptors or the process table.
pub const MAX_RUNNING: usize = 48;

static RUNNING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(MAX_RUNNING);

/// A slot among the [`MAX_RUNNING`], waited for at most `limit`.
async fn acquire_slot(limit: Duration) -> Option<tokio::sync::SemaphorePermit<'static>> {
    match tokio::time::timeout(limit, RUNNING.acquire()).await {
        Ok(Ok(permit)) => Some(permit),
        _ => None,
    }
}

/// An external command to run: program, arguments, optional stdin, timeout.
#[derive(Debug, Clone)]
pub struct Command {
    program: PathBuf,
    args: Vec<OsString>,
    stdin: Option<Vec<u8>>,
    envs: Vec<(OsString, OsString)>,
    /// The child's working directory (default: the server's).
    cwd: Option<PathBuf>,
    timeout: Duration,
    /// A long-lived child's stdin is a pipe the caller writes to ([`LineChild::write_line`]).
    talk: bool,
}

/// What a finished command left behind.
#[derive(Debug, Clone)]
pub struct Output {
    /// Exit code; `None` when the child was ended by a signal.
    pub code: Option<i32>,
    /// Everything the child wrote to stdout.
    pub stdout: Vec<u8>,
    /// Everything the child wrote to stderr.
    pub stderr: Vec<u8>,
    /// Wall time of the run, waiting for a slot included.
    pub duration: Duration,
}

impl Output {
    /// Whether the command exited with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// Stdout as text, invalid UTF-8 replaced.
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Stderr as text, invalid UTF-8 replaced.
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Why a command could not be run to completion.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The program does not exist or may not be executed.
    #[error("{program}: not found or not executable")]
    NotFound {
        /// The program as given.
        program: String,
    },
    /// The command outran its time limit; its process group was killed.
    #[error("`{argv}` did not finish within {}s and was killed", timeout.as_secs_f32())]
    Timeout {
        /// The argv as one printable line.
        argv: String,
        /// The limit it outran.
        timeout: Duration,
    },
    /// Too many commands are running (or the process table or file descriptors ran out)
    /// and none finished in time to make room.
    #[error("`{argv}` could not start: {why}")]
    Busy {
        /// The argv as one printable line.
        argv: String,
        /// What was short: a slot, processes or file descriptors.
        why: String,
    },
    /// Any other I/O failure spawning the child or talking to it.
    #[error("`{argv}`: {source}")]
    Io {
        /// The argv as one printable line.
        argv: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Command {
    /// A command running `program` (a path, or a name looked up in `PATH`), with no arguments
    /// and the [`DEFAULT_TIMEOUT`].
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Command {
            program: program.into(),
            args: Vec::new(),
            stdin: None,
            envs: Vec::new(),
            cwd: None,
            timeout: DEFAULT_TIMEOUT,
            talk: false,
        }
    }

    /// Appends one argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Appends arguments, in order.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the child, on top of the inherited environment.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.envs.push((key.into(), value.into()));
        self
    }

    /// Runs the child in `dir` instead of the server's working directory.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Bytes written to the child's stdin, which is then closed; without them stdin is null.
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// A long-lived child ([`Command::spawn_lines`]) gets a pipe as stdin, which the caller
    /// writes lines to; without it stdin is null.
    pub fn talking(mut self) -> Self {
        self.talk = true;
        self
    }

    /// Sets the time limit, after which the child's process group is killed.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Lowers the timeout to `max` when it is longer.
    pub fn cap_timeout(mut self, max: Option<Duration>) -> Self {
        if let Some(max) = max {
            self.timeout = self.timeout.min(max);
        }
        self
    }

    /// The argv as one printable line (for logs and error messages; never executed).
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(|a| a.as_os_str()))
            .map(|a| {
                let a = a.to_string_lossy();
                if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'') {
                    format!("{a:?}")
                } else {
                    a.into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn tokio_command(&self) -> process_wrap::tokio::CommandWrap {
        let mut cmd = tokio::process::Command::new(&self.program);
        cmd.args(&self.args)
            .envs(self.envs.iter().map(|(k, v)| (k, v)))
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        tree::wrap(cmd)
    }

    /// Why a spawn failed: a missing program, a process or descriptor shortage (busy), else
    /// an I/O error.
    fn spawn_error(&self, argv: &str, e: std::io::Error) -> ExecError {
        match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
                ExecError::NotFound {
                    program: self.program.display().to_string(),
                }
            }
            _ if tree::is_shortage(&e) => ExecError::Busy {
                argv: argv.to_string(),
                why: e.to_string(),
            },
            _ => ExecError::Io {
                argv: argv.to_string(),
                source: e,
            },
        }
    }

    /// Runs the command to completion, or kills it when the timeout passes.
    pub async fn run(&self) -> Result<Output, ExecError> {
        let argv = self.display();
        let span = tracing::debug_span!(
            "exec",
            argv = %argv,
            duration_ms = tracing::field::Empty,
            status = tracing::field::Empty
        );
        self.run_inner(argv).instrument(span).await
    }

    async fn run_inner(&self, argv: String) -> Result<Output, ExecError> {
        let started = Instant::now();
        let Some(_slot) = acquire_slot(self.timeout).await else {
            return Err(ExecError::Busy {
                argv,
                why: format!("{MAX_RUNNING} commands were running for its whole time limit"),
            });
        };
        let mut tree =
            tree::Tree::spawn(self.tokio_command()).map_err(|e| self.spawn_error(&argv, e))?;

        let stdin_task = match (tree.child().stdin().take(), self.stdin.clone()) {
            (Some(mut pipe), Some(bytes)) => Some(tokio::spawn(async move {
                // A child that exits without reading its stdin is not an error of ours.
                let _ = pipe.write_all(&bytes).await;
                let _ = pipe.shutdown().await;
            })),
            _ => None,
        };
        let mut stdout = tree.child().stdout().take();
        let mut stderr = tree.child().stderr().take();
        let drain = async {
            let mut out = Vec::new();
            let mut err = Vec::new();
            let read_out = async {
                if let Some(s) = stdout.as_mut() {
                    s.read_to_end(&mut out).await?;
                }
                Ok::<_, std::io::Error>(())
            };
            let read_err = async {
                if let Some(s) = stderr.as_mut() {
                    s.read_to_end(&mut err).await?;
                }
                Ok::<_, std::io::Error>(())
            };
            let (a, b) = tokio::join!(read_out, read_err);
            a.and(b)?;
            let status = tree.wait().await?;
            Ok::<_, std::io::Error>((status, out, err))
        };

        let result = tokio::time::timeout(self.timeout, drain).await;
        if let Some(task) = stdin_task {
            task.abort();
        }
        let span = tracing::Span::current();
        let elapsed = started.elapsed();
        timing::record("device", elapsed);
        span.record("duration_ms", elapsed.as_millis() as u64);
        match result {
            Err(_) => {
                span.record("status", "timeout");
                tracing::warn!(argv = %argv, "command timed out after {:?}; killed", self.timeout);
                tree.kill();
                Err(ExecError::Timeout {
                    argv,
                    timeout: self.timeout,
                })
            }
            Ok(Err(source)) => Err(ExecError::Io { argv, source }),
            Ok(Ok((status, stdout, stderr))) => {
                span.record("status", status.code().unwrap_or(-1));
                tracing::debug!(status = ?status.code(), ms = elapsed.as_millis() as u64, "exec done");
                // The child exited; still end any helper it left behind in its tree.
                tree.kill();
                Ok(Output {
                    code: status.code(),
                    stdout,
                    stderr,
                    duration: elapsed,
                })
            }
        }
    }

    /// Starts the command detached from us (its own session, no pipes to us) and returns its
    /// pid. Used for long-lived processes: an emulator, a background server.
    pub fn spawn_detached(&self, log: Option<std::fs::File>) -> Result<u32, ExecError> {
        let argv = self.display();
        let mut cmd = std::process::Command::new(&self.program);
        cmd.args(&self.args)
            .envs(self.envs.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        match log {
            Some(file) => {
                let err = file.try_clone().map_err(|source| ExecError::Io {
                    argv: argv.clone(),
                    source,
                })?;
                cmd.stdout(file).stderr(err);
            }
            None => {
                cmd.stdout(Stdio::null()).stderr(Stdio::null());
            }
        }
        // Its own process group (Unix) or a new process group without our console (Windows), so
        // that a Ctrl-C meant for us does not reach it.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        #[cfg(windows)]
        std::os::windows::process::CommandExt::creation_flags(
            &mut cmd,
            0x0000_0200 | 0x0000_0008, // CREATE_NEW_PROCESS_GROUP | DETACHED_PROCESS
        );
        tracing::info!(argv = %argv, "spawning detached");
        let child = cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
                ExecError::NotFound {
                    program: self.program.display().to_string(),
                }
            }
            _ => ExecError::Io { argv, source: e },
        })?;
        Ok(child.id())
    }
}

// They run `sh`: Unix hosts.
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn captures_stdout_stderr_and_code() {
        let out = Command::new("sh")
            .args(["-c", "echo out; echo err >&2; exit 3"])
            .run()
            .await
            .unwrap();
        assert_eq!(out.stdout_text(), "out\n");
        assert_eq!(out.stderr_text(), "err\n");
        assert_eq!(out.code, Some(3));
    }

    #[tokio::test]
    async fn arguments_are_not_interpreted_by_a_shell() {
        let out = Command::new("echo")
            .arg("a;b$(id) `x` | y")
            .run()
            .await
            .unwrap();
        assert_eq!(out.stdout_text(), "a;b$(id) `x` | y\n");
    }

    #[tokio::test]
    async fn passes_stdin() {
        let out = Command::new("cat").stdin("hello").run().await.unwrap();
        assert_eq!(out.stdout, b"hello");
    }

    #[tokio::test]
    async fn large_outputs_on_both_pipes_do_not_deadlock() {
        let out = Command::new("sh")
            .args([
                "-c",
                "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2",
            ])
            .run()
            .await
            .unwrap();
        assert_eq!(out.stdout.len(), 300_000);
        assert_eq!(out.stderr.len(), 300_000);
    }

    #[tokio::test]
    async fn timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
        let err = Command::new("sh")
            .args(["-c", &script])
            .timeout(Duration::from_millis(300))
            .run()
            .await
            .unwrap_err();
        assert!(matches!(err, ExecError::Timeout { .. }), "{err}");
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(gone(pid).await, "grandchild {pid} survived the timeout");
    }

    /// A helper the command started and left running (its pipes closed) ends with it.
    #[tokio::test]
    async fn a_helper_left_behind_ends_with_its_command() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!(
            "sleep 30 >/dev/null 2>&1 & echo $! > {}; exit 0",
            pidfile.display()
        );
        let out = Command::new("sh")
            .args(["-c", &script])
            .run()
            .await
            .unwrap();
        assert_eq!(out.code, Some(0));
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(gone(pid).await, "helper {pid} outlived its command");
    }

    /// A caller that stops waiting (a client hung up) ends the whole tree.
    #[tokio::test]
    async fn dropping_the_run_kills_the_whole_tree() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
        let cmd = Command::new("sh").args(["-c", &script]);
        let mut run = Box::pin(cmd.run());
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::fs::read_to_string(&pidfile).map_or(true, |t| !t.ends_with('\n')) {
            assert!(Instant::now() < deadline, "the script never started");
            tokio::select! {
                _ = &mut run => panic!("the script ended by itself"),
                _ = tokio::time::sleep(Duration::from_millis(10)) => {}
            }
        }
        drop(run);
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(gone(pid).await, "grandchild {pid} survived the dropped run");
    }

    /// Whether `pid` dies (or becomes a zombie awaiting its reaper) within 5 s: SIGKILL is
    /// delivered asynchronously.
    pub(super) async fn gone(pid: i32) -> bool {
        let dead = |pid: i32| {
            // SAFETY: signal 0 only checks that the process exists; nothing is sent.
            (unsafe { libc::kill(pid, 0) }) != 0
                || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .map(|s| s.contains(") Z"))
                    .unwrap_or(true)
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while !dead(pid) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        dead(pid)
    }

    #[tokio::test]
    async fn missing_program_is_not_found() {
        let err = Command::new("/nonexistent/mobilectl-tool")
            .run()
            .await
            .unwrap_err();
        assert!(matches!(err, ExecError::NotFound { .. }));
    }
}
