//! `flow_run`: a Maestro flow posted as YAML text (with its sub-flow files and variables),
//! parsed and checked whole before the first device command (a refusal is `400 VALIDATION`
//! naming the file, line and command), then run on one device under one hold of its command
//! lock ([`crate::flows::run`], through [`FlowHost`]). The answer is every step's outcome. `flow_record_start` and
//! `flow_record_stop` record the caller's act and verify operations ([`crate::flows::record`]).

use std::time::Duration;

use axum::Json;

use crate::api::wire::flows::*;
use crate::api::wire::runs::ArtifactKind;
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::flows::run::Runner;
use crate::flows::{load, parse};
use crate::script::allow::AllowList;
use crate::script::scripts::Scripts;
use crate::server::flow_host::FlowHost;
use crate::server::reply::{AbortOnDrop, EventStream};
use crate::server::AppState;

/// Runs a flow; see the module's doc.
pub async fn flow_run(s: AppState, r: FlowRunRequest) -> Result<Json<FlowRunResult>> {
    let run = checked(&s, r)?;
    let udid = run.udid.clone();
    let result = s
        .controller
        .holding_device(udid.as_deref(), |device, _| run.go(device, None))
        .await?;
    Ok(Json(result))
}

/// Runs a suite: the flows its `config.yaml` selects ([`crate::flows::suite`]), each checked
/// and run in turn as [`flow_run`] runs one; a refused flow is `invalid` and the suite goes on
/// (unless `continueOnFailure: false`). Its JUnit and JSON reports join the caller's run.
pub async fn flow_test(s: AppState, r: FlowTestRequest) -> Result<Json<SuiteResult>> {
    let suite = planned(&s, r)?;
    Ok(Json(suite.go(None).await?))
}

/// Runs a suite as [`flow_test`] does, answering each step (with its flow) as it ends and each
/// flow's outcome as it is known, then the result, as Server-Sent Events. The suite is planned
/// and its device resolved before the stream starts (their errors are plain answers); a client
/// that goes away stops the suite.
pub async fn flow_test_stream(s: AppState, r: FlowTestRequest) -> Result<EventStream<SuiteEvent>> {
    let mut suite = planned(&s, r)?;
    let device = s.controller.resolve_to_act(suite.udid.as_deref()).await?;
    suite.udid = Some(device.udid);
    streamed(&s, suite_event, move |events| async move {
        let last = match suite.go(Some(&events)).await {
            Ok(result) => SuiteEvent::Result(result),
            Err(e) => SuiteEvent::Error(e.into()),
        };
        let _ = events.send((None, last));
    })
}

/// Where a streamed suite's events go, each with its SSE `id` when it has one.
type SuiteEvents = tokio::sync::mpsc::UnboundedSender<(Option<String>, SuiteEvent)>;

/// A suite planned whole and ready to run: what [`flow_test`] and [`flow_test_stream`] share.
struct PlannedSuite {
    s: AppState,
    udid: Option<String>,
    plan: crate::flows::suite::Plan,
    /// The folder's files: its flows and their sub-flows.
    files: std::collections::BTreeMap<String, String>,
    env: Vec<(String, String)>,
    allow_http: Vec<String>,
    /// Each flow's time limit.
    timeout: Duration,
}

/// Plans a suite before any device command: too many files, a timeout out of range or a
/// config that cannot select its flows is `400 VALIDATION`.
fn planned(s: &AppState, r: FlowTestRequest) -> Result<PlannedSuite> {
    use crate::flows::suite;
    if r.files.len() > MAX_SUITE_FILES {
        return Err(Error::validation(format!(
            "a suite holds at most {MAX_SUITE_FILES} files, not {}",
            r.files.len()
        ))
        .with_hint("run the suite's own folder, or split it"));
    }
    let timeout = run_timeout(r.timeout_ms)?;
    let plan = suite::plan_posted(&r.files, &r.include_tags, &r.exclude_tags).map_err(|e| {
        Error::validation(format!("the suite cannot run: {e}"))
            .with_hint("`mobilectl flow check DIR` checks every flow; `flows` globs are relative to the folder")
    })?;
    Ok(PlannedSuite {
        s: s.clone(),
        udid: r.udid,
        plan,
        files: r.files,
        env: r.env.into_iter().collect(),
        allow_http: r.allow_http,
        timeout,
    })
}

