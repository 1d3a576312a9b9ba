//! `build_app` and `build_app_stream`: an app built from source (`crate::build`), then, when
//! asked, installed and launched on the device, in one call; `list_builds` and
//! `cancel_build`. The request is checked and planned whole before anything runs (its errors
//! are plain answers, also on the stream); the build's settings become its session's defaults;
//! its whole output goes to the caller's run as `build.log`. A build of another session is not
//! seen nor stopped by this one (an admin sees all).

use std::time::Duration;

use axum::Json;

use crate::api::wire::build::*;
use crate::api::wire::runs::ArtifactKind;
use crate::build::{self, Begun, Events, Plan, Ran};
use crate::controller::{current_session, may_see};
use crate::device::{Device, LaunchOptions, Tool};
use crate::error::{Error, Result};
use crate::server::reply::{AbortOnDrop, EventStream};
use crate::server::AppState;

/// Builds (and installs and launches); answers when it is all done.
pub async fn build_app(s: AppState, r: BuildRequest) -> Result<Json<BuildResult>> {
    let job = prepare(&s, &r).await?;
    Ok(Json(job.go(&s, None).await?))
}

/// What [`build_app`] does, told as it goes: `started`, then `progress` (each phase, and
/// steps at most four times a second) and `diagnostic` events, then `result` or `error`. A
/// client that goes away stops the build.
pub async fn build_app_stream(s: AppState, r: BuildRequest) -> Result<EventStream<BuildEvent>> {
    use axum::response::sse::{Event, KeepAlive, Sse};
    let job = prepare(&s, &r).await?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<BuildEvent>();
    let session = current_session();
    let task = tokio::spawn(crate::controller::within(session, async move {
        let _ = tx.send(BuildEvent::Started(job.started()));
        let last = match job.go(&s, Some(&tx)).await {
            Ok(result) => BuildEvent::Result(Box::new(result)),
            Err(e) => BuildEvent::Error(e.into()),
        };
        let _ = tx.send(last);
    }));
    let stop = AbortOnDrop(task);
    let events = futures_util::stream::unfold((rx, stop), |(mut rx, stop)| async move {
        let e = rx.recv().await?;
        let name = match &e {
            BuildEvent::Started(_) => "started",
            BuildEvent::Progress(_) => "progress",
            BuildEvent::Diagnostic(_) => "diagnostic",
            BuildEvent::Result(_) => "result",
            BuildEvent::Error(_) => "error",
        };
        let event = Event::default()
            .event(name)
            .json_data(&e)
            .unwrap_or_else(|_| Event::default().comment("unencodable"));
        Some((Ok::<_, std::convert::Infallible>(event), (rx, stop)))
    });
    Ok(EventStream::new(
        Sse::new(events).keep_alive(KeepAlive::new().text("heartbeat")),
    ))
}

/// The running builds the caller may see.
pub async fn list_builds(s: AppState) -> Result<Json<BuildList>> {
    let builds = s.builds.list(|b| may_see(b.session.as_deref()));
    Ok(Json(BuildList { builds }))
}

/// Stops a running build, its whole process tree.
pub async fn cancel_build(s: AppState, r: CancelBuild) -> Result<Json<BuildCancelled>> {
    s.builds.cancel(&r.id, |b| may_see(b.session.as_deref()))?;
    Ok(Json(BuildCancelled {
        id: r.id,
        cancelled: true,
    }))
}

/// A build checked, planned and registered, ready to run.
struct Job {
    plan: Plan,
    begun: Begun,
    device: Option<Device>,
    install: bool,
    launch: bool,
    timeout: Duration,
}

