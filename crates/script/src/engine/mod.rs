//! The JavaScript engine: Boa with Maestro's globals, free of I/O.
//!
//! An [`Engine`] owns a Boa [`Context`](boa_engine::Context) set up once with the globals
//! Maestro's scripts use: `output` (one object for the engine's whole life: a flow and its
//! sub-flows share it), `maestro` (`platform`, `copiedText`, refreshed from each [`Eval`]),
//! `console` (`log`, `info`, `warn`, `error`, `debug`: lines collected into the answer),
//! `json(text)` (`JSON.parse`) and `http` (`get`, `post`, `put`, `delete`, `request`). An
//! `http.*` call goes to the callback [`Engine::eval`] is given, and what the callback answers
//! is what the script sees. Nothing else leaves the engine: no file system (no module loader:
//! `import()` fails), no processes, no environment variables, no sockets; the local time zone
//! is UTC whatever the host's.
//!
//! Each evaluation runs as Maestro runs it: the code goes through a strict-mode direct `eval`
//! inside a function, so its `var`, `let`, `const`, `function` and `class` declarations are its
//! own (two scripts may both declare `const response`), its completion value is the answer, and
//! a name declared nowhere reads as `undefined` instead of throwing a `ReferenceError` (so
//! `${MY_VAR || 'default'}` works when `MY_VAR` is not set). The env variables are global
//! properties. Before each evaluation every global property that set-up did not make is
//! removed (the last evaluation's env, what its code put on `globalThis`), and `maestro`,
//! `console`, `json` and `http` are put back, so only `output` carries state from one
//! evaluation to the next.
//!
//! The context lives on a thread of its own with a large stack ([`STACK_BYTES`]), because
//! Boa's parser and compiler recurse once per level of nesting; [`check_nesting`] refuses code
//! nested deeper than that stack allows before Boa sees it. The callback runs on the caller's
//! thread.
//!
//! This module holds the [`Engine`], its [`Limits`] and the thread it runs on; its parts are
//! `context` (the Boa context on that thread: set-up, host hooks, one evaluation), `globals`
//! (the JavaScript that makes Maestro's globals, and the native functions it is given),
//! `http` (`http.*` calls through the caller's callback), `errors` (Boa's errors as a flow's
//! author reads them), `nesting` ([`check_nesting`]) and `syntax` ([`check_syntax`]).

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;
use std::thread;

use crate::wire::{Eval, FromWorker, HttpCall, HttpReply};

use context::Js;

mod context;
mod errors;
mod globals;
mod http;
mod nesting;
mod syntax;

pub use globals::CONSOLE_LIMIT_BYTES;
pub use nesting::{check_nesting, BRACKET_WEIGHT, NESTING_LIMIT};
pub use syntax::check_syntax;

#[cfg(test)]
mod errors_tests;
#[cfg(test)]
mod http_tests;
#[cfg(test)]
mod syntax_tests;
#[cfg(test)]
mod tests;

/// The stack of the thread an engine runs on, and of the one [`check_syntax`] parses on.
/// Only what the code's nesting uses is ever touched.
pub const STACK_BYTES: usize = 256 << 20;

/// How the message of an evaluation that panicked inside Boa begins; the engine stops after it.
const INTERNAL_ERROR: &str = "internal error in the JavaScript engine";

/// The engine's runtime limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How many loop iterations one call may run before the evaluation fails (Boa counts them
    /// per call frame, all the loops of the frame together).
    pub loop_iterations: u64,
    /// How deep calls may nest before the evaluation fails.
    pub recursion: usize,
}

impl Limits {
    /// 1 000 000 loop iterations, calls 400 deep (Boa's default is 512).
    pub const DEFAULT: Limits = Limits {
        loop_iterations: 1_000_000,
        recursion: 400,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Runs JavaScript with Maestro's globals; see the [module](self).
pub struct Engine {
    state: State,
}

enum State {
    Running {
        jobs: mpsc::Sender<Job>,
        events: mpsc::Receiver<Event>,
    },
    /// The engine's thread ended or never started: why, for every later evaluation.
    Stopped(String),
}

/// What the caller's thread sends the engine's.
enum Job {
    Eval(Box<Eval>),
    Reply(HttpReply),
}

/// What the engine's thread sends back.
enum Event {
    Http(HttpCall),
    Finished(FromWorker),
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.state {
            State::Running { .. } => f.write_str("Engine(running)"),
            State::Stopped(why) => write!(f, "Engine(stopped: {why})"),
        }
    }
}

impl Engine {
    /// An engine with the [default limits](Limits::DEFAULT).
    #[must_use]
    pub fn new() -> Engine {
        Self::with_limits(Limits::DEFAULT)
    }

