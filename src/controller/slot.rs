//! What one caller keeps about one device (a [`DeviceSlot`]): the device's command lock, shared
//! by every caller (uiautomator is a global lock on a device, and an agent's tap must not land
//! in the middle of a dump), and the caller's own last snapshot with its refs, so one session's
//! reads never make another's refs stale. Whether an action has touched the screen since a
//! snapshot (then it is no longer "fresh") is counted per device: any caller's action counts.
//!
//! The lock is taken with [`DeviceSlot::hold`]. A batch holds it across its steps with
//! [`DeviceSlot::holding`]: holds taken by the same task inside it re-enter instead of waiting
//! for themselves (a tokio task-local names the locks the task holds).

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::OwnedMutexGuard;

use super::snapshot::Snapshot;

/// What every caller of one device shares.
#[derive(Default)]
pub struct DeviceShared {
    /// Held while any command runs on the device.
    commands: Arc<tokio::sync::Mutex<()>>,
    /// Counts the actions that may have changed the screen.
    touches: AtomicU64,
}

/// What one caller keeps about one device.
#[derive(Default)]
pub struct DeviceSlot {
    device: Arc<DeviceShared>,
    state: Mutex<State>,
}

tokio::task_local! {
    /// The command locks the running task holds across several operations.
    static HELD: Vec<usize>;
}

/// Whether the running task holds a device's command lock (a batch or a flow runs its steps):
/// the steps' failures are the batch's or the flow's to report.
pub fn inside_hold() -> bool {
    HELD.try_with(|held| !held.is_empty()).unwrap_or(false)
}

/// A hold of a device's command lock: the lock itself, or the task's own outer hold.
pub enum Hold {
    Owned(OwnedMutexGuard<()>),
    Reentered,
}

impl DeviceSlot {
    /// A caller's slot of the device `shared` describes.
    pub fn of(shared: Arc<DeviceShared>) -> Self {
        DeviceSlot {
            device: shared,
            state: Mutex::default(),
        }
    }

    fn key(&self) -> usize {
        Arc::as_ptr(&self.device.commands) as usize
    }

    /// Takes the command lock, or re-enters it when the running task holds it already.
    pub async fn hold(self: &Arc<Self>) -> Hold {
        let mine = HELD
            .try_with(|held| held.contains(&self.key()))
            .unwrap_or(false);
        if mine {
            return Hold::Reentered;
        }
        Hold::Owned(self.device.commands.clone().lock_owned().await)
    }

    /// Runs `work` holding the command lock throughout: no other request's command runs on
    /// the device until it ends, and the holds `work` takes re-enter.
    pub async fn holding<F: Future>(self: &Arc<Self>, work: F) -> F::Output {
        let _hold = self.hold().await;
        let mut held = HELD.try_with(Clone::clone).unwrap_or_default();
        held.push(self.key());
        HELD.scope(held, work).await
    }
}

#[derive(Default)]
struct State {
    last: Option<Arc<Snapshot>>,
    /// Ids and fingerprints of the latest snapshots, newest last: a ref read from an older
    /// snapshot of the same screen (a client that got `304 Not Modified`) is still good.
    recent: std::collections::VecDeque<(String, String)>,
    /// The device's touch count when `last` was taken.
    touches: u64,
    seq: u64,
}

/// How many snapshot ids a slot remembers the screens of.
const RECENT: usize = 32;

impl DeviceSlot {
    /// The fingerprint of a recent snapshot, by id.
    pub fn fingerprint_of(&self, snapshot_id: &str) -> Option<String> {
        let s = self.state.lock().ok()?;
        s.recent
            .iter()
            .rev()
            .find(|(id, _)| id == snapshot_id)
            .map(|(_, fp)| fp.clone())
    }

    /// The last snapshot, fresh or not.
    pub fn last(&self) -> Option<Arc<Snapshot>> {
        self.state.lock().ok().and_then(|s| s.last.clone())
    }

    /// The last snapshot if no action has run since it was taken.
    pub fn fresh(&self) -> Option<Arc<Snapshot>> {
        let touches = self.device.touches.load(Ordering::Acquire);
        self.state
            .lock()
            .ok()
            .and_then(|s| (s.touches == touches).then(|| s.last.clone()).flatten())
    }

    /// A snapshot that completed after `since` (shared by requests that waited for it).
    pub fn completed_after(&self, since: Instant) -> Option<Arc<Snapshot>> {
        self.last().filter(|s| s.completed > since)
    }

    /// Next snapshot sequence number.
    pub fn next_seq(&self) -> u64 {
        match self.state.lock() {
            Ok(mut s) => {
                s.seq += 1;
                s.seq
            }
            Err(_) => 0,
        }
    }

    /// Keeps `snapshot` as the caller's last one.
    pub fn store(&self, snapshot: Arc<Snapshot>) {
        let touches = self.device.touches.load(Ordering::Acquire);
        if let Ok(mut s) = self.state.lock() {
            s.recent
                .push_back((snapshot.id.clone(), snapshot.screen.fingerprint.clone()));
            while s.recent.len() > RECENT {
                s.recent.pop_front();
            }
            s.last = Some(snapshot);
            s.touches = touches;
        }
    }

    /// An action may have changed the screen: no caller's last snapshot is fresh any more.
    pub fn touch(&self) {
        self.device.touches.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn holds_inside_a_holding_task_re_enter_and_others_wait() {
        let session = Arc::new(DeviceSlot::default());
        let inner = session.clone();
        let outer = session.clone();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let batch = tokio::spawn(async move {
            outer
                .holding(async move {
                    // Would wait for itself forever without re-entry.
                    assert!(matches!(inner.hold().await, Hold::Reentered));
                    rx.await.ok();
                })
                .await
        });
        // Another task waits while the batch holds the lock.
        tokio::task::yield_now().await;
        let other = session.clone();
        let waiting = tokio::spawn(async move { matches!(other.hold().await, Hold::Owned(_)) });
        let early = tokio::time::timeout(Duration::from_millis(50), async {
            while !waiting.is_finished() {
                tokio::task::yield_now().await;
            }
        })
        .await;
        assert!(
            early.is_err(),
            "another request ran inside the batch's hold"
        );
        tx.send(()).unwrap();
        batch.await.unwrap();
        assert!(waiting.await.unwrap(), "the lock is free after the batch");
    }
}
