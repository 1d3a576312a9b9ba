//! Screen recordings: at most one per device, started through the device's backend, and
//! stopped exactly once — by `recording_stop`, at `max_s`, when the session that started it
//! ends, or when the server shuts down — with the file finalised and read back (duration,
//! frame size, bytes) before the stop answers. Finished recordings are kept in a bounded list
//! for `recordings`; their files live in the run's artifacts.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::reach::Reach;
use crate::api::wire::recording::{RecordingInfo, RecordingState, StoppedBy};
use crate::backend::concern;
use crate::device::recording::{DEFAULT_MAX_S, MAX_MAX_S};
use crate::device::{RecordingOptions, ScreenRecorder};
use crate::error::{Error, ErrorCode, Op, Result, Step};

use super::DeviceController;

/// Finished recordings remembered for the list.
const KEEP_FINISHED: usize = 500;

/// The recordings of one server.
#[derive(Default)]
pub struct ScreenRecordings {
    /// The running one of each device, by udid.
    live: Mutex<HashMap<String, Arc<Live>>>,
    /// Finished (or failed) ones, oldest first.
    done: Mutex<VecDeque<RecordingInfo>>,
    /// Ids of recordings that stopped by themselves and were since answered to a stop.
    claimed: Mutex<std::collections::HashSet<String>>,
}

