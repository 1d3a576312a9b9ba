//! Running a parsed flow on one device: each Maestro command mapped onto the product's own
//! act, verify and app operations, called by their `Op` through its [`Host`] ([`Runner::op`];
//! what each command does is `super::commands`), and onto screen reads matched with Maestro's
//! selectors ([`super::select`]). No fixed sleeps: a
//! selector is looked for on successive reads until found or its timeout; an assertion that
//! something is gone likewise; `waitForAnimationToEnd` reads until two reads agree. A failed
//! step stops the flow (unless `optional`), after its screenshot, compact tree and recent log
//! are kept by the host ([`Host::keep`]: the product keeps them with the caller's run). Steps holding steps
//! (`runFlow`, `repeat`, `retry`) run on an explicit stack of lists, so a flow nested deep
//! takes no more native stack than a flat one. A run records at most [`MAX_STEPS`] step
//! results (a `while` that keeps holding, a `times` from a variable): past them one more,
//! failed, says so and the flow stops.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mobilectl_error::Op;
use serde_json::{json, Value};

use super::budget::MAX_STEPS;
use super::model::*;
use super::select::{self, Screen};
use super::vars;
pub use crate::host::R;
use crate::host::{Host, Script};
use crate::wire::{FlowRunResult, FlowStep, FlowStepStatus};

/// Everything a run needs: the product (for one device) to call operations through, the
/// variables.
pub struct Runner<H: Host> {
    /// The product, on the device the flow runs on.
    pub host: H,
    /// The variables, in scope order (later ones win); `runFlow` pushes and pops its own.
    pub env: Vec<(String, String)>,
    /// The flow's `appId`, its `${…}` filled in; commands without their own app use it.
    pub app_id: Option<String>,
    /// When the run's time is up: later steps fail, and no lookup waits past it.
    pub deadline: Instant,
    pub(super) copied: Option<String>,
    steps: Vec<FlowStep>,
    saved: bool,
    /// The file name of the recording `startRecording` began, until it is saved.
    pub(super) recording: Option<String>,
    /// The run came to [`MAX_STEPS`] step results: every later step fails unrecorded.
    overrun: bool,
    /// Where each step goes as it ends, with its index in the result's steps.
    progress: Option<tokio::sync::mpsc::UnboundedSender<(usize, FlowStep)>>,
    /// The last operation read the screen after itself (a scroll does): the next read uses
    /// that read instead of dumping the same screen again.
    read_after_op: std::sync::atomic::AtomicBool,
    /// The values of the JavaScript `${…}` evaluated last, by code: a step's, just before it
    /// runs; a condition's, as it is checked.
    evaluated: HashMap<String, String>,
}

/// A list of steps being run: a flow's own, or those a step holds.
struct List<'a> {
    steps: &'a [Step],
    /// The next step to begin.
    next: usize,
    /// How deep its steps are (the flow's own: 0).
    depth: usize,
    /// The step holding it (none: the flow's own list).
    holder: Option<Holder<'a>>,
}

/// A step holding steps, while they run: its result's index, when it began, its passes.
struct Holder<'a> {
    step: &'a Step,
    at: usize,
    started: Instant,
    pass: Pass<'a>,
}

/// What a step holding steps does with them.
enum Pass<'a> {
    /// `runFlow`: one pass, in the variables' scope that began at `mark`.
    Once { mark: usize },
    /// `repeat`: `left` passes more, while `while_` holds.
    Repeat {
        left: u64,
        while_: Option<&'a Condition>,
    },
    /// `retry`: the attempt (from 0) of at most `max` retries, and the step results and
    /// artifacts' state as it began.
    Retry {
        attempt: u32,
        max: u32,
        before: usize,
        saved: bool,
    },
}

/// A step begun: ended (false: failed, not optional), or holding steps to run.
enum Begun<'a> {
    Ended(bool),
    Holds(Holder<'a>, &'a [Step]),
}

