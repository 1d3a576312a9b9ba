//! A process of this host, read where it runs: its CPU time, resident set, physical footprint
//! and threads, on the host's monotonic clock. An iOS Simulator's app is such a process of the
//! Mac. `sysinfo` reads the process (macOS: `proc_pidinfo`; Linux: `/proc`); on macOS `libc`
//! adds what sysinfo leaves out there, the footprint (`proc_pid_rusage`) and the thread count
//! (`proc_pidinfo`). Turning a read into a platform-free sample is pure ([`sample_of`]).
//! Windows has no reader: nothing mobilectl drives runs there as a process of the host.

use std::sync::OnceLock;
use std::time::Instant;

use crate::error::Result;
use crate::perf::{MeasuredOn, MemoryReading, MemorySource, PerfSample, SampleAsk};

/// What one read of a host process found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostProcess {
    /// The process.
    pub pid: u32,
    /// The host's monotonic clock when it was read, s ([`clock_s`]).
    pub clock_s: f64,
    /// CPU time it has used since it started (user + system, all its threads), ms.
    pub cpu_time_ms: u64,
    /// Its resident set, bytes.
    pub resident_bytes: u64,
    /// The physical footprint the system charges it for, bytes (macOS only).
    pub footprint_bytes: Option<u64>,
    /// Its threads.
    pub threads: Option<u32>,
}

/// The host's monotonic clock, in seconds from its first reading in this server: CPU windows
/// are differences of it, so where it starts does not matter.
pub fn clock_s() -> f64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// A read of `process` as a platform-free sample: CPU time in seconds, memory (when `ask`
/// names it) in KiB from the resident set and footprint, no frames (a host process has no
/// frame statistics of its platform's).
pub fn sample_of(process: &HostProcess, ask: SampleAsk) -> PerfSample {
    let memory = ask.memory.then(|| MemoryReading {
        resident_kib: Some(process.resident_bytes / 1024),
        footprint_kib: process.footprint_bytes.map(|b| b / 1024),
        ..MemoryReading::new(MemorySource::Process)
    });
    PerfSample {
        pid: process.pid,
        clock_s: Some(process.clock_s),
        cpu_time_s: Some(process.cpu_time_ms as f64 / 1000.0),
        threads: process.threads,
        memory,
        frames: None,
        measured_on: MeasuredOn::Host,
    }
}

/// Reads the host process `pid` (blocking, a few system calls or `/proc` files). `None` when
/// there is no such process, or it has exited and waits to be reaped.
#[cfg(unix)]
pub fn read(pid: u32) -> Result<Option<HostProcess>> {
    use sysinfo::{Pid, ProcessRefreshKind, ProcessStatus, ProcessesToUpdate, System};

    let id = Pid::from_u32(pid);
    let mut system = System::new();
    system.refresh_processes_specifics(
        ProcessesToUpdate::Some(&[id]),
        true,
        ProcessRefreshKind::nothing()
            .with_cpu()
            .with_memory()
            .with_tasks(),
    );
    let clock_s = clock_s();
    let Some(process) = system.process(id) else {
        return Ok(None);
    };
    if matches!(
        process.status(),
        ProcessStatus::Zombie | ProcessStatus::Dead
    ) {
        return Ok(None);
    }
    Ok(Some(HostProcess {
        pid,
        clock_s,
        cpu_time_ms: process.accumulated_cpu_time(),
        resident_bytes: process.memory(),
        footprint_bytes: os::footprint_bytes(pid),
        threads: os::threads(pid, process.tasks().map(|t| t.len())),
    }))
}

/// Reads the host process `pid`: not on this host (`501 UNSUPPORTED_ON_PLATFORM`).
#[cfg(not(unix))]
pub fn read(_pid: u32) -> Result<Option<HostProcess>> {
    Err(crate::backend::unsupported(
        "reading a process of the host",
        std::env::consts::OS,
    ))
}

/// What sysinfo does not give on macOS, from the kernel's process calls.
#[cfg(target_os = "macos")]
mod os {
    use std::mem::{size_of, MaybeUninit};

    /// `proc_pid_rusage`'s `ri_phys_footprint`: what Activity Monitor and iOS's memory limit
    /// count.
    pub fn footprint_bytes(pid: u32) -> Option<u64> {
        let pid = libc::c_int::try_from(pid).ok()?;
        let mut info = MaybeUninit::<libc::rusage_info_v2>::zeroed();
        // SAFETY: with the flavor RUSAGE_INFO_V2 the call writes one `rusage_info_v2`, the type
        // `info` has room for; the pointer is valid for the call.
        let rc = unsafe {
            libc::proc_pid_rusage(
                pid,
                libc::RUSAGE_INFO_V2,
                info.as_mut_ptr().cast::<libc::rusage_info_t>(),
            )
        };
        if rc != 0 {
            return None;
        }
        // SAFETY: the call succeeded, so it filled the struct (zeroed before, in any case).
        Some(unsafe { info.assume_init() }.ri_phys_footprint)
    }

