//! A device listing kept and refreshed in the background, for a backend that cannot follow its
//! devices as they change (simctl has no device stream). [`PolledListing::list`] answers the
//! kept listing while it is fresh; [`PolledListing::generation`] — which the controller asks on
//! every request — answers at once and, when the listing is older than [`REFRESH_AFTER`],
//! starts one refresh in the background; the generation moves only when the refreshed listing
//! differs. So after any idle time a request resolves its device from memory; a simulator
//! booted meanwhile shows up once the refresh is in (at once for a request that names it: the
//! controller lists again for a device it does not know).

use std::sync::{Arc, Mutex};
use std::time::Duration;

// tokio's clock: the same as std's, but tests can pause and advance it.
use tokio::time::Instant;

use futures_util::future::BoxFuture;

use crate::device::Device;
use crate::error::Result;

/// Age after which a kept listing is refreshed.
pub const REFRESH_AFTER: Duration = Duration::from_secs(2);

/// See the module's doc: a kept `Result<T>` (by default the devices). Cheap to clone (clones
/// share the listing).
#[derive(Debug)]
pub struct PolledListing<T = Vec<Device>> {
    state: Arc<Mutex<State<T>>>,
}

impl<T> Clone for PolledListing<T> {
    fn clone(&self) -> Self {
        PolledListing {
            state: self.state.clone(),
        }
    }
}

impl<T> Default for PolledListing<T> {
    fn default() -> Self {
        PolledListing {
            state: Arc::new(Mutex::new(State {
                kept: None,
                generation: 0,
                refreshing: false,
            })),
        }
    }
}

#[derive(Debug)]
struct State<T> {
    kept: Option<(Instant, Result<T>)>,
    generation: u64,
    refreshing: bool,
}

impl<T: PartialEq> State<T> {
    fn store(&mut self, listing: Result<T>) {
        let same = match (&self.kept, &listing) {
            (Some((_, Ok(a))), Ok(b)) => a == b,
            (Some((_, Err(a))), Err(b)) => a.code == b.code,
            _ => false,
        };
        if !same {
            self.generation += 1;
        }
        self.kept = Some((Instant::now(), listing));
    }
}

impl<T: Clone + PartialEq + Send + 'static> PolledListing<T> {
    /// The kept listing's generation (`None` before the first listing); starts a refresh with
    /// `lister` in the background when it is stale and none runs.
    pub fn generation(
        &self,
        lister: impl FnOnce() -> BoxFuture<'static, Result<T>>,
    ) -> Option<u64> {
        let mut st = self.state.lock().ok()?;
        let at = st.kept.as_ref()?.0;
        let runtime = tokio::runtime::Handle::try_current();
        if at.elapsed() >= REFRESH_AFTER && !st.refreshing {
            if let Ok(runtime) = runtime {
                st.refreshing = true;
                let listing = lister();
                let state = self.state.clone();
                runtime.spawn(async move {
                    let fresh = listing.await;
                    if let Ok(mut st) = state.lock() {
                        st.store(fresh);
                        st.refreshing = false;
                    }
                });
            }
        }
        Some(st.generation)
    }

    /// The kept listing while fresh, else a new one from `lister` (kept).
    pub async fn list(&self, lister: impl FnOnce() -> BoxFuture<'static, Result<T>>) -> Result<T> {
        let fresh = self.state.lock().ok().and_then(|st| {
            st.kept
                .as_ref()
                .filter(|(at, _)| at.elapsed() < REFRESH_AFTER)
                .map(|(_, l)| l.clone())
        });
        if let Some(kept) = fresh {
            return kept;
        }
        let listing = lister().await;
        if let Ok(mut st) = self.state.lock() {
            st.store(listing.clone());
        }
        listing
    }

    /// Forgets the kept listing (after this backend booted or shut a device down).
    pub fn forget(&self) {
        if let Ok(mut st) = self.state.lock() {
            st.kept = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{DeviceKind, DeviceState, Platform};
    use std::sync::atomic::{AtomicU32, Ordering};

    fn sim(state: DeviceState) -> Vec<Device> {
        vec![Device {
            udid: "A".into(),
            name: "iPhone".into(),
            platform: Platform::Ios,
            kind: DeviceKind::Simulator,
            state,
            os_version: None,
            api_level: None,
            model: None,
            backend: "ios",
            capabilities: Vec::new(),
        }]
    }

    #[tokio::test(start_paused = true)]
    async fn kept_while_fresh_refreshed_behind_and_the_generation_moves_on_change() {
        let calls = Arc::new(AtomicU32::new(0));
        let lister = |state: DeviceState| {
            let calls = calls.clone();
            move || -> BoxFuture<'static, Result<Vec<Device>>> {
                calls.fetch_add(1, Ordering::SeqCst);
                Box::pin(async move { Ok(sim(state)) })
            }
        };
        let p: PolledListing = PolledListing::default();
        assert_eq!(p.generation(lister(DeviceState::Booted)), None);
        assert_eq!(
            p.list(lister(DeviceState::Booted)).await.unwrap()[0].state,
            DeviceState::Booted
        );
        let g = p.generation(lister(DeviceState::Booted)).unwrap();
        // Fresh: no new listing.
        p.list(lister(DeviceState::Booted)).await.unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // Stale: the generation answers at once and a refresh runs behind it.
        tokio::time::advance(REFRESH_AFTER).await;
        assert_eq!(p.generation(lister(DeviceState::Shutdown)), Some(g));
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        let moved = p.generation(lister(DeviceState::Shutdown)).unwrap();
        assert_ne!(moved, g, "the listing changed");
        assert_eq!(
            p.list(lister(DeviceState::Shutdown)).await.unwrap()[0].state,
            DeviceState::Shutdown
        );
    }
}