/// After a pass of a holder's steps: another pass, or its end (false: failed, not optional).
enum Next<'a> {
    Again(Holder<'a>),
    Ended(bool),
}

impl<H: Host> Runner<H> {
    /// A runner of flows on `host`'s device.
    pub fn new(host: H, env: Vec<(String, String)>, timeout: Duration) -> Runner<H> {
        Runner {
            host,
            env,
            app_id: None,
            deadline: Instant::now() + timeout,
            copied: None,
            steps: vec![],
            saved: false,
            recording: None,
            overrun: false,
            progress: None,
            read_after_op: std::sync::atomic::AtomicBool::new(false),
            evaluated: HashMap::new(),
        }
    }

    /// The same runner, telling `to` of each step as it ends (with its index in the result's
    /// steps); a closed receiver is no error.
    pub fn reporting(
        mut self,
        to: tokio::sync::mpsc::UnboundedSender<(usize, FlowStep)>,
    ) -> Runner<H> {
        self.progress = Some(to);
        self
    }

    fn platform(&self) -> &str {
        self.host.platform()
    }

    /// Runs `flow` whole: `onFlowStart`, its steps, and `onFlowComplete` (which runs even after
    /// a failure, as in Maestro).
    pub async fn run(mut self, flow: &Flow) -> FlowRunResult {
        let started = Instant::now();
        self.app_id = flow.app_id.clone();
        let mark = self.env.len();
        // Flow env defaults come before the caller's values, which win.
        let given = std::mem::take(&mut self.env);
        self.env = flow.env.clone();
        self.env.extend(given);
        let _ = mark;
        if let Some(a) = self.app_id.clone() {
            match self.fill_now(&a).await {
                Ok(a) => self.app_id = Some(a),
                Err(e) => self.app_id = Some(e),
            }
        }
        let mut ok = self.steps_of(&flow.on_start).await;
        if ok {
            ok = self.steps_of(&flow.steps).await;
        }
        let completed = self.steps_of(&flow.on_complete).await;
        // A recording the flow left running is saved as Maestro saves it: at the end.
        let saved = self.recording.is_none() || self.stop_recording().await.is_ok();
        let ok = ok && completed && saved;
        let failed_step = self
            .steps
            .iter()
            .position(|s| s.status == FlowStepStatus::Failed);
        FlowRunResult {
            success: ok,
            name: flow.name.clone().unwrap_or_else(|| flow.file.clone()),
            file: flow.file.clone(),
            app_id: self.app_id.clone(),
            udid: self.host.udid().to_string(),
            duration_ms: started.elapsed().as_millis() as u64,
            failed_step,
            artifacts: self
                .saved
                .then(|| self.host.kept_in().display().to_string()),
            steps: self.steps,
        }
    }

    /// Runs `steps` in order, and the steps they hold, on an explicit stack of lists (no
    /// recursion: however deep a flow nests, its run takes the same native stack); false when
    /// one failed (not optional).
    async fn steps_of(&mut self, steps: &[Step]) -> bool {
        let mut stack = vec![List {
            steps,
            next: 0,
            depth: 0,
            holder: None,
        }];
        // Whether the last step to end, in the innermost list, failed.
        let mut failed = false;
        while let Some(list) = stack.last_mut() {
            let steps = list.steps;
            let step = match steps.get(list.next) {
                Some(step) if !failed => step,
                _ => {
                    // The list is over: passed whole, or one of its steps failed.
                    let Some(List {
                        steps,
                        depth,
                        holder: Some(holder),
                        ..
                    }) = stack.pop()
                    else {
                        return !failed;
                    };
                    match self.after_pass(holder, failed).await {
                        Next::Again(holder) => {
                            failed = false;
                            stack.push(List {
                                steps,
                                next: 0,
                                depth,
                                holder: Some(holder),
                            });
                        }
                        Next::Ended(ok) => failed = !ok,
                    }
                    continue;
                }
            };
            list.next += 1;
            let depth = list.depth;
            match self.begin(step, depth).await {
                Begun::Ended(ok) => failed = !ok,
                Begun::Holds(holder, steps) => stack.push(List {
                    steps,
                    next: 0,
                    depth: depth + 1,
                    holder: Some(holder),
                }),
            }
        }
        !failed
    }

