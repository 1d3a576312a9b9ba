//! [`RunStore`]: the runs of one server. It creates a session's run when the session starts
//! (or at its first operation) and the server's run at the first session-less operation,
//! appends trace lines, saves and indexes artifacts, ends runs (writing `result.json`, then
//! collecting garbage), lists runs and finds artifacts through their index, and runs GC,
//! never deleting a live run or one a [`RunHold`] holds (a recording in progress).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::Utc;

use super::live::{rfc3339, LiveRun};
use super::{dirs, gc, index, names, TraceLine};
use crate::api::wire::runs::{
    ArtifactEntry, ArtifactKind, GcPlan, GcPolicy, RunDetail, RunList, RunResult, RunSummary,
};
use crate::error::{Error, ErrorCode, Op, Result, Step};

/// An artifact saved or reserved in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactRef {
    /// The run's id.
    pub run: String,
    /// Its name in the run (what `GET /api/v1/runs/{run}/artifacts/{name}` takes).
    pub name: String,
    /// Where it is on disk.
    pub path: PathBuf,
    /// Its size (0 for a reserved one until committed).
    pub bytes: u64,
}

/// Keeps GC off a run while it lives (a file being written into it).
#[derive(Debug)]
pub struct RunHold {
    holds: Arc<Mutex<HashMap<String, usize>>>,
    run: String,
}

impl Drop for RunHold {
    fn drop(&mut self) {
        let mut h = self.holds.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = h.get_mut(&self.run) {
            *n -= 1;
            if *n == 0 {
                h.remove(&self.run);
            }
        }
    }
}

#[derive(Default)]
struct Live {
    server: Option<Arc<LiveRun>>,
    sessions: HashMap<String, Arc<LiveRun>>,
    /// The runs of the sessions that ended last, newest last: a request that ended its own
    /// session (or an artifact saved as it ends) goes to its run, not to a new one.
    ended: std::collections::VecDeque<(String, Arc<LiveRun>)>,
}

/// How many ended sessions' runs are remembered.
const ENDED: usize = 64;

struct Inner {
    cache: PathBuf,
    policy: GcPolicy,
    live: Mutex<Live>,
    holds: Arc<Mutex<HashMap<String, usize>>>,
    /// One GC at a time.
    collecting: Mutex<()>,
    /// A temporary cache directory, deleted with the store (a controller built without one).
    _temp: Option<tempfile::TempDir>,
}

/// The runs of a server; cheap to clone (shared).
#[derive(Clone)]
pub struct RunStore(Arc<Inner>);

impl std::fmt::Debug for RunStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStore")
            .field("cache", &self.0.cache)
            .finish()
    }
}

/// A session as a run knows it: its id and name.
pub type SessionRef<'a> = Option<(&'a str, Option<&'a str>)>;

impl RunStore {
    /// Runs under `cache` (created when the first run starts), collected with `policy`.
    pub fn open(cache: PathBuf, policy: GcPolicy) -> RunStore {
        Self::build(cache, policy, None)
    }

    /// Runs in a temporary directory deleted with the store: what a controller built without
    /// a cache directory (tests, benches) uses, so nothing is written to the user's cache.
    pub fn temporary() -> RunStore {
        match tempfile::Builder::new().prefix("mobilectl-runs-").tempdir() {
            Ok(t) => Self::build(t.path().to_path_buf(), GcPolicy::default(), Some(t)),
            Err(_) => Self::open(
                std::env::temp_dir().join(format!("mobilectl-runs-{}", std::process::id())),
                GcPolicy::default(),
            ),
        }
    }

    fn build(cache: PathBuf, policy: GcPolicy, temp: Option<tempfile::TempDir>) -> RunStore {
        RunStore(Arc::new(Inner {
            cache,
            policy,
            live: Mutex::default(),
            holds: Arc::default(),
            collecting: Mutex::new(()),
            _temp: temp,
        }))
    }

    /// The cache directory.
    pub fn cache_dir(&self) -> &Path {
        &self.0.cache
    }

    /// The GC policy in effect.
    pub fn policy(&self) -> GcPolicy {
        self.0.policy
    }

