//! The app process's performance as the device reports it (`/proc`, `dumpsys meminfo`,
//! `dumpsys gfxinfo`): the device clock, the CPU time of each of the app's threads, the frames
//! it draws (see [`super::frames`]) and what it holds in memory — all a deterministic function
//! of what the app did and when.
//!
//! What costs what: a cold start (the process's first frame is slow), a hot start, each screen
//! shown (a transition; a screen's first inflation costs more and stays in memory), a tap (a
//! ripple), typing, a key, and a swipe — over a scrollable list, each row it brings into view
//! is bound on the main thread (the frames that bind rows are slow, some janky) and stays
//! loaded. A blocked main thread burns its CPU until it unblocks, then draws one very late
//! frame. When the app does nothing, only its binder and heap threads tick (a quarter of a
//! percent of a core).

use std::collections::BTreeSet;
use std::time::Instant;

use super::frames::{FrameCost, Frames, INTERVAL_NS};
use super::DeviceState;

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// How long the device had been up when it began answering adb (its boot).
pub const BOOT_NS: u64 = 25 * S;
/// The height of a row of a list, px: a swipe brings one row into view per this many pixels.
const ROW_PX: u64 = 220;

/// The device clock (`/proc/uptime`, `CLOCK_MONOTONIC`): ns since the device booted.
#[derive(Debug, Clone)]
pub struct Clock {
    started: Instant,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            started: Instant::now(),
        }
    }
}

impl Clock {
    pub fn uptime_ns(&self) -> u64 {
        BOOT_NS + u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX / 2)
    }
}

/// What the app did, as far as its performance goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// The process started and drew its first screen.
    ColdStart(String),
    /// The running app was brought to the front.
    HotStart,
    /// A screen was shown.
    Screen(String),
    /// A touch handled without leaving the screen.
    Tap,
    /// Characters typed into a field.
    Type(usize),
    /// A key handled (delete).
    Key,
    /// A swipe of `distance_px` over `duration_ms`; `list` when it moved a scrollable list.
    Scroll {
        duration_ms: u64,
        distance_px: u64,
        list: bool,
    },
}

/// The app's threads: name (the main thread's is the process's), nice, and the CPU each
/// spends while the app idles (user, system; ns a second).
const THREADS: [(&str, i32, u64, u64); 15] = [
    ("", -10, 0, 0),
    ("Signal Catcher", 0, 0, 0),
    ("perfetto_hprof_", 0, 0, 0),
    ("ADB-JDWP Connec", 0, 0, 0),
    ("Jit thread pool", 9, 0, 0),
    ("HeapTaskDaemon", 4, 1_000_000, 0),
    ("ReferenceQueueD", 4, 0, 0),
    ("FinalizerDaemon", 4, 0, 0),
    ("FinalizerWatchd", 4, 0, 0),
    ("binder:%_1", 0, 0, 1_500_000),
    ("binder:%_2", 0, 0, 0),
    ("binder:%_3", 0, 0, 0),
    ("Profile Saver", 9, 0, 0),
    ("RenderThread", -10, 0, 0),
    ("hwuiTask0", -2, 0, 0),
];
const MAIN: usize = 0;
const JIT: usize = 4;
const HEAP: usize = 5;
const BINDER: usize = 9;
const PROFILE_SAVER: usize = 12;
const RENDER: usize = 13;
const HWUI: usize = 14;

/// A thread of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    /// Its id (the main thread's is the pid).
    pub tid: u32,
    /// Its name as the kernel keeps it (15 bytes at most).
    pub comm: String,
    pub nice: i32,
    pub started_ns: u64,
    user_ns: u64,
    sys_ns: u64,
    idle_user: u64,
    idle_sys: u64,
}

/// What the app holds: the screens it inflated and the list rows it loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loaded {
    pub screens: u64,
    pub rows: u64,
}

/// The performance of one run of the app's process.
#[derive(Debug, Clone)]
pub struct AppPerf {
    pub pid: u32,
    pub started_ns: u64,
    pub threads: Vec<Thread>,
    pub frames: Frames,
    screens: BTreeSet<String>,
    rows: u64,
    blocked_since: Option<u64>,
}

/// The name the kernel keeps for a process or thread: Android names an app's main thread
/// after the last 15 characters of a dotted process name; the kernel keeps 15 bytes.
pub fn comm(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let tail = if chars.len() >= 15 && name.contains('.') && !name.contains('@') {
        &chars[chars.len() - 15..]
    } else {
        &chars[..]
    };
    let mut s: String = tail.iter().collect();
    while s.len() > 15 {
        s.pop();
    }
    s
}

