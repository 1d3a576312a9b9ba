//! A flow run's scripts ([`Scripts`]): the worker process they are evaluated in, started when
//! the first script runs and ended with the run; each evaluation bounded in time and memory;
//! the scripts' HTTP requests made here, to allowed hosts only.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::time::Duration;

use flow_script::wire::{Eval, FromWorker, HttpCall, HttpReply, HttpResponse, ToWorker};
use mobilectl_flows::host::{Script, ScriptDone};
use tokio::time::Instant;

use super::allow::AllowList;
use crate::exec::http::{HttpClient, HttpRequest};
use crate::exec::{Command, LineChild};

/// How long one evaluation may take, its HTTP requests included (less when the run's own
/// time ends sooner); past it the worker is killed (and the next script starts a new one,
/// `output` empty again).
pub const TIME_BUDGET: Duration = Duration::from_secs(10);
/// How much one evaluation may allocate beyond what the worker held when it began.
pub const MEMORY_BUDGET: u64 = 128 * 1024 * 1024;
/// Longest wait for one of a script's HTTP requests (within the time budget).
const HTTP_TIMEOUT: Duration = Duration::from_secs(8);
/// Stderr lines kept to explain a worker that stopped.
const STDERR_KEPT: usize = 8;

/// A run's scripts; see the module's doc.
pub struct Scripts {
    program: PathBuf,
    allow: AllowList,
    /// Made when a script first asks for a request (most runs make none).
    http: std::sync::OnceLock<HttpClient>,
    worker: tokio::sync::Mutex<Option<LineChild>>,
}

impl Scripts {
    /// The scripts of a run, evaluated by `program` started as a worker, their requests
    /// allowed to `allow`'s hosts.
    pub fn new(program: PathBuf, allow: AllowList) -> Scripts {
        Scripts {
            program,
            allow,
            http: std::sync::OnceLock::new(),
            worker: tokio::sync::Mutex::new(None),
        }
    }

    /// Evaluates `script` on a `platform` device (`android`, `ios`: `maestro.platform`): its
    /// value and console lines, or why it failed.
    pub async fn eval(&self, script: Script, platform: &str) -> Result<ScriptDone, String> {
        let name = script.name.clone();
        let budget = TIME_BUDGET.min(
            script
                .until
                .saturating_duration_since(std::time::Instant::now()),
        );
        let mut slot = self.worker.lock().await;
        let mut worker = match slot.take() {
            Some(w) => w,
            None => self.start().await?,
        };
        let eval = ToWorker::Eval(Eval {
            code: script.code,
            name: script.name,
            env: script.env.into_iter().collect::<BTreeMap<_, _>>(),
            platform: platform.to_string(),
            copied_text: script.copied_text,
            memory_bytes: MEMORY_BUDGET,
        });
        let deadline = Instant::now() + budget;
        match self.converse(&mut worker, &eval, deadline).await {
            Ok(Ok(done)) => {
                *slot = Some(worker);
                Ok(done)
            }
            // The script failed; the engine is fine and keeps its `output`.
            Ok(Err(thrown)) => {
                *slot = Some(worker);
                Err(thrown)
            }
            Err(Stopped::TimeUp) => {
                worker.kill();
                Err(format!(
                    "`{name}` ran longer than {} ms, its time budget (at most {} s, and never \
                     past the run's timeout); its engine was stopped (a later script starts with \
                     an empty `output`)",
                    budget.as_millis(),
                    TIME_BUDGET.as_secs()
                ))
            }
            Err(Stopped::Exited(stderr)) => {
                let code = worker.finish(Duration::from_secs(2)).await;
                Err(stopped_why(
                    &name,
                    code,
                    &stderr.lines(),
                    stderr.out_of_memory,
                ))
            }
            Err(Stopped::Garbled(why)) => {
                worker.kill();
                Err(format!(
                    "the script engine answered wrongly while running `{name}`: {why}"
                ))
            }
        }
    }

    /// Starts a worker.
    async fn start(&self) -> Result<LineChild, String> {
        Command::new(&self.program)
            .arg(super::WORKER_ARG)
            .talking()
            .timeout(Duration::from_secs(5))
            .spawn_lines()
            .await
            .map_err(|e| format!("the script engine could not start: {e}"))
    }

