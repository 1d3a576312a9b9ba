//! MCP progress notifications for tool calls that take a while (waits, flows, recordings): when
//! the client passes a `progressToken` with a call, `notifications/progress` goes out every
//! [`PERIOD`] until the answer, counting the seconds so far (out of the call's `timeout_ms`
//! when it has one). It also keeps clients that reset their timeout on progress from giving
//! up on a long wait. A call answered within the first period sends none.
//!
//! A flow run or a suite (`flow_run`, `flow_test`: [`streamed_twin`]) tells more: the call
//! runs the operation's streamed twin, and each step that ends (and each flow of a suite) is
//! a notification naming it ([`Steps`]); the call answers the twin's result as the operation
//! itself answers it.

use std::future::Future;
use std::time::Duration;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;

use crate::api::wire::error::ErrorBody;
use crate::api::wire::flows::{
    FlowEvent, FlowStep, SuiteEvent, SuiteFlow, SuiteFlowStatus, SuiteStep,
};
use crate::error::Op;

/// How often progress is told.
pub const PERIOD: Duration = Duration::from_secs(1);

/// Where to send progress: the client and the token of its call.
pub struct Reporter {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    /// The call's own limit in seconds, when its arguments give one.
    total_s: Option<f64>,
    /// What is running, for the message: the operation's name.
    what: String,
}

impl Reporter {
    /// A reporter for a call of `what` with `args`, sending to `peer` under `token`.
    pub fn new(
        peer: Peer<RoleServer>,
        token: ProgressToken,
        what: &str,
        args: Option<&rmcp::model::JsonObject>,
    ) -> Self {
        Reporter {
            peer,
            token,
            total_s: total_seconds(args),
            what: what.to_string(),
        }
    }

    /// Runs `work` to its end, telling progress every [`PERIOD`] meanwhile.
    pub async fn around<T>(self, work: impl Future<Output = T>) -> T {
        let mut work = std::pin::pin!(work);
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + PERIOD, PERIOD);
        let mut elapsed = 0u64;
        loop {
            tokio::select! {
                biased;
                done = &mut work => return done,
                _ = ticks.tick() => {
                    elapsed += PERIOD.as_secs().max(1);
                    let note = self.note(elapsed);
                    // A client gone away is the call's concern, not progress's.
                    let _ = self.peer.notify_progress(note).await;
                }
            }
        }
    }

    /// Tells `message` with the progress so far (no total: a flow's steps are not known
    /// before they run).
    pub async fn tell(&self, progress: u64, message: String) {
        let note = ProgressNotificationParam::new(self.token.clone(), progress as f64)
            .with_message(message);
        // A client gone away is the call's concern, not progress's.
        let _ = self.peer.notify_progress(note).await;
    }

    fn note(&self, elapsed_s: u64) -> ProgressNotificationParam {
        let mut p = ProgressNotificationParam::new(self.token.clone(), elapsed_s as f64);
        let message = match self.total_s {
            Some(total) => {
                p = p.with_total(total);
                format!("{}: {elapsed_s} s of at most {total} s", self.what)
            }
            None => format!("{}: {elapsed_s} s", self.what),
        };
        p.with_message(message)
    }
}

/// The streamed twin of an operation told step by step: a flow run's, a suite's.
pub fn streamed_twin(op: &str) -> Option<Op> {
    match Op::named(op)? {
        Op::FlowRun => Some(Op::FlowRunStream),
        Op::FlowTest => Some(Op::FlowTestStream),
        _ => None,
    }
}

/// What one event of a streamed flow run or suite says.
#[derive(Debug)]
pub enum Heard {
    /// A step or a flow ended: the progress so far (notifications told, this one counted)
    /// and what to say.
    Progress(u64, String),
    /// The run's answer: its result, as JSON.
    Result(Value),
    /// The run could not go on: its error, whose envelope is the event's data.
    Error(ErrorBody),
    /// Nothing to tell (an event this reader does not know).
    Nothing,
}

