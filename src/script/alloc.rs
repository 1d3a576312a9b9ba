//! The process's allocator: the system's, counted (the crate `cap`), so that a script worker
//! can bound what one evaluation allocates ([`Budget`]). Outside a worker no limit is ever
//! set and the count is all it costs. An allocation past the limit fails, and Rust ends the
//! process (`memory allocation of N bytes failed`), which the server reports as the script
//! going over its budget.

use std::alloc::System;

use cap::Cap;

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// The allocator's limit, as the script worker sets it around each evaluation.
pub struct Budget;

impl flow_script::worker::MemoryLimit for Budget {
    fn allocated(&self) -> u64 {
        ALLOCATOR.allocated() as u64
    }

    fn set_limit(&self, bytes: Option<u64>) {
        let limit = bytes
            .map(|b| usize::try_from(b).unwrap_or(usize::MAX))
            .unwrap_or(usize::MAX);
        // Only a limit below what is allocated is refused: then the evaluation starts over it
        // and its first allocation fails, as it should.
        let _ = ALLOCATOR.set_limit(limit);
    }
}