impl PlannedSuite {
    /// Runs the flows in turn, each under its own hold of the device, telling `events` (when
    /// streamed) of each step as it ends and of each flow's outcome; saves the suite's reports.
    /// An error is the device's: the suite cannot go on.
    async fn go(self, events: Option<&SuiteEvents>) -> Result<SuiteResult> {
        use crate::flows::suite::{self, Outcome};
        let mut flows = Vec::with_capacity(self.plan.flows.len());
        let mut stopped = false;
        for (i, f) in self.plan.flows.iter().enumerate() {
            let outcome = match stopped {
                true => Outcome::NotRun,
                false => {
                    let text = self
                        .files
                        .get(&f.file)
                        .map(String::as_str)
                        .unwrap_or_default();
                    let posted = Posted {
                        file: &f.file,
                        yaml: text,
                        files: &self.files,
                        media: &Default::default(),
                    };
                    match check_flow(
                        &self.s,
                        self.udid.clone(),
                        posted,
                        self.env.clone(),
                        &self.allow_http,
                        self.timeout,
                    ) {
                        Err(e) => Outcome::Invalid(e.message),
                        Ok(run) => Outcome::Ran(self.run(run, i, &f.file, events).await?),
                    }
                }
            };
            stopped =
                !self.plan.continue_on_failure && !matches!(&outcome, Outcome::Ran(r) if r.success);
            let flow = suite::flow(f, outcome);
            if let Some(events) = events {
                let _ = events.send((Some(i.to_string()), SuiteEvent::Flow(flow.clone())));
            }
            flows.push(flow);
        }
        let result = suite::tally(&self.plan, flows);
        save_suite_reports(&self.s, &result);
        Ok(result)
    }

    /// Runs the suite's flow `at` (its `file`) under a hold of the device, telling `events` of
    /// each of its steps as it ends (their `id`: the flow's index, a dot, the step's).
    async fn run(
        &self,
        run: CheckedRun,
        at: usize,
        file: &str,
        events: Option<&SuiteEvents>,
    ) -> Result<FlowRunResult> {
        let udid = run.udid.clone();
        let controller = &self.s.controller;
        let Some(events) = events else {
            return controller
                .holding_device(udid.as_deref(), |device, _| run.go(device, None))
                .await;
        };
        let (steps_tx, steps_rx) = tokio::sync::mpsc::unbounded_channel();
        let work =
            controller.holding_device(udid.as_deref(), |device, _| run.go(device, Some(steps_tx)));
        forwarding(work, steps_rx, |step_at, step| {
            let step = SuiteStep {
                flow: file.to_string(),
                step,
            };
            let _ = events.send((Some(format!("{at}.{step_at}")), SuiteEvent::Step(step)));
        })
        .await
    }
}

/// The suite's reports (its result as JSON, and as JUnit XML) into the caller's run.
fn save_suite_reports(s: &AppState, result: &SuiteResult) {
    let runs = s.controller.runs();
    let session = crate::controller::current_session().map(|c| c.id.clone());
    let session = session.as_deref();
    if let Ok(json) = serde_json::to_vec_pretty(result) {
        let _ = runs.save_artifact(session, "suite.json", ArtifactKind::FlowReport, &json);
    }
    let xml = crate::flows::report::suite_junit(result);
    let _ = runs.save_artifact(
        session,
        "suite.junit.xml",
        ArtifactKind::FlowReport,
        xml.as_bytes(),
    );
}

/// Runs a flow as [`flow_run`] does, answering each step as it ends and then the result, as
/// Server-Sent Events. The flow is checked and its device resolved before the stream starts
/// (their errors are plain answers); a client that goes away stops the run.
pub async fn flow_run_stream(s: AppState, r: FlowRunRequest) -> Result<EventStream<FlowEvent>> {
    let run = checked(&s, r)?;
    let device = s.controller.resolve_to_act(run.udid.as_deref()).await?;
    let controller = s.controller.clone();
    let event = |(at, e): &(usize, FlowEvent)| flow_event(*at, e);
    streamed(&s, event, move |events| async move {
        let (steps_tx, steps_rx) = tokio::sync::mpsc::unbounded_channel();
        let udid = device.udid.clone();
        let work =
            controller.holding_device(Some(&udid), |device, _| run.go(device, Some(steps_tx)));
        relay(work, steps_rx, events).await;
    })
}