    /// `proc_pidinfo(PROC_PIDTASKINFO)`'s thread count (sysinfo lists threads on Linux only).
    pub fn threads(pid: u32, _linux_tasks: Option<usize>) -> Option<u32> {
        let pid = libc::c_int::try_from(pid).ok()?;
        let size = libc::c_int::try_from(size_of::<libc::proc_taskinfo>()).ok()?;
        let mut info = MaybeUninit::<libc::proc_taskinfo>::zeroed();
        // SAFETY: the call writes at most `size` bytes, the size of `info`, through a pointer
        // valid for the call.
        let written = unsafe {
            libc::proc_pidinfo(
                pid,
                libc::PROC_PIDTASKINFO,
                0,
                info.as_mut_ptr().cast::<libc::c_void>(),
                size,
            )
        };
        if written != size {
            return None;
        }
        // SAFETY: the call wrote the whole struct (it returned its size).
        u32::try_from(unsafe { info.assume_init() }.pti_threadnum).ok()
    }
}

/// Linux and the other Unixes: no footprint; threads from sysinfo's tasks.
#[cfg(all(unix, not(target_os = "macos")))]
mod os {
    /// No such figure outside macOS.
    pub fn footprint_bytes(_pid: u32) -> Option<u64> {
        None
    }

    /// The threads of a process whose other tasks sysinfo listed: its tasks (`/proc/PID/task`)
    /// are its threads, and sysinfo leaves the main one, whose id is the pid, out of them.
    pub fn threads(_pid: u32, tasks: Option<usize>) -> Option<u32> {
        tasks.and_then(|n| u32::try_from(n + 1).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_of(footprint: Option<u64>) -> HostProcess {
        HostProcess {
            pid: 4242,
            clock_s: 12.5,
            cpu_time_ms: 1_250,
            resident_bytes: 200 * 1024 * 1024 + 512,
            footprint_bytes: footprint,
            threads: Some(9),
        }
    }

    #[test]
    fn a_read_is_a_host_sample_in_seconds_and_kib() {
        let s = sample_of(&read_of(Some(150 * 1024 * 1024)), SampleAsk::FULL);
        assert_eq!(
            (s.pid, s.clock_s, s.cpu_time_s),
            (4242, Some(12.5), Some(1.25))
        );
        assert_eq!((s.threads, s.frames.is_none()), (Some(9), true));
        assert_eq!(s.measured_on, MeasuredOn::Host);
        let m = s.memory.expect("memory asked");
        assert_eq!(m.source, MemorySource::Process);
        assert_eq!(m.resident_kib, Some(200 * 1024));
        assert_eq!(m.footprint_kib, Some(150 * 1024));
        assert_eq!(m.total_kib(), Some(150 * 1024));
        assert_eq!(m.pss_total_kib, None);
    }

    #[test]
    fn memory_only_when_asked_and_the_footprint_only_where_given() {
        assert!(sample_of(&read_of(None), SampleAsk::CPU).memory.is_none());
        let m = sample_of(&read_of(None), SampleAsk::FULL).memory.unwrap();
        assert_eq!((m.footprint_kib, m.total_kib()), (None, Some(200 * 1024)));
    }

    #[test]
    fn the_clock_goes_forward() {
        let a = clock_s();
        let b = clock_s();
        assert!(b >= a && a >= 0.0);
    }

    /// This test's own process, read as any other: it runs, uses CPU, holds memory and has at
    /// least the thread running the test.
    #[cfg(unix)]
    #[test]
    fn reads_this_process() {
        let me = read(std::process::id())
            .unwrap()
            .expect("this process runs");
        assert_eq!(me.pid, std::process::id());
        assert!(me.resident_bytes > 1024 * 1024, "{me:?}");
        assert!(me.threads.is_some_and(|t| t >= 1), "{me:?}");
        // CPU time grows as the process works.
        let spin = Instant::now();
        let mut x = 0u64;
        while spin.elapsed().as_millis() < 100 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let later = read(std::process::id()).unwrap().unwrap();
        assert!(later.cpu_time_ms > me.cpu_time_ms, "{me:?} then {later:?}");
        assert!(later.clock_s > me.clock_s);
    }

    /// A child of one thread reads as one thread (sysinfo lists the other threads only), and
    /// once it has exited and been reaped, as no process.
    #[cfg(unix)]
    #[test]
    fn a_single_threaded_child_then_none_once_it_is_gone() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let read_child = read(child.id()).unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        let child_read = read_child.expect("the child runs");
        assert_eq!(child_read.threads, Some(1), "{child_read:?}");
        assert!(child_read.resident_bytes > 0, "{child_read:?}");
        assert_eq!(read(child.id()).unwrap(), None);
    }

    #[cfg(unix)]
    #[test]
    fn no_process_reads_as_none() {
        // Pids are at most 2^22 on Linux and 99999 on macOS.
        assert_eq!(read(u32::MAX / 2).unwrap(), None);
    }
}