/// The ids of the threads of process `pid`, the main thread's first: above every pid the
/// device hands out to processes (or right after a pid beyond them).
fn thread_ids(pid: u32) -> Vec<u32> {
    let base = if pid < 20_000 {
        20_000 + (pid % 1_000) * 16
    } else {
        pid
    };
    (0..THREADS.len() as u32)
        .map(|i| if i == 0 { pid } else { base + i })
        .collect()
}

impl AppPerf {
    /// A process `pid` of `package` that has just started (nothing drawn yet).
    pub fn new(now_ns: u64, pid: u32, package: &str) -> AppPerf {
        let threads = THREADS
            .iter()
            .zip(thread_ids(pid))
            .enumerate()
            .map(|(i, ((name, nice, idle_user, idle_sys), tid))| Thread {
                tid,
                comm: match i {
                    MAIN => comm(package),
                    _ => comm(&name.replace('%', &pid.to_string())),
                },
                nice: *nice,
                // Threads start as the runtime comes up, a few ms apart.
                started_ns: now_ns + i as u64 * 3 * MS,
                user_ns: 0,
                sys_ns: 0,
                idle_user: *idle_user,
                idle_sys: *idle_sys,
            })
            .collect();
        AppPerf {
            pid,
            started_ns: now_ns,
            threads,
            frames: Frames::new(now_ns),
            screens: BTreeSet::new(),
            rows: 0,
            blocked_since: None,
        }
    }

    fn cpu(&mut self, thread: usize, user_ms: u64, sys_ms: u64) {
        self.threads[thread].user_ns += user_ms * MS;
        self.threads[thread].sys_ns += sys_ms * MS;
    }

    /// Draws `costs` from `now_ns`: the main thread pays their UI time, RenderThread the
    /// rest.
    fn draw(&mut self, now_ns: u64, costs: &[FrameCost]) {
        let render = self.frames.draw(now_ns, costs);
        let ui: u64 = costs.iter().map(|c| c.ui_ns).sum();
        let main = &mut self.threads[MAIN];
        main.user_ns += ui * 85 / 100;
        main.sys_ns += ui * 15 / 100;
        let rt = &mut self.threads[RENDER];
        rt.user_ns += render * 70 / 100;
        rt.sys_ns += render * 30 / 100;
        self.threads[HWUI].user_ns += render / 20;
    }

    /// Records what the app did at `now_ns`.
    pub fn work(&mut self, now_ns: u64, work: Work) {
        match work {
            Work::ColdStart(screen) => {
                self.cpu(MAIN, 310, 95);
                self.cpu(JIT, 80, 4);
                self.cpu(HEAP, 12, 2);
                self.cpu(BINDER, 2, 6);
                self.cpu(PROFILE_SAVER, 3, 1);
                self.cpu(RENDER, 18, 6);
                self.screens.insert(screen);
                let mut costs = vec![first_frame(9_500, 2_200)];
                costs.extend((0..10).map(|k| settle(k, 0)));
                self.draw(now_ns, &costs);
            }
            Work::HotStart => {
                self.cpu(MAIN, 22, 6);
                let mut costs = vec![first_frame(900, 500)];
                costs.extend((0..6).map(|k| settle(k, 0)));
                self.draw(now_ns, &costs);
            }
            Work::Screen(name) => {
                let first = self.screens.insert(name);
                let first_ui = if first {
                    self.cpu(MAIN, 48, 9);
                    self.cpu(JIT, 10, 1);
                    2_600
                } else {
                    self.cpu(MAIN, 14, 4);
                    800
                };
                let mut costs = vec![first_frame(first_ui, 700)];
                costs.extend((0..18).map(|k| settle(k, 0)));
                self.draw(now_ns, &costs);
            }
            Work::Tap => {
                self.cpu(MAIN, 3, 1);
                let costs: Vec<FrameCost> = (0..6).map(|k| settle(k, 1)).collect();
                self.draw(now_ns, &costs);
            }
            Work::Type(chars) => {
                let chars = chars as u64;
                self.threads[MAIN].user_ns += chars * 1_400_000;
                let costs: Vec<FrameCost> = (0..2 * chars).map(|k| settle(k, 1)).collect();
                self.draw(now_ns, &costs);
            }
            Work::Key => {
                self.cpu(MAIN, 1, 0);
                self.draw(now_ns, &[settle(0, 1), settle(1, 1)]);
            }
            Work::Scroll {
                duration_ms,
                distance_px,
                list,
            } => self.scroll(now_ns, duration_ms, distance_px, list),
        }
    }