/// Answers what `work` sends (each item made an SSE event by `event`) as Server-Sent Events.
/// `work` runs in a task of its own within the caller's session, which it keeps in use (not
/// idle) meanwhile; the task stops when the stream is dropped (its client went away).
fn streamed<T, E, W, Fut>(
    s: &AppState,
    event: fn(&T) -> axum::response::sse::Event,
    work: W,
) -> Result<EventStream<E>>
where
    T: Send + 'static,
    E: Send + 'static,
    W: FnOnce(tokio::sync::mpsc::UnboundedSender<T>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    use axum::response::sse::{KeepAlive, Sse};
    let session = crate::controller::current_session();
    let entered = match &session {
        Some(sn) => Some(s.controller.sessions().enter_session(sn)?),
        None => None,
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let work = work(tx);
    let task = tokio::spawn(crate::controller::within(session, async move {
        let _entered = entered;
        work.await;
    }));
    let stop = AbortOnDrop(task);
    let events = futures_util::stream::unfold((rx, stop), move |(mut rx, stop)| async move {
        let item = rx.recv().await?;
        Some((Ok::<_, std::convert::Infallible>(event(&item)), (rx, stop)))
    });
    Ok(EventStream::new(
        Sse::new(events).keep_alive(KeepAlive::new().text("heartbeat")),
    ))
}

/// Runs `work` to its end, handing `tell` each step `steps` gives as it ends meanwhile (and
/// those given just before the end).
async fn forwarding<T>(
    work: impl std::future::Future<Output = T>,
    mut steps: tokio::sync::mpsc::UnboundedReceiver<(usize, FlowStep)>,
    mut tell: impl FnMut(usize, FlowStep),
) -> T {
    tokio::pin!(work);
    let done = loop {
        tokio::select! {
            Some((at, step)) = steps.recv() => tell(at, step),
            done = &mut work => break done,
        }
    };
    while let Ok((at, step)) = steps.try_recv() {
        tell(at, step);
    }
    done
}

/// Sends each step of a run as it ends, then its result, or its error when it could not run.
async fn relay(
    work: impl std::future::Future<Output = Result<FlowRunResult>>,
    steps: tokio::sync::mpsc::UnboundedReceiver<(usize, FlowStep)>,
    events: tokio::sync::mpsc::UnboundedSender<(usize, FlowEvent)>,
) {
    let result = forwarding(work, steps, |at, step| {
        let _ = events.send((at, FlowEvent::Step(step)));
    })
    .await;
    let last = match result {
        Ok(result) => FlowEvent::Result(result),
        Err(e) => FlowEvent::Error(e.into()),
    };
    let _ = events.send((0, last));
}

/// An SSE event of a streamed run: `step` (its `id` its index), `result` or `error`.
fn flow_event(at: usize, e: &FlowEvent) -> axum::response::sse::Event {
    let event = axum::response::sse::Event::default();
    let event = match e {
        FlowEvent::Step(_) => event.event("step").id(at.to_string()),
        FlowEvent::Result(_) => event.event("result"),
        FlowEvent::Error(_) => event.event("error"),
    };
    event
        .json_data(e)
        .unwrap_or_else(|_| axum::response::sse::Event::default().comment("unencodable"))
}

/// An SSE event of a streamed suite: `step` (its `id` the flow's index in the suite, a dot,
/// the step's in its flow), `flow` (its `id` the flow's index), `result` or `error`.
fn suite_event((id, e): &(Option<String>, SuiteEvent)) -> axum::response::sse::Event {
    let event = axum::response::sse::Event::default().event(match e {
        SuiteEvent::Step(_) => "step",
        SuiteEvent::Flow(_) => "flow",
        SuiteEvent::Result(_) => "result",
        SuiteEvent::Error(_) => "error",
    });
    let event = match id {
        Some(id) => event.id(id),
        None => event,
    };
    event
        .json_data(e)
        .unwrap_or_else(|_| axum::response::sse::Event::default().comment("unencodable"))
}

/// A flow checked whole and ready to run: what [`flow_run`] and [`flow_run_stream`] share.
struct CheckedRun {
    s: AppState,
    udid: Option<String>,
    flow: crate::flows::model::Flow,
    env: Vec<(String, String)>,
    /// The hosts its scripts may reach.
    allow: AllowList,
    timeout: Duration,
    session: Option<String>,
}

/// Checks a request whole (its timeout, the flow and its sub-flows, its variables) before
/// any device command: a refusal is `400 VALIDATION` naming the file, line and command.
fn checked(s: &AppState, r: FlowRunRequest) -> Result<CheckedRun> {
    let timeout = run_timeout(r.timeout_ms)?;
    let env: Vec<(String, String)> = r.env.into_iter().collect();
    let file = r.file.unwrap_or_else(|| "flow.yaml".to_string());
    let media = decoded_media(&r.media)?;
    let posted = Posted {
        file: &file,
        yaml: &r.yaml,
        files: &r.files,
        media: &media,
    };
    check_flow(s, r.udid, posted, env, &r.allow_http, timeout)
}

/// A run's time limit: `timeout_ms`, 1 to [`MAX_RUN_MS`] (default [`DEFAULT_RUN_MS`]).
fn run_timeout(timeout_ms: Option<u64>) -> Result<Duration> {
    match timeout_ms.unwrap_or(DEFAULT_RUN_MS) {
        t @ 1..=MAX_RUN_MS => Ok(Duration::from_millis(t)),
        _ => Err(Error::validation(format!(
            "`timeout_ms` is 1 to {MAX_RUN_MS}"
        ))),
    }
}

/// A posted flow: its name, its text, the sub-flow and script files and the media it names.
struct Posted<'a> {
    file: &'a str,
    yaml: &'a str,
    files: &'a std::collections::BTreeMap<String, String>,
    media: &'a std::collections::BTreeMap<String, Vec<u8>>,
}