    fn live(&self) -> std::sync::MutexGuard<'_, Live> {
        self.0.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts a run: its folder is made while the live list is locked, so GC (which reads the
    /// live list after listing folders) never sees it unlisted.
    fn start(&self, live: &mut Live, session: SessionRef<'_>) -> Result<Arc<LiveRun>> {
        let now = Utc::now();
        let root = dirs::runs_dir(&self.0.cache);
        let mut id = dirs::new_run_id(now);
        while root.join(&id).exists() {
            id = dirs::new_run_id(now);
        }
        let run = LiveRun::create(
            id.clone(),
            root.join(&id),
            session.map(|(s, _)| s.to_string()),
            session.and_then(|(_, n)| n.map(str::to_string)),
            now,
        )
        .map_err(|e| {
            Error::internal(format!(
                "cannot create run folder {}: {e}",
                root.join(&id).display()
            ))
        })?;
        let run = Arc::new(run);
        match session {
            Some((s, _)) => {
                live.sessions.insert(s.to_string(), run.clone());
            }
            None => live.server = Some(run.clone()),
        }
        Ok(run)
    }

    /// The run of `session` (none: the server's), started if it has none yet.
    pub fn run_of(&self, session: SessionRef<'_>) -> Result<Arc<LiveRun>> {
        let mut live = self.live();
        let found = match session {
            Some((s, _)) => live.sessions.get(s).cloned().or_else(|| {
                live.ended
                    .iter()
                    .rev()
                    .find(|(id, _)| id == s)
                    .map(|(_, r)| r.clone())
            }),
            None => live.server.clone(),
        };
        match found {
            Some(r) => Ok(r),
            None => self.start(&mut live, session),
        }
    }

    /// A session started: its run starts now.
    pub fn session_started(&self, id: &str, name: Option<&str>) {
        if let Err(e) = self.run_of(Some((id, name))) {
            tracing::warn!("run of session {id}: {}", e.message);
        }
    }

    /// Appends `line` to the run of `session` (none: the server's). Never fails the caller:
    /// a trace that cannot be written is logged.
    pub fn trace(&self, session: SessionRef<'_>, line: &TraceLine) {
        match self.run_of(session) {
            Ok(run) => run.trace(line),
            Err(e) => tracing::debug!("trace not written: {}", e.message),
        }
    }

    /// Ends the runs of sessions that are no longer live (`live` says which are): each gets
    /// its `result.json`, then GC runs once in the background if any ended.
    pub fn end_sessions_except(&self, live: impl Fn(&str) -> bool) {
        let ended: Vec<Arc<LiveRun>> = {
            let l = self.live();
            l.sessions
                .iter()
                .filter(|(s, _)| !live(s))
                .map(|(_, r)| r.clone())
                .collect()
        };
        if ended.is_empty() {
            return;
        }
        for run in &ended {
            // result.json is written while the run is still listed live.
            if let Err(e) = run.end() {
                tracing::warn!(run = %run.id, "result.json: {e}");
            }
        }
        {
            let mut l = self.live();
            l.sessions
                .retain(|_, r| !ended.iter().any(|e| Arc::ptr_eq(e, r)));
            for run in ended {
                if let Some(s) = run.session_id.clone() {
                    l.ended.push_back((s, run));
                }
            }
            while l.ended.len() > ENDED {
                l.ended.pop_front();
            }
        }
        self.collect_soon();
    }

    /// Ends the server's run (at shutdown), then collects garbage.
    pub fn end_server_run(&self) -> Option<RunResult> {
        let run = self.live().server.clone()?;
        let result = run.end().ok();
        self.live().server = None;
        self.collect_soon();
        result
    }

    /// Ends every live run (the server stops): sessions' and the server's, each with its
    /// `result.json`; then collects garbage now.
    pub fn end_all(&self) {
        let runs: Vec<Arc<LiveRun>> = {
            let l = self.live();
            l.server
                .iter()
                .chain(l.sessions.values())
                .cloned()
                .collect()
        };
        for run in &runs {
            if let Err(e) = run.end() {
                tracing::warn!(run = %run.id, "result.json: {e}");
            }
        }
        *self.live() = Live::default();
        self.gc(false);
    }

    /// GC in the background (a blocking task) when in a runtime, else now.
    fn collect_soon(&self) {
        let store = self.clone();
        match tokio::runtime::Handle::try_current() {
            Ok(h) => {
                h.spawn_blocking(move || store.gc(false));
            }
            Err(_) => {
                store.gc(false);
            }
        }
    }

    /// Whether the run `id` is live (a live session's, the server's) or held.
    fn is_live(&self, id: &str) -> bool {
        let held = self
            .0
            .holds
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id);
        if held {
            return true;
        }
        let l = self.live();
        l.server.as_ref().is_some_and(|r| r.id == id) || l.sessions.values().any(|r| r.id == id)
    }

