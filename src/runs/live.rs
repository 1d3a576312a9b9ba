//! One run being written: its folder, its trace file (kept open), its counts and devices, and
//! its artifact index in memory (written to `artifacts.json` on each change). Ending it
//! writes `result.json`.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

use chrono::{DateTime, SecondsFormat, Utc};

use super::index;
use super::trace::TraceLine;
use crate::api::wire::runs::{ArtifactEntry, RunResult};

/// A live run.
#[derive(Debug)]
pub struct LiveRun {
    /// The run's id, also its folder's name (`YYYYMMDD-HHMMSS-rand`).
    pub id: String,
    /// The run's folder, `<cache>/runs/<id>/`.
    pub dir: PathBuf,
    /// The id of the session whose run this is; None for the server's shared run.
    pub session_id: Option<String>,
    /// The session's name, when it was given one.
    pub session_name: Option<String>,
    /// When the run was created.
    pub started_at: DateTime<Utc>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    trace: Option<File>,
    operations: u64,
    failures: u64,
    act_failures: u64,
    devices: Vec<String>,
    index: Vec<ArtifactEntry>,
    ended: Option<DateTime<Utc>>,
}

/// RFC 3339 with milliseconds, UTC.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

impl LiveRun {
    /// Creates the run's folder (`dir`, with `artifacts/`).
    pub fn create(
        id: String,
        dir: PathBuf,
        session_id: Option<String>,
        session_name: Option<String>,
        started_at: DateTime<Utc>,
    ) -> std::io::Result<LiveRun> {
        std::fs::create_dir_all(dir.join("artifacts"))?;
        let trace = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("trace.jsonl"))?;
        Ok(LiveRun {
            id,
            dir,
            session_id,
            session_name,
            started_at,
            state: Mutex::new(State {
                trace: Some(trace),
                ..Default::default()
            }),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends `line` to the trace and counts it.
    pub fn trace(&self, line: &TraceLine) {
        let mut text = match serde_json::to_vec(line) {
            Ok(t) => t,
            Err(_) => return,
        };
        text.push(b'\n');
        let mut s = self.state();
        if s.ended.is_some() {
            // An operation that ended its own session: its line goes last, after result.json.
            let _ = std::fs::OpenOptions::new()
                .append(true)
                .open(self.dir.join("trace.jsonl"))
                .and_then(|mut f| f.write_all(&text));
            return;
        }
        s.operations += 1;
        if line.failed() {
            s.failures += 1;
            if line.fails_the_run() {
                s.act_failures += 1;
            }
        }
        if let Some(u) = &line.udid {
            if !s.devices.contains(u) {
                s.devices.push(u.clone());
            }
        }
        if let Some(f) = s.trace.as_mut() {
            if let Err(e) = f.write_all(&text) {
                tracing::warn!(run = %self.id, "trace.jsonl: {e}");
            }
        }
    }

    /// The result as of now (ended or not).
    pub fn result(&self) -> RunResult {
        let s = self.state();
        RunResult {
            run_id: self.id.clone(),
            session_id: self.session_id.clone(),
            session_name: self.session_name.clone(),
            started_at: rfc3339(self.started_at),
            ended_at: s.ended.map(rfc3339),
            ok: s.act_failures == 0,
            operations: s.operations,
            failures: s.failures,
            act_failures: s.act_failures,
            devices: s.devices.clone(),
        }
    }

    /// Ends the run: closes the trace and writes `result.json`. Once.
    pub fn end(&self) -> std::io::Result<RunResult> {
        {
            let mut s = self.state();
            if s.ended.is_some() {
                drop(s);
                return Ok(self.result());
            }
            s.ended = Some(Utc::now());
            s.trace = None;
        }
        let result = self.result();
        let tmp = self.dir.join(".result.json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(&result)?)?;
        std::fs::rename(tmp, self.dir.join("result.json"))?;
        Ok(result)
    }

    /// The artifact index.
    pub fn index(&self) -> Vec<ArtifactEntry> {
        self.state().index.clone()
    }

    /// Adds an entry named uniquely from `make(taken)`, writes the index; answers the entry.
    pub fn add(
        &self,
        make: impl FnOnce(&dyn Fn(&str) -> bool) -> ArtifactEntry,
    ) -> std::io::Result<ArtifactEntry> {
        let mut s = self.state();
        let dir = self.dir.join("artifacts");
        let entry = {
            let index = &s.index;
            let taken = |n: &str| index.iter().any(|e| e.name == n) || dir.join(n).exists();
            make(&taken)
        };
        s.index.push(entry.clone());
        index::write(&self.dir, &s.index)?;
        Ok(entry)
    }

    /// Updates the entry named `name` (its size, its state); writes the index.
    pub fn update(&self, name: &str, f: impl FnOnce(&mut ArtifactEntry)) -> std::io::Result<bool> {
        let mut s = self.state();
        let Some(e) = s.index.iter_mut().find(|e| e.name == name) else {
            return Ok(false);
        };
        f(e);
        index::write(&self.dir, &s.index)?;
        Ok(true)
    }

    /// Removes the entry named `name` (its file could not be written); writes the index.
    pub fn remove(&self, name: &str) {
        let mut s = self.state();
        s.index.retain(|e| e.name != name);
        let _ = index::write(&self.dir, &s.index);
    }
}
