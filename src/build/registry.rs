//! The builds running now: one entry per build, found by id (for progress and cancelling) and
//! by project folder (two builds of one project never run at once: they would share its
//! outputs). An entry leaves when its [`Begun`] guard is dropped, however the build ended.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::api::wire::build::{BuildProgress, Phase};
use crate::device::Platform;
use crate::error::{Error, ErrorCode, Op, Result, Step};

/// The running builds of a server.
#[derive(Default)]
pub struct Builds {
    running: Mutex<Vec<Arc<Running>>>,
}

/// One running build.
pub struct Running {
    /// `bld-` and 12 hex digits.
    pub id: String,
    /// What it builds for.
    pub platform: Platform,
    /// Its project folder, resolved.
    pub project_dir: PathBuf,
    /// The session that started it.
    pub session: Option<String>,
    started: Instant,
    cancel: CancellationToken,
    progress: Mutex<Progress>,
}

/// What a running build has told so far.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    /// What it is doing now.
    pub phase: Option<Phase>,
    /// Build steps seen.
    pub steps: usize,
    /// Distinct errors seen.
    pub errors: usize,
    /// Distinct warnings seen.
    pub warnings: usize,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn new_id() -> String {
    let mut bytes = [0u8; 6];
    let _ = getrandom::getrandom(&mut bytes);
    format!(
        "bld-{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

impl Builds {
    /// Registers a build of `project_dir`; `409 BUSY` naming the running one when that
    /// folder is being built already.
    pub fn begin(
        self: &Arc<Self>,
        project_dir: &Path,
        platform: Platform,
        session: Option<String>,
    ) -> Result<Begun> {
        let mut running = lock(&self.running);
        if let Some(other) = running.iter().find(|r| r.project_dir == project_dir) {
            return Err(Error::new(
                ErrorCode::Busy,
                format!(
                    "`{}` is being built already ({})",
                    project_dir.display(),
                    other.id
                ),
            )
            .with_details(serde_json::json!({ "build": other.id }))
            .with_next(
                "wait for it to end, or stop it with {0}",
                [Step::call_with(
                    Op::CancelBuild,
                    serde_json::json!({ "id": other.id }),
                )],
            ));
        }
        let entry = Arc::new(Running {
            id: new_id(),
            platform,
            project_dir: project_dir.to_path_buf(),
            session,
            started: Instant::now(),
            cancel: CancellationToken::new(),
            progress: Mutex::default(),
        });
        running.push(entry.clone());
        Ok(Begun {
            builds: self.clone(),
            entry,
        })
    }

    /// The running builds `visible` lets the caller see.
    pub fn list(&self, visible: impl Fn(&Running) -> bool) -> Vec<BuildProgress> {
        lock(&self.running)
            .iter()
            .filter(|r| visible(r))
            .map(|r| r.progress())
            .collect()
    }

    /// Asks the build `id` to stop; `404 NOT_FOUND` when no build the caller may see has it.
    pub fn cancel(&self, id: &str, visible: impl Fn(&Running) -> bool) -> Result<()> {
        let running = lock(&self.running);
        let Some(r) = running.iter().find(|r| r.id == id && visible(r)) else {
            return Err(
                Error::new(ErrorCode::NotFound, format!("no running build `{id}`")).with_next(
                    "{0} lists the running builds this caller may see",
                    [Step::call(Op::ListBuilds)],
                ),
            );
        };
        r.cancel.cancel();
        Ok(())
    }
}

impl Running {
    /// Its progress as the wire tells it.
    pub fn progress(&self) -> BuildProgress {
        let p = lock(&self.progress).clone();
        BuildProgress {
            id: self.id.clone(),
            platform: self.platform,
            project_dir: self.project_dir.display().to_string(),
            phase: p.phase,
            steps: p.steps,
            errors: p.errors,
            warnings: p.warnings,
            elapsed_ms: self.started.elapsed().as_millis() as u64,
            session: self.session.clone(),
        }
    }

    /// Records what the build has told.
    pub fn update(&self, f: impl FnOnce(&mut Progress)) {
        f(&mut lock(&self.progress));
    }

    /// Resolves once the build is asked to stop.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }
}

/// A registered build; it leaves the registry when this is dropped.
pub struct Begun {
    builds: Arc<Builds>,
    entry: Arc<Running>,
}

impl std::ops::Deref for Begun {
    type Target = Running;
    fn deref(&self) -> &Running {
        &self.entry
    }
}

impl Drop for Begun {
    fn drop(&mut self) {
        lock(&self.builds.running).retain(|r| !Arc::ptr_eq(r, &self.entry));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_build_per_project_and_the_entry_leaves_with_its_guard() {
        let builds = Arc::new(Builds::default());
        let dir = Path::new("/work/app");
        let first = builds.begin(dir, Platform::Android, None).unwrap();
        let again = builds.begin(dir, Platform::Android, None).err().unwrap();
        assert_eq!(again.code, ErrorCode::Busy);
        assert!(again.message.contains(&first.id), "{}", again.message);
        let other = builds
            .begin(Path::new("/work/other"), Platform::Ios, None)
            .unwrap();
        assert_eq!(builds.list(|_| true).len(), 2);
        drop(first);
        let ids: Vec<String> = builds.list(|_| true).into_iter().map(|b| b.id).collect();
        assert_eq!(ids, vec![other.id.clone()]);
        assert!(builds.begin(dir, Platform::Android, None).is_ok());
    }

    #[tokio::test]
    async fn cancelling_reaches_the_build_and_only_a_visible_one() {
        let builds = Arc::new(Builds::default());
        let b = builds
            .begin(Path::new("/p"), Platform::Android, Some("ses-a".into()))
            .unwrap();
        let theirs = |r: &Running| r.session.as_deref() == Some("ses-b");
        assert_eq!(
            builds.cancel(&b.id, theirs).unwrap_err().code,
            ErrorCode::NotFound
        );
        builds.cancel(&b.id, |_| true).unwrap();
        // Resolves at once: the token is cancelled.
        b.cancelled().await;
        assert_eq!(
            builds
                .cancel("bld-000000000000", |_| true)
                .unwrap_err()
                .code,
            ErrorCode::NotFound
        );
    }
}
