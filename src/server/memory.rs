//! The server's heap under glibc: one malloc arena ([`limit_malloc_arenas`]), and the memory
//! freed after a burst of requests given back to the system once the server goes quiet
//! ([`Quiet`]: no request has started for [`QUIET`]; at most once per [`TRIM_GAP`], so a
//! client that polls now and then costs a trim only that often). Measured with `scripts/bench_load.py`
//! (64 clients for 30 s against `serve --demo`, release): 30 s after the load the resident
//! size was 55–57 MiB with two arenas and a trim after each burst of image work, of which
//! 19 MiB was the second arena's free top, which `malloc_trim` never returns (it trims only
//! the main arena's top), and 7 MiB the OpenAPI document Swagger UI kept; with one arena, the
//! quiet trim and the document no longer kept, 27.7–27.9 MiB.
//!
//! Elsewhere (macOS, Windows, musl) both are no-ops: the system allocator keeps its own ways.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use tokio::sync::Notify;

/// How long no request may start before the freed memory is given back.
pub const QUIET: Duration = Duration::from_secs(1);

/// The shortest time between two trims.
pub const TRIM_GAP: Duration = Duration::from_secs(10);

/// The server's requests, as [`note_request`] counts them.
static SERVER: LazyLock<Arc<Quiet>> = LazyLock::new(|| Arc::new(Quiet::default()));

/// Holds glibc to one malloc arena (it makes up to eight per core, one per busy thread). Each
/// arena keeps what is freed into it, and `malloc_trim` gives back the top of the main arena
/// only, so with more than one the resident size stayed near its peak after a load. One arena
/// also cost less CPU under the load bench (7.5–9.0 ms per answer against 11.3–11.9 with two).
/// Call it before any thread is started (the server does, first thing).
pub fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's tuning; no thread allocates concurrently yet.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Returns freed heap memory to the system (glibc keeps it otherwise, so the resident size
/// stays at its peak long after a burst).
fn give_memory_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator's own arenas.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Counts a request the server started (the listener calls it for each).
pub fn note_request() {
    SERVER.note();
}

/// Gives freed memory back each time the server goes quiet, for as long as the runtime lives
/// (once after the start too: building the server leaves freed memory behind).
pub fn spawn_quiet_trim() {
    tokio::spawn(SERVER.clone().trim_when_quiet(|| {
        // malloc_trim walks the heap: off the async workers.
        drop(tokio::task::spawn_blocking(give_memory_back));
    }));
}

/// Requests started, and a wake-up for the one waiting for the next.
#[derive(Default)]
pub struct Quiet {
    started: AtomicU64,
    woken: Notify,
}

impl Quiet {
    /// A request started.
    pub fn note(&self) {
        self.started.fetch_add(1, Ordering::Relaxed);
        self.woken.notify_one();
    }

    /// Calls `trim` once no request has started for [`QUIET`], then waits for the next
    /// request and for [`TRIM_GAP`] after the trim, and so on.
    pub async fn trim_when_quiet(self: Arc<Self>, trim: impl Fn()) {
        loop {
            loop {
                let seen = self.started.load(Ordering::Relaxed);
                tokio::time::sleep(QUIET).await;
                if self.started.load(Ordering::Relaxed) == seen {
                    break;
                }
            }
            trim();
            let trimmed = tokio::time::Instant::now();
            // A request noted since the trim left a permit: the wait ends at once.
            self.woken.notified().await;
            tokio::time::sleep_until(trimmed + TRIM_GAP).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    const MS: Duration = Duration::from_millis(1);

    /// Lets the trimming task run what is due.
    async fn pass(d: Duration) {
        tokio::time::sleep(d).await;
        for _ in 0..4 {
            tokio::task::yield_now().await;
        }
    }

    fn trimming() -> (Arc<Quiet>, Arc<AtomicUsize>) {
        let quiet = Arc::new(Quiet::default());
        let trims = Arc::new(AtomicUsize::new(0));
        let counted = trims.clone();
        tokio::spawn(quiet.clone().trim_when_quiet(move || {
            counted.fetch_add(1, Ordering::SeqCst);
        }));
        (quiet, trims)
    }

    #[tokio::test(start_paused = true)]
    async fn memory_is_given_back_once_per_quiet_spell() {
        let (quiet, trims) = trimming();
        pass(QUIET + MS).await;
        assert_eq!(trims.load(Ordering::SeqCst), 1, "once after the start");
        pass(TRIM_GAP * 3).await;
        assert_eq!(trims.load(Ordering::SeqCst), 1, "nothing new to give back");
        quiet.note();
        pass(QUIET + MS).await;
        assert_eq!(trims.load(Ordering::SeqCst), 2, "quiet again");
    }

    #[tokio::test(start_paused = true)]
    async fn no_trim_while_requests_keep_starting() {
        let (quiet, trims) = trimming();
        pass(QUIET + MS).await;
        for _ in 0..100 {
            quiet.note();
            pass(QUIET / 2).await;
        }
        assert_eq!(trims.load(Ordering::SeqCst), 1, "a load is never trimmed");
        pass(QUIET * 2 + MS).await;
        assert_eq!(trims.load(Ordering::SeqCst), 2, "trimmed once it ends");
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_polling_now_and_then_costs_a_trim_per_gap_only() {
        let (quiet, trims) = trimming();
        pass(QUIET + MS).await;
        // A poll every 2 s for a minute: quiet between polls, trimmed once per TRIM_GAP.
        for _ in 0..30 {
            quiet.note();
            pass(Duration::from_secs(2)).await;
        }
        let n = trims.load(Ordering::SeqCst);
        assert!((5..=7).contains(&n), "{n} trims in 61 s");
    }
}
