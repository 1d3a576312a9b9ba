//! Fault knobs, settable at start and at run time (in process through
//! [`super::RunningDevice`], from other processes through the control socket):
//! - `latency`: a delay before every service request (each adb command) is served;
//! - `fail-dumps N`: the next N `uiautomator dump` calls print
//!   `ERROR: could not get idle state.` to stderr, write no file and exit 0, as AOSP's
//!   DumpCommand does;
//! - `drop`: close every adb connection now (the adb server reconnects on its own);
//! - `offline on|off`: drop connections and leave new handshakes unanswered, so the adb server
//!   lists the device as `offline` until it is switched back on.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

#[derive(Debug, Default)]
pub struct Faults {
    latency_ms: AtomicU64,
    fail_dumps: AtomicU32,
}

impl Faults {
    pub fn new(latency_ms: u64, fail_dumps: u32) -> Self {
        Faults {
            latency_ms: AtomicU64::new(latency_ms),
            fail_dumps: AtomicU32::new(fail_dumps),
        }
    }

    pub fn latency(&self) -> Duration {
        Duration::from_millis(self.latency_ms.load(Ordering::Relaxed))
    }

    pub fn set_latency_ms(&self, ms: u64) {
        self.latency_ms.store(ms, Ordering::Relaxed);
    }

    pub fn set_fail_dumps(&self, n: u32) {
        self.fail_dumps.store(n, Ordering::Relaxed);
    }

    pub fn fail_dumps_left(&self) -> u32 {
        self.fail_dumps.load(Ordering::Relaxed)
    }

    /// Consumes one pending dump failure; true if this dump must fail.
    pub fn take_dump_failure(&self) -> bool {
        self.fail_dumps
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }
}