/// Reads the events of a streamed flow run or suite, counting what ended: the progress told
/// is the steps ended so far (and, in a suite, the flows ended too, so that it only grows).
#[derive(Debug)]
pub struct Steps {
    /// Whether the events are a suite's ([`SuiteEvent`]) rather than a run's ([`FlowEvent`]).
    suite: bool,
    /// Notifications told so far.
    told: u64,
    /// Steps ended so far in the flow that runs now.
    in_flow: u64,
}

impl Steps {
    /// A reader of the events of `twin` (a [`streamed_twin`]).
    pub fn of(twin: Op) -> Steps {
        Steps {
            suite: twin == Op::FlowTestStream,
            told: 0,
            in_flow: 0,
        }
    }

    /// What the event of `data` (its SSE data) says.
    pub fn hear(&mut self, data: &str) -> Heard {
        let Ok(v) = serde_json::from_str::<Value>(data) else {
            return Heard::Nothing;
        };
        if let Some(result) = v.get("result") {
            return Heard::Result(result.clone());
        }
        if let Some(e) = v.get("error") {
            return match serde_json::from_value::<ErrorBody>(e.clone()) {
                Ok(body) => Heard::Error(body),
                Err(_) => Heard::Nothing,
            };
        }
        let said = match self.suite {
            true => match serde_json::from_value::<SuiteEvent>(v) {
                Ok(SuiteEvent::Step(SuiteStep { flow, step })) => self.step(&flow, &step),
                Ok(SuiteEvent::Flow(f)) => self.flow(&f),
                _ => return Heard::Nothing,
            },
            false => match serde_json::from_value::<FlowEvent>(v) {
                Ok(FlowEvent::Step(step)) => self.step(&step.file.clone(), &step),
                _ => return Heard::Nothing,
            },
        };
        self.told += 1;
        Heard::Progress(self.told, said)
    }

    /// `login.yaml: step 4 tapOn "LOG IN" passed (112 ms)`, and why it failed.
    fn step(&mut self, flow: &str, step: &FlowStep) -> String {
        self.in_flow += 1;
        let status = serde_json::to_value(step.status).unwrap_or_default();
        let mut said = format!(
            "{flow}: step {} {} {} ({} ms)",
            self.in_flow,
            step.title,
            status.as_str().unwrap_or_default(),
            step.duration_ms
        );
        if let Some(e) = &step.error {
            said += &format!(": {e}");
        }
        said
    }

    /// `login.yaml: passed in 1520 ms (7 steps)`, `bad.yaml: invalid: …`, `x.yaml: not run`.
    fn flow(&mut self, f: &SuiteFlow) -> String {
        let steps = std::mem::take(&mut self.in_flow);
        let why = f
            .error
            .as_ref()
            .map(|e| format!(": {e}"))
            .unwrap_or_default();
        match f.status {
            SuiteFlowStatus::Passed | SuiteFlowStatus::Failed => format!(
                "{}: {} in {} ms ({steps} step{}){why}",
                f.file,
                match f.status {
                    SuiteFlowStatus::Passed => "passed",
                    _ => "failed",
                },
                f.duration_ms.unwrap_or_default(),
                if steps == 1 { "" } else { "s" },
            ),
            SuiteFlowStatus::Invalid => format!("{}: invalid{why}", f.file),
            SuiteFlowStatus::NotRun => format!("{}: not run", f.file),
        }
    }
}