/// The request's `media`, decoded from base64.
fn decoded_media(
    media: &std::collections::BTreeMap<String, String>,
) -> Result<std::collections::BTreeMap<String, Vec<u8>>> {
    use base64::Engine;
    media
        .iter()
        .map(|(k, v)| {
            base64::engine::general_purpose::STANDARD
                .decode(v.trim())
                .map(|b| (k.clone(), b))
                .map_err(|e| {
                    Error::validation(format!("`media`: `{k}` is not base64: {e}"))
                        .with_hint("each media file's bytes in standard base64")
                })
        })
        .collect()
}

/// Checks one posted flow whole before any device command, and the hosts its scripts may
/// reach (`allow_http`, and its env's).
fn check_flow(
    s: &AppState,
    udid: Option<String>,
    posted: Posted<'_>,
    env: Vec<(String, String)>,
    allow_http: &[String],
    timeout: Duration,
) -> Result<CheckedRun> {
    let parsed =
        load::parse_posted_media(posted.file, posted.yaml, posted.files, posted.media, &env);
    if let Some(first) = parsed.refusals.first() {
        let more = match parsed.refusals.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        return Err(
            Error::validation(format!("the flow cannot run: {first}{more}")).with_hint(format!(
                "`mobilectl flow check FILE` lists every refusal; supported commands: {}",
                parse::SUPPORTED.join(", ")
            )),
        );
    }
    let mut scope = parsed.flow.env.clone();
    scope.extend(env.iter().cloned());
    let allow = AllowList::parse(allow_http)
        .and_then(|a| a.with_env(&scope))
        .map_err(|e| {
            Error::validation(format!("`allow_http`: {e}"))
                .with_hint("give hosts as `api.example.com`, `localhost:8080`, or `*` for any")
        })?;
    Ok(CheckedRun {
        s: s.clone(),
        udid,
        flow: parsed.flow,
        env,
        allow,
        timeout,
        session: crate::controller::current_session().map(|c| c.id.clone()),
    })
}

impl CheckedRun {
    /// Runs the flow on `device` (whose command lock the caller holds), telling `progress`
    /// of each step as it ends, and saves its reports into the caller's run.
    async fn go(
        self,
        device: crate::device::Device,
        progress: Option<tokio::sync::mpsc::UnboundedSender<(usize, FlowStep)>>,
    ) -> Result<FlowRunResult> {
        let scripts = Scripts::new(self.s.options.script_worker(), self.allow);
        let host = FlowHost {
            api: crate::server::api(self.s.clone()),
            controller: self.s.controller.clone(),
            device,
            session: self.session.clone(),
            scripts,
        };
        let mut runner = Runner::new(host, self.env, self.timeout);
        if let Some(p) = progress {
            runner = runner.reporting(p);
        }
        let result = runner.run(&self.flow).await;
        save_reports(&self.s, self.session.as_deref(), &result);
        Ok(result)
    }
}