    /// Begins a step: records it, and runs it whole unless it holds steps, which then begin
    /// their first pass.
    async fn begin<'a>(&mut self, step: &'a Step, depth: usize) -> Begun<'a> {
        let started = Instant::now();
        let at = self.steps.len();
        if at >= MAX_STEPS {
            return Begun::Ended(self.overran(step, depth));
        }
        self.steps.push(FlowStep {
            title: step.title(),
            command: step.name.to_string(),
            file: step.file.clone(),
            line: step.line,
            depth,
            status: FlowStepStatus::Passed,
            duration_ms: 0,
            error: None,
            console: vec![],
        });
        if Instant::now() >= self.deadline {
            let late = Err("the run's timeout ran out before this step".to_string());
            return Begun::Ended(self.end(step, at, started, late).await);
        }
        if let Err(e) = self.evaluate(&step.exprs).await {
            return Begun::Ended(self.end(step, at, started, Err(e)).await);
        }
        let holder = |pass| Holder {
            step,
            at,
            started,
            pass,
        };
        let result = match &step.command {
            Command::RunFlow {
                when, env, steps, ..
            } => 'run: {
                if let Some(c) = when {
                    match self.unmet(c).await {
                        Ok(None) => {}
                        skipped_or_failed => break 'run skipped_or_failed,
                    }
                }
                match self.scope(env) {
                    Ok(mark) => return Begun::Holds(holder(Pass::Once { mark }), steps),
                    Err(e) => Err(e),
                }
            }
            Command::Repeat {
                times,
                while_,
                steps,
            } => 'repeat: {
                let mut left = match self.times(times) {
                    Ok(n) => n,
                    Err(e) => break 'repeat Err(e),
                };
                let while_ = while_.as_ref();
                match self.another_pass(&mut left, while_).await {
                    Ok(true) => return Begun::Holds(holder(Pass::Repeat { left, while_ }), steps),
                    Ok(false) => Ok(None),
                    Err(e) => Err(e),
                }
            }
            Command::Retry { max_retries, steps } => {
                let pass = Pass::Retry {
                    attempt: 0,
                    max: *max_retries,
                    before: self.steps.len(),
                    saved: self.saved,
                };
                return Begun::Holds(holder(pass), steps);
            }
            _ => self.command(step).await,
        };
        Begun::Ended(self.end(step, at, started, result).await)
    }

    /// What a step holding steps does after a pass of them: another pass (a `repeat` whose
    /// count and `while` allow it, a `retry` whose attempt failed with retries left), or its
    /// end, recorded: false when it failed (not optional).
    async fn after_pass<'a>(&mut self, mut h: Holder<'a>, failed: bool) -> Next<'a> {
        let result = match &mut h.pass {
            Pass::Once { mark } => {
                self.env.truncate(*mark);
                match failed {
                    true => Err("a step of the sub-flow failed".to_string()),
                    false => Ok(None),
                }
            }
            Pass::Repeat { .. } if failed => Err("a repeated step failed".to_string()),
            Pass::Repeat { left, while_ } => match self.another_pass(left, *while_).await {
                Ok(true) => return Next::Again(h),
                Ok(false) => Ok(None),
                Err(e) => Err(e),
            },
            Pass::Retry { .. } if !failed => Ok(None),
            Pass::Retry { .. } if self.overrun => Err(overrun()),
            Pass::Retry {
                attempt,
                max,
                before,
                saved,
            } => {
                if *attempt >= *max {
                    Err(format!("failed {} times", *attempt + 1))
                } else {
                    // The failed attempt stays in the report, as warnings.
                    for s in &mut self.steps[*before..] {
                        if s.status == FlowStepStatus::Failed {
                            s.status = FlowStepStatus::Warned;
                        }
                    }
                    self.saved = *saved;
                    *attempt += 1;
                    *before = self.steps.len();
                    return Next::Again(h);
                }
            }
        };
        Next::Ended(self.end(h.step, h.at, h.started, result).await)
    }

    /// Records how the step begun at `at` ended (`Ok(Some(why))`: skipped); false when it
    /// failed and is not optional.
    async fn end(
        &mut self,
        step: &Step,
        at: usize,
        started: Instant,
        result: R<Option<String>>,
    ) -> bool {
        let (status, error) = match result {
            Ok(Some(skip)) => (FlowStepStatus::Skipped, Some(skip)),
            Ok(None) => (FlowStepStatus::Passed, None),
            Err(e) if step.optional => (FlowStepStatus::Warned, Some(e)),
            Err(e) => (FlowStepStatus::Failed, Some(e)),
        };
        let failed = status == FlowStepStatus::Failed;
        if let Some(o) = self.steps.get_mut(at) {
            o.status = status;
            o.error = error;
            o.duration_ms = started.elapsed().as_millis() as u64;
            if let Some(to) = &self.progress {
                let _ = to.send((at, o.clone()));
            }
        }
        // A failure inside a sub-flow is saved once, at the innermost step.
        if failed && !self.saved {
            self.save_artifacts().await;
        }
        !failed
    }

    /// Pushes a `runFlow`'s variables (filled in) onto the scope; where its scope began.
    fn scope(&mut self, env: &[(String, String)]) -> R<usize> {
        let mark = self.env.len();
        for (k, v) in env {
            match self.fill(v) {
                Ok(v) => self.env.push((k.clone(), v)),
                Err(e) => {
                    self.env.truncate(mark);
                    return Err(e);
                }
            }
        }
        Ok(mark)
    }

    /// A `repeat`'s count: its `times` filled in (at most [`super::parse::MAX_REPEAT`]), or
    /// for a `while` alone the most.
    fn times(&self, times: &Option<String>) -> R<u64> {
        let Some(t) = times else {
            return Ok(super::parse::MAX_REPEAT);
        };
        let n: u64 = self
            .fill(t)?
            .trim()
            .parse()
            .map_err(|_| format!("`times: {t}` is not a number"))?;
        if n > super::parse::MAX_REPEAT {
            return Err(format!(
                "`times: {n}` is more than {}",
                super::parse::MAX_REPEAT
            ));
        }
        Ok(n)
    }

    /// Whether a `repeat` makes another pass: passes are `left` and its `while` holds.
    async fn another_pass(&mut self, left: &mut u64, while_: Option<&Condition>) -> R<bool> {
        if *left == 0 {
            return Ok(false);
        }
        if let Some(c) = while_ {
            if self.unmet(c).await?.is_some() {
                return Ok(false);
            }
        }
        *left -= 1;
        Ok(true)
    }

    /// A step past [`MAX_STEPS`]: the first is recorded failed, saying why; every one fails,
    /// optional or not, so that the flow unwinds.
    fn overran(&mut self, step: &Step, depth: usize) -> bool {
        if !self.overrun {
            self.overrun = true;
            let outcome = FlowStep {
                title: step.title(),
                command: step.name.to_string(),
                file: step.file.clone(),
                line: step.line,
                depth,
                status: FlowStepStatus::Failed,
                duration_ms: 0,
                error: Some(overrun()),
                console: vec![],
            };
            if let Some(to) = &self.progress {
                let _ = to.send((self.steps.len(), outcome.clone()));
            }
            self.steps.push(outcome);
        }
        false
    }

    /// `s` with its `${…}` filled in: variables from the scope, JavaScript from the values
    /// evaluated for the step ([`Runner::evaluate`]).
    pub(super) fn fill(&self, s: &str) -> R<String> {
        let mut env = self.env.clone();
        if let Some(c) = &self.copied {
            env.push(("maestro.copiedText".into(), c.clone()));
        }
        vars::fill(s, &env, self.platform(), &self.evaluated)
    }

    /// `s` filled in with its JavaScript evaluated now (a condition, the header's `appId`).
    pub(super) async fn fill_now(&mut self, s: &str) -> R<String> {
        self.evaluate(&vars::expressions(s)).await?;
        self.fill(s)
    }

    /// Evaluates each JavaScript `${…}` of `exprs` now, for [`Runner::fill`].
    async fn evaluate(&mut self, exprs: &[String]) -> R<()> {
        for code in exprs {
            let value = self.script(code, &format!("${{{code}}}"), vec![]).await?;
            self.evaluated.insert(code.clone(), value);
        }
        Ok(())
    }

    /// Evaluates `code` (named `name` in messages) in the run's engine, with the scope's
    /// variables and `env` as globals: its value. What it logs goes with the step running.
    pub(super) async fn script(
        &mut self,
        code: &str,
        name: &str,
        env: Vec<(String, String)>,
    ) -> R<String> {
        let mut all = self.env.clone();
        all.extend(env);
        let done = self
            .host
            .script(Script {
                code: code.to_string(),
                name: name.to_string(),
                env: all,
                copied_text: self.copied.clone(),
                until: self.deadline,
            })
            .await?;
        if let Some(step) = self.steps.last_mut() {
            step.console.extend(done.console);
        }
        Ok(done.value)
    }

    pub(super) fn fill_sel(&self, s: &Selector) -> R<Selector> {
        let f = |o: &Option<String>| o.as_deref().map(|v| self.fill(v)).transpose();
        let rel = |o: &Option<Box<Selector>>| {
            o.as_deref()
                .map(|r| self.fill_sel(r).map(Box::new))
                .transpose()
        };
        Ok(Selector {
            text: f(&s.text)?,
            id: f(&s.id)?,
            index: f(&s.index)?,
            point: f(&s.point)?,
            below: rel(&s.below)?,
            above: rel(&s.above)?,
            left_of: rel(&s.left_of)?,
            right_of: rel(&s.right_of)?,
            child_of: rel(&s.child_of)?,
            contains_child: rel(&s.contains_child)?,
            ..s.clone()
        })
    }

    pub(super) fn app(&self, given: &Option<String>) -> R<String> {
        match given {
            Some(a) => self.fill(a),
            None => self.app_id.clone().ok_or_else(|| {
                "no app: give `appId` in the flow's header or the command".to_string()
            }),
        }
    }

    pub(super) fn ms(&self, v: &Option<String>, default: u64) -> R<u64> {
        match v {
            None => Ok(default),
            Some(t) => self
                .fill(t)?
                .trim()
                .parse()
                .map_err(|_| format!("`{t}` is not milliseconds")),
        }
    }

    /// Why `c` does not hold now (one read; its JavaScript evaluated now), or none when it
    /// does.
    pub(super) async fn unmet(&mut self, c: &Condition) -> R<Option<String>> {
        if let Some(p) = &c.platform {
            if !p.eq_ignore_ascii_case(self.platform()) {
                return Ok(Some(format!("skipped: the platform is not {p}")));
            }
        }
        if let Some(t) = &c.script {
            let value = self.fill_now(t).await?;
            if !vars::truthy(&value) {
                return Ok(Some(format!("skipped: `{t}` is `{value}`")));
            }
        }
        if c.visible.is_none() && c.not_visible.is_none() {
            return Ok(None);
        }
        let snap = self.read().await?;
        if let Some(s) = &c.visible {
            let sel = self.fill_sel(s)?;
            if select::pick(&*snap, &sel)?.is_empty() {
                return Ok(Some(format!("skipped: {} is not visible", sel.describe())));
            }
        }
        if let Some(s) = &c.not_visible {
            let sel = self.fill_sel(s)?;
            if !select::pick(&*snap, &sel)?.is_empty() {
                return Ok(Some(format!("skipped: {} is visible", sel.describe())));
            }
        }
        Ok(None)
    }

    pub(super) async fn read(&self) -> R<Arc<H::Screen>> {
        let after_op = self.read_after_op.swap(false, Ordering::AcqRel);
        self.host.read(after_op).await
    }

    /// Reads until `sel` matches something, for up to `ms`.
    pub(super) async fn wait_for(&self, sel: &Selector, ms: u64) -> R<Arc<H::Screen>> {
        let until = (Instant::now() + Duration::from_millis(ms)).min(self.deadline);
        loop {
            let snap = self.read().await?;
            if !select::pick(&*snap, sel)?.is_empty() {
                return Ok(snap);
            }
            if Instant::now() >= until {
                return Err(format!(
                    "{} is not visible (looked for {ms} ms)",
                    sel.describe()
                ));
            }
        }
    }

    /// The point to act on for `sel`: its `point`, or the centre of its first match.
    pub(super) async fn locate(&self, sel: &Selector, ms: u64) -> R<(i64, i64)> {
        if let Some(p) = &sel.point {
            let p = select::point(p)?;
            if !p.percent {
                return Ok(select::to_pixels(p, (0.0, 0.0)));
            }
            let size = self.read().await?.size();
            return Ok(select::to_pixels(p, size));
        }
        let snap = self.wait_for(sel, ms).await?;
        let i = select::pick(&*snap, sel)?.first().copied().ok_or("gone")?;
        Ok(snap.node(i).bounds.center())
    }

    /// Reads until nothing matches `sel`, for up to `ms`.
    pub(super) async fn until_gone(&self, sel: &Selector, ms: u64) -> R<()> {
        let until = (Instant::now() + Duration::from_millis(ms)).min(self.deadline);
        loop {
            let snap = self.read().await?;
            if select::pick(&*snap, sel)?.is_empty() {
                return Ok(());
            }
            if Instant::now() >= until {
                return Err(format!("{} is still visible after {ms} ms", sel.describe()));
            }
        }
    }

    /// Runs operation `op` (a row of the product's table) on this device with `args`, through
    /// the host as the CLI and MCP call it: its answer, or why it failed.
    pub(super) async fn op(&self, op: Op, args: Value) -> R<Value> {
        let answer = self.host.call(op, args).await?;
        self.read_after_op
            .store(answer.get("fingerprint_after").is_some(), Ordering::Release);
        Ok(answer)
    }

    /// Stops the flow's recording, which the host keeps with the run's files.
    pub(super) async fn stop_recording(&mut self) -> R<()> {
        let name = self
            .recording
            .take()
            .ok_or("no recording is running: `startRecording` first")?;
        self.host.stop_recording(&name).await?;
        self.saved = true;
        Ok(())
    }

    pub(super) fn write(&self, name: &str, bytes: &[u8]) -> R<()> {
        self.host.keep(name, bytes)
    }

    /// A failed step's screenshot, compact tree and recent log, kept by the host.
    async fn save_artifacts(&mut self) {
        self.saved = true;
        if let Ok(png) = self.host.screenshot().await {
            let _ = self.write("failure.png", &png);
        }
        if let Ok(tree) = self.op(Op::Snapshot, json!({ "format": "text" })).await {
            let text = match &tree {
                Value::String(t) => t.clone(),
                other => other["tree_text"]
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| other.to_string()),
            };
            let _ = self.write("tree.txt", text.as_bytes());
        }
        if let Ok(logs) = self.op(Op::TailLogs, json!({ "limit": 200 })).await {
            let _ = self.write("log.json", logs.to_string().as_bytes());
        }
        let steps = serde_json::to_vec_pretty(&self.steps).unwrap_or_default();
        let _ = self.write("steps.json", &steps);
    }
}

/// Why a run stopped at [`MAX_STEPS`].
fn overrun() -> String {
    format!(
        "the run came to {MAX_STEPS} steps, the most one run records (a `repeat` whose `while` \
         kept holding, or a `times` from a variable?)"
    )
}