    /// Starts an engine: its thread, and on it a context with Maestro's globals and `limits`.
    /// It does not fail: when the thread or the context cannot be had, every evaluation
    /// answers [`FromWorker::Failed`] saying why.
    #[must_use]
    pub fn with_limits(limits: Limits) -> Engine {
        let (jobs, job_rx) = mpsc::channel();
        let (event_tx, events) = mpsc::channel();
        let spawned = thread::Builder::new()
            .name("javascript".into())
            .stack_size(STACK_BYTES)
            .spawn(move || engine_thread(limits, job_rx, event_tx));
        let state = match spawned {
            // Detached: the thread ends when `jobs` is dropped.
            Ok(_) => State::Running { jobs, events },
            Err(err) => State::Stopped(format!(
                "could not start the JavaScript engine's thread: {err}"
            )),
        };
        Engine { state }
    }

    /// Evaluates `eval.code` with `eval.env` as globals and `maestro` refreshed. Each `http.*`
    /// call the code makes goes to `http`, whose answer the code sees (a
    /// [`HttpReply::Refused`] is thrown as an `Error`). Answers [`FromWorker::Done`] with the
    /// completion value as `String(value)` writes it, or [`FromWorker::Failed`] with what went
    /// wrong; never [`FromWorker::Http`].
    pub fn eval(&mut self, eval: &Eval, http: &mut dyn FnMut(HttpCall) -> HttpReply) -> FromWorker {
        let State::Running { jobs, events } = &self.state else {
            return self.stopped();
        };
        if jobs.send(Job::Eval(Box::new(eval.clone()))).is_err() {
            return self.stop("its thread has ended".into());
        }
        loop {
            match events.recv() {
                Ok(Event::Http(call)) => {
                    let reply = http(call);
                    if jobs.send(Job::Reply(reply)).is_err() {
                        return self.stop("its thread has ended".into());
                    }
                }
                Ok(Event::Finished(answer)) => {
                    if let FromWorker::Failed { message, .. } = &answer {
                        if message.starts_with(INTERNAL_ERROR) {
                            self.state = State::Stopped(message.clone());
                        }
                    }
                    return answer;
                }
                Err(_) => return self.stop("its thread has ended".into()),
            }
        }
    }

    fn stop(&mut self, why: String) -> FromWorker {
        self.state = State::Stopped(why);
        self.stopped()
    }

    fn stopped(&self) -> FromWorker {
        let why = match &self.state {
            State::Stopped(why) => why.as_str(),
            State::Running { .. } => "",
        };
        FromWorker::Failed {
            message: format!("the JavaScript engine is not running: {why}"),
            console: Vec::new(),
        }
    }
}

fn engine_thread(limits: Limits, jobs: mpsc::Receiver<Job>, events: mpsc::Sender<Event>) {
    let set_up = panic::catch_unwind(AssertUnwindSafe(|| Js::new(limits)));
    let mut js = match set_up {
        Ok(Ok(js)) => js,
        Ok(Err(err)) => {
            return refuse_all(&jobs, &events, &format!("could not set it up: {err}"));
        }
        Err(panic) => {
            let why = format!("{INTERNAL_ERROR} while setting up: {}", panic_text(&*panic));
            return refuse_all(&jobs, &events, &why);
        }
    };
    js.context.insert_data(Bridge { jobs, events });
    loop {
        let job = match js.context.get_data::<Bridge>() {
            Some(bridge) => bridge.jobs.recv(),
            None => return,
        };
        let Ok(job) = job else { return };
        // A reply with no call waiting cannot come from `Engine::eval`: nothing to do.
        let Job::Eval(eval) = job else { continue };
        let (answer, poisoned) = match panic::catch_unwind(AssertUnwindSafe(|| js.eval(&eval))) {
            Ok(answer) => (answer, false),
            Err(panic) => {
                let message = format!(
                    "{INTERNAL_ERROR} (Boa panicked) in {}: {}; the engine stops, and `output` with it",
                    eval.name,
                    panic_text(&*panic)
                );
                (
                    FromWorker::Failed {
                        message,
                        console: Vec::new(),
                    },
                    true,
                )
            }
        };
        let sent = js
            .context
            .get_data::<Bridge>()
            .is_some_and(|bridge| bridge.events.send(Event::Finished(answer)).is_ok());
        if poisoned || !sent {
            return;
        }
    }
}

/// Answers every evaluation with `why`, until the engine is dropped.
fn refuse_all(jobs: &mpsc::Receiver<Job>, events: &mpsc::Sender<Event>, why: &str) {
    while let Ok(job) = jobs.recv() {
        if let Job::Eval(_) = job {
            let failed = FromWorker::Failed {
                message: format!("the JavaScript engine is not running: {why}"),
                console: Vec::new(),
            };
            if events.send(Event::Finished(failed)).is_err() {
                return;
            }
        }
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "(no message)".to_owned()
    }
}

/// The engine thread's ends of the channels, kept in the context for `http.*`.
struct Bridge {
    jobs: mpsc::Receiver<Job>,
    events: mpsc::Sender<Event>,
}