/// A call's own limit, from its `timeout_ms` argument (a `call`'s inner arguments count).
fn total_seconds(args: Option<&rmcp::model::JsonObject>) -> Option<f64> {
    let args = args?;
    let ms = args
        .get("timeout_ms")
        .or_else(|| args.get("arguments").and_then(|a| a.get("timeout_ms")))
        .and_then(Value::as_f64)?;
    (ms > 0.0).then_some(ms / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_total_is_the_calls_own_timeout() {
        let a = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(
            total_seconds(Some(&a(json!({"timeout_ms": 2500})))),
            Some(2.5)
        );
        assert_eq!(
            total_seconds(Some(&a(
                json!({"operation": "wait", "arguments": {"timeout_ms": 4000}})
            ))),
            Some(4.0)
        );
        assert_eq!(total_seconds(Some(&a(json!({"timeout_ms": 0})))), None);
        assert_eq!(total_seconds(Some(&a(json!({"text": "x"})))), None);
        assert_eq!(total_seconds(None), None);
    }

    /// The progress an event told, or a panic.
    fn told(h: Heard) -> (u64, String) {
        match h {
            Heard::Progress(n, said) => (n, said),
            other => panic!("not progress: {other:?}"),
        }
    }

    fn step(title: &str, status: &str, error: Option<&str>) -> Value {
        json!({"title": title, "command": "tapOn", "file": "login.yaml", "line": 3, "depth": 0,
               "status": status, "duration_ms": 112, "error": error, "console": []})
    }

    #[test]
    fn a_runs_steps_are_told_as_they_end_and_its_result_is_its_answer() {
        assert_eq!(streamed_twin("flow_run"), Some(Op::FlowRunStream));
        assert_eq!(streamed_twin("flow_test"), Some(Op::FlowTestStream));
        assert_eq!(streamed_twin("tap"), None);
        let mut run = Steps::of(Op::FlowRunStream);
        let said = |v: Value| v.to_string();
        assert_eq!(
            told(run.hear(&said(json!({"step": step("launchApp", "passed", None)})))),
            (1, "login.yaml: step 1 launchApp passed (112 ms)".into())
        );
        assert_eq!(
            told(run.hear(&said(
                json!({"step": step("tapOn \"LOG IN\"", "failed", Some("not found"))})
            ))),
            (
                2,
                "login.yaml: step 2 tapOn \"LOG IN\" failed (112 ms): not found".into()
            )
        );
        let result = json!({"success": false, "steps": []});
        let answer = run.hear(&said(json!({ "result": &result })));
        assert!(matches!(answer, Heard::Result(r) if r == result));
        let gone =
            json!({"error": {"code": "DEVICE_OFFLINE", "message": "gone", "retryable": true}});
        assert!(matches!(run.hear(&said(gone)), Heard::Error(b) if b.message == "gone"));
        assert!(matches!(run.hear("not json"), Heard::Nothing));
    }

    #[test]
    fn a_suites_steps_name_their_flow_and_each_flow_is_told_as_it_ends() {
        let mut suite = Steps::of(Op::FlowTestStream);
        let said = |v: Value| v.to_string();
        let flow = |file: &str, status: &str, error: Option<&str>| {
            json!({"flow": {"file": file, "name": file, "tags": [], "status": status,
                            "duration_ms": 300, "error": error}})
        };
        for at in 1..=2 {
            let e = json!({"step": {"flow": "a.yaml", "step": step("back", "passed", None)}});
            assert_eq!(
                told(suite.hear(&said(e))),
                (at, format!("a.yaml: step {at} back passed (112 ms)"))
            );
        }
        assert_eq!(
            told(suite.hear(&said(flow("a.yaml", "passed", None)))),
            (3, "a.yaml: passed in 300 ms (2 steps)".into())
        );
        let e = json!({"step": {"flow": "b.yaml", "step": step("back", "failed", Some("no"))}});
        assert_eq!(
            told(suite.hear(&said(e))),
            (4, "b.yaml: step 1 back failed (112 ms): no".into())
        );
        assert_eq!(
            told(suite.hear(&said(flow("b.yaml", "failed", Some("no"))))),
            (5, "b.yaml: failed in 300 ms (1 step): no".into())
        );
        let mut bad = flow("c.yaml", "invalid", Some("unknown command"));
        bad["flow"]["duration_ms"] = Value::Null;
        assert_eq!(
            told(suite.hear(&said(bad))),
            (6, "c.yaml: invalid: unknown command".into())
        );
        assert_eq!(
            told(suite.hear(&said(flow("d.yaml", "not_run", None)))),
            (7, "d.yaml: not run".into())
        );
    }
}
