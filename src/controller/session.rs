//! Per-device state: one command lock (uiautomator is a global lock on a device, and an agent's
//! tap must not land in the middle of a dump), the last snapshot with its refs, and whether an
//! action has touched the screen since (then the snapshot is no longer "fresh").

use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::snapshot::Snapshot;

/// State kept for one device.
#[derive(Default)]
pub struct DeviceSession {
    /// Held while any command runs on the device.
    pub commands: Arc<tokio::sync::Mutex<()>>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    last: Option<Arc<Snapshot>>,
    /// Ids and fingerprints of the latest snapshots, newest last: a ref read from an older
    /// snapshot of the same screen (a client that got `304 Not Modified`) is still good.
    recent: std::collections::VecDeque<(String, String)>,
    /// An action ran after `last` was taken.
    touched: bool,
    seq: u64,
}

/// How many snapshot ids a session remembers the screens of.
const RECENT: usize = 32;

impl DeviceSession {
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
        self.state
            .lock()
            .ok()
            .and_then(|s| (!s.touched).then(|| s.last.clone()).flatten())
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

    pub fn store(&self, snapshot: Arc<Snapshot>) {
        if let Ok(mut s) = self.state.lock() {
            s.recent
                .push_back((snapshot.id.clone(), snapshot.screen.fingerprint.clone()));
            while s.recent.len() > RECENT {
                s.recent.pop_front();
            }
            s.last = Some(snapshot);
            s.touched = false;
        }
    }

    /// An action may have changed the screen.
    pub fn touch(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.touched = true;
        }
    }
}
