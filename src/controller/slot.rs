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
    /// The latest screenshot the server took for this caller.
    shot: Option<KeptShot>,
    /// The latest screenshot taken before an action that preceded `shot`.
    shot_before: Option<KeptShot>,
}

/// A screenshot the server took for a caller (any screenshot route, or a diff), kept so that a
/// diff can compare with "the screen before the last action" without a screencap per action.
#[derive(Clone)]
pub struct KeptShot {
    /// The device's PNG.
    pub png: Arc<Vec<u8>>,
    /// RFC 3339 time it was taken.
    pub taken_at: String,
    /// When it was taken (for its age).
    pub at: Instant,
    /// The device's touch count when it was taken.
    touches: u64,
}

/// The screenshot a diff with `previous` compares with, and whether an action followed it.
pub struct PreviousShot {
    /// The screenshot.
    pub shot: KeptShot,
    /// False when no kept screenshot precedes the latest action (none was taken before it,
    /// or nothing has acted on the device yet): then it is the latest one.
    pub before_last_action: bool,
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

    /// Keeps `png` as the caller's latest screenshot of the device. The one it replaces is
    /// remembered as the latest before an action when an action came between them.
    pub fn keep_shot(&self, png: Arc<Vec<u8>>) {
        let touches = self.device.touches.load(Ordering::Acquire);
        let shot = KeptShot {
            png,
            taken_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            at: Instant::now(),
            touches,
        };
        if let Ok(mut s) = self.state.lock() {
            if let Some(old) = s.shot.take() {
                if old.touches < touches {
                    s.shot_before = Some(old);
                }
            }
            s.shot = Some(shot);
        }
    }

    /// The latest kept screenshot taken before the latest action on the device; when none
    /// was, the latest kept one (see [`PreviousShot::before_last_action`]); `None` when the
    /// server took no screenshot for this caller.
    pub fn previous_shot(&self) -> Option<PreviousShot> {
        let touches = self.device.touches.load(Ordering::Acquire);
        let s = self.state.lock().ok()?;
        let latest = s.shot.clone()?;
        if latest.touches < touches {
            return Some(PreviousShot {
                shot: latest,
                before_last_action: true,
            });
        }
        Some(match s.shot_before.clone() {
            Some(before) => PreviousShot {
                shot: before,
                before_last_action: true,
            },
            None => PreviousShot {
                shot: latest,
                before_last_action: false,
            },
        })
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

    #[test]
    fn previous_is_the_latest_screenshot_before_the_latest_action() {
        let slot = DeviceSlot::default();
        let png = |b: u8| Arc::new(vec![b]);
        let prev = |s: &DeviceSlot| {
            s.previous_shot()
                .map(|p| (p.shot.png[0], p.before_last_action))
        };
        assert_eq!(prev(&slot), None);
        // Nothing acted yet: the latest screenshot, said to be so.
        slot.keep_shot(png(1));
        assert_eq!(prev(&slot), Some((1, false)));
        slot.touch();
        assert_eq!(prev(&slot), Some((1, true)));
        // A screenshot after the action (a diff's own) does not replace it…
        slot.keep_shot(png(2));
        assert_eq!(prev(&slot), Some((1, true)));
        slot.keep_shot(png(3));
        assert_eq!(prev(&slot), Some((1, true)));
        // …until the next action: then the latest before it.
        slot.touch();
        assert_eq!(prev(&slot), Some((3, true)));
        slot.keep_shot(png(4));
        assert_eq!(prev(&slot), Some((3, true)));
        // Another caller's slot of the same device keeps its own screenshots, and sees the
        // device's actions.
        let other = DeviceSlot::of(slot.device.clone());
        assert_eq!(prev(&other), None);
        other.keep_shot(png(9));
        assert_eq!(prev(&other), Some((9, false)));
        slot.touch();
        assert_eq!(prev(&other), Some((9, true)));
    }

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
