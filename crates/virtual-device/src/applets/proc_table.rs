//! The device's processes as `/proc` and `dumpsys` show them: for each, its pid, parent,
//! uid, name, start, threads (id, name, nice, CPU time) and memory. The app's come from its
//! performance model ([`crate::state::perf`]); the system's own processes (init, zygote64,
//! system_server, the launcher, the keyboard) started during boot and tick slowly with the
//! device clock.

use crate::state::perf::{comm, Loaded, BOOT_NS};
use crate::state::{self as pids, DeviceState, IME_PKG, LAUNCHER_PKG};

use super::meminfo::Table;

const MS: u64 = 1_000_000;

/// One thread of a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadView {
    pub tid: u32,
    pub comm: String,
    pub nice: i32,
    pub started_ns: u64,
    pub user_ns: u64,
    pub sys_ns: u64,
}

/// One process.
#[derive(Debug, Clone)]
pub struct ProcView {
    pub pid: u32,
    pub ppid: u32,
    pub uid: u32,
    /// Its name, as `ps` and `cmdline` show it.
    pub name: String,
    pub started_ns: u64,
    /// Its main thread first.
    pub threads: Vec<ThreadView>,
    /// Its main thread is busy (the app's blocked main thread).
    pub running: bool,
    /// Its memory, as `dumpsys meminfo` itemises it.
    pub memory: Table,
    /// Whether it is an app with windows (`dumpsys gfxinfo` answers for it).
    pub app: bool,
}

/// A system process: pid, parent, uid, name, kernel name, start (ms after boot), CPU at
/// start (ms), CPU share while up (per mille of a core), memory (% of an app's), threads
/// (tid, name, nice) after the main one.
struct System {
    pid: u32,
    ppid: u32,
    uid: u32,
    name: &'static str,
    comm: Option<&'static str>,
    start_ms: u64,
    boot_cpu_ms: u64,
    per_mille: u64,
    memory_pct: u64,
    threads: &'static [(u32, &'static str, i32)],
}

const SYSTEM: [System; 5] = [
    System {
        pid: pids::INIT_PID,
        ppid: 0,
        uid: 0,
        name: "init",
        comm: None,
        start_ms: 40,
        boot_cpu_ms: 900,
        per_mille: 1,
        memory_pct: 8,
        threads: &[],
    },
    System {
        pid: pids::ZYGOTE_PID,
        ppid: pids::INIT_PID,
        uid: 0,
        name: "zygote64",
        comm: Some("main"),
        start_ms: 3_100,
        boot_cpu_ms: 2_400,
        per_mille: 0,
        memory_pct: 60,
        threads: &[],
    },
    System {
        pid: pids::SYSTEM_SERVER_PID,
        ppid: pids::ZYGOTE_PID,
        uid: 1000,
        name: "system_server",
        comm: None,
        start_ms: 4_800,
        boot_cpu_ms: 6_300,
        per_mille: 15,
        memory_pct: 300,
        threads: &[
            (581, "Signal Catcher", 0),
            (583, "HeapTaskDaemon", 4),
            (590, "binder:580_1", 0),
            (598, "android.fg", 0),
            (599, "android.ui", -2),
            (600, "android.display", -3),
            (pids::SYSTEM_SERVER_TID, "ActivityManager", -2),
            (640, "InputDispatcher", -8),
            (641, "InputReader", -8),
        ],
    },
    System {
        pid: pids::LAUNCHER_PID,
        ppid: pids::ZYGOTE_PID,
        uid: 10090,
        name: LAUNCHER_PKG,
        comm: None,
        start_ms: 14_000,
        boot_cpu_ms: 1_800,
        per_mille: 2,
        memory_pct: 140,
        threads: &[(1049, "binder:1043_1", 0), (1050, "RenderThread", -10)],
    },
    System {
        pid: pids::IME_PID,
        ppid: pids::ZYGOTE_PID,
        uid: 10100,
        name: IME_PKG,
        comm: None,
        start_ms: 15_200,
        boot_cpu_ms: 900,
        per_mille: 1,
        memory_pct: 90,
        threads: &[(1219, "binder:1212_1", 0), (1220, "RenderThread", -10)],
    },
];

/// The ids of the system's processes and their threads.
pub fn system_ids() -> Vec<u32> {
    SYSTEM
        .iter()
        .flat_map(|s| std::iter::once(s.pid).chain(s.threads.iter().map(|t| t.0)))
        .collect()
}

/// The uid of the app (`u0_a123`).
pub const APP_UID: u32 = 10123;