/// The flow's reports (its result as JSON, and as JUnit XML) into the caller's run.
fn save_reports(s: &AppState, session: Option<&str>, result: &FlowRunResult) {
    let runs = s.controller.runs();
    let stem = format!("flow-{}", result.file.trim_end_matches(".yaml"));
    if let Ok(json) = serde_json::to_vec_pretty(result) {
        let _ = runs.save_artifact(
            session,
            &format!("{stem}.json"),
            ArtifactKind::FlowReport,
            &json,
        );
    }
    let xml = crate::flows::report::junit(std::slice::from_ref(result), &[]);
    let _ = runs.save_artifact(
        session,
        &format!("{stem}.junit.xml"),
        ArtifactKind::FlowReport,
        xml.as_bytes(),
    );
}

/// The caller's key: its session id, or empty.
fn caller() -> String {
    crate::controller::current_session()
        .map(|c| c.id.clone())
        .unwrap_or_default()
}

/// Starts recording this caller's successful act and verify operations.
pub async fn record_start(s: AppState, _r: RecordStart) -> Result<Json<RecordStarted>> {
    let key = caller();
    s.controller.recordings.start(&key);
    Ok(Json(RecordStarted {
        recording: true,
        session: (!key.is_empty()).then_some(key),
    }))
}

/// Stops this caller's recording: the flow of what it did.
pub async fn record_stop(s: AppState, r: RecordStop) -> Result<Json<Recorded>> {
    let commands = s.controller.recordings.stop(&caller()).ok_or_else(|| {
        Error::new(
            ErrorCode::NotFound,
            "no recording was started by this caller",
        )
        .with_next(
            "{0} first (in the same session)",
            [Step::call(Op::FlowRecordStart)],
        )
    })?;
    Ok(Json(Recorded {
        yaml: crate::flows::record::yaml(r.app_id.as_deref(), &commands),
        commands: commands.len(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(title: &str) -> FlowStep {
        FlowStep {
            title: title.into(),
            command: "tapOn".into(),
            file: "login.yaml".into(),
            line: 3,
            depth: 0,
            status: FlowStepStatus::Passed,
            duration_ms: 5,
            error: None,
            console: vec![],
        }
    }

    /// What `relay` sends for a run whose work ends with `outcome` after one step.
    async fn relayed(outcome: Result<FlowRunResult>) -> Vec<(usize, FlowEvent)> {
        let (steps_tx, steps_rx) = tokio::sync::mpsc::unbounded_channel();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let work = async move {
            let _ = steps_tx.send((0, step("tapOn \"LOG IN\"")));
            outcome
        };
        relay(work, steps_rx, tx).await;
        let mut sent = Vec::new();
        while let Ok(e) = rx.try_recv() {
            sent.push(e);
        }
        sent
    }

    #[tokio::test]
    async fn a_run_that_cannot_go_on_ends_its_stream_with_the_error() {
        let gone = Error::new(
            ErrorCode::DeviceOffline,
            "device `emulator-5554` went offline",
        )
        .with_next("list devices with {0}", [Step::call(Op::ListDevices)]);
        let sent = relayed(Err(gone)).await;
        assert_eq!(sent.len(), 2, "{sent:?}");
        assert!(matches!(&sent[0], (0, FlowEvent::Step(s)) if s.title == "tapOn \"LOG IN\""));
        let FlowEvent::Error(body) = &sent[1].1 else {
            panic!("the last event is not the error: {sent:?}");
        };
        assert_eq!(body.code, ErrorCode::DeviceOffline);
        assert!(
            body.message.contains("went offline") && body.hint.is_some(),
            "{body:?}"
        );
        // On the wire it is the error envelope, under the SSE event `error`.
        let wire = serde_json::to_value(&sent[1].1).unwrap();
        assert_eq!(wire["error"]["code"], "DEVICE_OFFLINE", "{wire}");
        let back: FlowEvent = serde_json::from_value(wire).unwrap();
        assert!(matches!(back, FlowEvent::Error(b) if b.code == ErrorCode::DeviceOffline));
    }

    #[tokio::test]
    async fn a_run_that_ends_sends_its_steps_then_its_result() {
        let result = FlowRunResult {
            success: true,
            name: "login".into(),
            file: "login.yaml".into(),
            app_id: None,
            udid: "emulator-5554".into(),
            duration_ms: 5,
            failed_step: None,
            artifacts: None,
            steps: vec![step("tapOn \"LOG IN\"")],
        };
        let sent = relayed(Ok(result)).await;
        assert_eq!(sent.len(), 2, "{sent:?}");
        assert!(matches!(&sent[0].1, FlowEvent::Step(_)));
        assert!(matches!(&sent[1].1, FlowEvent::Result(r) if r.success));
    }
}