    /// Deletes the run `id` with its artifacts, answering the bytes it held. A live run (a live
    /// session's, the server's, or held by a recording) is refused: GC's own rule.
    pub fn delete(&self, id: &str) -> Result<u64> {
        let dir = self.run_dir(id)?;
        // One deletion at a time with GC, which also deletes runs.
        let _one = self.0.collecting.lock().unwrap_or_else(|p| p.into_inner());
        if self.is_live(id) {
            return Err(
                Error::new(ErrorCode::RunLive, format!("run `{id}` is live")).with_next(
                    "end its session first ({0}); the server's own run ends when the server stops",
                    [Step::call(Op::EndSession)],
                ),
            );
        }
        let bytes = gc::size_of(&dir);
        std::fs::remove_dir_all(&dir)
            .map_err(|e| Error::internal(format!("cannot delete {}: {e}", dir.display())))?;
        self.live().ended.retain(|(_, run)| run.id != id);
        Ok(bytes)
    }

    /// Collects garbage with the store's policy.
    pub fn gc(&self, dry_run: bool) -> GcPlan {
        self.gc_with(self.0.policy, dry_run)
    }

    /// Collects garbage with `policy` (see [`gc`]); with `dry_run`, only plans.
    pub fn gc_with(&self, policy: GcPolicy, dry_run: bool) -> GcPlan {
        let _one = self.0.collecting.lock().unwrap_or_else(|p| p.into_inner());
        let facts = gc::scan(&self.0.cache, |id| self.is_live(id));
        let entries = gc::plan(facts, &policy, Utc::now());
        let plan = gc::execute(&self.0.cache, entries, policy, dry_run, |id| {
            self.is_live(id)
        });
        if !dry_run && plan.deleted > 0 {
            tracing::info!(
                deleted = plan.deleted,
                freed = plan.freed_bytes,
                "runs collected"
            );
        }
        plan
    }

    /// Saves `bytes` as an artifact of the run of `session` (none: the server's), named
    /// uniquely from `name_hint`.
    pub fn save_artifact(
        &self,
        session: Option<&str>,
        name_hint: &str,
        kind: ArtifactKind,
        bytes: &[u8],
    ) -> Result<ArtifactRef> {
        let run = self.run_of(session.map(|s| (s, None)))?;
        let entry = add_entry(&run, name_hint, kind, bytes.len() as u64, false)?;
        let path = run.dir.join("artifacts").join(&entry.name);
        if let Err(e) = std::fs::write(&path, bytes) {
            run.remove(&entry.name);
            return Err(Error::internal(format!("{}: {e}", path.display())));
        }
        Ok(ArtifactRef {
            run: run.id.clone(),
            name: entry.name,
            path,
            bytes: bytes.len() as u64,
        })
    }

    /// Reserves a name for a file written over time (a recording) in the run of `session`:
    /// its path, and a hold that keeps GC off the run until dropped. Call
    /// [`Self::commit_artifact`] when the file is complete.
    pub fn reserve_artifact(
        &self,
        session: Option<&str>,
        name_hint: &str,
        kind: ArtifactKind,
    ) -> Result<(ArtifactRef, RunHold)> {
        let run = self.run_of(session.map(|s| (s, None)))?;
        let hold = {
            let mut h = self.0.holds.lock().unwrap_or_else(|p| p.into_inner());
            *h.entry(run.id.clone()).or_default() += 1;
            RunHold {
                holds: self.0.holds.clone(),
                run: run.id.clone(),
            }
        };
        let entry = add_entry(&run, name_hint, kind, 0, true)?;
        let r = ArtifactRef {
            run: run.id.clone(),
            path: run.dir.join("artifacts").join(&entry.name),
            name: entry.name,
            bytes: 0,
        };
        Ok((r, hold))
    }

