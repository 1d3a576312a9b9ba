//! A child and everything it starts, as one thing to stop: a process group on Unix, a job
//! object on Windows (both through `process-wrap`). [`Tree`] owns the spawned child; dropping
//! it, or [`Tree::kill`], ends the whole tree, so a helper the child left behind cannot outlive
//! the command that started it.

use std::io;
use std::process::ExitStatus;

use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop};

/// A spawned child with its whole process tree.
pub struct Tree(Box<dyn ChildWrapper>, Armed);

/// Whether dropping the tree ends it (always, but after [`Tree::leave_running`]).
struct Armed(bool);

/// Wraps `cmd` so that the child starts a tree of its own, killed with the tree.
pub fn wrap(cmd: tokio::process::Command) -> CommandWrap {
    let mut wrapped = CommandWrap::from(cmd);
    #[cfg(unix)]
    wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
    #[cfg(windows)]
    wrapped.wrap(process_wrap::tokio::JobObject);
    wrapped.wrap(KillOnDrop);
    wrapped
}

impl Tree {
    /// Spawns a wrapped command (see [`wrap`]).
    pub fn spawn(mut cmd: CommandWrap) -> io::Result<Tree> {
        cmd.spawn().map(|c| Tree(c, Armed(true)))
    }

    /// The child itself, for its pipes.
    pub fn child(&mut self) -> &mut dyn ChildWrapper {
        self.0.as_mut()
    }

    /// Waits for the child (the tree's first process) to exit.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.0.wait().await
    }

    /// Ends every process of the tree now (SIGKILL to the group; the job terminated). A tree
    /// already gone is not an error.
    pub fn kill(&mut self) {
        let _ = self.0.start_kill();
    }

    /// Asks the tree to stop as Ctrl-C in a terminal does: SIGINT to the group on Unix (tools
    /// such as `simctl io recordVideo` finalise their file on it). Windows has no such signal
    /// for a tree without a console: the tree is ended.
    pub fn interrupt(&mut self) {
        #[cfg(unix)]
        let _ = self.0.signal(libc::SIGINT);
        #[cfg(not(unix))]
        self.kill();
    }
}

impl Tree {
    /// Lets go of a tree whose first process has exited, leaving what it started on purpose
    /// to outlive it running (a build tool's daemon, which the next build reuses).
    pub fn leave_running(mut self) {
        self.1 = Armed(false);
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        if self.1 .0 {
            self.kill();
        }
    }
}

/// Whether a spawn failed for want of descriptors, processes or memory (a busy host, worth a
/// retry) rather than for the program itself.
pub fn is_shortage(e: &io::Error) -> bool {
    #[cfg(unix)]
    let codes = [libc::EMFILE, libc::ENFILE, libc::EAGAIN, libc::ENOMEM];
    // ERROR_TOO_MANY_OPEN_FILES, ERROR_NOT_ENOUGH_MEMORY, ERROR_OUTOFMEMORY,
    // ERROR_NO_SYSTEM_RESOURCES.
    #[cfg(windows)]
    let codes = [4, 8, 14, 1450];
    #[cfg(not(any(unix, windows)))]
    let codes: [i32; 0] = [];
    e.raw_os_error().is_some_and(|c| codes.contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortages_are_told_from_other_failures() {
        #[cfg(unix)]
        {
            assert!(is_shortage(&io::Error::from_raw_os_error(libc::EMFILE)));
            assert!(!is_shortage(&io::Error::from_raw_os_error(libc::ENOENT)));
        }
        #[cfg(windows)]
        {
            assert!(is_shortage(&io::Error::from_raw_os_error(4)));
            assert!(!is_shortage(&io::Error::from_raw_os_error(2)));
        }
        assert!(!is_shortage(&io::Error::other("no code")));
    }
}