/// Checks and plans `r` (see the module's doc), registers the build and remembers its settings
/// in the caller's session.
async fn prepare(s: &AppState, r: &BuildRequest) -> Result<Job> {
    let timeout = build::timeout_of(r.timeout_ms)?;
    // Refused before any device is looked for.
    if s.options.build_root.is_none() {
        return Err(build::plan::builds_off());
    }
    let session = current_session();
    let defaults = session
        .as_ref()
        .map(|sn| sn.build_defaults())
        .unwrap_or_default();
    let needs_device = r.install || r.launch || r.udid.is_some();
    let device = if needs_device {
        Some(s.controller.resolve_to_act(r.udid.as_deref()).await?)
    } else {
        // The session's or the only device, when there is one: it picks the platform and an
        // iOS Simulator's destination. None is fine for a build alone.
        s.controller.resolve_to_act(None).await.ok()
    };
    let run_dir = s
        .controller
        .runs()
        .run_of(
            session
                .as_ref()
                .map(|sn| (sn.id.as_str(), sn.name.as_deref())),
        )?
        .dir
        .clone();
    let mut plan = build::plan(
        r,
        &build::Inputs {
            root: s.options.build_root.as_deref(),
            defaults: &defaults,
            device: device.as_ref(),
            device_asked: needs_device,
            xcodebuild: s.controller.tools().path(Tool::Xcodebuild),
            derived_data: &run_dir.join("derived-data"),
        },
    )?;
    build::settle_scheme(&mut plan).await?;
    let begun = s.builds.begin(
        &plan.project_dir,
        plan.platform,
        session.as_ref().map(|sn| sn.id.clone()),
    )?;
    if let Some(sn) = &session {
        sn.remember_build(plan.remembered.clone());
    }
    Ok(Job {
        plan,
        begun,
        device,
        install: r.install || r.launch,
        launch: r.launch,
        timeout,
    })
}

impl Job {
    fn command(&self) -> Vec<String> {
        let (program, args) = self.plan.tool.argv(&["build"]);
        std::iter::once(program.display().to_string())
            .chain(args)
            .collect()
    }

    fn started(&self) -> BuildStarted {
        BuildStarted {
            id: self.begun.id.clone(),
            platform: self.plan.platform,
            project_dir: self.plan.project_dir.display().to_string(),
            command: self.command(),
        }
    }

    /// Runs the build, keeps its log, and installs and launches what it made when asked.
    async fn go(self, s: &AppState, events: Option<&Events>) -> Result<BuildResult> {
        let runs = s.controller.runs();
        let session = current_session().map(|sn| sn.id.clone());
        let (log, _hold) =
            runs.reserve_artifact(session.as_deref(), "build.log", ArtifactKind::Log)?;
        let ran = build::run::run(&self.plan, &self.begun, &log.path, self.timeout, events).await;
        let log = runs.commit_artifact(&log)?;
        let ran = ran?;
        let mut result = self.result(&ran, &log);
        if ran.status != BuildStatus::Succeeded {
            return Ok(result);
        }
        let app = build::built_app(&self.plan).await.map_err(|e| {
            let hint = format!(
                "the build succeeded; its log is artifact `{}` of run `{}`",
                log.name, log.run
            );
            e.with_hint(hint)
        })?;
        result.app = Some(app.clone());
        if self.install {
            let udid = self.device.as_ref().map(|d| d.udid.clone());
            let device = s
                .controller
                .install_app(udid.as_deref(), std::path::Path::new(&app.path))
                .await
                .map_err(|e| e.with_hint(format!("the build succeeded: `{}`", app.path)))?;
            result.installed_on = Some(device);
        }
        if self.launch {
            let app_id = app.app_id.clone().ok_or_else(|| {
                Error::validation("the build did not say the app's id, so it cannot be launched")
                    .with_hint(format!(
                        "launch it by its id; it is installed from `{}`",
                        app.path
                    ))
            })?;
            let udid = self.device.as_ref().map(|d| d.udid.clone());
            let (_, launched, _) = s
                .controller
                .launch_app(udid.as_deref(), &app_id, &LaunchOptions::default())
                .await?;
            result.launch_time_ms = Some(launched.launch_time_ms);
        }
        Ok(result)
    }

    fn result(&self, ran: &Ran, log: &crate::runs::ArtifactRef) -> BuildResult {
        BuildResult {
            id: self.begun.id.clone(),
            success: ran.status == BuildStatus::Succeeded,
            status: ran.status,
            platform: self.plan.platform,
            project_dir: self.plan.project_dir.display().to_string(),
            command: self.command(),
            exit_code: ran.exit_code,
            duration_ms: ran.duration.as_millis() as u64,
            steps: ran.steps,
            errors: ran.errors,
            warnings: ran.warnings,
            diagnostics: ran.diagnostics.clone(),
            failure: ran.failure.clone(),
            app: None,
            installed_on: None,
            launch_time_ms: None,
            log: BuildLog {
                run: log.run.clone(),
                artifact: log.name.clone(),
                bytes: log.bytes,
                truncated: ran.output_bytes > build::LOG_LIMIT,
            },
        }
    }
}
