//! JavaScript for flows, on the server's side. A flow run's scripts (`runScript`,
//! `evalScript`, `assertTrue`, `${…}` beyond a plain name) are evaluated by the crate
//! `mobilectl-script` (Boa, pure Rust) in a **worker process**: this executable started again
//! as `mobilectl __script-worker` ([`worker_entry`]), one per run, its `output` object kept for
//! the run. The server never runs script code itself: a script that loops, allocates without
//! end or crashes the engine ends its worker, never the server.
//!
//! [`scripts::Scripts`] is the run's handle: it starts the worker when the first script runs,
//! bounds each evaluation's time ([`scripts::TIME_BUDGET`], then the worker is killed) and
//! memory ([`scripts::MEMORY_BUDGET`], enforced inside the worker by the allocator of
//! [`alloc`]), and makes the scripts' HTTP requests itself, only to the hosts the run allows
//! ([`allow::AllowList`]).

pub mod alloc;
pub mod allow;
pub mod scripts;

/// The argument that starts this executable as a script worker.
pub const WORKER_ARG: &str = "__script-worker";

/// When this process was started as a script worker (`mobilectl __script-worker`): serves
/// evaluations on stdin and stdout until stdin closes; the exit code. `None` otherwise.
pub fn worker_entry() -> Option<i32> {
    if std::env::args_os().nth(1).as_deref() != Some(std::ffi::OsStr::new(WORKER_ARG)) {
        return None;
    }
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match flow_script::worker::serve(stdin, stdout, &alloc::Budget) {
        Ok(()) => Some(0),
        Err(e) => {
            eprintln!("mobilectl script worker: {e}");
            Some(1)
        }
    }
}