fn system_view(s: &System, now_ns: u64) -> ProcView {
    let started_ns = s.start_ms * MS;
    let cpu = s.boot_cpu_ms * MS + now_ns.saturating_sub(started_ns) / 1000 * s.per_mille;
    let n = s.threads.len() as u64 + 1;
    // The main thread does most of it; the others share the rest.
    let share = |main: bool| {
        if n == 1 {
            cpu
        } else if main {
            cpu * 6 / 10
        } else {
            cpu * 4 / 10 / (n - 1)
        }
    };
    let main = ThreadView {
        tid: s.pid,
        comm: comm(s.comm.unwrap_or(s.name)),
        nice: if s.uid >= 10_000 { 0 } else { -2 },
        started_ns,
        user_ns: share(true) * 7 / 10,
        sys_ns: share(true) * 3 / 10,
    };
    let others = s.threads.iter().map(|(tid, name, nice)| ThreadView {
        tid: *tid,
        comm: comm(name),
        nice: *nice,
        started_ns: started_ns + 20 * MS,
        user_ns: share(false) * 7 / 10,
        sys_ns: share(false) * 3 / 10,
    });
    ProcView {
        pid: s.pid,
        ppid: s.ppid,
        uid: s.uid,
        name: s.name.to_string(),
        started_ns,
        threads: std::iter::once(main).chain(others).collect(),
        running: false,
        memory: Table::of(
            Loaded {
                screens: 1,
                rows: 0,
            },
            s.memory_pct,
        ),
        app: s.uid >= 10_000,
    }
}

fn app_view(st: &DeviceState, now_ns: u64) -> ProcView {
    let perf = &st.perf;
    let threads = perf
        .threads
        .iter()
        .map(|t| {
            let (user_ns, sys_ns) = perf.thread_cpu(t, now_ns);
            ThreadView {
                tid: t.tid,
                comm: t.comm.clone(),
                nice: t.nice,
                started_ns: t.started_ns,
                user_ns,
                sys_ns,
            }
        })
        .collect();
    ProcView {
        pid: perf.pid,
        ppid: pids::ZYGOTE_PID,
        uid: APP_UID,
        name: st.app.spec.package.clone(),
        started_ns: perf.started_ns,
        threads,
        running: st.process.blocked(),
        memory: Table::of(perf.loaded(), 100),
        app: true,
    }
}

/// Every process of the device at `now_ns`, the app's last when it runs.
pub fn processes(st: &DeviceState, now_ns: u64) -> Vec<ProcView> {
    let mut v: Vec<ProcView> = SYSTEM.iter().map(|s| system_view(s, now_ns)).collect();
    if st.running {
        v.push(app_view(st, now_ns));
    }
    v
}

/// The process `pid` (or named `name`), if the device has it.
pub fn find(st: &DeviceState, now_ns: u64, which: &str) -> Option<ProcView> {
    let pid: Option<u32> = which.parse().ok();
    processes(st, now_ns)
        .into_iter()
        .find(|p| Some(p.pid) == pid || p.name == which)
}

/// The device's up time and the time its 8 cores idled, in hundredths of a second.
pub fn uptime_cs(st: &DeviceState, now_ns: u64) -> (u64, u64) {
    let busy_ns: u64 = processes(st, now_ns)
        .iter()
        .flat_map(|p| &p.threads)
        .map(|t| t.user_ns + t.sys_ns)
        .sum();
    let up = now_ns / (10 * MS);
    let busy = busy_ns / (10 * MS) + BOOT_NS / (10 * MS) / 4;
    (up, (up * 8).saturating_sub(busy))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::App;

    #[test]
    fn the_app_is_listed_while_it_runs_with_its_threads() {
        let mut st = DeviceState::new(App::demo().unwrap());
        let now = st.uptime_ns();
        let all = processes(&st, now);
        let names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "init",
                "zygote64",
                "system_server",
                LAUNCHER_PKG,
                IME_PKG,
                "com.mobilectl.demo"
            ]
        );
        let app = find(&st, now, "com.mobilectl.demo").unwrap();
        assert_eq!(app.pid, st.process.pid);
        assert_eq!(find(&st, now, &app.pid.to_string()).unwrap().name, app.name);
        assert_eq!(app.threads[0].comm, ".mobilectl.demo");
        assert!(app.threads.len() > 10);
        assert!(app.threads.iter().any(|t| t.comm == "RenderThread"));
        // Every thread id is unique across the device.
        let mut ids: Vec<u32> = all
            .iter()
            .flat_map(|p| p.threads.iter().map(|t| t.tid))
            .collect();
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n);
        assert_eq!(find(&st, now, "zygote64").unwrap().threads[0].comm, "main");
        let (up, idle) = uptime_cs(&st, now);
        assert!(up >= BOOT_NS / (10 * MS) && idle > up, "{up} {idle}");
        st.force_stop();
        assert!(find(&st, now, "com.mobilectl.demo").is_none());
        assert_eq!(processes(&st, now).len(), 5);
    }
}