    /// Sends `eval` and answers the worker's requests until it ends: the evaluation's
    /// outcome, or why the worker cannot go on.
    async fn converse(
        &self,
        worker: &mut LineChild,
        eval: &ToWorker,
        deadline: Instant,
    ) -> Result<Result<ScriptDone, String>, Stopped> {
        let mut stderr = Stderr::default();
        send(worker, eval, &stderr).await?;
        loop {
            let line = match tokio::time::timeout_at(deadline, worker.next_line()).await {
                Err(_) => return Err(Stopped::TimeUp),
                Ok(None) => return Err(Stopped::Exited(stderr)),
                Ok(Some(line)) => line,
            };
            if line.stderr {
                stderr.push(String::from_utf8_lossy(&line.bytes).into_owned());
                continue;
            }
            let said: FromWorker = serde_json::from_slice(&line.bytes)
                .map_err(|e| Stopped::Garbled(format!("{e}")))?;
            match said {
                FromWorker::Http(call) => {
                    let reply = ToWorker::HttpReply(self.request(call, deadline).await);
                    send(worker, &reply, &stderr).await?;
                }
                FromWorker::Done { value, console } => {
                    return Ok(Ok(ScriptDone { value, console }))
                }
                FromWorker::Failed { message, .. } => return Ok(Err(message)),
            }
        }
    }

    /// Makes a script's HTTP request, when its host is allowed: the response (any status), or
    /// why there is none.
    async fn request(&self, call: HttpCall, deadline: Instant) -> HttpReply {
        let refused = |error: String| HttpReply::Refused { error };
        if let Err(e) = self.allow.check(&call.url) {
            return refused(e);
        }
        let Ok(method) = reqwest::Method::from_bytes(call.method.as_bytes()) else {
            return refused(format!("`{}` is not an HTTP method", call.method));
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let mut req = HttpRequest::new(method, &call.url)
            .any_status()
            .timeout(HTTP_TIMEOUT.min(left));
        for (k, v) in call.headers {
            req = req.header(k, v);
        }
        if let Some(body) = call.body {
            req = req.body(body);
        }
        match self.http.get_or_init(HttpClient::new).send(&req).await {
            Ok(r) => {
                let mut headers: BTreeMap<String, String> = BTreeMap::new();
                for (k, v) in &r.headers {
                    headers
                        .entry(k.to_ascii_lowercase())
                        .and_modify(|all| {
                            all.push_str(", ");
                            all.push_str(v);
                        })
                        .or_insert_with(|| v.clone());
                }
                HttpReply::Response(HttpResponse {
                    status: r.status,
                    body: r.text(),
                    headers,
                })
            }
            Err(e) => refused(e.to_string()),
        }
    }
}

/// Why a worker cannot go on.
enum Stopped {
    /// The evaluation's time ran out.
    TimeUp,
    /// It exited (or closed its pipes); what it wrote on stderr.
    Exited(Stderr),
    /// It said something that is not the protocol.
    Garbled(String),
}

/// What a worker wrote on stderr during an evaluation: its last lines, and whether an
/// allocation failed (Rust's `memory allocation of N bytes failed`, before any backtrace).
#[derive(Debug, Clone, Default)]
struct Stderr {
    tail: VecDeque<String>,
    out_of_memory: bool,
}

impl Stderr {
    fn push(&mut self, line: String) {
        self.out_of_memory |= line.contains("memory allocation of");
        if self.tail.len() == STDERR_KEPT {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }

    fn lines(&self) -> Vec<String> {
        self.tail.iter().cloned().collect()
    }
}

/// Writes one protocol line to the worker.
async fn send(worker: &mut LineChild, said: &ToWorker, stderr: &Stderr) -> Result<(), Stopped> {
    let line = serde_json::to_vec(said).map_err(|e| Stopped::Garbled(e.to_string()))?;
    worker
        .write_line(&line)
        .await
        .map_err(|_| Stopped::Exited(stderr.clone()))
}

/// Why a worker that exited did, in words for the flow's author: over its memory budget, or
/// its exit and the last line it wrote.
fn stopped_why(name: &str, code: Option<i32>, stderr: &[String], out_of_memory: bool) -> String {
    if out_of_memory {
        return format!(
            "`{name}` went over a script's memory budget of {} MiB; its engine was stopped (a \
             later script starts with an empty `output`)",
            MEMORY_BUDGET >> 20
        );
    }
    let how = match code {
        Some(c) => format!("exit status {c}"),
        None => "a signal".to_string(),
    };
    let said = match stderr.last() {
        Some(l) => format!(": {l}"),
        None => String::new(),
    };
    format!("the script engine stopped ({how}) while running `{name}`{said}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_worker_is_explained() {
        // The allocation's line comes first; a backtrace may follow it.
        let mut err = Stderr::default();
        err.push("memory allocation of 268435456 bytes failed".to_string());
        for i in 0..20 {
            err.push(format!("  {i}: frame"));
        }
        let why = stopped_why("big.js", None, &err.lines(), err.out_of_memory);
        assert!(why.contains("memory budget of 128 MiB"), "{why}");
        let crash = vec!["thread 'main' has overflowed its stack".to_string()];
        let why = stopped_why("deep.js", None, &crash, false);
        assert!(
            why.contains("a signal") && why.contains("overflowed"),
            "{why}"
        );
        let why = stopped_why("x", Some(1), &[], false);
        assert!(why.ends_with("(exit status 1) while running `x`"), "{why}");
    }
}