    /// A swipe: one frame a vsync while the finger moves, then a fling over a list; each row
    /// coming into view is bound during a frame, which makes that frame slow.
    fn scroll(&mut self, now_ns: u64, duration_ms: u64, distance_px: u64, list: bool) {
        let touch = (duration_ms * S / 1_000 / INTERVAL_NS).max(4);
        let fling = if list { (distance_px / 24).min(90) } else { 4 };
        let n = touch + fling;
        let rows = if list {
            (distance_px * 2 / ROW_PX + 1).min(n)
        } else {
            0
        };
        let costs: Vec<FrameCost> = (0..n)
            .map(|k| {
                let binds = (k + 1) * rows / n > k * rows / n;
                let mut c = if binds {
                    let seq = self.rows + k * rows / n;
                    FrameCost::of(1_300 + (seq % 4) * 550, 450)
                } else {
                    settle(k, 0)
                };
                c.input = k < touch;
                c
            })
            .collect();
        self.rows += rows;
        self.draw(now_ns, &costs);
    }

    /// The main thread blocks (busy) from `now_ns`.
    pub fn block(&mut self, now_ns: u64) {
        self.blocked_since.get_or_insert(now_ns);
    }

    /// The main thread unblocks at `now_ns`: the frame it owed since it blocked is drawn,
    /// that late.
    pub fn unblock(&mut self, now_ns: u64) {
        let Some(since) = self.blocked_since.take() else {
            return;
        };
        let blocked = now_ns.saturating_sub(since);
        self.threads[MAIN].user_ns += blocked;
        let mut late = FrameCost::of(900, 600);
        late.late_ns = blocked;
        self.draw(since, &[late]);
    }

    /// A thread's CPU time at `now_ns`: (user, system) ns.
    pub fn thread_cpu(&self, thread: &Thread, now_ns: u64) -> (u64, u64) {
        let alive = now_ns.saturating_sub(thread.started_ns);
        let mut user = thread.user_ns + thread.idle_user * alive / S;
        let sys = thread.sys_ns + thread.idle_sys * alive / S;
        if thread.tid == self.pid {
            if let Some(since) = self.blocked_since {
                user += now_ns.saturating_sub(since);
            }
        }
        (user, sys)
    }

    /// What the app holds in memory.
    pub fn loaded(&self) -> Loaded {
        Loaded {
            screens: self.screens.len() as u64,
            rows: self.rows,
        }
    }
}

/// The first frame of a window (its layout changed): `ui` hundredths of a ms on the main
/// thread.
fn first_frame(ui_cms: u64, render_cms: u64) -> FrameCost {
    FrameCost {
        flags: 1,
        ..FrameCost::of(ui_cms, render_cms)
    }
}

/// An ordinary frame (an animation, a ripple, the fling of a list): 6 to 11 ms, varying
/// with `k`; `input` when it answers a touch or key.
fn settle(k: u64, input: u64) -> FrameCost {
    FrameCost {
        input: input == 1,
        ..FrameCost::of(380 + (k * 37 % 29) * 10, 240 + (k * 53 % 23) * 10)
    }
}

impl DeviceState {
    /// Records what the app did, when it runs.
    pub(super) fn note(&mut self, work: Work) {
        if self.running {
            let now = self.clock.uptime_ns();
            self.perf.work(now, work);
        }
    }

    /// A swipe from `from` to `to` over `duration_ms` (not a tap): the app in front draws it,
    /// and a list under its start scrolls.
    pub fn swipe(&mut self, from: (i32, i32), to: (i32, i32), duration_ms: u64) {
        if !self.foreground || self.shade_open || self.input_blocked() {
            return;
        }
        let (x, y) = self.to_portrait(from.0, from.1);
        let h = self.portrait();
        let list = self
            .hit(&h, x, y)
            .iter()
            .any(|p| h.node(p).is_some_and(|n| n.flag("scrollable")));
        let (dx, dy) = (
            i64::from(to.0 - from.0).unsigned_abs(),
            i64::from(to.1 - from.1).unsigned_abs(),
        );
        let distance_px = (dx * dx + dy * dy).isqrt();
        self.note(Work::Scroll {
            duration_ms,
            distance_px,
            list,
        });
    }