    /// Records the final size of a reserved artifact (read from its file) in its run's index.
    pub fn commit_artifact(&self, r: &ArtifactRef) -> Result<ArtifactRef> {
        let bytes = std::fs::metadata(&r.path).map(|m| m.len()).unwrap_or(0);
        let update = |e: &mut ArtifactEntry| {
            e.bytes = bytes;
            e.in_progress = false;
        };
        let live = self.find_live(&r.run);
        let done = match live {
            Some(run) => run.update(&r.name, update),
            // The run ended meanwhile: its index is on disk.
            None => {
                let dir = dirs::runs_dir(&self.0.cache).join(&r.run);
                let mut entries = index::read(&dir);
                let found = entries.iter_mut().find(|e| e.name == r.name).map(update);
                index::write(&dir, &entries).map(|_| found.is_some())
            }
        }
        .map_err(|e| Error::internal(format!("artifact index of {}: {e}", r.run)))?;
        if !done {
            return Err(artifact_not_found(&r.run, &r.name));
        }
        Ok(ArtifactRef { bytes, ..r.clone() })
    }

    /// Forgets a reserved artifact that was never written (its writer failed to start), and
    /// removes any file it left.
    pub fn discard_artifact(&self, r: &ArtifactRef) {
        if let Some(run) = self.find_live(&r.run) {
            run.remove(&r.name);
        }
        let _ = std::fs::remove_file(&r.path);
    }

    fn find_live(&self, id: &str) -> Option<Arc<LiveRun>> {
        let l = self.live();
        l.server
            .iter()
            .chain(l.sessions.values())
            .find(|r| r.id == id)
            .cloned()
    }

    /// The folder of run `id` (checked to be a run id, and a directory, not a symlink).
    fn run_dir(&self, id: &str) -> Result<PathBuf> {
        if !dirs::is_run_id(id) {
            return Err(Error::validation(format!(
                "`{}` is not a run id",
                id.chars().take(40).collect::<String>()
            ))
            .with_hint("a run id looks like 20260101-120000-ab12cd; list_runs lists them"));
        }
        let dir = dirs::runs_dir(&self.0.cache).join(id);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => Ok(dir),
            _ => Err(Error::new(ErrorCode::RunNotFound, format!("no run `{id}`"))
                .with_hint("list_runs lists the runs; GC deletes old ones")),
        }
    }

    /// The artifact `name` of run `run`, looked up in the run's index only: its path and entry.
    pub fn artifact(&self, run: &str, name: &str) -> Result<(PathBuf, ArtifactEntry)> {
        names::check_name(name)?;
        let dir = self.run_dir(run)?;
        let entries = match self.find_live(run) {
            Some(r) => r.index(),
            None => index::read(&dir),
        };
        let entry = entries
            .into_iter()
            .find(|e| e.name == name && names::check_name(&e.name).is_ok())
            .ok_or_else(|| artifact_not_found(run, name))?;
        let path = dir.join("artifacts").join(&entry.name);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => Ok((path, entry)),
            _ => Err(artifact_not_found(run, name)),
        }
    }

    /// One run as listed (from its live state, or its folder).
    fn summary(&self, id: &str, dir: &Path) -> (RunSummary, Option<RunResult>, Vec<ArtifactEntry>) {
        let live = self.find_live(id);
        let (result, artifacts) = match &live {
            Some(r) => (Some(r.result()), r.index()),
            None => (
                std::fs::read(dir.join("result.json"))
                    .ok()
                    .and_then(|b| serde_json::from_slice::<RunResult>(&b).ok()),
                index::read(dir),
            ),
        };
        let started_at = result
            .as_ref()
            .map(|r| r.started_at.clone())
            .or_else(|| dirs::time_of_name(id).map(rfc3339))
            .unwrap_or_default();
        let summary = RunSummary {
            id: id.to_string(),
            session_id: result.as_ref().and_then(|r| r.session_id.clone()),
            session_name: result.as_ref().and_then(|r| r.session_name.clone()),
            ok: result.as_ref().map(|r| r.ok),
            started_at,
            ended_at: result.as_ref().and_then(|r| r.ended_at.clone()),
            bytes: gc::size_of(dir),
            artifact_count: artifacts.len(),
            live: live.is_some() || self.is_live(id),
        };
        (summary, result, artifacts)
    }

    /// Every run, newest first.
    pub fn list(&self) -> RunList {
        let mut runs: Vec<RunSummary> = gc::scan(&self.0.cache, |_| false)
            .into_iter()
            .map(|f| {
                let dir = dirs::runs_dir(&self.0.cache).join(&f.id);
                self.summary(&f.id, &dir).0
            })
            .collect();
        runs.sort_by(|a, b| b.started_at.cmp(&a.started_at).then(b.id.cmp(&a.id)));
        RunList {
            cache_dir: self.0.cache.display().to_string(),
            total: runs.len(),
            runs,
        }
    }

    /// One run: its result (so far) and its artifacts.
    pub fn get(&self, id: &str) -> Result<RunDetail> {
        let dir = self.run_dir(id)?;
        let (summary, result, artifacts) = self.summary(id, &dir);
        Ok(RunDetail {
            summary,
            result,
            artifacts,
        })
    }
}