/// A running recording.
struct Live {
    info: RecordingInfo,
    /// Its file among its run's artifacts, and the hold that keeps GC off that run.
    artifact: crate::runs::ArtifactRef,
    runs: crate::runs::RunStore,
    hold: Mutex<Option<crate::runs::RunHold>>,
    started: Instant,
    recorder: tokio::sync::Mutex<Option<Box<dyn ScreenRecorder>>>,
    /// The outcome, once finished (every stopper gets the same).
    outcome: OnceLock<Result<RecordingInfo>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn new_id() -> String {
    let mut bytes = [0u8; 4];
    let _ = getrandom::getrandom(&mut bytes);
    format!(
        "rec-{}-{}",
        chrono::Utc::now().format("%Y%m%d-%H%M%S"),
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

impl ScreenRecordings {
    fn live_of(&self, udid: &str) -> Option<Arc<Live>> {
        lock(&self.live).get(udid).cloned()
    }

    /// Stops `live` (once, whoever asks first) and files its outcome.
    async fn finish(&self, live: &Arc<Live>, by: StoppedBy) -> Result<RecordingInfo> {
        let mut recorder = live.recorder.lock().await;
        if let Some(r) = recorder.take() {
            let asked = Instant::now();
            let finished = r.finish().await;
            let mut info = live.info.clone();
            info.stopped_by = Some(by);
            info.finalize_ms = Some(asked.elapsed().as_millis() as u64);
            // The run's index learns the file's size (a failed one keeps its entry, size 0).
            if let Err(e) = live.runs.commit_artifact(&live.artifact) {
                tracing::warn!(error = %e.message, "a recording's artifact entry");
            }
            lock(&live.hold).take();
            // Reading the file's facts is file I/O: off the async workers.
            let read = match finished {
                Ok(()) => {
                    let mut read = info.clone();
                    tokio::task::spawn_blocking(move || read_back(&mut read).map(|()| read))
                        .await
                        .map_err(|e| Error::internal(format!("reading the recording: {e}")))
                        .and_then(|r| r)
                }
                Err(e) => Err(e),
            };
            let outcome = match read.map(|read| info = read) {
                Ok(()) => {
                    info.state = RecordingState::Finished;
                    Ok(info.clone())
                }
                Err(e) => {
                    info.state = RecordingState::Failed;
                    info.error = Some(e.message.clone());
                    Err(e)
                }
            };
            tracing::info!(id = %info.id, udid = %info.udid, by = ?by, ms = info.finalize_ms, ok = outcome.is_ok(), "recording stopped");
            let _ = live.outcome.set(outcome);
            lock(&self.live).retain(|_, l| !Arc::ptr_eq(l, live));
            let mut done = lock(&self.done);
            done.push_back(info);
            while done.len() > KEEP_FINISHED {
                done.pop_front();
            }
        }
        drop(recorder);
        live.outcome
            .get()
            .cloned()
            .unwrap_or_else(|| Err(Error::internal("the recording's outcome was lost")))
    }

    /// Stops the recordings `pick` chooses, in parallel; answers how many.
    async fn stop_where(&self, by: StoppedBy, pick: impl Fn(&RecordingInfo) -> bool) -> usize {
        let chosen: Vec<Arc<Live>> = lock(&self.live)
            .values()
            .filter(|l| pick(&l.info))
            .cloned()
            .collect();
        let n = chosen.len();
        futures::future::join_all(chosen.iter().map(|l| self.finish(l, by))).await;
        n
    }

    /// Every recording, newest first.
    pub fn list(&self) -> Vec<RecordingInfo> {
        let mut all: Vec<RecordingInfo> = lock(&self.done).iter().cloned().collect();
        all.extend(lock(&self.live).values().map(|l| l.info.clone()));
        all.sort_by(|a, b| b.started_at.cmp(&a.started_at).then(b.id.cmp(&a.id)));
        all
    }
}

/// Reads the finished file's facts into `info`.
fn read_back(info: &mut RecordingInfo) -> Result<()> {
    let path = PathBuf::from(&info.path);
    let facts = crate::media::probe(&path)?;
    info.duration_s = Some((facts.duration_s * 1000.0).round() / 1000.0);
    info.width = Some(facts.width);
    info.height = Some(facts.height);
    info.bytes = std::fs::metadata(&path).map(|m| m.len()).ok();
    Ok(())
}

impl DeviceController {
    /// Starts recording the device's screen; at most one recording per device. Its file is
    /// an artifact of the caller's run, named after `name` (default: the recording's id).
    pub async fn recording_start(
        &self,
        udid: Option<&str>,
        options: &RecordingOptions,
        max_s: Option<u32>,
        name: Option<&str>,
    ) -> Result<RecordingInfo> {
        let max_s = max_s.unwrap_or(DEFAULT_MAX_S);
        if !(1..=MAX_MAX_S).contains(&max_s) {
            return Err(
                Error::validation(format!("`max_s` {max_s} is outside 1..={MAX_MAX_S}")).with_hint(
                    format!("default {DEFAULT_MAX_S}; record longer in several recordings"),
                ),
            );
        }
        options.check()?;
        let mut on = self.reach(udid, Reach::Act).await?;
        let device = on.device.clone();
        let recordings = &self.screen_recordings;
        if let Some(l) = recordings.live_of(&device.udid) {
            return Err(Error::new(
                ErrorCode::RecordingActive,
                format!(
                    "`{}` is already being recorded ({})",
                    device.udid, l.info.id
                ),
            )
            .with_details(serde_json::json!({ "recording": l.info })));
        }
        let id = new_id();
        let session = super::current_session().map(|s| s.id.clone());
        let (artifact, hold) = self.runs().reserve_artifact(
            session.as_deref(),
            &format!("{}.mp4", name.unwrap_or(&id)),
            crate::api::wire::runs::ArtifactKind::Recording,
        )?;
        let dest = artifact.path.clone();
        let recorder = {
            on.hold().await;
            // A racing start for the same device: the lock serialised us; look again.
            if recordings.live_of(&device.udid).is_some() {
                return Err(Error::new(
                    ErrorCode::RecordingActive,
                    format!("`{}` is already being recorded", device.udid),
                ));
            }
            let started = match on.cap(concern::Recording) {
                Ok(r) => r.start_recording(&device, options, &dest).await,
                Err(e) => Err(e),
            };
            match started {
                Ok(r) => r,
                Err(e) => {
                    // Nothing was recorded: the reserved entry goes.
                    self.runs().discard_artifact(&artifact);
                    return Err(e);
                }
            }
        };
        // The lock served the start only.
        drop(on);
        let info = RecordingInfo {
            id: id.clone(),
            udid: device.udid.clone(),
            state: RecordingState::Recording,
            started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            max_s,
            path: dest.display().to_string(),
            run: artifact.run.clone(),
            artifact: artifact.name.clone(),
            session,
            stopped_by: None,
            duration_s: None,
            bytes: None,
            width: None,
            height: None,
            finalize_ms: None,
            error: None,
        };
        let live = Arc::new(Live {
            info: info.clone(),
            artifact,
            runs: self.runs().clone(),
            hold: Mutex::new(Some(hold)),
            started: Instant::now(),
            recorder: tokio::sync::Mutex::new(Some(recorder)),
            outcome: OnceLock::new(),
        });
        lock(&recordings.live).insert(device.udid.clone(), live.clone());
        // Stops it at `max_s` unless something stopped it before.
        let weak: Weak<ScreenRecordings> = Arc::downgrade(recordings);
        let limit = Duration::from_secs(u64::from(max_s));
        tokio::spawn(async move {
            tokio::time::sleep_until((live.started + limit).into()).await;
            if let Some(r) = weak.upgrade() {
                let _ = r.finish(&live, StoppedBy::MaxS).await;
            }
        });
        Ok(info)
    }

    /// Stops the device's recording and answers the finished file's facts. A recording that
    /// stopped by itself since (at `max_s`) is answered once, as it ended.
    pub async fn recording_stop(&self, udid: Option<&str>) -> Result<RecordingInfo> {
        // Stopping acts on the device: a device another session leases is not ours to stop.
        let device = self.resolve_to_act(udid).await?;
        let recordings = &self.screen_recordings;
        if let Some(l) = recordings.live_of(&device.udid) {
            return recordings.finish(&l, StoppedBy::Request).await;
        }
        let ended = lock(&recordings.done)
            .iter()
            .rev()
            .find(|r| r.udid == device.udid)
            .cloned();
        if let Some(r) = ended.filter(|r| r.stopped_by != Some(StoppedBy::Request)) {
            if lock(&recordings.claimed).insert(r.id.clone()) {
                return Ok(r);
            }
        }
        Err(Error::new(
            ErrorCode::NotRecording,
            format!("no recording of `{}` is running", device.udid),
        ))
    }

    /// Every recording of this server, newest first.
    pub fn recordings_list(&self) -> Vec<RecordingInfo> {
        self.screen_recordings.list()
    }

    /// One recording and its file (finished ones only have a complete file).
    pub fn recording(&self, id: &str) -> Result<RecordingInfo> {
        self.screen_recordings
            .list()
            .into_iter()
            .find(|r| r.id == id)
            .ok_or_else(|| {
                Error::new(ErrorCode::NotFound, format!("no recording `{id}`"))
                    .with_next("{0} lists them", [Step::call(Op::ListRecordings)])
            })
    }

    /// Deletes a finished recording's file and forgets it.
    pub fn recording_delete(&self, id: &str) -> Result<RecordingInfo> {
        let r = self.recording(id)?;
        if r.state == RecordingState::Recording {
            return Err(Error::new(
                ErrorCode::RecordingActive,
                format!("`{id}` is still recording"),
            )
            .with_next("stop it first ({0})", [Step::call(Op::RecordingStop)]));
        }
        match std::fs::remove_file(&r.path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::internal(format!("deleting {}: {e}", r.path))),
        }
        // Out of its run's index too.
        self.runs().discard_artifact(&crate::runs::ArtifactRef {
            run: r.run.clone(),
            name: r.artifact.clone(),
            path: PathBuf::from(&r.path),
            bytes: 0,
        });
        lock(&self.screen_recordings.done).retain(|d| d.id != id);
        Ok(r)
    }

    /// Stops every running recording (the server is shutting down); each file is finalised.
    pub async fn stop_all_recordings(&self) -> usize {
        self.screen_recordings
            .stop_where(StoppedBy::Shutdown, |_| true)
            .await
    }

    /// Stops the recordings whose session is no longer live.
    pub(super) fn stop_recordings_of_ended_sessions(
        &self,
        live: &std::collections::HashSet<String>,
    ) {
        let ended = |r: &RecordingInfo| r.session.as_ref().is_some_and(|s| !live.contains(s));
        if !lock(&self.screen_recordings.live)
            .values()
            .any(|l| ended(&l.info))
        {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let recordings = self.screen_recordings.clone();
        let live = live.clone();
        runtime.spawn(async move {
            recordings
                .stop_where(StoppedBy::SessionEnd, |r| {
                    r.session.as_ref().is_some_and(|s| !live.contains(s))
                })
                .await;
        });
    }
}