    /// The device clock, ns since boot.
    pub fn uptime_ns(&self) -> u64 {
        self.clock.uptime_ns()
    }

    /// How many views the app's window holds now.
    pub fn app_views(&self) -> usize {
        let package = &self.app.spec.package;
        self.live.get(&self.screen).map_or(0, |h| {
            h.walk()
                .iter()
                .filter(|(_, n)| n.get("package") == package.as_str())
                .count()
        })
    }

    /// How many of the app's activities are alive (the one shown and those under it).
    pub fn app_activities(&self) -> usize {
        if self.running {
            self.history.len() + 1
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticks(p: &AppPerf, now: u64) -> u64 {
        let ns: u64 = p
            .threads
            .iter()
            .map(|t| {
                let (u, s) = p.thread_cpu(t, now);
                u + s
            })
            .sum();
        ns / (10 * MS)
    }

    #[test]
    fn names_as_the_kernel_keeps_them() {
        assert_eq!(comm("com.mobilectl.demo"), ".mobilectl.demo");
        assert_eq!(comm("com.android.systemui"), "ndroid.systemui");
        assert_eq!(comm("com.example"), "com.example");
        assert_eq!(comm("binder:4194304_1"), "binder:4194304_");
        let ids = thread_ids(4301);
        assert_eq!(ids[0], 4301);
        assert!(ids[1..].iter().all(|t| *t > 20_000));
        assert_eq!(
            thread_ids(4302)[1],
            ids[1] + 16,
            "a restart's threads are new"
        );
        assert_eq!(thread_ids(70_000)[1], 70_001);
    }

    #[test]
    fn work_moves_cpu_frames_and_memory_idle_does_not() {
        let t0 = BOOT_NS;
        let mut p = AppPerf::new(t0, 4301, "com.mobilectl.demo");
        p.work(t0, Work::ColdStart("login".into()));
        let start_frames = p.frames.total;
        assert_eq!(start_frames, 11);
        assert_eq!(
            p.frames.recent().next().unwrap().columns[0],
            1,
            "a new window"
        );
        let after_start = ticks(&p, t0 + S);
        assert!(after_start >= 50, "{after_start}");
        // Ten idle seconds: a tick or so.
        let idle = ticks(&p, t0 + 11 * S) - after_start;
        assert!(idle <= 3, "{idle}");
        // A scroll over a list: many frames, some janky, rows loaded, CPU.
        let before = p.loaded();
        let ticks_before = ticks(&p, t0 + 11 * S);
        p.work(
            t0 + 11 * S,
            Work::Scroll {
                duration_ms: 300,
                distance_px: 1_200,
                list: true,
            },
        );
        let drawn = p.frames.total - start_frames;
        assert!(drawn >= 60, "{drawn}");
        assert!(p.frames.janky >= 2, "{}", p.frames.janky);
        assert!(p.loaded().rows > before.rows);
        let ticks_after = ticks(&p, t0 + 11 * S);
        assert!(
            ticks_after > ticks_before + 40,
            "{ticks_before} → {ticks_after}"
        );
        // The same swipe elsewhere loads nothing.
        let rows = p.loaded().rows;
        p.work(
            t0 + 13 * S,
            Work::Scroll {
                duration_ms: 300,
                distance_px: 1_200,
                list: false,
            },
        );
        assert_eq!(p.loaded().rows, rows);
        // Screens: inflated once.
        p.work(t0 + 14 * S, Work::Screen("list".into()));
        p.work(t0 + 15 * S, Work::Screen("list".into()));
        assert_eq!(p.loaded().screens, 2);
    }

    #[test]
    fn a_blocked_main_thread_burns_cpu_then_draws_a_late_frame() {
        let t0 = BOOT_NS;
        let mut p = AppPerf::new(t0, 4301, "com.mobilectl.demo");
        let main = p.threads[0].clone();
        p.block(t0 + S);
        let (user, _) = p.thread_cpu(&main, t0 + 3 * S);
        assert_eq!(user, 2 * S);
        p.unblock(t0 + 5 * S);
        let main = p.threads[0].clone();
        assert!(p.thread_cpu(&main, t0 + 9 * S).0 >= 4 * S);
        let late = p.frames.recent().last().unwrap();
        assert!(late.duration_ns() >= 4 * S);
        assert_eq!(
            (p.frames.janky, p.frames.jank_types[0]),
            (1, 1),
            "missed vsync"
        );
    }
}