/// Adds an index entry named from `hint` to `run`.
fn add_entry(
    run: &LiveRun,
    hint: &str,
    kind: ArtifactKind,
    bytes: u64,
    in_progress: bool,
) -> Result<ArtifactEntry> {
    run.add(|taken| {
        let name = names::unique(hint, taken);
        ArtifactEntry {
            content_type: names::content_type(&name, kind).to_string(),
            name,
            kind,
            bytes,
            created_at: rfc3339(Utc::now()),
            in_progress,
        }
    })
    .map_err(|e| Error::internal(format!("artifact index of run {}: {e}", run.id)))
}

fn artifact_not_found(run: &str, name: &str) -> Error {
    Error::new(
        ErrorCode::ArtifactNotFound,
        format!("run `{run}` has no artifact `{name}`"),
    )
    .with_next(
        "{0} lists its artifacts",
        [Step::call_with(Op::GetRun, serde_json::json!({"id": run}))],
    )
}

// They make symlinks or watch other processes: Unix hosts.
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use crate::api::wire::runs::{GcAction::*, GcReason::*};

    /// A run folder `id` under `cache`: `result` (`Some(ok)`) or none, `bytes` of payload.
    fn run_dir(cache: &Path, id: &str, result: Option<bool>, bytes: usize) {
        let dir = dirs::runs_dir(cache).join(id);
        std::fs::create_dir_all(dir.join("artifacts")).unwrap();
        if let Some(ok) = result {
            let started = dirs::time_of_name(id).unwrap();
            let r = RunResult {
                run_id: id.into(),
                session_id: None,
                session_name: None,
                started_at: rfc3339(started),
                ended_at: Some(rfc3339(started)),
                ok,
                operations: 1,
                failures: u64::from(!ok),
                act_failures: u64::from(!ok),
                devices: vec![],
            };
            std::fs::write(dir.join("result.json"), serde_json::to_vec(&r).unwrap()).unwrap();
        }
        std::fs::write(dir.join("artifacts/blob"), vec![7u8; bytes]).unwrap();
    }

    fn id_days_ago(days: i64, tail: &str) -> String {
        let t = Utc::now() - chrono::Duration::days(days);
        format!("{}-{tail}", t.format("%Y%m%d-%H%M%S"))
    }

    #[test]
    fn dry_run_plans_over_run_folders_and_deletes_nothing_then_gc_does_exactly_that() {
        let root = tempfile::tempdir().unwrap();
        let cache = root.path().join("cache");
        let outside = root.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("keep.txt"), "x").unwrap();
        let new_ok = id_days_ago(0, "000001");
        let old_ok = id_days_ago(3, "000002");
        let failed_2d = id_days_ago(2, "000003");
        let failed_9d = id_days_ago(9, "000004");
        let no_result_1d = id_days_ago(1, "000005");
        let big_failed_5d = id_days_ago(5, "000006");
        run_dir(&cache, &new_ok, Some(true), 100);
        run_dir(&cache, &old_ok, Some(true), 100);
        run_dir(&cache, &failed_2d, Some(false), 100);
        run_dir(&cache, &failed_9d, Some(false), 100);
        run_dir(&cache, &no_result_1d, None, 100);
        run_dir(&cache, &big_failed_5d, Some(false), 5000);
        // A run that will be deleted holds a link to a folder outside: the link goes, not
        // what it points at.
        std::os::unix::fs::symlink(&outside, dirs::runs_dir(&cache).join(&old_ok).join("out"))
            .unwrap();
        // Not runs: a file, and a symlink to a folder outside.
        std::fs::write(dirs::runs_dir(&cache).join("stray.txt"), "x").unwrap();
        std::os::unix::fs::symlink(
            &outside,
            dirs::runs_dir(&cache).join("20200101-000000-000007"),
        )
        .unwrap();

        let store = RunStore::open(cache.clone(), GcPolicy::default());
        let policy = GcPolicy {
            keep_last: 1,
            keep_failure_days: 7,
            max_bytes: 1000,
        };
        let plan = store.gc_with(policy, true);
        let got: Vec<(String, _, _)> = plan
            .runs
            .iter()
            .map(|e| (e.id.clone(), e.action, e.reason))
            .collect();
        let want = vec![
            (new_ok.clone(), Keep, Recent),
            (no_result_1d.clone(), Keep, RecentFailure),
            (failed_2d.clone(), Keep, RecentFailure),
            (old_ok.clone(), Delete, Expired),
            (big_failed_5d.clone(), Delete, OverBudget),
            (failed_9d.clone(), Delete, Expired),
        ];
        assert_eq!(got, want);
        assert!(plan.dry_run);
        assert_eq!((plan.kept, plan.deleted), (3, 3));
        for e in &plan.runs {
            assert_eq!(e.bytes, gc::size_of(&dirs::runs_dir(&cache).join(&e.id)));
        }
        assert_eq!(plan.runs[1].bytes, 100, "payload only: no result.json");
        let freed: u64 = plan
            .runs
            .iter()
            .filter(|e| e.action == Delete)
            .map(|e| e.bytes)
            .sum();
        for (id, ..) in &want {
            assert!(
                dirs::runs_dir(&cache).join(id).is_dir(),
                "dry run kept {id}"
            );
        }

        let done = store.gc_with(policy, false);
        assert_eq!(done.runs, plan.runs, "the same plan, carried out");
        assert_eq!(done.freed_bytes, freed);
        for (id, action, _) in &want {
            assert_eq!(
                dirs::runs_dir(&cache).join(id).exists(),
                *action == Keep,
                "{id}"
            );
        }
        assert!(
            outside.join("keep.txt").is_file(),
            "nothing outside is touched"
        );
        assert!(dirs::runs_dir(&cache).join("stray.txt").is_file());
        assert!(dirs::runs_dir(&cache)
            .join("20200101-000000-000007")
            .symlink_metadata()
            .is_ok());
    }

    #[test]
    fn artifacts_get_unique_names_and_are_found_through_the_index_only() {
        let root = tempfile::tempdir().unwrap();
        let store = RunStore::open(root.path().to_path_buf(), GcPolicy::default());
        let a = store
            .save_artifact(Some("ses-1"), "shot.png", ArtifactKind::Screenshot, b"one")
            .unwrap();
        let b = store
            .save_artifact(Some("ses-1"), "shot.png", ArtifactKind::Screenshot, b"two")
            .unwrap();
        assert_eq!(
            (a.name.as_str(), b.name.as_str()),
            ("shot.png", "shot-2.png")
        );
        assert_eq!(a.run, b.run);
        let (path, entry) = store.artifact(&a.run, "shot-2.png").unwrap();
        assert_eq!(std::fs::read(path).unwrap(), b"two");
        assert_eq!((entry.bytes, entry.content_type.as_str()), (3, "image/png"));
        let e = store.artifact(&a.run, "trace.jsonl").unwrap_err();
        assert_eq!(e.code, ErrorCode::ArtifactNotFound);
        let e = store.artifact(&a.run, "../trace.jsonl").unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationFailed);
        // Another session: another run.
        let c = store
            .save_artifact(Some("ses-2"), "x", ArtifactKind::Other, b"")
            .unwrap();
        assert_ne!(c.run, a.run);
        // Ended, the run keeps its index on disk.
        store.end_sessions_except(|_| false);
        assert!(store.artifact(&a.run, "shot.png").is_ok());
        let list = store.list();
        assert_eq!(list.runs.len(), 2);
        assert!(list.runs.iter().all(|r| !r.live && r.ok == Some(true)));
    }
}
